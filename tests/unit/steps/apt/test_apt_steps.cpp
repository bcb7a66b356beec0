// The package step kinds (apt_install, apt_remove, apt_update,
// apt_repository, deb_install) against a MemoryFileSystem or a TempDir root
// and a FakeProcessRunner: the exact commands they run, what plan shows,
// what apply records and what undo reverses. Nothing here runs apt or dpkg.
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
#include "steps/apt/apt_freshness.hpp"
#include "steps/step.hpp"
#include "installer/undo/undo_store.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::MemoryFileSystem;
using wslgpu::testing::TempDir;

namespace {

std::shared_ptr<Step> make_step(const std::string& kind, const std::string& keys_text, std::vector<Diagnostic>& diags) {
  auto table = toml::parse("kind = \"" + kind + "\"\n" + keys_text);
  Variables vars;
  StepKeys keys(table, "test.toml", kind, vars, diags);
  keys.mark_common("kind");
  auto step = find_step_kind(kind)->make(keys);
  keys.finish();
  return step;
}

std::shared_ptr<Step> make_step(const std::string& kind, const std::string& keys_text) {
  std::vector<Diagnostic> diags;
  auto step = make_step(kind, keys_text, diags);
  std::string all;
  for (const auto& d : diags) all += d.str() + "\n";
  REQUIRE_MESSAGE(diags.empty(), all);
  return step;
}

struct Pkg {
  std::string name, version, state = "install ok installed";
};

std::string status_text(const std::vector<Pkg>& pkgs) {
  std::string out;
  for (const auto& p : pkgs)
    out += "Package: " + p.name + "\nStatus: " + p.state + "\nArchitecture: amd64\nVersion: " + p.version + "\n\n";
  return out;
}

ProcessResult ok(const std::string& out = "") {
  ProcessResult r;
  r.exit_code = 0;
  r.out = out;
  return r;
}

ProcessResult fail(int code, const std::string& err) {
  ProcessResult r;
  r.exit_code = code;
  r.err = err;
  return r;
}

using Argv = std::vector<std::string>;
const std::map<std::string, std::string> kAptEnv = {{"DEBIAN_FRONTEND", "noninteractive"}, {"NEEDRESTART_SUSPEND", "1"}};
const Argv kDpkgOptions = {"-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold",
                           "-o", "DPkg::Lock::Timeout=120"};

// What keeps apt's simulation from writing its planner log and caches in the target.
const Argv kNoWrites = {"-o", "Dir::Log::Planner=", "-o", "Dir::Cache::pkgcache=", "-o", "Dir::Cache::srcpkgcache="};

Argv concat(std::initializer_list<Argv> parts) {
  Argv out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const char* const kRocmSimulation =
    "NOTE: This is only a simulation!\n"
    "Inst rocm-core (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Inst hsa-runtime-rocr4wsl-amdgpu (1.14.0.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Inst rocm-dev (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Conf rocm-core (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Conf hsa-runtime-rocr4wsl-amdgpu (1.14.0.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Conf rocm-dev (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n";

struct AptWorld {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  AptWorld() { fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}, {"bash", "5.2.15-2"}})); }
};

}  // namespace

// ---------------------------------------------------------------- apt_install

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

// ------------------------------------------- apt_install: versions and replaces

