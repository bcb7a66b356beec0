// OpenPGP keys for tests, made by gpg at test time in a throwaway GnuPG
// home: nothing checked in can go stale or hide how it was made, and no
// real keyring is touched. The keys are made once per test process
// (ed25519, a fraction of a second each) and shared by every test.
#pragma once
#include <cstdint>
#include <string>

namespace wslgpu::testing {

struct TestKey {
  std::string fingerprint;  // 40 uppercase hex digits, as gpg prints it
  std::string armoured;     // gpg --export --armor
  std::string binary;       // gpg --export
  // Key 2 only: the same key exported before its expiry was extended, when
  // it had expired (made on 2020-01-01, expired 365 days later), the way
  // AMD's key file went stale on users' machines.
  std::string expired_binary;
  std::int64_t expired_at = 0;
  // Keys 3 and 4 only: the shape of NVIDIA's container-toolkit key, a
  // primary key made on 2020-01-01 that never expires, with one signing
  // subkey bound on 2021-06-15 for a day (expired 2021-06-16, as NVIDIA's
  // 6ED91CA3AC1160CD did). Key 3's primary may sign ([SC]); key 4's only
  // certifies ([C]), so key 4 has no signing key left at all. Key 5 is key
  // 4 with a second signing subkey, added at test time without expiry.
  std::string expired_subkey;  // the subkey's fingerprint
  std::int64_t subkey_expired_at = 0;
};

// One of seven different keys: WHICH is 0, 1, 2 (the renewed one), 3, 4 or
// 5 (an expired signing subkey, see above), or 6 (an RSA key whose
// self-signature binds it to its user ID with SHA-1, as NVIDIA's
// repository key is). Fails the test (doctest REQUIRE)
// when gpg is missing or fails.
const TestKey& test_key(int which);

}  // namespace wslgpu::testing
