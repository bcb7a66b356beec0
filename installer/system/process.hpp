// Every external program runs through a ProcessRunner, from an argument list
// (never through a shell) and with a timeout, because the tools we call
// (rocminfo, nvidia-smi, cmd.exe, wslinfo) are known to hang. When the target
// root is not "/", the real runner chroots into it before exec, so that the
// root's own apt, dpkg and shadow tools act on it. Tests use the scripted fake
// in tests/support.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace wslgpu {

struct Command {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to a minimal clean environment
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
  std::string stdin_data;
  bool in_root = true;  // chroot into the target root before exec
  // Called with each line of standard error as it arrives (without the line
  // break), for programs whose progress the user should see while they run.
  // The lines are in ProcessResult::err too.
  std::function<void(const std::string&)> on_stderr_line;

  // "apt-get -s install rocm-dev", quoted where needed, for messages and logs.
  std::string display() const;
};

struct ProcessResult {
  int exit_code = -1;      // the exit status, or 128+signal
  bool timed_out = false;  // killed after Command::timeout
  bool not_found = false;  // the program does not exist
  std::string out;         // standard output
  std::string err;         // standard error

  bool ok() const { return exit_code == 0 && !timed_out && !not_found; }
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Runs CMD to completion (or its timeout). Never throws for a failing
  // program: the caller decides what a non-zero exit means.
  virtual ProcessResult run(const Command& cmd) = 0;
};

// fork, chroot (when the root is not "/"), exec; output captured through pipes.
class RealProcessRunner : public ProcessRunner {
 public:
  explicit RealProcessRunner(std::string root) : root_(std::move(root)) {}
  ProcessResult run(const Command& cmd) override;

 private:
  std::string root_;
};

}  // namespace wslgpu