namespace {

const char* const kNvccDowngradeReport =
    "The following packages have unmet dependencies:\n"
    " cuda-toolkit-12-6 : Depends: cuda-nvcc-12-6 (= 12.6.2-1) but 12.6.3-1 is to be installed\n"
    "E: Unable to correct problems, you have held broken packages.\n";

bool has_arg(const Command& c, const std::string& a) { return std::find(c.argv.begin(), c.argv.end(), a) != c.argv.end(); }

// madison's answer for every name asked that VERSIONS lists.
std::function<ProcessResult(const Command&)> madison(std::map<std::string, std::vector<std::string>> versions) {
  return [versions](const Command& c) {
    std::string out;
    for (std::size_t i = 2; i < c.argv.size(); ++i) {
      if (c.argv[i] == "-o" || c.argv[i] == "-c") {
        ++i;
        continue;
      }
      auto it = versions.find(c.argv[i]);
      if (it == versions.end()) continue;
      for (const auto& v : it->second) out += c.argv[i] + " | " + v + " | file:/srv/repo  Packages\n";
    }
    return ok(out);
  };
}

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

// ----------------------------------------------------------------- apt_remove

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

// ----------------------------------------------------------------- apt_update

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

// ------------------------------------------------------------- apt_repository

namespace {
const std::string kArmouredKey = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBFake\n-----END PGP PUBLIC KEY BLOCK-----\n";
}

TEST_CASE("apt_repository writes a deb822 source, the checked key as .asc and a pin, all as file writes") {
  MemoryFileSystem fs;
  fs.add_file("/srv/rocm.gpg.key", kArmouredKey);
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto step = make_step("apt_repository",
                        "repo_name = \"rocm\"\nuris = [\"https://repo.radeon.com/rocm/apt/6.4.2\"]\nsuites = [\"noble\"]\n"
                        "components = [\"main\"]\narchitectures = [\"amd64\"]\nkey_file = \"/srv/rocm.gpg.key\"\n"
                        "key_sha256 = \"" + sha256_hex(kArmouredKey) + "\"\npin_origin = \"repo.radeon.com\"\npin_priority = 600\n");
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  std::string digest = sha256_hex(kArmouredKey);
  CHECK(p.summary == "add /etc/apt/sources.list.d/rocm.sources, key rocm.asc (sha256 " + digest.substr(0, 4) + "…" +
                         digest.substr(62) + "), pin 600");
  REQUIRE(p.writes.size() == 3);
  CHECK(p.writes[0].path == "/etc/apt/keyrings/rocm.asc");
  CHECK(p.writes[0].content == kArmouredKey);
  CHECK(p.writes[1].path == "/etc/apt/sources.list.d/rocm.sources");
  CHECK(p.writes[1].content == "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2\nSuites: noble\n"
                               "Components: main\nArchitectures: amd64\nSigned-By: /etc/apt/keyrings/rocm.asc\n");
  CHECK(p.writes[2].path == "/etc/apt/preferences.d/rocm.pref");
  CHECK(p.writes[2].content == "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n");
  for (const auto& w : p.writes) CHECK(w.attrs.mode == 0644);
  CHECK(fs.writes == 0);
  CHECK(runner.calls.empty());

  for (const auto& w : p.writes) fs.write_atomic(w.path, *w.content, w.attrs);
  StepPlan again = step->plan(ctx);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.summary == "apt repository \"rocm\" is as wanted");
}

TEST_CASE("apt_repository keeps a binary key as .gpg and refuses a key whose hash differs") {
  MemoryFileSystem fs;
  std::string binary("\x99\x02\x0d\x04", 4);
  fs.add_file("/srv/key.gpg", binary);
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  std::string common = "repo_name = \"cuda\"\nuris = [\"https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/\"]\n"
                       "suites = [\"/\"]\nkey_file = \"/srv/key.gpg\"\n";
  StepPlan p = make_step("apt_repository", common + "key_sha256 = \"" + sha256_hex(binary) + "\"\n")->plan(ctx);
  REQUIRE(p.writes.size() == 2);
  CHECK(p.writes[0].path == "/etc/apt/keyrings/cuda.gpg");
  CHECK(p.writes[1].content == "Types: deb\nURIs: https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/\n"
                               "Suites: /\nSigned-By: /etc/apt/keyrings/cuda.gpg\n");
  std::string wrong(64, '0');
  CHECK_THROWS_WITH_AS(make_step("apt_repository", common + "key_sha256 = \"" + wrong + "\"\n")->plan(ctx),
                       ("the key file /srv/key.gpg has SHA-256 " + sha256_hex(binary) + ", but key_sha256 says " + wrong +
                        "; the key was not used. Check where the file came from, or correct key_sha256.")
                           .c_str(),
                       StepFailure);
}

