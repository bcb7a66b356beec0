// apt_remove: plan with apt's simulation, the versions it records, and undo
// reinstalling them from the undo store's copies or the sources.
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
#include "support/helpers.hpp"
#include "unit/steps/apt/apt_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

TEST_CASE("apt_remove is a no-op without apt when none of the packages is installed") {
  AptWorld w;
  auto step = make_step("apt_remove", "packages = [\"libhsakmt1\", \"libhsa-runtime64-1\"]\n");
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary == "none of libhsakmt1, libhsa-runtime64-1 is installed");
  CHECK(w.runner.calls.empty());
}

TEST_CASE("apt_remove plans with apt's simulation, records versions and undo reinstalls them") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}, {"libhsakmt1", "5.7.0-1build1"},
                                                     {"libhsa-runtime64-1", "5.7.1-2build1"}}));
  w.runner.on({"apt-get", "-s", "remove"}, ok("Remv libhsa-runtime64-1 [5.7.1-2build1]\nRemv libhsakmt1 [5.7.0-1build1]\n"));
  w.runner.on({"apt-get", "remove"}, [&](const Command&) {
    w.fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}}));
    return ok();
  });
  w.runner.on({"apt-get", "install"}, ok());
  auto step = make_step("apt_remove", "packages = [\"libhsakmt1\", \"libhsa-runtime64-1\", \"not-there\"]\n");
  StepPlan p = step->plan(w.ctx);
  CHECK(w.runner.calls.at(0).argv == concat({{"apt-get", "-s", "remove", "-o", "Debug::pkgDepCache::AutoInstall=1"},
                                             kNoWrites,
                                             {"libhsakmt1", "libhsa-runtime64-1"}}));
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "remove libhsa-runtime64-1 5.7.1-2build1, libhsakmt1 5.7.0-1build1");
  CHECK(p.changes[1] == nlohmann::json{{"type", "package"}, {"action", "remove"}, {"name", "libhsakmt1"}, {"version", "5.7.0-1build1"}});

  // Then what undo would need kept: no source here offers them (madison is
  // not found) and nothing can rebuild them, so the plan says so.
  CHECK(w.runner.calls.at(1).argv.at(0) == "apt-cache");
  REQUIRE(p.keeps.size() == 2);
  CHECK(p.keeps[0].from.empty());

  w.runner.calls.clear();
  auto data = step->apply(w.ctx, p);
  CHECK(w.runner.calls.at(0).argv == concat({{"apt-get", "remove", "-y"}, kDpkgOptions, {"libhsakmt1", "libhsa-runtime64-1"}}));
  CHECK(w.runner.calls.at(0).env == kAptEnv);
  CHECK(data["removed"] == nlohmann::json::parse(R"([
      {"name":"libhsakmt1","version":"5.7.0-1build1","architecture":"amd64","auto":false},
      {"name":"libhsa-runtime64-1","version":"5.7.1-2build1","architecture":"amd64","auto":false}])"));

  // Without an undo store (a transaction made before it), undo asks the
  // sources, which still offer both versions.
  w.runner.on({"apt-cache", "madison"}, madison({{"libhsakmt1", {"5.7.0-1build1"}}, {"libhsa-runtime64-1", {"5.7.1-2build1"}}}));
  w.runner.calls.clear();
  step->undo(w.ctx, data);
  CHECK(w.runner.calls.at(0).argv == concat({{"apt-cache", "madison"}, kNoWrites, {"libhsakmt1", "libhsa-runtime64-1"}}));
  CHECK(w.runner.calls.at(1).argv == concat({{"apt-get", "install", "--no-install-recommends", "-y"}, kDpkgOptions,
                                             {"libhsakmt1=5.7.0-1build1", "libhsa-runtime64-1=5.7.1-2build1"}}));
}

TEST_CASE("apt_remove with matching and auto_remove takes what only the removed needed, and nothing unneeded before") {
  AptWorld w;
  // A legacy ROCm release: rocm-core and the WSL runtime asked for, a
  // library only they needed, and an unrelated package already unneeded.
  w.fs.add_file("/var/lib/dpkg/status",
                status_text({{"libc6", "2.36-9"}, {"rocm-core", "7.2.4.70204-1"}, {"amdrocm10.0-gfx1100", "10.0.0-4"},
                             {"libdrm-amdgpu-amdgpu1", "1:2.4.125-1"}, {"old-orphan", "1.0"}}));
  w.runner.on({"apt-get", "-s", "remove"}, ok("Remv rocm-core [7.2.4.70204-1]\nRemv amdrocm10.0-gfx1100 [10.0.0-4]\n"
                                              "Remv libdrm-amdgpu-amdgpu1 [1:2.4.125-1]\nRemv old-orphan [1.0]\n"));
  w.runner.on({"apt-get", "-s", "autoremove"}, ok("Remv old-orphan [1.0]\n"));
  w.runner.on({"apt-get", "remove"}, [&](const Command&) {
    w.fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}, {"old-orphan", "1.0"}}));
    return ok();
  });
  auto step = make_step("apt_remove", "packages = [\"rocm-core\"]\nmatching = [\"amdrocm*\"]\nauto_remove = true\n");
  StepPlan p = step->plan(w.ctx);
  std::string argv;
  for (const auto& a : w.runner.calls.at(0).argv) argv += a + " ";
  INFO(argv);
  CHECK(w.runner.calls.at(0).argv ==
        concat({{"apt-get", "-s", "remove", "--auto-remove", "-o", "Debug::pkgDepCache::AutoInstall=1"},
                kNoWrites,
                {"rocm-core", "amdrocm10.0-gfx1100"}}));
  REQUIRE(p.verdict == Verdict::change);
  CHECK(p.summary == "remove rocm-core 7.2.4.70204-1, amdrocm10.0-gfx1100 10.0.0-4, libdrm-amdgpu-amdgpu1 1:2.4.125-1");
  CHECK(p.fingerprint["apt:remove"] ==
        nlohmann::json::array({"rocm-core", "amdrocm10.0-gfx1100", "libdrm-amdgpu-amdgpu1"}));

  w.runner.calls.clear();
  auto data = step->apply(w.ctx, p);
  CHECK(w.runner.calls.at(0).argv == concat({{"apt-get", "remove", "-y"}, kDpkgOptions,
                                             {"rocm-core", "amdrocm10.0-gfx1100", "libdrm-amdgpu-amdgpu1"}}));
  CHECK(data["removed"].size() == 3);
}

