// apt_install: what plan resolves with apt's simulation and shows, what apply
// runs and records, what undo reverses, and its keys; also planned against
// the sources an earlier step of the same plan would add.
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

TEST_CASE("apt_install is a no-op that runs no apt at all when every package is installed") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}, {"rocm-dev", "6.4.2"}}));
  auto step = make_step("apt_install", "packages = [\"rocm-dev\"]\n");
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary == "rocm-dev 6.4.2 is already installed");
  CHECK(p.fingerprint["dpkg:rocm-dev"] == "6.4.2");
  auto data = step->apply(w.ctx, p);
  CHECK(data["installed"].empty());
  CHECK(w.runner.calls.empty());
}

TEST_CASE("apt_install plan resolves the whole transaction with apt-get -s and lists every package") {
  AptWorld w;
  w.runner.on({"apt-get", "-s"}, ok(kRocmSimulation));
  auto step = make_step("apt_install", "packages = [\"rocm-dev\", \"bash\"]\n");
  StepPlan p = step->plan(w.ctx);
  REQUIRE(w.runner.calls.size() == 2);
  CHECK(w.runner.calls[0].argv == concat({{"apt-get", "-s", "install", "--no-install-recommends", "-o",
                                           "Debug::pkgDepCache::AutoInstall=1"},
                                          kNoWrites,
                                          {"rocm-dev"}}));
  CHECK(w.runner.calls[0].env == kAptEnv);
  // apt's sizes, asked the same way (the fake answers nothing: the plan says no sizes).
  CHECK(w.runner.calls[1].argv ==
        concat({{"apt-get", "install", "--print-uris", "--no-install-recommends"}, kNoWrites, {"rocm-dev"}}));
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "install 3 packages: rocm-core, hsa-runtime-rocr4wsl-amdgpu, rocm-dev");
  CHECK(p.details == std::vector<std::string>{
                         "install rocm-core 6.4.2.60402-120~24.04 (repo.radeon.com)",
                         "install hsa-runtime-rocr4wsl-amdgpu 1.14.0.60402-120~24.04 (repo.radeon.com)",
                         "install rocm-dev 6.4.2.60402-120~24.04 (repo.radeon.com)"});
  CHECK(p.changes == nlohmann::json::parse(R"([
    {"type":"package","action":"install","name":"rocm-core","version":"6.4.2.60402-120~24.04","architecture":"amd64"},
    {"type":"package","action":"install","name":"hsa-runtime-rocr4wsl-amdgpu","version":"1.14.0.60402-120~24.04","architecture":"amd64"},
    {"type":"package","action":"install","name":"rocm-dev","version":"6.4.2.60402-120~24.04","architecture":"amd64"}])"));
  CHECK(p.fingerprint["dpkg:rocm-dev"] == "absent");
  CHECK(p.fingerprint["dpkg:bash"] == "5.2.15-2");
  CHECK(p.writes.empty());
  CHECK(w.fs.writes == 0);
}

TEST_CASE("apt_install with install_recommends lets apt add recommended packages") {
  AptWorld w;
  w.runner.on({"apt-get", "-s"}, ok(kRocmSimulation));
  auto step = make_step("apt_install", "packages = [\"rocm-dev\"]\ninstall_recommends = true\n");
  step->plan(w.ctx);
  REQUIRE(w.runner.calls.size() == 2);
  CHECK(w.runner.calls[0].argv ==
        concat({{"apt-get", "-s", "install", "-o", "Debug::pkgDepCache::AutoInstall=1"}, kNoWrites, {"rocm-dev"}}));
}

