// The terminal a changing command talks to: the question before it changes
// anything, what it says the moment a signal arrives, and the progress of
// each step while a run works.
#pragma once
#include <string>

#include "installer/cli/commands.hpp"
#include "installer/transaction/transaction.hpp"

namespace wslgpu {

// What the signal handler says at once (installer/system/interrupt.hpp), for
// InterruptScope: the first signal, then any other. The leading line break
// moves off a progress line.
inline constexpr const char* kChangeInterrupted =
    "\nwslgpu-setup: interrupted: the step in progress is let reach a safe point, then everything this run did is "
    "undone. Please wait.\n";
inline constexpr const char* kChangeAgain =
    "\nwslgpu-setup: still finishing safely: stopping apt or dpkg halfway would leave the machine broken, so the "
    "step in progress ends first, then the run is undone. (kill -9 would leave it for `recover`.)\n";
inline constexpr const char* kRollbackInterrupted =
    "\nwslgpu-setup: interrupted: the rollback goes on to its end, since stopping it halfway would leave the "
    "machine half undone. Please wait.\n";
inline constexpr const char* kRollbackAgain = "\nwslgpu-setup: still finishing the rollback safely; please wait.\n";
inline constexpr const char* kPlanInterrupted = "\nwslgpu-setup: interrupted; nothing has been changed.\n";

// Asks QUESTION [y/N] on standard input; true for y, Y or yes. A signal at
// the question answers no at once.
bool confirm(const std::string& question);

// Whether to ask before a change: text output on a terminal, without --yes.
bool interactive(const ChangeOptions& o);

// What people see while a run works: each step's start, its progress while
// a long program runs, and its result. Nothing unless ENABLED (text output)
// or with -q.
RunCallbacks text_callbacks(const GlobalOptions& g, bool enabled);

}  // namespace wslgpu
