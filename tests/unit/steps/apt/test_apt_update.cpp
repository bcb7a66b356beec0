// apt_update: when the package lists are fresh enough (the tool's own
// record of its refresh, max_age), and what a refresh records.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "installer/formats/sha256.hpp"
#include "installer/manifest/step_keys.hpp"
#include "installer/manifest/step_kind.hpp"
#include "installer/plan/overlay_filesystem.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/process.hpp"
#include "installer/undo/undo_store.hpp"
#include "steps/apt/apt_freshness.hpp"
#include "steps/step.hpp"
#include "support/fakes.hpp"
#include "unit/steps/apt/apt_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

// A machine with one source and its lists, refreshed by the tool AGO seconds ago.
struct ListsWorld {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  explicit ListsWorld(std::int64_t ago) {
    fs.add_file("/etc/apt/sources.list.d/debian.sources", "Types: deb\nURIs: https://deb.invalid/debian\n");
    fs.add_file("/var/lib/apt/lists/deb.invalid_debian_dists_bookworm_InRelease", "list\n");
    fs.add_file("/var/lib/apt/lists/lock", "");
    write_lists_record(fs, "/var/lib/wslgpu-setup", now_s() - ago);
  }
};

}  // namespace

TEST_CASE("apt_update is a no-op while the tool's own refresh of exactly these sources is fresher than max_age") {
  ListsWorld w(120);
  auto step = make_step("apt_update", "max_age = 3600\n");
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary == "package lists are 2 minutes old, fresher than max_age (60 minutes)");
  CHECK(w.runner.calls.empty());
  // Touching a file changes nothing: times are not looked at.
  w.fs.add_file("/etc/apt/sources.list.d/debian.sources", "Types: deb\nURIs: https://deb.invalid/debian\n");
  w.fs.add_file("/etc/apt/sources.list.d/debian.list.save", "deb old\n");  // apt does not read it
  CHECK(step->plan(w.ctx).verdict == Verdict::noop);
}

TEST_CASE("apt_update refreshes when the sources changed, however fresh the lists, and records the refresh") {
  ListsWorld w(60);
  auto step = make_step("apt_update", "max_age = 3600\n");
  // What an earlier apt_repository step of the same plan would write.
  OverlayFileSystem overlay(w.fs);
  overlay.write_atomic("/etc/apt/sources.list.d/rocm.sources", "Types: deb\nURIs: https://repo.radeon.com/rocm\n", {});
  StepContext plan_ctx{overlay, w.runner, w.host, "test"};
  StepPlan p = step->plan(plan_ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "refresh package lists (the sources changed since the last refresh)");
  CHECK(p.activity == "refreshing the package lists");

  // Applied: the source is on disk, apt refreshes, the record says so.
  w.fs.add_file("/etc/apt/sources.list.d/rocm.sources", "Types: deb\nURIs: https://repo.radeon.com/rocm\n");
  w.runner.on({"apt-get", "update"}, [&](const Command&) {
    w.fs.add_file("/var/lib/apt/lists/repo.radeon.com_rocm_dists_noble_InRelease", "list\n");
    return ok();
  });
  step->apply(w.ctx, p);
  REQUIRE(w.runner.calls.size() == 1);
  CHECK(w.runner.calls[0].argv == Argv{"apt-get", "update", "--error-on=any"});
  CHECK(w.runner.calls[0].env == kAptEnv);
  CHECK(w.runner.calls[0].stop_on_interrupt);  // lists are renamed into place: stopping apt leaves no torn list
  auto fresh = lists_freshness(w.fs, "/var/lib/wslgpu-setup", now_s());
  CHECK(fresh.matches);
  CHECK(step->plan(w.ctx).verdict == Verdict::noop);
}