TEST_CASE("apt_install refuses a transaction that pulls in a DKMS package, however deep") {
  AptWorld w;
  w.runner.on({"apt-get", "-s"}, ok("  Installing amdgpu-dkms:amd64 as Depends of rocm-dkms:amd64\n"
                                    "    Installing dkms:amd64 as Depends of amdgpu-dkms:amd64\n"
                                    "Inst dkms (3.0.10-8 Debian:12/stable [all])\n"
                                    "Inst amdgpu-dkms (1:6.12.12.60402-2164967.24.04 repo.radeon.com [all])\n"
                                    "Inst rocm-dkms (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"));
  auto step = make_step("apt_install", "packages = [\"rocm-dkms\"]\n");
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary == "would install dkms 3.0.10-8, amdgpu-dkms 1:6.12.12.60402-2164967.24.04, rocm-dkms "
                     "6.4.2.60402-120~24.04, which are kernel-module packages");
  REQUIRE(p.details.size() >= 5);
  CHECK(p.details[0] == "dkms 3.0.10-8 is pulled in by rocm-dkms → amdgpu-dkms → dkms");
  CHECK(p.details[1] == "amdgpu-dkms 1:6.12.12.60402-2164967.24.04 is pulled in by rocm-dkms → amdgpu-dkms");
  CHECK(p.details[2] == "rocm-dkms 6.4.2.60402-120~24.04 is in this step's packages");
  CHECK(p.details[3] == "DKMS modules cannot build against Microsoft's WSL kernel: WSL2 runs Microsoft's own kernel, "
                        "and no headers exist for it to build against.");
  CHECK(p.changes.size() == 3);  // the guards see the whole transaction too, with the chains
  CHECK(p.changes[0]["via"] == "rocm-dkms → amdgpu-dkms → dkms");
  CHECK(p.changes[1]["via"] == "rocm-dkms → amdgpu-dkms");
  CHECK_FALSE(p.changes[2].contains("via"));

  auto allowed = make_step("apt_install", "packages = [\"rocm-dkms\"]\nno_dkms = false\n");
  CHECK(allowed->plan(w.ctx).verdict == Verdict::change);
}

TEST_CASE("apt_install refuses linux-headers pulled in by a dependency") {
  AptWorld w;
  w.runner.on({"apt-get", "-s"}, ok("Inst linux-headers-6.8.0-45-generic (6.8.0-45.45 Ubuntu:24.04/noble [amd64])\n"
                                    "Inst foo (1.0 Ubuntu:24.04/noble [amd64])\n"));
  StepPlan p = make_step("apt_install", "packages = [\"foo\"]\n")->plan(w.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary == "would install linux-headers-6.8.0-45-generic 6.8.0-45.45, which is a kernel-module package");
  CHECK(p.details[0] == "linux-headers-6.8.0-45-generic 6.8.0-45.45 is pulled in as a dependency of foo");
}

TEST_CASE("apt_install shows upgrades and removals that the transaction brings") {
  AptWorld w;
  w.runner.on({"apt-get", "-s"}, ok("Remv libhsakmt1 [5.7.0-1build1]\n"
                                    "Inst libc6 [2.36-9] (2.36-9+deb12u9 Debian:12.8/stable [amd64])\n"
                                    "Inst rocm-dev (6.4.2 repo.radeon.com [amd64])\n"));
  StepPlan p = make_step("apt_install", "packages = [\"rocm-dev\"]\n")->plan(w.ctx);
  CHECK(p.summary == "install 1 package: rocm-dev; upgrade libc6; REMOVE libhsakmt1");
  CHECK(p.details[0] == "remove libhsakmt1 5.7.0-1build1");
  CHECK(p.details[1] == "upgrade libc6 2.36-9 -> 2.36-9+deb12u9 (Debian:12.8/stable)");
  CHECK(p.changes[0] == nlohmann::json{{"type", "package"}, {"action", "remove"}, {"name", "libhsakmt1"}, {"version", "5.7.0-1build1"}});
  CHECK(p.changes[1]["action"] == "upgrade");
  CHECK(p.changes[1]["from"] == "2.36-9");
}

TEST_CASE("apt_install plan is refused, with apt's reason, when apt cannot resolve a package") {
  AptWorld w;
  w.runner.on({"apt-get", "-s"}, fail(100, "E: Unable to locate package hsa-runtime-rocr4wsl-amdgpu\n"));
  StepPlan p = make_step("apt_install", "packages = [\"hsa-runtime-rocr4wsl-amdgpu\"]\n")->plan(w.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary == "apt cannot install hsa-runtime-rocr4wsl-amdgpu: Unable to locate package hsa-runtime-rocr4wsl-amdgpu");
}

TEST_CASE("apt_install refuses to plan or apply while dpkg has unfinished journal entries") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/updates/0003", "Package: x\n");
  auto step = make_step("apt_install", "packages = [\"rocm-dev\"]\n");
  const char* message =
      "an earlier dpkg run was interrupted: /var/lib/dpkg/updates/ holds 1 unfinished entry, and apt will not work "
      "until dpkg has finished it.\nRun `sudo dpkg --configure -a`, then run wslgpu-setup again.";
  CHECK_THROWS_WITH_AS(step->plan(w.ctx), message, StepFailure);
  CHECK_THROWS_WITH_AS(step->apply(w.ctx, StepPlan{}), message, StepFailure);
  CHECK(w.runner.calls.empty());
}