TEST_CASE("apt_remove refuses a matching pattern that is not a package pattern, or one that matches everything") {
  std::vector<Diagnostic> everything, upper;
  make_step("apt_remove", "matching = [\"*\"]\n", everything);
  REQUIRE(everything.size() == 1);
  CHECK(contains(everything[0].message, "would remove every package"));
  make_step("apt_remove", "matching = [\"AMD*\"]\n", upper);
  REQUIRE(upper.size() == 1);
  CHECK(contains(upper[0].message, "is not a package name or pattern"));
}

TEST_CASE("apt_remove undo installs the undo store's copies, without asking the sources, and marks automatic ones again") {
  AptWorld w;
  TempDir store_dir;
  store_dir.write("libhsakmt1_5.7.0-1build1_amd64.deb", "kept deb");
  UndoStore store(store_dir.path(), "/var/lib/wslgpu-setup/tx/T/undo");
  KeptDeb k;
  k.step = "rocm57";
  k.name = "libhsakmt1";
  k.version = "5.7.0-1build1";
  k.architecture = "amd64";
  k.file = "libhsakmt1_5.7.0-1build1_amd64.deb";
  store.add(store.admit(k));
  w.ctx.undo_store = &store;
  w.runner.on({"apt-get", "install"}, ok());
  w.runner.on({"apt-mark"}, ok());
  auto step = make_step("apt_remove", "packages = [\"libhsakmt1\"]\n");
  step->undo(w.ctx, nlohmann::json::parse(
                        R"({"removed":[{"name":"libhsakmt1","version":"5.7.0-1build1","architecture":"amd64","auto":true}]})"));
  REQUIRE(w.runner.calls.size() == 2);
  // As root: apt's _apt user cannot enter the store (0700).
  CHECK(w.runner.calls[0].argv == concat({{"apt-get", "install", "--no-install-recommends", "-o", "APT::Sandbox::User=root", "-y"},
                                          kDpkgOptions,
                                          {"/var/lib/wslgpu-setup/tx/T/undo/libhsakmt1_5.7.0-1build1_amd64.deb"}}));
  CHECK(w.runner.calls[1].argv == Argv{"apt-mark", "auto", "libhsakmt1"});

  // A copy that changed on disk: refused before apt is asked anything.
  store_dir.write("libhsakmt1_5.7.0-1build1_amd64.deb", "tampered");
  w.runner.calls.clear();
  CHECK_THROWS_AS(step->undo(w.ctx, nlohmann::json::parse(
                                        R"({"removed":[{"name":"libhsakmt1","version":"5.7.0-1build1","architecture":"amd64"}]})")),
                  CorruptCopy);
  CHECK(w.runner.calls.empty());
}

TEST_CASE("apt_remove undo leaves a version no copy and no source provides removed, and says so") {
  AptWorld w;
  w.runner.on({"apt-cache", "madison"}, madison({}));
  auto step = make_step("apt_remove", "packages = [\"libhsakmt1\"]\n");
  CHECK_NOTHROW(step->undo(w.ctx, nlohmann::json::parse(R"({"removed":[{"name":"libhsakmt1","version":"5.7.0-1build1"}]})")));
  REQUIRE(w.runner.calls.size() == 1);  // madison only: apt-get install is not run for nothing
}

TEST_CASE("apt_remove undo says plainly when apt can no longer fetch the removed version") {
  AptWorld w;
  // madison's lists still name it, but the repository no longer serves it.
  w.runner.on({"apt-cache", "madison"}, madison({{"libhsakmt1", {"5.7.0-1build1"}}}));
  w.runner.on({"apt-get", "install"}, fail(100, "E: Version '5.7.0-1build1' for 'libhsakmt1' was not found\n"));
  auto step = make_step("apt_remove", "packages = [\"libhsakmt1\"]\n");
  CHECK_THROWS_WITH_AS(
      step->undo(w.ctx, nlohmann::json::parse(R"({"removed":[{"name":"libhsakmt1","version":"5.7.0-1build1"}]})")),
      "apt cannot fetch the removed versions any more, so they were not reinstalled: libhsakmt1=5.7.0-1build1.\n"
      "`apt-get install` exited 100:\n"
      "E: Version '5.7.0-1build1' for 'libhsakmt1' was not found\n"
      "If you still need them, install them by hand (`sudo apt-get install libhsakmt1=5.7.0-1build1`, or without the "
      "version for the current one).",
      StepFailure);
}
