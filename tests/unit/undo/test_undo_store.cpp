// The undo store (installer/undo/undo_store.hpp): a copy is checked when it
// is admitted and again before use; the journal record round-trips.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "installer/formats/sha256.hpp"
#include "installer/undo/undo_store.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::TempDir;

namespace {
KeptDeb kept(const std::string& name, const std::string& version) {
  KeptDeb k;
  k.step = "rocm";
  k.name = name;
  k.version = version;
  k.architecture = "amd64";
  k.from = KeptFrom::fetched;
  k.file = deb_file_name(name, version, "amd64");
  return k;
}
}  // namespace

TEST_CASE("apt's cache name writes the epoch's colon as %3a") {
  CHECK(deb_file_name("libdrm-amdgpu-amdgpu1", "1:2.4.125.70202-1", "amd64") ==
        "libdrm-amdgpu-amdgpu1_1%3a2.4.125.70202-1_amd64.deb");
  CHECK(deb_file_name("rocm", "6.4.2.1-1", "amd64") == "rocm_6.4.2.1-1_amd64.deb");
}

TEST_CASE("a copy that matches the Packages index is admitted with its size and SHA-256") {
  TempDir dir;
  dir.write("rocm_6.4.2.1-1_amd64.deb", "the deb");
  UndoStore store(dir.path(), "/var/lib/wslgpu-setup/tx/T/undo");
  KeptDeb k = kept("rocm", "6.4.2.1-1");
  k.index_sha256 = sha256_hex("the deb");
  KeptDeb admitted = store.admit(k, 7);
  CHECK(admitted.size == 7);
  CHECK(admitted.sha256 == sha256_hex("the deb"));
  CHECK(store.bytes() == 7);
  REQUIRE(store.find("rocm", "6.4.2.1-1") != nullptr);
  CHECK(store.target_path(*store.find("rocm", "6.4.2.1-1")) ==
        "/var/lib/wslgpu-setup/tx/T/undo/rocm_6.4.2.1-1_amd64.deb");
  CHECK_NOTHROW(store.check(admitted));
}

TEST_CASE("a copy whose size or SHA-256 differs from the index is refused and removed") {
  TempDir dir;
  UndoStore store(dir.path(), "/t");
  SUBCASE("size") {
    dir.write("rocm_6.4.2.1-1_amd64.deb", "short");
    CHECK_THROWS_WITH_AS(store.admit(kept("rocm", "6.4.2.1-1"), 700),
                         doctest::Contains("it has 5 bytes where the Packages index says 700"), CorruptCopy);
  }
  SUBCASE("hash") {
    dir.write("rocm_6.4.2.1-1_amd64.deb", "tampered");
    KeptDeb k = kept("rocm", "6.4.2.1-1");
    k.index_sha256 = sha256_hex("original");
    CHECK_THROWS_WITH_AS(store.admit(k), doctest::Contains(("where the Packages index says " + sha256_hex("original")).c_str()),
                         CorruptCopy);
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/rocm_6.4.2.1-1_amd64.deb"));
  CHECK(store.entries().empty());
}

TEST_CASE("a copy changed on disk after it was stored is refused before use, naming the file and what to do") {
  TempDir dir;
  dir.write("rocm_6.4.2.1-1_amd64.deb", "the deb");
  UndoStore store(dir.path(), "/t");
  KeptDeb k = store.admit(kept("rocm", "6.4.2.1-1"));
  dir.write("rocm_6.4.2.1-1_amd64.deb", "the dex");
  const std::string file = dir.path() + "/rocm_6.4.2.1-1_amd64.deb";
  CHECK_THROWS_WITH_AS(store.check(k), doctest::Contains((file + ", is not what was stored: its SHA-256 is").c_str()), CorruptCopy);
  CHECK_THROWS_WITH_AS(store.check_all(), doctest::Contains("apt-get download rocm=6.4.2.1-1"), CorruptCopy);
  CHECK_THROWS_WITH_AS(store.check_all(), doctest::Contains("nothing was rolled back"), CorruptCopy);
  // Only the steps asked about are checked.
  CHECK_NOTHROW(store.check_all({"another-step"}));
  std::filesystem::remove(file);
  CHECK_THROWS_WITH_AS(store.check(k), doctest::Contains("it is missing"), CorruptCopy);
}

TEST_CASE("a kept record round-trips through the journal's JSON, and a path for a file name is refused") {
  KeptDeb k = kept("libdrm-amdgpu-amdgpu1", "1:2.4.125.70202-1");
  k.from = KeptFrom::rebuilt;
  k.size = 42;
  k.sha256 = sha256_hex("x");
  KeptDeb back = KeptDeb::from_json(k.to_json());
  CHECK(back.to_json() == k.to_json());
  CHECK(back.from == KeptFrom::rebuilt);
  nlohmann::json evil = k.to_json();
  evil["file"] = "../../../etc/shadow";
  CHECK_THROWS_WITH(KeptDeb::from_json(evil), doctest::Contains("is not a file name"));
  nlohmann::json unknown = k.to_json();
  unknown["from"] = "somewhere";
  CHECK_THROWS_WITH(KeptDeb::from_json(unknown), doctest::Contains("unknown origin"));
}

TEST_CASE("a record read back again replaces the earlier one for the same version") {
  UndoStore store("/h", "/t");
  KeptDeb a = kept("rocm", "1");
  a.size = 1;
  KeptDeb b = a;
  b.size = 2;
  store.add(a);
  store.add(b);
  REQUIRE(store.entries().size() == 1);
  CHECK(store.entries().front().size == 2);
}

TEST_CASE("the store folder's size counts its files, and removing it leaves nothing") {
  TempDir dir;
  dir.write("undo/a.deb", "12345");
  dir.write("undo/b.deb", "123");
  CHECK(store_folder_bytes(dir.path() + "/undo") == 8);
  CHECK(store_folder_bytes(dir.path() + "/none") == 0);
  remove_store_folder(dir.path() + "/undo");
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/undo"));
}

TEST_CASE("a pruned store keeps only a note of why, and counts no bytes") {
  TempDir dir;
  dir.write("undo/rocm_1_all.deb", "12345");
  prune_store_folder(dir.path() + "/undo", "superseded by T2 (rocm)");
  CHECK(store_was_pruned(dir.path() + "/undo"));
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/undo/rocm_1_all.deb"));
  CHECK(store_folder_bytes(dir.path() + "/undo") == 0);
  CHECK_FALSE(store_was_pruned(dir.path() + "/elsewhere"));
}