TEST_CASE("apt_install apply runs apt non-interactively and undo purges exactly the new packages") {
  AptWorld w;
  w.fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}, {"rocm-core", "6.4.2"}}));
  w.runner.on({"apt-get", "install"}, [&](const Command&) {
    w.fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9+deb12u9"},
                                                        {"rocm-core", "6.4.2"},
                                                        {"hsa-runtime-rocr4wsl-amdgpu", "1.14.0"},
                                                        {"rocm-dev", "6.4.2"}}));
    return ok();
  });
  w.runner.on({"apt-get", "purge"}, ok());
  auto step = make_step("apt_install", "packages = [\"rocm-dev\", \"rocm-core\"]\n");
  nlohmann::json data = step->apply(w.ctx, StepPlan{});
  REQUIRE(w.runner.calls.size() == 1);
  CHECK(w.runner.calls[0].argv ==
        concat({{"apt-get", "install", "-y", "--no-install-recommends"}, kDpkgOptions, {"rocm-dev"}}));
  CHECK(w.runner.calls[0].env == kAptEnv);
  CHECK(data["installed"] == nlohmann::json::parse(R"([{"name":"hsa-runtime-rocr4wsl-amdgpu","version":"1.14.0"},
                                                       {"name":"rocm-dev","version":"6.4.2"}])"));
  CHECK(data["upgraded"] == nlohmann::json::parse(
                                R"([{"name":"libc6","from":"2.36-9","to":"2.36-9+deb12u9","architecture":"amd64","auto":false}])"));

  // Undo asks which versions apt can still fetch; with none of them, it
  // leaves the upgrade, which it cannot take back, and purges what is new
  // once apt's simulation shows that nothing else would go with it.
  w.runner.on({"apt-get", "-s", "purge"}, ok("Purg hsa-runtime-rocr4wsl-amdgpu [1.14.0]\nPurg rocm-dev [6.4.2]\n"));
  step->undo(w.ctx, data);
  REQUIRE(w.runner.calls.size() == 4);
  CHECK(w.runner.calls[1].argv == concat({{"apt-cache", "madison"}, kNoWrites, {"libc6"}}));
  CHECK(w.runner.calls[2].argv == concat({{"apt-get", "-s", "purge", "-o", "Debug::pkgDepCache::AutoInstall=1"}, kNoWrites,
                                          {"hsa-runtime-rocr4wsl-amdgpu", "rocm-dev"}}));
  CHECK(w.runner.calls[3].argv ==
        concat({{"apt-get", "purge", "-y"}, kDpkgOptions, {"hsa-runtime-rocr4wsl-amdgpu", "rocm-dev"}}));
  CHECK(w.runner.calls[3].env == kAptEnv);
}

TEST_CASE("apt_install lock_timeout reaches apt as DPkg::Lock::Timeout") {
  AptWorld w;
  w.runner.on({"apt-get", "install"}, ok());
  make_step("apt_install", "packages = [\"rocm-dev\"]\nlock_timeout = 600\n")->apply(w.ctx, StepPlan{});
  REQUIRE(w.runner.calls.size() == 1);
  CHECK(w.runner.calls[0].argv.at(9) == "DPkg::Lock::Timeout=600");
}

namespace {

// A progress display that keeps what it was told.
struct SeenProgress : ProgressSink {
  std::vector<ProgressEvent> events;
  void update(const ProgressEvent& ev) override { events.push_back(ev); }
};

}  // namespace

