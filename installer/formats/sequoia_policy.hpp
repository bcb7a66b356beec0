// The signature policy of Sequoia's sqv, which apt uses to verify
// repositories where it is installed (apt 3: Debian 13 and later, Ubuntu
// 25.04 and later, so Ubuntu 26.04 too). Its configuration is TOML:
//
//   [hash_algorithms]
//   sha1.second_preimage_resistance = 2026-02-01
//   sha224 = 2026-02-01
//
// Each value is a cutoff: the algorithm is not trusted from that date on
// (a TOML date or date-time), or "never" (no cutoff) or "always" (never
// trusted). A name without a property stands for every property. apt reads
// /etc/crypto-policies/back-ends/apt-sequoia.config when it exists, else
// its own /usr/share/apt/default-sequoia.config (whose first lines say so).
//
// Why the tool reads it: since 2026-02-01 that default rejects a key whose
// binding signatures (the self-signatures that bind it to its user ID and
// subkeys) are made with SHA-1, and apt then refuses every signature of the
// repository: "Signing key on EB693B30… is not bound: … SHA1 is not
// considered secure since 2026-02-01T00:00:00Z" (NVIDIA/cuda-repo-management
// issues 34, 39, 44). The plan says so before any change. A binding is a
// self-signature, so what counts is the algorithm's second pre-image
// resistance. Only what the file says is judged: the limits sqv applies on
// its own besides it are not claimed.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace wslgpu {

struct SequoiaPolicy {
  std::string source;  // the file it was read from
  // "sha1.second_preimage_resistance" or "sha1" -> the cutoff: seconds since
  // the epoch (UTC); INT64_MAX for "never", INT64_MIN for "always".
  std::map<std::string, std::int64_t> hash_cutoffs;
  // The values as written, for messages ("2026-02-01").
  std::map<std::string, std::string> written;
};

// TEXT read from SOURCE. nullopt with ERROR ("SOURCE:LINE:COLUMN: ...") when
// it is not TOML or a hash algorithm's value is neither a date nor
// "never"/"always".
std::optional<SequoiaPolicy> parse_sequoia_policy(std::string_view text, const std::string& source,
                                                  std::string& error);

// When POLICY stops trusting HASH ("SHA1", as openpgp_hash_name() names it)
// for a binding signature, and the key that says so ("sha1.second_preimage_
// resistance"); nullopt when the file sets no cutoff for it.
struct HashCutoff {
  std::int64_t at = 0;
  std::string key;
  std::string written;
};
std::optional<HashCutoff> binding_hash_cutoff(const SequoiaPolicy& policy, const std::string& hash);

}  // namespace wslgpu
