// Ctrl-C (SIGINT), SIGTERM (a job runner stopping the run) and SIGHUP (the
// terminal went away) while a command works on the machine. Dying at once
// would stop apt or dpkg halfway and leave the run for `recover`; instead the
// signal is only noted here, the program in progress is left to finish (or,
// when stopping it is harmless, such as a download, stopped), and the
// transaction is undone at the next safe point (installer/transaction/).
// SIGKILL and power loss cannot be caught: the journal covers those.
#pragma once
#include <string>

namespace wslgpu {

// Catches SIGINT, SIGTERM and SIGHUP while it lives; a SIGHUP that was
// ignored when the tool started (nohup) stays ignored. FIRST is written to
// standard error when the first signal arrives, AGAIN on every later one
// (so that a second Ctrl-C is answered, not obeyed). Both must outlive the
// scope. One scope at a time.
class InterruptScope {
 public:
  InterruptScope(const char* first, const char* again);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// The first signal received in the current scope, or 0.
int interrupt_signal();

// "SIGINT", "SIGTERM", "SIGHUP", or "signal N".
std::string signal_name(int signo);

// Throws Interrupted (exit 128 + the signal) saying WHAT when a signal has
// arrived: "interrupted (SIGINT) while planning; nothing was changed".
void throw_if_interrupted(const std::string& what);

// The same without asking: for a program the runner stopped because of a
// signal (ProcessResult::interrupted). SIGINT when none is recorded.
[[noreturn]] void throw_interrupted(const std::string& what);

}  // namespace wslgpu
