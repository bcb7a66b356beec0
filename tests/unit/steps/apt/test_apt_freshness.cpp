// The tool's record of its own refreshes of apt's lists
// (steps/apt_freshness.hpp): what it covers, and what it ignores.
#include <doctest/doctest.h>

#include "steps/apt/apt_freshness.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;

namespace {

const char* const kState = "/var/lib/wslgpu-setup";

MemoryFileSystem freshness_machine() {
  MemoryFileSystem fs;
  fs.add_file("/etc/apt/sources.list", "deb http://deb.invalid/debian bookworm main\n");
  fs.add_file("/etc/apt/sources.list.d/rocm.sources", "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2\n");
  fs.add_file("/var/lib/apt/lists/deb.invalid_debian_dists_bookworm_InRelease", "a\n");
  fs.add_file("/var/lib/apt/lists/repo.radeon.com_rocm_apt_6.4.2_dists_noble_InRelease", "b\n");
  fs.add_file("/var/lib/apt/lists/lock", "");
  fs.add_dir("/var/lib/apt/lists/partial");
  return fs;
}

}  // namespace

TEST_CASE("the sources digest covers what apt reads as sources, by name and content, and nothing else") {
  MemoryFileSystem fs = freshness_machine();
  const std::string before = apt_sources_digest(fs);
  CHECK(before.size() == 64);

  // Files apt ignores, and rewriting a file with the same content, change nothing.
  fs.add_file("/etc/apt/sources.list.d/rocm.sources.save", "Types: deb\nURIs: https://old.invalid\n");
  fs.add_file("/etc/apt/sources.list.d/rocm.list~", "deb https://old.invalid noble main\n");
  fs.add_file("/etc/apt/sources.list.d/README", "notes\n");
  fs.add_file("/etc/apt/sources.list.d/rocm.sources", "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2\n");
  CHECK(apt_sources_digest(fs) == before);

  fs.add_file("/etc/apt/sources.list.d/rocm.sources", "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.3\n");
  CHECK(apt_sources_digest(fs) != before);
  fs.add_file("/etc/apt/sources.list.d/rocm.sources", "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2\n");
  CHECK(apt_sources_digest(fs) == before);
  fs.add_file("/etc/apt/sources.list.d/cuda.list", "deb https://nvidia.invalid/ /\n");
  CHECK(apt_sources_digest(fs) != before);
  fs.remove("/etc/apt/sources.list.d/cuda.list");
  // The same content under another name is another source file.
  fs.remove("/etc/apt/sources.list.d/rocm.sources");
  fs.add_file("/etc/apt/sources.list.d/amd.sources", "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2\n");
  CHECK(apt_sources_digest(fs) != before);
}

TEST_CASE("the lists digest covers the names of the list files, not apt's lock or partial folder") {
  MemoryFileSystem fs = freshness_machine();
  const std::string before = apt_lists_digest(fs);
  fs.add_file("/var/lib/apt/lists/deb.invalid_debian_dists_bookworm_InRelease", "refreshed, same name\n");
  fs.add_file("/var/lib/apt/lists/partial/half", "x");
  CHECK(apt_lists_digest(fs) == before);
  fs.remove("/var/lib/apt/lists/repo.radeon.com_rocm_apt_6.4.2_dists_noble_InRelease");
  CHECK(apt_lists_digest(fs) != before);
  CHECK(apt_lists_digest(MemoryFileSystem{}).empty());
}

TEST_CASE("the record matches exactly the sources and lists it was written for, and says why not otherwise") {
  MemoryFileSystem fs = freshness_machine();
  auto none = lists_freshness(fs, kState, 1000);
  CHECK_FALSE(none.recorded);
  CHECK_FALSE(none.matches);
  CHECK(none.why == "never refreshed by wslgpu-setup");

  write_lists_record(fs, kState, 1000);
  auto record = read_lists_record(fs, kState);
  REQUIRE(record);
  CHECK(record->refreshed == 1000);
  CHECK(record->sources_sha256 == apt_sources_digest(fs));
  auto fresh = lists_freshness(fs, kState, 1600);
  CHECK(fresh.recorded);
  CHECK(fresh.matches);
  CHECK(fresh.age_s == 600);

  fs.add_file("/etc/apt/sources.list.d/cuda.sources", "Types: deb\n");
  CHECK(lists_freshness(fs, kState, 1600).why == "the sources changed since the last refresh");
  fs.remove("/etc/apt/sources.list.d/cuda.sources");
  CHECK(lists_freshness(fs, kState, 1600).matches);
  fs.remove("/var/lib/apt/lists/deb.invalid_debian_dists_bookworm_InRelease");
  CHECK(lists_freshness(fs, kState, 1600).why == "the package lists changed since the last refresh");
  fs.remove("/var/lib/apt/lists/repo.radeon.com_rocm_apt_6.4.2_dists_noble_InRelease");
  CHECK(lists_freshness(fs, kState, 1600).why == "there are no package lists");

  // A record that cannot be read is as none: a refresh writes a good one.
  fs.add_file(std::string(kState) + "/apt-lists.json", "{\"sources_sha256\": 3");
  CHECK_FALSE(read_lists_record(fs, kState));
  CHECK_FALSE(lists_freshness(fs, kState, 1600).recorded);
}
