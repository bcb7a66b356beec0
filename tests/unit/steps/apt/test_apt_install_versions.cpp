// apt_install with versions (downgrades with the exactly pinned
// dependencies apt names) and replaces (the old release removed in the same
// apt run), and what undo needs kept for them.
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

const char* const kNvccDowngradeReport =
    "The following packages have unmet dependencies:\n"
    " cuda-toolkit-12-6 : Depends: cuda-nvcc-12-6 (= 12.6.2-1) but 12.6.3-1 is to be installed\n"
    "E: Unable to correct problems, you have held broken packages.\n";

bool has_arg(const Command& c, const std::string& a) { return std::find(c.argv.begin(), c.argv.end(), a) != c.argv.end(); }

}  // namespace

TEST_CASE("apt_install with a version is a no-op, running no apt, when dpkg has a matching version") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"cuda-toolkit-12-6", "12.6.3-1"}}));
  auto step = make_step("apt_install", "packages = [\"cuda-toolkit-12-6\"]\nversions = { cuda-toolkit-12-6 = \"12.6.3-*\" }\n");
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary == "cuda-toolkit-12-6 12.6.3-1 is already installed");
  CHECK(w.runner.calls.empty());
}

TEST_CASE("apt_install downgrades to the version asked for, with the exactly pinned dependencies apt names") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status",
                status_text({{"cuda-toolkit-12-6", "12.6.3-1"}, {"cuda-nvcc-12-6", "12.6.3-1"}}));
  w.fs.add_file("/var/lib/apt/extended_states", "Package: cuda-nvcc-12-6\nArchitecture: amd64\nAuto-Installed: 1\n");
  w.runner.on({"apt-cache", "madison"},
              madison({{"cuda-toolkit-12-6", {"12.6.3-1", "12.6.2-1"}}, {"cuda-nvcc-12-6", {"12.6.3-1", "12.6.2-1"}}}));
  w.runner.on({"apt-get", "-s"}, [](const Command& c) {
    if (!has_arg(c, "cuda-nvcc-12-6=12.6.2-1")) return fail(100, kNvccDowngradeReport);
    return ok("Inst cuda-toolkit-12-6 [12.6.3-1] (12.6.2-1 test [amd64]) []\n"
              "Inst cuda-nvcc-12-6 [12.6.3-1] (12.6.2-1 test [amd64])\n");
  });
  w.runner.on({"apt-get", "download", "--print-uris"},
              ok("'file:/srv/repo/cuda-toolkit-12-6_12.6.3-1_amd64.deb' cuda-toolkit-12-6_12.6.3-1_amd64.deb 1000 SHA256:" +
                 std::string(64, 'a') + "\n'file:/srv/repo/cuda-nvcc-12-6_12.6.3-1_amd64.deb' cuda-nvcc-12-6_12.6.3-1_amd64.deb 2000 SHA256:" +
                 std::string(64, 'b') + "\n"));
  auto step = make_step("apt_install", "packages = [\"cuda-toolkit-12-6\"]\nversions = { cuda-toolkit-12-6 = \"12.6.2*\" }\n");
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "downgrade cuda-toolkit-12-6 12.6.3-1 → 12.6.2-1, cuda-nvcc-12-6");
  CHECK(p.fingerprint["apt:request"] == "cuda-toolkit-12-6=12.6.2-1 cuda-nvcc-12-6=12.6.2-1");
  CHECK(p.changes[0]["action"] == "downgrade");
  CHECK(p.changes[0]["from"] == "12.6.3-1");
  REQUIRE(w.runner.calls.size() == 6);
  CHECK(w.runner.calls[0].argv == concat({{"apt-cache", "madison"}, kNoWrites, {"cuda-toolkit-12-6"}}));
  CHECK(w.runner.calls[1].argv == concat({{"apt-get", "-s", "install", "--no-install-recommends", "--auto-remove", "-o",
                                           "Debug::pkgDepCache::AutoInstall=1"},
                                          kNoWrites,
                                          {"cuda-toolkit-12-6=12.6.2-1"}}));
  CHECK(has_arg(w.runner.calls[2], "cuda-nvcc-12-6=12.6.2-1"));
  // What undo would install is kept before the run (steps/apt_keep.hpp):
  // the target's sources offer both old versions, so they are fetched.
  CHECK(w.runner.calls[3].argv == concat({{"apt-cache", "madison"}, kNoWrites, {"cuda-toolkit-12-6", "cuda-nvcc-12-6"}}));
  CHECK(w.runner.calls[4].argv == concat({{"apt-get", "download", "--print-uris"}, kNoWrites,
                                          {"cuda-toolkit-12-6=12.6.3-1", "cuda-nvcc-12-6=12.6.3-1"}}));
  REQUIRE(p.keeps.size() == 2);
  CHECK(p.keeps[0].from == "fetched");
  CHECK(p.keeps[0].bytes == 1000);
  CHECK(p.keeps[1].index_sha256 == std::string(64, 'b'));
  // apt's sizes, for the same request.
  CHECK(w.runner.calls[5].argv ==
        concat({{"apt-get", "install", "--print-uris", "--no-install-recommends", "--allow-downgrades"}, kNoWrites,
                {"cuda-toolkit-12-6=12.6.2-1", "cuda-nvcc-12-6=12.6.2-1"}}));
  CHECK(std::none_of(p.details.begin(), p.details.end(),
                     [](const std::string& d) { return d.find("undo cannot") != std::string::npos; }));

  // Apply performs that request, allowing exactly these downgrades.
  w.runner.on({"apt-get", "install"}, [&](const Command&) {
    w.fs.add_file("/var/lib/dpkg/status",
                  status_text({{"cuda-toolkit-12-6", "12.6.2-1"}, {"cuda-nvcc-12-6", "12.6.2-1"}}));
    return ok();
  });
  w.runner.on({"apt-mark"}, ok());
  nlohmann::json data = step->apply(w.ctx, p);
  REQUIRE(w.runner.calls.size() == 8);
  CHECK(w.runner.calls[6].argv ==
        concat({{"apt-get", "install", "-y", "--no-install-recommends", "--allow-downgrades"}, kDpkgOptions,
                {"cuda-toolkit-12-6=12.6.2-1", "cuda-nvcc-12-6=12.6.2-1"}}));
  // Named for its version only, the dependency stays automatic.
  CHECK(w.runner.calls[7].argv == Argv{"apt-mark", "auto", "cuda-nvcc-12-6"});
  CHECK(data["upgraded"] == nlohmann::json::parse(R"([
    {"name":"cuda-toolkit-12-6","from":"12.6.3-1","to":"12.6.2-1","architecture":"amd64","auto":false},
    {"name":"cuda-nvcc-12-6","from":"12.6.3-1","to":"12.6.2-1","architecture":"amd64","auto":true}])"));
  CHECK(make_step("apt_install", "packages = [\"cuda-toolkit-12-6\"]\nversions = { cuda-toolkit-12-6 = \"12.6.2*\" }\n")
            ->plan(w.ctx)
            .verdict == Verdict::noop);

  // Undo puts both versions back in one apt run, and the dependency is
  // automatic again.
  w.runner.calls.clear();
  step->undo(w.ctx, data);
  REQUIRE(w.runner.calls.size() == 3);
  CHECK(w.runner.calls[0].argv == concat({{"apt-cache", "madison"}, kNoWrites, {"cuda-toolkit-12-6", "cuda-nvcc-12-6"}}));
  CHECK(w.runner.calls[1].argv ==
        concat({{"apt-get", "install", "-y", "--purge", "--no-install-recommends", "--allow-downgrades"}, kDpkgOptions,
                {"cuda-toolkit-12-6=12.6.3-1", "cuda-nvcc-12-6=12.6.3-1"}}));
  CHECK(w.runner.calls[2].argv == Argv{"apt-mark", "auto", "cuda-nvcc-12-6"});
}

