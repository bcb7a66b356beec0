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
//   key_fingerprint = "CA8B B472 7A47 B4D0 9B4E  E896 9386 B48A 1A69 3C5C"   # or key_sha256 = "..."
//   pin_origin = "repo.radeon.com"                  # optional, with pin_priority
//   pin_priority = 600
//
// The key is pinned by its OpenPGP v4 fingerprint (the file must hold that
// primary key and no other) or by the SHA-256 of its file; the fingerprint
// is the better pin, since vendors re-issue the file when they extend the
// key's expiry. Plan fetches key_url (https:// or file:///) into
// STATE_DIR/cache/keys/, named by the fingerprint (or hash), and checks it
// there on every plan, so a converged plan needs no network.
//
// Other sources of the same repository: apt refuses to read any source when
// two entries name the same URI and suite with different Signed-By, which is
// what installing over amdgpu-install or cuda-keyring used to cause. So plan
// first reads every source apt reads (installer/formats/apt_sources.hpp):
//   - entries that already say what this step wants, signed by the pinned
//     key alone (NVIDIA's cuda-keyring list), are reused: the step writes no
//     source and no key, and is a no-op;
//   - other entries of the same URI and suite are taken over: their lines or
//     stanzas are removed (their file when nothing else is left in it),
//     with their keyring once nothing else names it, and the general pins of
//     the same origin in preferences.d that this step's pin replaces.
// A file a package installed as a conffile is removed like any other (dpkg
// keeps a deleted conffile deleted on upgrade); a plain file of a package is
// taken over with a warning, since dpkg puts it back on the next upgrade.
//
// State touched: files only, all written by the runner from StepPlan::writes
// in this order (and undone in reverse, so apt never sees the old entries and
// the new source at once): the entries taken over, their keyrings, then
//   /etc/apt/keyrings/NAME.asc (ASCII-armoured key, which apt reads without
//                              gpg) or NAME.gpg (binary key)
//   /etc/apt/sources.list.d/NAME.sources   deb822: Types, URIs, Suites,
//                                          Components, Architectures, Signed-By
// then the pins taken over, then
//   /etc/apt/preferences.d/NAME.pref       "Pin: release o=PIN_ORIGIN", only with a pin
// Undo is the runner's restore: what was added is removed, what was removed
// or replaced comes back byte for byte.
//
// The plan is made in parts, one file each (apt_repository_spec.hpp lists
// them): the key, the other sources, the pins.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_apt_repository_step(StepKeys& keys);

}  // namespace wslgpu
