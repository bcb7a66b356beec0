// kind = "apt_remove": distribution packages that get in the way removed,
// such as Ubuntu 24.04's own ROCm 5.7 runtime, which shadows /opt/rocm.
//
//   [[step]]
//   id = "distro-hsa"
//   kind = "apt_remove"
//   packages = ["libhsa-runtime64-1", "libhsakmt1"]
//   matching = ["amdrocm*"]      # optional: patterns of installed packages removed too
//   auto_remove = true           # optional: also what only they needed (default false)
//   lock_timeout = 120           # optional, seconds to wait for dpkg's lock
//
// State touched: the named packages that are installed, and whatever apt
// must remove with them (plan lists it, from `apt-get -s remove`). Packages
// that are not installed are left alone; a step with none installed is a
// no-op that runs no apt. Apply runs `apt-get remove -y` (configuration files
// stay) and records the name and version of everything removed. Undo
// reinstalls exactly those versions (`apt-get install name=version`); when
// apt can no longer fetch one, undo fails and says so plainly.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_apt_remove_step(StepKeys& keys);

}  // namespace wslgpu
