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
};

// One of three different keys: WHICH is 0, 1 or 2 (the renewed one). Fails
// the test (doctest REQUIRE) when gpg is missing or fails.
const TestKey& test_key(int which);

}  // namespace wslgpu::testing
