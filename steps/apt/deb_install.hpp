// kind = "deb_install": a single .deb installed with dpkg, such as AMD's
// amdgpu-install_*.deb or NVIDIA's cuda-keyring_*.deb.
//
//   [[step]]
//   id = "cuda-keyring"
//   kind = "deb_install"
//   url = "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/cuda-keyring_1.1-1_all.deb"
//   sha256 = "d93190d5...."        # required with url
//   # or: path = "/var/lib/wslgpu-setup/cache/cuda-keyring_1.1-1_all.deb"   (a target path, e.g. from a download step)
//
// State touched: the package. Before anything is installed, plan opens the
// .deb with libarchive and shows its name, version, dependencies and every
// file it would install; it refuses a package that ships kernel modules
// (/lib/modules/...), a DKMS source tree (/usr/src/*/dkms.conf) or depends
// on a *-dkms package. With url, plan downloads into STATE_DIR/cache (and
// checks sha256) so the package can be shown; with a path that an earlier
// step creates, plan cannot look inside yet and apply checks it before dpkg
// runs. Apply runs `dpkg -i PATH` inside the root (dpkg installs no
// dependencies: install them with an apt_install step first). Undo purges
// the package when it was not installed before.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_deb_install_step(StepKeys& keys);

}  // namespace wslgpu