TEST_CASE("apt_install refuses a version no source offers, naming the versions there are") {
  AptWorld w;
  w.runner.on({"apt-cache", "madison"}, madison({{"cuda-toolkit-12-6", {"12.6.3-1"}}}));
  StepPlan p = make_step("apt_install", "packages = [\"cuda-toolkit-12-6\"]\nversions = { cuda-toolkit-12-6 = \">= 12.7\" }\n")
                   ->plan(w.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary == "apt has no cuda-toolkit-12-6 version matching \">= 12.7\"");
  CHECK(p.details[0] == "apt can fetch cuda-toolkit-12-6 12.6.3-1.");
}

TEST_CASE("apt_install replaces: the old release goes in the same apt run, with what only it needed") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status",
                status_text({{"bash", "5.2.15-2"},
                             {"cuda-toolkit-12-2", "12.2.2-1"},
                             {"cuda-nvcc-12-2", "12.2.2-1"},
                             {"cuda-toolkit-12-config-common", "12.9.79-1"},
                             {"old-garbage", "1.0"}}));
  w.fs.add_file("/var/lib/apt/extended_states",
                "Package: cuda-nvcc-12-2\nArchitecture: amd64\nAuto-Installed: 1\n\n"
                "Package: cuda-toolkit-12-config-common\nArchitecture: amd64\nAuto-Installed: 1\n\n"
                "Package: old-garbage\nArchitecture: amd64\nAuto-Installed: 1\n");
  w.runner.on({"apt-get", "-s", "autoremove"}, ok("Remv old-garbage [1.0]\n"));
  w.runner.on({"apt-get", "-s"}, ok("Remv cuda-toolkit-12-2 [12.2.2-1]\nRemv cuda-nvcc-12-2 [12.2.2-1]\n"
                                    "Remv cuda-toolkit-12-config-common [12.9.79-1]\nRemv old-garbage [1.0]\n"
                                    "Inst cuda-nvcc-13-1 (13.1.1-1 test [amd64])\n"
                                    "Inst cuda-toolkit-13-1 (13.1.1-1 test [amd64])\n"));
  w.runner.on({"apt-cache", "madison"}, madison({{"cuda-toolkit-12-2", {"12.2.2-1"}}, {"cuda-nvcc-12-2", {"12.2.2-1"}},
                                                 {"cuda-toolkit-12-config-common", {"12.9.79-1"}}}));
  const char* keys = "packages = [\"cuda-toolkit-13-1\"]\nreplaces = [\"cuda-toolkit-*\"]\n";
  StepPlan p = make_step("apt_install", keys)->plan(w.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary ==
        "install 2 packages: cuda-nvcc-13-1, cuda-toolkit-13-1; REMOVE cuda-toolkit-12-2, cuda-nvcc-12-2, "
        "cuda-toolkit-12-config-common");
  CHECK(p.fingerprint["apt:request"] ==
        "cuda-toolkit-13-1 cuda-toolkit-12-2- cuda-nvcc-12-2- cuda-toolkit-12-config-common-");
  CHECK(p.fingerprint["dpkg:cuda-toolkit-12-2"] == "12.2.2-1");
  CHECK(std::find(p.details.begin(), p.details.end(),
                  "(cuda-toolkit-12-2 is replaced by this step's packages: replaces = [cuda-toolkit-*])") != p.details.end());
  CHECK(has_arg(w.runner.calls[0], "--auto-remove"));
  CHECK(has_arg(w.runner.calls[0], "cuda-toolkit-12-2-"));

  // Converged on the new release: dependencies of it that the pattern
  // matches were never asked for, and no apt runs.
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"cuda-toolkit-13-1", "13.1.1-1"}, {"cuda-toolkit-13-config-common", "13.1.80-1"}}));
  w.fs.add_file("/var/lib/apt/extended_states", "Package: cuda-toolkit-13-config-common\nAuto-Installed: 1\n");
  w.runner.calls.clear();
  CHECK(make_step("apt_install", keys)->plan(w.ctx).verdict == Verdict::noop);
  CHECK(w.runner.calls.empty());
}

