// Every external program runs through a ProcessRunner, from an argument list
// (never through a shell) and with a timeout, because the tools we call
// (rocminfo, nvidia-smi, cmd.exe, wslinfo) are known to hang. When the target
// root is not "/", the real runner chroots into it before exec, so that the
// root's own apt, dpkg and shadow tools act on it. Tests use the scripted fake
// in tests/support.
#pragma once
#include <atomic>
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
  // Called with each line the program writes to file descriptor kStatusFd,
  // which is a pipe when this is set: apt's `-o APT::Status-Fd=3` and
  // dpkg's `--status-fd 3`, the machine-readable progress they report.
  std::function<void(const std::string&)> on_status_line;
  // What a signal caught by the tool (installer/system/interrupt.hpp) does
  // to the program: by default nothing, it runs to its end, since stopping
  // dpkg halfway is what the tool exists to avoid. Set only for programs
  // that may stop at any point without harm (a download, apt-get
  // --download-only, a simulation): they get SIGTERM, and the result says
  // `interrupted`.
  bool stop_on_interrupt = false;
  // Like on_stderr_line, for standard output (pip reports what it collects
  // and installs there); the lines are in ProcessResult::out too. Last, so
  // that the brace-initialized Commands of the tests keep their order.
  std::function<void(const std::string&)> on_stdout_line;
  // The folder the program starts in (inside the target root when in_root),
  // or "" for the root folder: `apt-get download` writes where it starts.
  std::string cwd;
  // Stops the program as a signal would (stop_on_interrupt) when it becomes
  // true: set by a caller that gave up what the program works for (the
  // other downloads of a set when one of them failed,
  // installer/net/download_set.hpp). Only for programs that may stop at any
  // point. Last, for the same reason as on_stdout_line.
  const std::atomic<bool>* stop_flag = nullptr;

  // "apt-get -s install rocm-dev", quoted where needed, for messages and logs.
  std::string display() const;
};

// The descriptor a program writes its status lines to (Command::on_status_line).
inline constexpr int kStatusFd = 3;

struct ProcessResult {
  int exit_code = -1;      // the exit status, or 128+signal
  bool timed_out = false;  // killed after Command::timeout
  bool not_found = false;  // the program does not exist
  bool interrupted = false;  // stopped because of a signal (Command::stop_on_interrupt)
  std::string out;         // standard output
  std::string err;         // standard error

  bool ok() const { return exit_code == 0 && !timed_out && !not_found && !interrupted; }
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
