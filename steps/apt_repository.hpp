// kind = "apt_repository": a vendor's apt repository with its signing key.
//
//   [[step]]
//   id = "rocm-repo"
//   kind = "apt_repository"
//   repo_name = "rocm"                              # file names: rocm.sources, rocm.asc, rocm.pref
//   uris = ["https://repo.radeon.com/rocm/apt/${rocm_version}"]
//   suites = ["${host.codename}"]
//   components = ["main"]
//   architectures = ["amd64"]                       # optional
//   key_url = "https://repo.radeon.com/rocm/rocm.gpg.key"   # or key_file = "/path/in/root"
//   key_sha256 = "73f5...e1"                        # required: checked before the key is used
//   pin_origin = "repo.radeon.com"                  # optional, with pin_priority
//   pin_priority = 600
//
// State touched: three files, all written by the runner from StepPlan::writes
// (so undo is the runner's restore: what was added is removed, what was
// replaced comes back):
//   /etc/apt/sources.list.d/NAME.sources   deb822: Types, URIs, Suites,
//                                          Components, Architectures, Signed-By
//   /etc/apt/keyrings/NAME.asc (ASCII-armoured key, which apt reads without
//                              gpg) or NAME.gpg (binary key)
//   /etc/apt/preferences.d/NAME.pref       "Pin: release o=PIN_ORIGIN", only with a pin
// Plan fetches key_url with libcurl into STATE_DIR/cache (https:// or
// file:///), and verifies key_sha256 before anything else looks at the key.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_apt_repository_step(StepKeys& keys);

}  // namespace wslgpu