TEST_CASE("apt_install undo reinstalls what apt removed, from apt's cache when no source has it") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"cuda-toolkit-13-1", "13.1.1-1"}}));
  w.fs.add_file("/var/cache/apt/archives/cuda-toolkit-12-2_1%3a12.2.2-1_amd64.deb", "deb");
  w.runner.on({"apt-cache", "madison"}, madison({}));
  w.runner.on({"apt-get", "install"}, ok());
  auto step = make_step("apt_install", "packages = [\"cuda-toolkit-13-1\"]\n");
  step->undo(w.ctx, nlohmann::json::parse(R"({"installed":[{"name":"cuda-toolkit-13-1","version":"13.1.1-1"}],
      "upgraded":[], "removed":[{"name":"cuda-toolkit-12-2","version":"1:12.2.2-1","architecture":"amd64","auto":false}]})"));
  REQUIRE(w.runner.calls.size() == 2);
  CHECK(w.runner.calls[1].argv ==
        concat({{"apt-get", "install", "-y", "--purge", "--no-install-recommends", "--allow-downgrades"}, kDpkgOptions,
                {"/var/cache/apt/archives/cuda-toolkit-12-2_1%3a12.2.2-1_amd64.deb", "cuda-toolkit-13-1-"}}));
}

TEST_CASE("apt_install undo reinstalls a removed .deb from wslgpu-setup's download cache, as a download step left it") {
  // librocdxg's rocdxg-roct is in no apt repository: the rocm profile's
  // download step keeps it as STATE_DIR/cache/NAME_VERSION_ARCH.deb.
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"rocm", "6.4.2.1-1"}}));
  w.fs.add_file("/var/lib/wslgpu-setup/cache/rocdxg-roct_1.2.2_amd64.deb", "deb");
  w.runner.on({"apt-cache", "madison"}, madison({}));
  w.runner.on({"apt-get", "install"}, ok());
  auto step = make_step("apt_install", "packages = [\"rocm\"]\nreplaces = [\"rocdxg-roct\"]\n");
  step->undo(w.ctx, nlohmann::json::parse(R"({"installed":[], "upgraded":[],
      "removed":[{"name":"rocdxg-roct","version":"1.2.2","architecture":"amd64","auto":false}]})"));
  REQUIRE(w.runner.calls.size() == 2);
  CHECK(w.runner.calls[1].argv ==
        concat({{"apt-get", "install", "-y", "--purge", "--no-install-recommends", "--allow-downgrades"}, kDpkgOptions,
                {"/var/lib/wslgpu-setup/cache/rocdxg-roct_1.2.2_amd64.deb"}}));
}