TEST_CASE("apt_install plan says what apt would download and the disk space it would use, in apt's figures") {
  AptWorld w;
  w.runner.on({"apt-get", "-s"}, ok(kRocmSimulation));
  w.runner.on({"apt-get", "install", "--print-uris"},
              ok("Need to get 2936 MB of archives.\n"
                 "After this operation, 10.2 GB of additional disk space will be used.\n"
                 "'https://repo.radeon.com/rocm/apt/6.4.2/pool/main/r/rocm-dev/rocm-dev_6.4.2_amd64.deb' "
                 "rocm-dev_6.4.2_amd64.deb 2936000123 SHA256:00\n"));
  StepPlan p = make_step("apt_install", "packages = [\"rocm-dev\"]\n")->plan(w.ctx);
  CHECK(p.download_bytes == 2936000123ULL);
  CHECK(p.disk_bytes == 10200000000LL);
  CHECK(p.summary ==
        "install 3 packages: rocm-core, hsa-runtime-rocr4wsl-amdgpu, rocm-dev (2.9 GB to download, 10 GB more on disk)");
  CHECK(p.activity == "installing 3 packages, 2.9 GB to download");
  CHECK(p.details.front() == "apt: 2.9 GB to download (2.9 GB of packages), 10 GB of disk space used");
  CHECK(w.runner.calls[1].stop_on_interrupt);  // a query: stopping it is harmless
}

TEST_CASE("apt_install downloads first, where a signal may stop it, then installs with apt's status shown") {
  AptWorld w;
  SeenProgress seen;
  w.ctx.progress = &seen;
  std::vector<std::string> order;
  w.runner.on({"apt-get", "-o", "APT::Status-Fd=3", "install", "-y", "--download-only"}, [&](const Command& c) {
    order.push_back("download");
    CHECK(c.stop_on_interrupt);
    c.on_status_line("dlstatus:1:50.0000:Retrieving file 1 of 2");
    return ok();
  });
  w.runner.on({"apt-get", "-o", "APT::Status-Fd=3", "install", "-y"}, [&](const Command& c) {
    order.push_back("install");
    CHECK_FALSE(c.stop_on_interrupt);  // dpkg is never stopped halfway
    c.on_status_line("pmstatus:rocm-dev:20.0000:Unpacking rocm-dev (amd64)");
    w.fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}, {"bash", "5.2.15-2"}, {"rocm-dev", "6.4.2"}}));
    return ok();
  });
  StepPlan plan;
  plan.download_bytes = 1000;
  plan.changes = nlohmann::json::parse(R"([{"type":"package","action":"install","name":"rocm-dev"},
                                           {"type":"package","action":"install","name":"rocm-core"}])");
  make_step("apt_install", "packages = [\"rocm-dev\"]\n")->apply(w.ctx, plan);
  CHECK(order == std::vector<std::string>{"download", "install"});
  REQUIRE(seen.events.size() == 2);
  CHECK(seen.events[0].phase == ProgressEvent::Phase::download);
  CHECK(seen.events[0].bytes_done == 500);
  CHECK(seen.events[0].bytes_total == 1000);
  CHECK(seen.events[1].phase == ProgressEvent::Phase::unpack);
  CHECK(seen.events[1].subject == "rocm-dev");
  CHECK(seen.events[1].items == 2);
}

TEST_CASE("apt_install stopped by a signal while downloading installs nothing and says so") {
  AptWorld w;
  w.runner.on({"apt-get", "install", "-y", "--download-only"}, [&](const Command&) {
    ProcessResult r;
    r.exit_code = 128 + 15;
    r.interrupted = true;
    return r;
  });
  StepPlan plan;
  plan.download_bytes = 1000;
  auto step = make_step("apt_install", "packages = [\"rocm-dev\"]\n");
  CHECK_THROWS_AS(step->apply(w.ctx, plan), Interrupted);
  CHECK(w.runner.calls.size() == 1);  // no `apt-get install` after it
}

TEST_CASE("apt_install undo leaves alone a package the user removed since, and runs nothing then") {
  AptWorld w;
  auto step = make_step("apt_install", "packages = [\"rocm-dev\"]\n");
  step->undo(w.ctx, nlohmann::json::parse(R"({"installed":[{"name":"rocm-dev","version":"6.4.2"}],"upgraded":[],"removed":[]})"));
  CHECK(w.runner.calls.empty());
}