TEST_CASE("apt_repository fetches key_url into the state directory's cache during plan") {
  TempDir root, elsewhere;
  elsewhere.write("rocm.gpg.key", kArmouredKey);
  RootedFileSystem disk(root.path());
  OverlayFileSystem overlay(disk);
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{overlay, runner, host, "test"};
  auto step = make_step("apt_repository", "repo_name = \"rocm\"\nuris = [\"https://repo.radeon.com/rocm/apt/6.4.2\"]\n"
                                          "suites = [\"noble\"]\ncomponents = [\"main\"]\nkey_url = \"file://" +
                                              elsewhere.path() + "/rocm.gpg.key\"\nkey_sha256 = \"" +
                                              sha256_hex(kArmouredKey) + "\"\n");
  StepPlan p = step->plan(ctx);
  CHECK(p.writes.at(0).content == kArmouredKey);
  CHECK(std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup/cache/keys/" + sha256_hex(kArmouredKey) + ".key"));
  CHECK_FALSE(std::filesystem::exists(root.path() + "/etc/apt"));
}

TEST_CASE("apt_repository manifest keys are checked together") {
  std::vector<Diagnostic> diags;
  make_step("apt_repository",
            "repo_name = \"ROCm repo\"\nuris = [\"https://x/\"]\nsuites = [\"noble\"]\nkey_url = \"http://x/key\"\n"
            "key_file = \"/k\"\nkey_sha256 = \"zz\"\npin_origin = \"repo.radeon.com\"\n",
            diags);
  std::vector<std::string> messages;
  for (const auto& d : diags) messages.push_back(d.str());
  CHECK(messages == std::vector<std::string>{
                        "test.toml:2:13: \"repo_name\" must be lowercase letters, digits, '.', '_' and '-' (it names files in "
                        "/etc/apt), not \"ROCm repo\"",
                        "test.toml:4:10: step kind \"apt_repository\" needs the key \"components\" (such as [\"main\"]) "
                        "unless every suite is a flat repository path ending in \"/\"",
                        "test.toml:6:12: give either \"key_url\" or \"key_file\", not both",
                        "test.toml:5:11: \"http://x/key\" is plain HTTP, which anyone on the way can tamper with; use an "
                        "https:// URL, or set insecure_http = true if the server offers nothing else (the SHA-256 check "
                        "still applies)",
                        "test.toml:7:14: \"key_sha256\" must be 64 hexadecimal digits (the output of `sha256sum`)",
                        "test.toml:8:14: \"pin_origin\" and \"pin_priority\" go together: give both or neither"});
}

// ---------------------------------------------------------------- deb_install

namespace {

std::string build_deb(const TempDir& work, const std::string& dir, const std::string& out_host) {
  RealProcessRunner runner("/");
  Command cmd;
  cmd.argv = {"dpkg-deb", "--root-owner-group", "--build", work.path() + "/" + dir, out_host};
  cmd.in_root = false;
  cmd.timeout = std::chrono::seconds(60);
  ProcessResult r = runner.run(cmd);
  REQUIRE_MESSAGE(r.ok(), r.err);
  return out_host;
}

}  // namespace

TEST_CASE("deb_install lists a package's files in plan, installs it with dpkg and undo purges it") {
  TempDir work, root;
  work.write("kr/DEBIAN/control", "Package: cuda-keyring\nVersion: 1.1-1\nArchitecture: all\nMaintainer: t <t@x>\n"
                                  "Depends: gpgv\nDescription: t\n");
  work.write("kr/usr/share/keyrings/cuda-archive-keyring.gpg", "KEY");
  work.write("kr/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list", "deb x /\n");
  std::filesystem::create_directories(root.path() + "/var/cache/debs");
  build_deb(work, "kr", root.path() + "/var/cache/debs/cuda-keyring_1.1-1_all.deb");
  root.write("var/lib/dpkg/status", status_text({{"gpgv", "2.2.40-1.1"}}));
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto step = make_step("deb_install", "path = \"/var/cache/debs/cuda-keyring_1.1-1_all.deb\"\n");
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "install cuda-keyring 1.1-1 from /var/cache/debs/cuda-keyring_1.1-1_all.deb (2 files)");
  CHECK(p.changes == nlohmann::json::parse(R"([{"type":"package","action":"install","name":"cuda-keyring","version":"1.1-1"}])"));
  CHECK(p.details.at(0) == "depends: gpgv");
  CHECK(p.details.at(1) == "files:");
  std::vector<std::string> files(p.details.begin() + 2, p.details.end());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"  /etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list",
                                          "  /usr/share/keyrings/cuda-archive-keyring.gpg"});
  CHECK(runner.calls.empty());

  runner.on({"dpkg", "--force-confdef"}, [&](const Command&) {
    root.write("var/lib/dpkg/status", status_text({{"gpgv", "2.2.40-1.1"}, {"cuda-keyring", "1.1-1"}}));
    return ok();
  });
  runner.on({"dpkg", "--purge"}, ok());
  auto data = step->apply(ctx, p);
  REQUIRE(runner.calls.size() == 1);
  CHECK(runner.calls[0].argv ==
        Argv{"dpkg", "--force-confdef", "--force-confold", "-i", "/var/cache/debs/cuda-keyring_1.1-1_all.deb"});
  CHECK(runner.calls[0].env == kAptEnv);
  CHECK(data == nlohmann::json::parse(R"({"name":"cuda-keyring","version":"1.1-1","previous_version":null})"));
  CHECK(step->plan(ctx).verdict == Verdict::noop);

  step->undo(ctx, data);
  REQUIRE(runner.calls.size() == 2);
  CHECK(runner.calls[1].argv == Argv{"dpkg", "--purge", "cuda-keyring"});
}

