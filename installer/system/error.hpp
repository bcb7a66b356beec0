// Errors and exit statuses. Helpers deep in the code throw one of these; the
// one catch chain in main.cpp turns them into a message and an exit status, so
// that unattended scripts can rely on the numbers below (documented in the
// README and in --help).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace wslgpu {

enum class ExitCode : int {
  ok = 0,                // success, or nothing to do
  failed = 1,            // a step or check failed (and what was done was rolled back)
  bad_input = 2,         // malformed manifest, unknown option, bad value
  refused = 3,           // a guard refused, or the machine no longer matches a saved plan
  locked = 4,            // another run holds the lock
  needs_recovery = 5,    // an unfinished transaction (interrupted, or its rollback failed) must be recovered
  changes_pending = 10,  // `plan --detailed-exitcode` and something would change
  // 128 + the signal that stopped the run at a safe point, after what it had
  // done was undone: 130 for Ctrl-C (SIGINT), 143 for SIGTERM, 129 for SIGHUP.
  interrupted = 130,
};

// Where something came from: a manifest position or a command-line option.
struct SourcePos {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;

  // "FILE:LINE:COLUMN", "FILE:LINE" or "FILE", whichever is known.
  std::string str() const;
};

// One problem in the user's input, located as precisely as we can.
struct Diagnostic {
  SourcePos pos;
  std::string message;

  // "FILE:LINE:COLUMN: message"
  std::string str() const;
};

// An error the user can act on. `what()` is the whole message.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad input (exit 2). Carries every diagnostic found, not just the first.
class InputError : public Error {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  InputError(SourcePos pos, const std::string& message)
      : InputError(std::vector<Diagnostic>{{std::move(pos), message}}) {}
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// A guard refused (exit 3).
class Refusal : public Error {
 public:
  explicit Refusal(const std::string& message) : Error(ExitCode::refused, message) {}
};

// A signal stopped the run (exit 128 + the signal; see ExitCode::interrupted).
class Interrupted : public Error {
 public:
  Interrupted(int signo, const std::string& message) : Error(static_cast<ExitCode>(128 + signo), message), signal_(signo) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// A step could not do its work (exit 1): a command failed, a file was unreadable.
class StepFailure : public Error {
 public:
  explicit StepFailure(const std::string& message) : Error(ExitCode::failed, message) {}
};

// A file that only root may read, or a folder only root may write, met by a
// run without root (plan, as a normal user): the plan says so and to run it
// again with sudo, rather than a bare "Permission denied".
class NeedsRoot : public StepFailure {
 public:
  using StepFailure::StepFailure;
};

}  // namespace wslgpu
