// Whether the target's apt would refuse a key's bindings
// (steps/apt/apt_signature_policy.hpp): only with sqv, only from the cutoff
// on, the administrator's policy file before apt's own, a SHA-1 user ID
// binding, and signing subkeys all bound with SHA-1.
#include <doctest/doctest.h>

#include "steps/apt/apt_signature_policy.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;

namespace {

constexpr std::int64_t kMar2026 = 1772323200;  // 2026-03-01
constexpr std::int64_t kJan2026 = 1767225600;  // 2026-01-01

OpenPgpKey sha1_bound_key() {
  OpenPgpKey k;
  k.fingerprint = "EB693B3035CD5710E231E123A4B469963BF863CC";
  k.algorithm = "rsa4096";
  k.user_id_binding_hash = 2;  // SHA1
  return k;
}

void sqv_machine(MemoryFileSystem& fs) {
  fs.add_file("/usr/bin/sqv", "", 0755);
  fs.add_file(kAptSequoiaPolicyDefault, "[hash_algorithms]\nsha1.second_preimage_resistance = 2026-02-01\n");
}

}  // namespace

TEST_CASE("apt with sqv refuses a key bound to its user ID with SHA-1 from the policy's cutoff on, naming both") {
  MemoryFileSystem fs;
  sqv_machine(fs);
  AptVerifier v = apt_verifier(fs);
  REQUIRE(v.sqv);
  REQUIRE(v.policy);
  CHECK(apt_binding_rejection(v, sha1_bound_key(), kMar2026) ==
        "the key EB69 3B30 35CD 5710 E231  E123 A4B4 6996 3BF8 63CC is bound to its user ID by a SHA1 self-signature, "
        "which sqv's policy (/usr/share/apt/default-sequoia.config: sha1.second_preimage_resistance = 2026-02-01) no "
        "longer trusts since 2026-02-01");
  // Before the cutoff, and with a SHA-256 binding, nothing to say.
  CHECK(apt_binding_rejection(v, sha1_bound_key(), kJan2026).empty());
  OpenPgpKey sha256 = sha1_bound_key();
  sha256.user_id_binding_hash = 8;
  CHECK(apt_binding_rejection(v, sha256, kMar2026).empty());
}

TEST_CASE("apt's verifier: gpgv (no sqv) judges nothing here, and the administrator's policy file comes first") {
  MemoryFileSystem gpgv;
  gpgv.add_file(kAptSequoiaPolicyDefault, "[hash_algorithms]\nsha1.second_preimage_resistance = 2026-02-01\n");
  CHECK_FALSE(apt_verifier(gpgv).sqv);
  CHECK(apt_binding_rejection(apt_verifier(gpgv), sha1_bound_key(), kMar2026).empty());

  MemoryFileSystem fs;
  sqv_machine(fs);
  fs.add_file(kAptSequoiaPolicyLocal, "[hash_algorithms]\nsha1.second_preimage_resistance = 2027-02-01\n");
  AptVerifier v = apt_verifier(fs);
  REQUIRE(v.policy);
  CHECK(v.policy->source == kAptSequoiaPolicyLocal);
  CHECK(apt_binding_rejection(v, sha1_bound_key(), kMar2026).empty());
}

TEST_CASE("apt's verifier: a key whose primary only certifies is refused when every signing subkey's binding is") {
  MemoryFileSystem fs;
  sqv_machine(fs);
  OpenPgpKey k = sha1_bound_key();
  k.user_id_binding_hash = 10;  // SHA512
  k.flags = kOpenPgpCertify;
  OpenPgpSubkey sub;
  sub.fingerprint = "0123456789ABCDEF0123456789ABCDEF01234567";
  sub.algorithm = "rsa4096";
  sub.flags = kOpenPgpSign;
  sub.binding_hash = 2;
  k.subkeys.push_back(sub);
  CHECK(apt_binding_rejection(apt_verifier(fs), k, kMar2026) ==
        "every signing subkey of the key EB69 3B30 35CD 5710 E231  E123 A4B4 6996 3BF8 63CC is bound by a SHA1 "
        "signature, which sqv's policy (/usr/share/apt/default-sequoia.config: sha1.second_preimage_resistance = "
        "2026-02-01) no longer trusts since 2026-02-01");
  // One signing subkey bound with SHA-256 is enough.
  sub.binding_hash = 8;
  k.subkeys.push_back(sub);
  CHECK(apt_binding_rejection(apt_verifier(fs), k, kMar2026).empty());
}