TEST_CASE("deb_install refuses a package that ships a DKMS module, in plan and in apply") {
  TempDir work, root;
  work.write("d/DEBIAN/control", "Package: amdgpu-dkms\nVersion: 1:6.12.12\nArchitecture: all\nMaintainer: t <t@x>\nDescription: t\n");
  work.write("d/usr/src/amdgpu-6.12.12/dkms.conf", "PACKAGE_NAME=amdgpu\n");
  std::filesystem::create_directories(root.path() + "/tmp");
  build_deb(work, "d", root.path() + "/tmp/amdgpu-dkms.deb");
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto step = make_step("deb_install", "path = \"/tmp/amdgpu-dkms.deb\"\n");
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary == "refused: amdgpu-dkms ships a DKMS module source (/usr/src/amdgpu-6.12.12/dkms.conf)");
  CHECK_THROWS_AS(step->apply(ctx, p), Refusal);
  CHECK(runner.calls.empty());
}

TEST_CASE("deb_install with url downloads into the cache during plan, checked, to show the package") {
  TempDir work, root;
  work.write("p/DEBIAN/control", "Package: amdgpu-install\nVersion: 6.4.60402-1\nArchitecture: all\nMaintainer: t <t@x>\nDescription: t\n");
  work.write("p/usr/bin/amdgpu-install", "#!/bin/sh\n");
  std::string deb = build_deb(work, "p", work.path() + "/amdgpu-install_6.4.60402-1_all.deb");
  std::ifstream in(deb, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  std::string sha = sha256_hex(bytes);
  auto step = make_step("deb_install", "url = \"file://" + deb + "\"\nsha256 = \"" + sha + "\"\n");
  StepPlan p = step->plan(ctx);
  std::string cached = "/var/lib/wslgpu-setup/cache/" + sha.substr(0, 16) + "-amdgpu-install_6.4.60402-1_all.deb";
  CHECK(p.summary == "install amdgpu-install 6.4.60402-1 from " + cached + " (1 file)");
  CHECK(p.details.back() == "  /usr/bin/amdgpu-install");
  CHECK(std::filesystem::exists(root.path() + cached));
}

TEST_CASE("deb_install whose path an earlier step creates says so in plan") {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  StepPlan p = make_step("deb_install", "path = \"/var/lib/wslgpu-setup/cache/x.deb\"\n")->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "install the package in /var/lib/wslgpu-setup/cache/x.deb (not there yet: an earlier step creates it)");
}

TEST_CASE("deb_install needs exactly one of path and url") {
  std::vector<Diagnostic> diags;
  make_step("deb_install", "", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message == "step kind \"deb_install\" needs the key \"path\" or \"url\"");
  diags.clear();
  make_step("deb_install", "path = \"/x.deb\"\nurl = \"https://x/y.deb\"\nsha256 = \"" + std::string(64, 'a') + "\"\n", diags);
  REQUIRE_FALSE(diags.empty());
  CHECK(diags[0].message == "give either \"path\" or \"url\", not both");
}
