// The disk-space guard (installer/guards/disk_space.hpp) with a stand-in for
// statvfs: refusals before the first change, naming what is needed and what is free.
#include <doctest/doctest.h>

#include "installer/guards/disk_space.hpp"

#include <algorithm>

#include "installer/system/filesystem.hpp"
#include "installer/system/units.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;

namespace {

Plan plan_needing(std::uint64_t download, std::int64_t disk) {
  Plan plan;
  PlannedStep s;
  s.id = "rocm";
  s.plan.verdict = Verdict::change;
  s.plan.download_bytes = download;
  s.plan.disk_bytes = disk;
  plan.steps.push_back(s);
  PlannedStep done;  // a no-op step's figures do not count
  done.id = "old";
  done.plan.download_bytes = 99'000'000'000;
  plan.steps.push_back(done);
  return plan;
}

// The root on device 1; the archives on device ARCHIVES_DEVICE.
FreeSpaceProbe probe(std::uint64_t root_free, std::uint64_t archives_free, std::uint64_t archives_device,
                     int* calls = nullptr) {
  return [=](const std::string& path) -> std::optional<FreeSpace> {
    if (calls) ++*calls;
    if (path == "/fake/var/cache/apt/archives") return FreeSpace{archives_free, archives_device};
    return FreeSpace{root_free, 1};
  };
}

std::uint64_t with_margin_for_test(std::uint64_t need) { return need + need * kMarginPercent / 100 + kMarginBytes; }

}  // namespace

