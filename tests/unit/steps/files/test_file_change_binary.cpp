// What a plan shows of a file: a unified diff for text, size and SHA-256 for
// bytes that are not text (a dearmoured key), which must never reach the
// terminal or the plan's JSON as raw bytes.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "installer/formats/diff.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/system/filesystem.hpp"
#include "steps/files/file_change.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using wslgpu::testing::contains;

TEST_CASE("text with UTF-8 and tabs is diffable; NUL, control bytes and broken UTF-8 are not") {
  CHECK(is_diffable_text(""));
  CHECK(is_diffable_text("Pin: release o=AMD ROCm\n\tPin-Priority: 600\r\n"));
  CHECK(is_diffable_text("# café · ✓ 𝄞\n"));
  CHECK_FALSE(is_diffable_text(std::string("a\0b", 3)));
  CHECK_FALSE(is_diffable_text("\x99\x01\x0d\x04"));  // the start of a binary OpenPGP key
  CHECK_FALSE(is_diffable_text("\xc3"));              // a cut sequence
  CHECK_FALSE(is_diffable_text("\xc0\xaf"));          // an overlong '/'
  CHECK_FALSE(is_diffable_text("\xed\xa0\x80"));      // a surrogate
  CHECK_FALSE(is_diffable_text("\x1b[31mred"));       // a terminal escape
}

TEST_CASE("a binary file's plan names its size and hash, and its JSON holds no raw bytes") {
  wslgpu::testing::MemoryFileSystem fs;
  const std::string key("\x99\x01\x0d\x04\x5f\x00\xff\x98", 8);
  StepPlan p;
  REQUIRE(plan_file(fs, "/etc/apt/keyrings/rocm.gpg", key, FileAttrs{0644, 0, 0}, p));
  REQUIRE(p.details.size() == 1);
  CHECK(p.details[0] == "binary file /etc/apt/keyrings/rocm.gpg: 8 bytes, sha256 " + sha256_hex(key) + "; was absent");
  REQUIRE(p.changes.size() == 1);
  CHECK(p.changes[0]["binary"] == true);
  CHECK_FALSE(p.changes[0].contains("diff"));
  CHECK_NOTHROW(nlohmann::json(p.changes).dump());
  // A text file replaced by a binary one says what it was.
  fs.add_file("/etc/apt/keyrings/rocm.gpg", "old text key\n");
  StepPlan q;
  REQUIRE(plan_file(fs, "/etc/apt/keyrings/rocm.gpg", key, FileAttrs{0644, 0, 0}, q));
  CHECK(contains(q.details.at(0), "; was 13 bytes, sha256 " + sha256_hex("old text key\n")));
}
