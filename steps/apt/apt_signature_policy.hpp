// Whether the target machine's apt will accept a repository's signing key,
// judged before anything changes: apt 3 verifies with Sequoia's sqv where it
// is installed (Debian 13 and later, Ubuntu 26.04), and sqv's policy
// rejects a key whose binding self-signatures use a hash it no longer
// trusts (installer/formats/sequoia_policy.hpp: SHA-1 since 2026-02-01 by
// apt's default). With such a key the repository's every signature fails
// ("Signing key on … is not bound"), after the source, key and pin were
// written and `apt-get update` ran. The plan refuses it instead, naming
// the key, the binding, the policy and its cutoff; the tool never changes
// the machine's policy.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "installer/formats/openpgp.hpp"
#include "installer/formats/sequoia_policy.hpp"
#include "installer/system/filesystem.hpp"

namespace wslgpu {

// The verifier the target's apt uses: sqv when /usr/bin/sqv is installed
// (apt prefers it to gpgv then), with the policy it reads.
struct AptVerifier {
  bool sqv = false;
  std::optional<SequoiaPolicy> policy;  // when sqv, and a policy file exists and reads
  std::string policy_problem;           // a policy file that does not read: FILE:LINE:COLUMN: why
};
AptVerifier apt_verifier(const FileSystem& fs);

// Where apt reads sqv's policy: the administrator's file first, apt's own
// default next (target paths).
inline constexpr const char* kAptSequoiaPolicyLocal = "/etc/crypto-policies/back-ends/apt-sequoia.config";
inline constexpr const char* kAptSequoiaPolicyDefault = "/usr/share/apt/default-sequoia.config";

// Why VERIFIER rejects KEY at NOW (seconds since the epoch), as a clause:
// "the key ABCD … is bound to its user ID by a SHA1 self-signature, which
// sqv's policy (FILE: sha1.second_preimage_resistance = 2026-02-01) no
// longer trusts since 2026-02-01"; "" when it accepts it, or when nothing
// the policy file says rejects it.
std::string apt_binding_rejection(const AptVerifier& verifier, const OpenPgpKey& key, std::int64_t now);

}  // namespace wslgpu
