// apt's sqv policy file (installer/formats/sequoia_policy.hpp): its dates,
// "never" and "always", a property over the algorithm's plain entry, and a
// value that is neither, at its line and column.
#include <doctest/doctest.h>

#include <limits>

#include "installer/formats/sequoia_policy.hpp"

using namespace wslgpu;

namespace {

// Shaped like apt's /usr/share/apt/default-sequoia.config (values as in
// apt 3.x; the comment lines are this test's).
const char* const kAptDefaultLike = R"(# the default as apt ships it, in shape
[asymmetric_algorithms]
dsa2048 = 2024-02-01
rsa2048  = 2030-02-01

[hash_algorithms]
sha1.second_preimage_resistance = 2026-02-01    # legacy repositories
sha224 = 2026-02-01

[packets]
signature.v3 = 2026-02-01
)";

constexpr std::int64_t kFeb2026 = 1769904000;  // 2026-02-01T00:00:00Z

}  // namespace

TEST_CASE("sequoia policy: apt's default rejects SHA1 bindings from 2026-02-01, SHA224 too, SHA256 never") {
  std::string error;
  auto p = parse_sequoia_policy(kAptDefaultLike, "/usr/share/apt/default-sequoia.config", error);
  REQUIRE_MESSAGE(p, error);
  auto sha1 = binding_hash_cutoff(*p, "SHA1");
  REQUIRE(sha1);
  CHECK(sha1->at == kFeb2026);
  CHECK(sha1->key == "sha1.second_preimage_resistance");
  CHECK(sha1->written == "2026-02-01");
  auto sha224 = binding_hash_cutoff(*p, "SHA224");
  REQUIRE(sha224);
  CHECK(sha224->key == "sha224");
  CHECK_FALSE(binding_hash_cutoff(*p, "SHA256"));
}

TEST_CASE("sequoia policy: an administrator's later date, never and always, and the binding's property alone") {
  std::string error;
  auto p = parse_sequoia_policy("[hash_algorithms]\nsha1.collision_resistance = \"always\"\n"
                                "sha1.second_preimage_resistance = 2027-02-01\nmd5 = \"always\"\nsha224 = \"never\"\n"
                                "sha256 = 2040-01-01T12:00:00Z\n",
                                "/etc/crypto-policies/back-ends/apt-sequoia.config", error);
  REQUIRE_MESSAGE(p, error);
  auto sha1 = binding_hash_cutoff(*p, "SHA1");
  REQUIRE(sha1);
  CHECK(sha1->written == "2027-02-01");
  CHECK(binding_hash_cutoff(*p, "MD5")->at == std::numeric_limits<std::int64_t>::min());
  CHECK(binding_hash_cutoff(*p, "SHA224")->at == std::numeric_limits<std::int64_t>::max());
  CHECK(binding_hash_cutoff(*p, "SHA256")->at == 2208988800 + 12 * 3600);
}

TEST_CASE("sequoia policy: a file that is not TOML, or a cutoff that is no date, is an error at its position") {
  std::string error;
  CHECK_FALSE(parse_sequoia_policy("[hash_algorithms\n", "/p.config", error));
  CHECK(error.rfind("/p.config:1:", 0) == 0);
  CHECK_FALSE(parse_sequoia_policy("[hash_algorithms]\n\nsha1 = \"soon\"\n", "/p.config", error));
  CHECK(error == "/p.config:3:8: the cutoff of sha1 is neither a date nor \"never\" or \"always\"");
}

TEST_CASE("sequoia policy: a code point toml++ 3.3's whitespace test is undefined for is an error, not a crash") {
  // What fuzz_sequoia_policy found at once: U+0252 after a key (toml++'s
  // is_non_ascii_horizontal_whitespace reaches __builtin_unreachable there).
  // parse_toml() (installer/formats/toml_input.hpp) keeps it out.
  std::string error;
  CHECK_FALSE(parse_sequoia_policy("[hash_algorithms]\nsha20\xC9\x92 = 2026-02-01\n", "/p.config", error));
  CHECK(error.rfind("/p.config:2:", 0) == 0);
}