TEST_CASE("apt_install versions may name a package through a variable") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"rocm-dev", "7.2.2.70202-1"}}));
  auto table = toml::parse(
      "kind = \"apt_install\"\npackages = [\"${rocm_package}\"]\n"
      "versions = { \"${rocm_package}\" = \"${rocm_package_version}\" }\n");
  Variables vars{{"rocm_package", "rocm-dev"}, {"rocm_package_version", "7.2.2.*"}};
  std::vector<Diagnostic> diags;
  StepKeys keys(table, "test.toml", "apt_install", vars, diags);
  keys.mark_common("kind");
  auto step = find_step_kind("apt_install")->make(keys);
  keys.finish();
  REQUIRE(diags.empty());
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary == "rocm-dev 7.2.2.70202-1 is already installed");
}

TEST_CASE("apt_install undo that cannot fetch an old version moves no version, and keeps what the others need") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"rocm", "7.2.1-1"}, {"librocdxg", "1.2.2"}}));
  w.runner.on({"apt-cache", "madison"}, madison({{"rocm", {"7.2.1-1"}}}));
  w.runner.on({"apt-get", "-s", "purge"}, ok("Purg librocdxg [1.2.2]\nPurg rocm [7.2.1-1]\n"));
  auto step = make_step("apt_install", "packages = [\"rocm\"]\n");
  step->undo(w.ctx, nlohmann::json::parse(R"({"installed":[{"name":"librocdxg","version":"1.2.2"}],
      "upgraded":[{"name":"rocm","from":"6.4.2-1","to":"7.2.1-1","architecture":"amd64","auto":false}], "removed":[]})"));
  // Madison, then the purge simulation that shows rocm would go too: no change.
  REQUIRE(w.runner.calls.size() == 2);
  CHECK(w.runner.calls[1].argv[2] == "purge");
}

TEST_CASE("apt_install undo of an interrupted apply compares with the snapshot it took first") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}, {"cuda-toolkit-12-2", "12.2.2-1"}}));
  auto step = make_step("apt_install", "packages = [\"cuda-toolkit-13-1\"]\nreplaces = [\"cuda-toolkit-*\"]\n");
  nlohmann::json pre = step->snapshot(w.ctx);
  // Killed halfway: the old toolkit is gone, the new one half there.
  w.fs.add_file("/var/lib/dpkg/status",
                status_text({{"libc6", "2.36-9"}, {"cuda-toolkit-13-1", "13.1.1-1", "install ok unpacked"}}));
  w.runner.on({"apt-cache", "madison"}, madison({{"cuda-toolkit-12-2", {"12.2.2-1"}}}));
  w.runner.on({"apt-get", "install"}, ok());
  step->undo(w.ctx, {{"partial", true}, {"pre", pre}});
  REQUIRE(w.runner.calls.size() == 2);
  CHECK(w.runner.calls[1].argv ==
        concat({{"apt-get", "install", "-y", "--purge", "--no-install-recommends", "--allow-downgrades"}, kDpkgOptions,
                {"cuda-toolkit-12-2=12.2.2-1", "cuda-toolkit-13-1-"}}));
}

TEST_CASE("apt_install versions and replaces are checked") {
  std::vector<Diagnostic> diags;
  make_step("apt_install",
            "packages = [\"rocm\"]\nversions = { rocm-dev = \"7.2.1.*\", rocm = \">= x\" }\nreplaces = [\"*\", \"Rocm\"]\n",
            diags);
  REQUIRE(diags.size() == 4);
  CHECK(diags[0].message == "\"versions\" names rocm-dev, which is not in \"packages\"; a version belongs to a package "
                            "this step installs");
  CHECK(diags[1].message == "the version of rocm is not understood: \"x\" is not a Debian version");
  CHECK(diags[2].message == "\"*\" would replace every package; name the packages this step replaces");
  CHECK(diags[3].message.rfind("\"Rocm\" is not a package name or pattern", 0) == 0);
}
