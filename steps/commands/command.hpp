// kind = "command": runs an argument list in the root, for what no step kind
// covers. It never goes through a shell.
//
//   [[step]]
//   id = "ldconfig"
//   kind = "command"
//   argv = ["ldconfig"]
//   creates = "/etc/ld.so.cache"          # optional: skip when this path exists
//   unless = ["test", "-e", "/x"]         # optional: skip when this command exits 0
//   undo = ["rm", "-f", "/x"]             # optional: how to reverse it
//   timeout = 600                         # seconds for each of argv, unless and undo (default 600)
//   env = { DEBIAN_FRONTEND = "noninteractive" }
//
// Idempotence comes from `creates` or `unless`; without either, plan says
// the command will run every time. Plan looks at `creates` and runs
// `unless` (which must only read); apply looks again before running, so an
// earlier step of the same install counts. Without `undo` the step is
// marked irreversible and plan says so.
//
// State touched: whatever the command does. Undo: runs `undo` when apply ran
// the command, and also when the command failed or the run was killed while
// it ran (it may have done part of its work); nothing when it was skipped. A
// rollback that is itself interrupted runs undo again, so `undo` should
// succeed when there is nothing left to reverse (`rm -f`, not `rm`).
#pragma once
#include "installer/system/process.hpp"
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_command_step(StepKeys& keys);

// "`CMD` exited N: <last lines of standard error>", or why it did not run
// ("was not found", "did not finish within N s"), for StepFailure messages.
std::string process_failure_message(const Command& cmd, const ProcessResult& result);

}  // namespace wslgpu