TEST_CASE("a plan that fits, or needs nothing, is let through, and a converged one reads no free space at all") {
  MemoryFileSystem fs;
  CHECK(guard_disk_space(plan_needing(1'000'000'000, 2'000'000'000), fs, probe(10'000'000'000, 0, 1)).empty());
  int calls = 0;
  CHECK(guard_disk_space(plan_needing(0, -5'000'000), fs, probe(0, 0, 1, &calls)).empty());
  CHECK(calls == 0);
}

TEST_CASE("on one filesystem, download and installed size add up, with the margin, and both numbers are named") {
  MemoryFileSystem fs;
  auto refusals = guard_disk_space(plan_needing(2'900'000'000, 7'300'000'000), fs, probe(10'000'000'000, 0, 1));
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0].rfind("not enough disk space: apt needs 2.9 GB to download into /var/cache/apt/archives and 7.3 "
                          "GB more on disk once installed, 11 GB with a margin of 1.1 GB, but the filesystem of / has "
                          "10 GB free.\nNothing was changed.",
                          0) == 0);
  // The margin counts: exactly what apt needs is not enough.
  CHECK(guard_disk_space(plan_needing(0, 1'000'000'000), fs, probe(1'000'000'000, 0, 1)).size() == 1);
  CHECK(guard_disk_space(plan_needing(0, 1'000'000'000), fs, probe(1'200'000'000, 0, 1)).empty());
}

TEST_CASE("with the archives on another filesystem, each must hold its part") {
  MemoryFileSystem fs;
  auto refusals =
      guard_disk_space(plan_needing(2'000'000'000, 1'000'000'000), fs, probe(50'000'000'000, 500'000'000, 2));
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0].find("apt needs 2.0 GB to download into /var/cache/apt/archives, 2.3 GB with a margin of 300 MB, "
                         "but the filesystem of /var/cache/apt/archives has 500 MB free") != std::string::npos);
  CHECK(guard_disk_space(plan_needing(2'000'000'000, 1'000'000'000), fs, probe(50'000'000'000, 5'000'000'000, 2))
            .empty());
  auto root_full =
      guard_disk_space(plan_needing(2'000'000'000, 1'000'000'000), fs, probe(100'000'000, 5'000'000'000, 2));
  REQUIRE(root_full.size() == 1);
  CHECK(root_full[0].find("the filesystem of / has 100 MB free") != std::string::npos);
}

TEST_CASE("what the undo store fetches or rebuilds counts on the state folder's filesystem; apt's cache links do not") {
  MemoryFileSystem fs;
  Plan plan = plan_needing(0, 100'000'000);
  plan.steps[0].plan.keeps = {UndoKeep{"rocm", "6.4.2.1-1", "amd64", "fetched", "", 3'000'000'000, "", ""},
                              UndoKeep{"rocm-core", "6.4.2.1-1", "amd64", "apt cache", "", 9'000'000'000, "", ""},
                              UndoKeep{"lost", "1", "amd64", "", "", 0, "", "nothing"}};
  auto refusals = guard_disk_space(plan, fs, probe(2'000'000'000, 0, 1));
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0].rfind("not enough disk space: apt needs 100 MB more on disk once installed and wslgpu-setup keeps "
                          "3.0 GB for undo in /var/lib/wslgpu-setup, 3.5 GB with a margin",
                          0) == 0);
  CHECK(guard_disk_space(plan, fs, probe(4'000'000'000, 0, 1)).empty());
}

TEST_CASE("a step's own needs count on the filesystem of their folder, and hard links on the same one cost nothing") {
  MemoryFileSystem fs;
  fs.add_dir("/home/alice/.venvs");
  fs.add_dir("/var/lib/wslgpu-setup");
  Plan plan;
  PlannedStep s;
  s.id = "torch";
  s.plan.verdict = Verdict::change;
  // The venv does not exist yet: its nearest parent's filesystem is asked.
  s.plan.disk_needs.push_back({"/home/alice/.venvs/pytorch", 11'000'000'000,
                               "pip needs 0 B to download and about 11.0 GB unpacked into /home/alice/.venvs/pytorch",
                               ""});
  // A copy of the venv for undo, free where the state folder shares its filesystem.
  s.plan.disk_needs.push_back({"/var/lib/wslgpu-setup", 5'000'000'000, "wslgpu-setup keeps a copy of the venv",
                               "/home/alice/.venvs/pytorch"});
  plan.steps.push_back(s);
  std::vector<std::string> asked;
  auto small = [&](const std::string& path) -> std::optional<FreeSpace> {
    asked.push_back(path);
    return FreeSpace{8'000'000'000, 1};
  };
  auto out = guard_disk_space(plan, fs, small);
  REQUIRE(out.size() == 1);
  CHECK(out[0] ==
        "not enough disk space: pip needs 0 B to download and about 11.0 GB unpacked into /home/alice/.venvs/pytorch, " +
            human_size(with_margin_for_test(11'000'000'000)) + " with a margin of " +
            human_size(with_margin_for_test(11'000'000'000) - 11'000'000'000) +
            ", but the filesystem of / has " + human_size(8'000'000'000) + " free.\n"
            "Nothing was changed. Free some space and run again: `sudo apt-get clean` empties apt's cache of "
            "downloaded packages; and WSL's virtual disk also needs room to grow on the Windows drive that holds it.");
  CHECK(std::find(asked.begin(), asked.end(), "/fake/home/alice/.venvs") != asked.end());
  // The state folder on another filesystem: the copy counts there.
  auto two = [&](const std::string& path) -> std::optional<FreeSpace> {
    if (path.rfind("/fake/var/lib", 0) == 0) return FreeSpace{1'000'000'000, 2};
    return FreeSpace{100'000'000'000, 1};
  };
  out = guard_disk_space(plan, fs, two);
  REQUIRE(out.size() == 1);
  CHECK(out[0].rfind("not enough disk space: wslgpu-setup keeps a copy of the venv, ", 0) == 0);
}

TEST_CASE("the refusal names what the tool itself keeps and how to free it: the wheel cache and the undo stores") {
  wslgpu::testing::TempDir root;
  // A torch wheel an interrupted run left, and a store whose venv file only
  // it still holds (one link); a .deb copy.
  root.write("var/lib/wslgpu-setup/cache/wheels/0123456789abcdef-torch.whl.part", std::string(3'000'000, 'w'));
  root.write("var/lib/wslgpu-setup/tx/T2/undo/venv-torch/files/torch/lib/libtorch.so", std::string(2'000'000, 't'));
  root.write("var/lib/wslgpu-setup/tx/T1/undo/rocm-core_7.2.2_amd64.deb", std::string(1'000'000, 'd'));
  RootedFileSystem fs(root.path());
  auto out = guard_disk_space(plan_needing(0, 9'000'000'000), fs, probe(1'000'000'000, 0, 1));
  REQUIRE(out.size() == 1);
  CHECK(out[0].find("wslgpu-setup's own: its wheel cache holds " + human_size(3'000'000) + " and its undo stores " +
                    human_size(3'000'000) + " (`sudo wslgpu-setup history` lists them; `history --prune` frees the "
                    "stores no rollback needs and empties the cache, `history --prune ID` gives up one "
                    "transaction's offline rollback for its store)") != std::string::npos);
}
