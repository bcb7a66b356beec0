// An apt_repository step's signing key: read from key_file, or fetched from
// key_url into STATE_DIR/cache/keys/ (named by its fingerprint or hash, and
// checked there again on every plan, so that a converged plan needs no
// network), then checked against its pin: the file must hold the pinned
// OpenPGP primary key and no other, or have the pinned SHA-256. A key that
// must not be used is a refused plan that says why and what to do.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "installer/formats/openpgp.hpp"
#include "steps/apt/apt_repository_spec.hpp"
#include "steps/step.hpp"

namespace wslgpu::apt_repo {

// What a key file holds, against the pinned fingerprint.
struct KeyCheck {
  std::optional<StepPlan> refusal;  // set when the key must not be used
  std::optional<OpenPgpKey> key;    // the pinned key, when it is the file's only one
  // The binary key alone, when the file is a binary key followed by its own
  // armour (AMD's packages.gpg): what apt is given instead of the file.
  std::optional<std::string> binary_only;
};

// Whether BYTES is REPO's pinned key and nothing else. WHAT names the file
// in messages ("the key at URL").
KeyCheck check_fingerprint(const AptRepositorySpec& repo, const std::string& bytes, const std::string& what);

// REPO's key into BYTES (and PGP, when pinned by fingerprint), checked
// against key_sha256 or key_fingerprint; or the refusal that says why it
// cannot be used; or, in a plan made offline (StepContext::offline) when the
// key is neither in the cache nor a file, a plan whose not_asked names the
// key it did not fetch (BYTES stays empty). Throws StepFailure when key_file is missing or has another
// hash. A key URL that could not be fetched is not asked again in this run.
// BYTES is what apt is given: a binary key followed by its own armour is cut
// to the binary key (KeyCheck::binary_only), and ARMOUR_DROPPED says so.
std::optional<StepPlan> obtain_key(const AptRepositorySpec& repo, StepContext& ctx, std::string& bytes,
                                   std::optional<OpenPgpKey>& pgp, bool* armour_dropped = nullptr);

// "CA8B B472 … 1A69 3C5C verified" or "sha256 73f5…e1", for a summary line.
std::string key_note(const AptRepositorySpec& repo);

// Whether KEY is an ASCII-armoured key (NAME.asc) rather than a binary one (NAME.gpg).
bool is_armoured(const std::string& key);

// The plan's lines about PGP, the key a plan writes: its fingerprint,
// algorithm, first user id and expiry, where it came from, and whether
// apt can still verify signatures with it (an expired key or subkey).
std::vector<std::string> key_details(const AptRepositorySpec& repo, const OpenPgpKey& pgp);

}  // namespace wslgpu::apt_repo