TEST_CASE("a failed apt_install purges what it had half-installed and says what apt said") {
  AptWorld w;
  w.runner.on({"apt-get", "install"}, [&](const Command&) {
    w.fs.add_file("/var/lib/dpkg/status",
                  status_text({{"libc6", "2.36-9"}, {"bash", "5.2.15-2"}, {"bad-postinst", "1.0", "install ok half-configured"}}));
    ProcessResult r = fail(100, "E: Sub-process /usr/bin/dpkg returned an error code (1)\n");
    return r;
  });
  w.runner.on({"apt-get", "purge"}, ok());
  auto step = make_step("apt_install", "packages = [\"bad-postinst\"]\n");
  CHECK_THROWS_WITH_AS(step->apply(w.ctx, StepPlan{}),
                       ("`apt-get install` exited 100:\n"
                        "E: Sub-process /usr/bin/dpkg returned an error code (1)\n"
                        "The 1 packages it had installed were purged again."),
                       StepFailure);
  REQUIRE(w.runner.calls.size() == 2);
  CHECK(w.runner.calls[1].argv == concat({{"apt-get", "purge", "-y"}, kDpkgOptions, {"bad-postinst"}}));
}

TEST_CASE("apt_install manifest keys are checked") {
  std::vector<Diagnostic> diags;
  make_step("apt_install", "packages = [\"Rocm_Dev\"]\nlock_timeout = -1\nno_dkms = \"yes\"\n", diags);
  REQUIRE(diags.size() == 3);
  CHECK(diags[0].message.rfind("\"Rocm_Dev\" is not a valid Debian package name", 0) == 0);
  CHECK(diags[1].message == "\"no_dkms\" must be true or false, not a string");
  CHECK(diags[2].message == "\"lock_timeout\" must be between 0 and 86400, not -1");
}

// ------------------------------------------- apt_install: sources of earlier steps

