// kind = "apt_install": packages installed with apt, never a kernel module.
//
//   [[step]]
//   id = "rocm"
//   kind = "apt_install"
//   packages = ["hsa-runtime-rocr4wsl-amdgpu", "rocm-dev"]
//   install_recommends = false   # optional, default false (--no-install-recommends)
//   no_dkms = true               # optional, default true: refuse dkms, *-dkms,
//                                #   linux-headers-*, linux-modules-extra-*
//   lock_timeout = 120           # optional, seconds to wait for dpkg's lock
//
// State touched: the packages apt installs, upgrades or removes for the
// request. Plan reads ROOT/var/lib/dpkg/status; when a package is missing it
// asks apt's own simulation (`apt-get -s install ...`) for the full
// transaction, dependencies included, against the sources earlier steps of
// the same run would add (a private apt configuration under the state
// directory), and lists every package. When everything is installed, plan
// and apply run no apt at all. Apply installs non-interactively and records
// which packages are new (dpkg status before and after). Undo purges exactly
// those; packages the user had before are never touched (an upgrade of one
// is not reverted, and undo says so).
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_apt_install_step(StepKeys& keys);

}  // namespace wslgpu
