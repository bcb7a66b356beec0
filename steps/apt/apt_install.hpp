// kind = "apt_install": packages installed with apt, at the versions asked
// for, never a kernel module.
//
//   [[step]]
//   id = "rocm"
//   kind = "apt_install"
//   packages = ["hsa-runtime-rocr4wsl-amdgpu", "rocm-dev"]
//   versions = { rocm-dev = "6.4.2.*" }   # optional: a glob over the version, or a relation
//                                         #   such as ">= 6.4.2~" (formats/deb_version.hpp)
//   replaces = ["cuda-toolkit-*"]         # optional: what these packages replace (below)
//   install_recommends = false   # optional, default false (--no-install-recommends)
//   no_dkms = true               # optional, default true: refuse dkms, *-dkms,
//                                #   linux-headers-*, linux-modules-extra-*
//   lock_timeout = 120           # optional, seconds to wait for dpkg's lock
//
// State touched: the packages apt installs, upgrades, downgrades or removes
// for the request. Plan reads ROOT/var/lib/dpkg/status (and, with
// `replaces`, apt's record of automatically installed packages): when every
// package is installed at a version its spec matches and nothing it
// replaces is installed, plan and apply run no apt at all. Otherwise plan
// picks, for each package with a spec, the newest version apt can fetch
// that matches (`apt-cache madison`), and asks apt's own simulation for the
// full transaction (dependencies, upgrades, downgrades, removals) against
// the sources earlier steps of the same run would add (a private apt
// configuration under the state directory). A downgrade whose dependencies
// are pinned exactly (Depends: x (= v), as AMD's and these meta packages
// have them) is resolved by asking for those versions too, which apt does
// not do by itself.
//
// `replaces` lists patterns of packages the request takes the place of: an
// installed package matching one, that was asked for (not installed as a
// dependency) and is not in `packages`, is removed in the same apt run, and
// so are the dependencies that only it, or an old version, needed. Switching
// releases (cuda-toolkit-12-6 to cuda-toolkit-13-0) is then one transaction
// that ends with the old release gone.
//
// Apply performs exactly the request the plan resolved (its fingerprint
// "apt:request"), non-interactively, and records what changed: packages new
// to the machine, packages whose version changed (with the old version and
// whether apt had installed it as a dependency), packages removed. Undo
// purges the new packages and puts the old versions and the removed
// packages back in one apt run, marking automatic again what was automatic,
// when apt can still fetch every one of those versions (from a source or
// its cache in /var/cache/apt/archives). When it cannot, undo changes no
// package and says which versions are gone and how to get them back; plan
// warns about such versions beforehand.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_apt_install_step(StepKeys& keys);

}  // namespace wslgpu