TEST_CASE("apt_install plan resolves against sources an earlier step would add, in a private apt configuration") {
  TempDir root;
  root.write("var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}}));
  root.write("etc/apt/sources.list.d/debian.sources",
             "Types: deb\nURIs: https://mirror.invalid/debian\nSuites: bookworm\nComponents: main\n"
             "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n");
  root.write("var/lib/apt/lists/mirror.invalid_debian_dists_bookworm_InRelease", "cached list\n");
  RootedFileSystem disk(root.path());
  OverlayFileSystem overlay(disk);
  // What an earlier apt_repository step would write:
  overlay.write_atomic("/etc/apt/keyrings/rocm.asc", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nk\n", FileAttrs{});
  overlay.write_atomic("/etc/apt/sources.list.d/rocm.sources",
                       "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2\nSuites: noble\nComponents: main\n"
                       "Signed-By: /etc/apt/keyrings/rocm.asc\n",
                       FileAttrs{});
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{overlay, runner, host, "test"};

  std::string scratch;  // target path of the private configuration
  std::string seen_rocm_sources, seen_list, seen_conf;
  bool saw_key = false;
  runner.on({"apt-get", "update"}, [&](const Command& c) {
    for (const auto& a : c.argv)
      if (a.rfind("Dir::Etc::SourceParts=", 0) == 0) scratch = parent_path(a.substr(22));
    std::string host_dir = root.path() + scratch;
    std::ifstream in(host_dir + "/sources.list.d/rocm.sources");
    seen_rocm_sources.assign(std::istreambuf_iterator<char>(in), {});
    std::ifstream list(host_dir + "/lists/mirror.invalid_debian_dists_bookworm_InRelease");
    seen_list.assign(std::istreambuf_iterator<char>(list), {});
    saw_key = std::filesystem::exists(host_dir + "/keys/rocm.asc");
    std::ifstream conf(host_dir + "/plan.conf");
    seen_conf.assign(std::istreambuf_iterator<char>(conf), {});
    return ok();
  });
  runner.on({"apt-get", "-s"}, ok(kRocmSimulation));
  StepPlan p = make_step("apt_install", "packages = [\"rocm-dev\"]\n")->plan(ctx);

  REQUIRE(runner.calls.size() == 3);  // update, simulation, sizes
  REQUIRE(scratch.rfind("/var/lib/wslgpu-setup/plan-apt/", 0) == 0);
  Argv options = {"-c", scratch + "/plan.conf",
                  "-o", "Dir::Etc::SourceList=" + scratch + "/sources.list",
                  "-o", "Dir::Etc::SourceParts=" + scratch + "/sources.list.d",
                  "-o", "Dir::Etc::Preferences=" + scratch + "/preferences",
                  "-o", "Dir::Etc::PreferencesParts=" + scratch + "/preferences.d",
                  "-o", "Dir::Etc::Trusted=" + scratch + "/trusted.gpg",
                  "-o", "Dir::Etc::TrustedParts=" + scratch + "/trusted.gpg.d",
                  "-o", "Dir::State::Lists=" + scratch + "/lists",
                  "-o", "Dir::Cache=" + scratch + "/cache",
                  "-o", "Dir::State::status=/var/lib/dpkg/status",
                  "-o", "Dir::Cache::Archives=/var/cache/apt/archives/"};
  options.insert(options.end(), kNoWrites.begin(), kNoWrites.end());
  CHECK(runner.calls[0].argv == concat({{"apt-get", "update", "--error-on=any", "-o", "APT::Sandbox::User=root"}, options}));
  CHECK(runner.calls[1].argv == concat({{"apt-get", "-s", "install", "--no-install-recommends", "-o",
                                         "Debug::pkgDepCache::AutoInstall=1"},
                                        options,
                                        {"rocm-dev"}}));
  CHECK(seen_rocm_sources ==
        "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2\nSuites: noble\nComponents: main\nSigned-By: " + scratch +
            "/keys/rocm.asc\n");
  CHECK(saw_key);
  CHECK(seen_conf == "#clear APT::Update::Pre-Invoke;\n#clear APT::Update::Post-Invoke;\n"
                     "#clear APT::Update::Post-Invoke-Success;\n");
  CHECK(seen_list == "cached list\n");
  CHECK(p.verdict == Verdict::change);
  CHECK(p.details.back() == "(resolved against the sources that earlier steps add; an apt_update step must run after "
                            "them and before this one)");
  // Thrown away afterwards; the target's own apt configuration never saw the new source.
  CHECK_FALSE(std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup/plan-apt"));  // no trace left
  CHECK_FALSE(std::filesystem::exists(root.path() + "/etc/apt/sources.list.d/rocm.sources"));
  CHECK_FALSE(std::filesystem::exists(root.path() + "/etc/apt/keyrings/rocm.asc"));
  CHECK(std::filesystem::exists(root.path() + "/var/lib/apt/lists/mirror.invalid_debian_dists_bookworm_InRelease"));
}

TEST_CASE("apt_install plan uses the plain simulation when no earlier step changes apt's sources") {
  TempDir root;
  root.write("var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}}));
  RootedFileSystem disk(root.path());
  OverlayFileSystem overlay(disk);
  overlay.write_atomic("/etc/profile.d/rocm.sh", "export X=1\n", FileAttrs{});  // not an apt file
  FakeProcessRunner runner;
  runner.on({"apt-get", "-s"}, ok(kRocmSimulation));
  HostFacts host;
  StepContext ctx{overlay, runner, host, "test"};
  make_step("apt_install", "packages = [\"rocm-dev\"]\n")->plan(ctx);
  REQUIRE(runner.calls.size() == 2);
  CHECK(runner.calls[0].argv ==
        concat({{"apt-get", "-s", "install", "--no-install-recommends", "-o", "Debug::pkgDepCache::AutoInstall=1"},
                kNoWrites,
                {"rocm-dev"}}));
  CHECK_FALSE(std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup"));
}

TEST_CASE("a private apt update that fails stops the plan with apt's reason and leaves no scratch folder") {
  TempDir root;
  root.write("var/lib/dpkg/status", "");
  RootedFileSystem disk(root.path());
  OverlayFileSystem overlay(disk);
  overlay.write_atomic("/etc/apt/sources.list.d/rocm.sources", "Types: deb\n", FileAttrs{});
  FakeProcessRunner runner;
  runner.on({"apt-get", "update"}, fail(100, "E: The repository 'https://repo.radeon.com/rocm/apt/9.9 noble Release' "
                                             "does not have a Release file.\n"));
  HostFacts host;
  StepContext ctx{overlay, runner, host, "test"};
  auto step = make_step("apt_install", "packages = [\"rocm-dev\"]\n");
  CHECK_THROWS_AS(step->plan(ctx), StepFailure);
  try {
    step->plan(ctx);
  } catch (const StepFailure& e) {
    std::string m = e.what();
    CHECK(m.rfind("could not read the package lists of the repositories this plan would add", 0) == 0);
    CHECK(m.find("E: The repository 'https://repo.radeon.com/rocm/apt/9.9 noble Release' does not have a Release file.") !=
          std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup/plan-apt"));  // no trace left
}