TEST_CASE("apt_update converges after a refresh that moved no file time (a source replaced by one of the same URI)") {
  // A vendor's list replaced by a .sources of the same URI: apt finds the
  // same lists and moves nothing; the record says the refresh ran.
  TempDir root;
  root.write("var/lib/apt/lists/x_InRelease", "list\n");
  auto old = std::filesystem::file_time_type::clock::now() - std::chrono::minutes(5);
  std::filesystem::last_write_time(root.path() + "/var/lib/apt/lists/x_InRelease", old);
  std::filesystem::last_write_time(root.path() + "/var/lib/apt/lists", old);
  root.write("etc/apt/sources.list.d/rocm.sources", "Types: deb\n");
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  runner.on({"apt-get", "update"}, ok());
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto step = make_step("apt_update", "max_age = 3600\n");
  StepPlan before = step->plan(ctx);
  REQUIRE(before.verdict == Verdict::change);
  step->apply(ctx, before);
  CHECK(fs.stat("/var/lib/wslgpu-setup/apt-lists.json"));
  StepPlan after = step->plan(ctx);
  CHECK(after.verdict == Verdict::noop);
  CHECK(after.summary.rfind("package lists are ", 0) == 0);
}

TEST_CASE("install, rollback, install again: the second refresh is not needed, since the lists stayed") {
  ListsWorld w(0);
  w.fs.add_file("/etc/apt/sources.list.d/cuda-wsl-ubuntu.sources", "Types: deb\nURIs: https://nvidia.invalid/\n");
  w.fs.add_file("/var/lib/apt/lists/nvidia.invalid_InRelease", "list\n");
  write_lists_record(w.fs, "/var/lib/wslgpu-setup", now_s() - 30);  // the first install's refresh
  w.fs.remove("/etc/apt/sources.list.d/cuda-wsl-ubuntu.sources");   // the rollback; no refresh runs
  auto step = make_step("apt_update", "max_age = 3600\n");
  CHECK(step->plan(w.ctx).verdict == Verdict::change);  // the sources now differ from the refresh
  OverlayFileSystem overlay(w.fs);
  overlay.write_atomic("/etc/apt/sources.list.d/cuda-wsl-ubuntu.sources", "Types: deb\nURIs: https://nvidia.invalid/\n", {});
  StepContext again{overlay, w.runner, w.host, "test"};
  CHECK(step->plan(again).verdict == Verdict::noop);  // the same install again
  // But when someone else's `apt-get update` has deleted the removed source's lists since, it refreshes.
  w.fs.remove("/var/lib/apt/lists/nvidia.invalid_InRelease");
  StepPlan p = step->plan(again);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "refresh package lists (the package lists changed since the last refresh)");
}

TEST_CASE("apt_update refreshes when max_age has passed, when there is no record, and always without max_age") {
  ListsWorld old(3 * 86400 + 60);
  auto step = make_step("apt_update", "max_age = 3600\n");
  StepPlan stale = step->plan(old.ctx);
  CHECK(stale.verdict == Verdict::change);
  CHECK(stale.summary == "refresh package lists (last refresh 3 days ago)");

  ListsWorld future(-3600);  // the clock went back an hour since
  CHECK(step->plan(future.ctx).verdict == Verdict::change);

  MemoryFileSystem fs;
  FakeProcessRunner runner;
  runner.on({"apt-get", "update"}, fail(100, "E: Failed to fetch https://repo.radeon.com/rocm/apt/6.4.2/dists/noble/InRelease\n"));
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto always = make_step("apt_update", "");
  StepPlan p = always->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "refresh package lists (never refreshed by wslgpu-setup)");
  CHECK_THROWS_WITH_AS(always->apply(ctx, p),
                       "could not refresh the package lists: `apt-get update` exited 100:\n"
                       "E: Failed to fetch https://repo.radeon.com/rocm/apt/6.4.2/dists/noble/InRelease\n"
                       "Check the network and the sources named above (`ls /etc/apt/sources.list.d`).",
                       StepFailure);
  CHECK(!read_lists_record(fs, "/var/lib/wslgpu-setup"));  // a failed refresh is not recorded
  ListsWorld fresh(10);
  CHECK(always->plan(fresh.ctx).verdict == Verdict::change);  // max_age 0: every run refreshes
}
