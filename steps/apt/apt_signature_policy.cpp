#include "steps/apt/apt_signature_policy.hpp"

namespace wslgpu {

AptVerifier apt_verifier(const FileSystem& fs) {
  AptVerifier v;
  v.sqv = fs.stat("/usr/bin/sqv").has_value();
  if (!v.sqv) return v;
  for (const char* path : {kAptSequoiaPolicyLocal, kAptSequoiaPolicyDefault}) {
    auto info = fs.stat(path);
    if (!info || info->type != FileType::regular) continue;
    std::string error;
    v.policy = parse_sequoia_policy(fs.read(path), path, error);
    if (!v.policy) v.policy_problem = error;
    break;  // the first that exists is the one apt reads
  }
  return v;
}

namespace {

// "… which sqv's policy (FILE: sha1.second_preimage_resistance = 2026-02-01)
// no longer trusts since 2026-02-01".
std::string distrusted(const SequoiaPolicy& policy, const HashCutoff& c) {
  return "which sqv's policy (" + policy.source + ": " + c.key + " = " + c.written + ") " +
         (c.written == "always" ? std::string("does not trust") : "no longer trusts since " + c.written);
}

}  // namespace

std::string apt_binding_rejection(const AptVerifier& verifier, const OpenPgpKey& key, std::int64_t now) {
  if (!verifier.sqv || !verifier.policy) return "";
  const SequoiaPolicy& policy = *verifier.policy;
  auto rejected = [&](int hash) -> std::optional<HashCutoff> {
    if (hash == 0) return std::nullopt;
    auto c = binding_hash_cutoff(policy, openpgp_hash_name(hash));
    if (c && now >= c->at) return c;
    return std::nullopt;
  };
  const std::string name = "the key " + format_fingerprint(key.fingerprint);
  // Without a trusted binding to its user ID, sqv finds no valid
  // certificate at all: none of its keys verifies anything.
  if (auto c = rejected(key.user_id_binding_hash))
    return name + " is bound to its user ID by a " + openpgp_hash_name(key.user_id_binding_hash) +
           " self-signature, " + distrusted(policy, *c);
  if (primary_can_sign(key)) return "";
  std::optional<HashCutoff> first;
  int first_hash = 0;
  for (const auto& sub : key.subkeys) {
    if (!subkey_can_sign(sub) || (sub.expires && *sub.expires < now)) continue;
    auto c = rejected(sub.binding_hash);
    if (!c) return "";  // a signing subkey sqv accepts
    if (!first) {
      first = c;
      first_hash = sub.binding_hash;
    }
  }
  if (!first) return "";
  return "every signing subkey of " + name + " is bound by a " + openpgp_hash_name(first_hash) + " signature, " +
         distrusted(policy, *first);
}

}  // namespace wslgpu
