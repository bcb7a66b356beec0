// OpenPGP keys for tests, made by gpg at test time in a throwaway GnuPG
// home: nothing checked in can go stale or hide how it was made, and no
// real keyring is touched. The keys are made once per test process
// (ed25519, a fraction of a second each) and shared by every test.
#pragma once
#include <string>

namespace wslgpu::testing {

struct TestKey {
  std::string fingerprint;  // 40 uppercase hex digits, as gpg prints it
  std::string armoured;     // gpg --export --armor
  std::string binary;       // gpg --export
};

// One of two different keys: WHICH is 0 or 1. Fails the test (doctest
// REQUIRE) when gpg is missing or fails.
const TestKey& test_key(int which);

}  // namespace wslgpu::testing
