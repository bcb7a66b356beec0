// kind = "profile_env": environment for login shells, such as the ROCm or
// CUDA bin folder on PATH and HSA_ENABLE_DXG_DETECTION=1.
//
//   [[step]]
//   id = "rocm-env"
//   kind = "profile_env"
//   target = "system"                       # or "user" (default "system")
//   path_append = ["/opt/rocm/bin"]         # added at the end of PATH when missing
//   path_prepend = ["/usr/local/cuda/bin"]  # added at the front of PATH when missing
//   ld_library_path = ["/usr/lib/wsl/lib"]  # added at the front of LD_LIBRARY_PATH when missing
//   library_path = ["/usr/lib/wsl/lib"]     # the same for LIBRARY_PATH, where the linker (ld -lcuda) looks
//   env = { HSA_ENABLE_DXG_DETECTION = "1" }
//
// Target "system" writes ROOT/etc/profile.d/wslgpu-<manifest>.sh (0644,
// root). Target "user" keeps one managed block in the provisioned user's
// ~/.bashrc, between "# >>> wslgpu-setup <manifest> >>>" and
// "# <<< wslgpu-setup <manifest> <<<", keeping the rest of the file, its mode
// and its owner. A rerun with the same keys changes nothing; a marker found
// twice, or without its partner, stops the plan with FILE:LINE and leaves the
// file as it is. Every value is written in single quotes, so "$(...)",
// backquotes and quotes stay text; a folder already on PATH at login is not
// added again (the written shell tests ":$PATH:" first).
//
// State touched: that one file, as a plan write. Undo: the runner restores
// it byte for byte (mode and owner too), or removes it when it did not exist.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_profile_env_step(StepKeys& keys);

}  // namespace wslgpu
