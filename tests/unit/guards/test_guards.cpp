// The guards (installer/guards/guards.hpp): what install refuses whatever a
// manifest says. Package guards are proven on whole steps planned by
// resolve_plan against a MemoryFileSystem machine, with apt's simulation
// answered by a FakeProcessRunner; the environment guards on machines whose
// facts probe_host reads from the same kind of fake.
#include <doctest/doctest.h>

#include "installer/system/error.hpp"
#include "installer/guards/guards.hpp"
#include "installer/host/host.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/planner/planner.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::MemoryFileSystem;

namespace {

const char* const kWsl2Kernel = "5.15.153.1-microsoft-standard-WSL2";

const char* const kKernelWhy =
    "DKMS and kernel packages build or ship Linux kernel modules, and WSL2 runs Microsoft's kernel, which has no "
    "headers to build against.";
const char* const kKernelInstead =
    "Install the toolkit without kernel modules: rocm-dev or rocm with hsa-runtime-rocr4wsl-amdgpu (the rocm "
    "profile), never rocm-dkms or amdgpu-dkms.";
const char* const kNvidiaWhy =
    "A Linux NVIDIA driver inside WSL2 shadows the WSL driver stubs in /usr/lib/wsl/lib (\"GPU access blocked by the "
    "operating system\"); the Windows driver is the only driver.";
const char* const kNvidiaInstead =
    "Install cuda-toolkit-12-x only, from NVIDIA's wsl-ubuntu repository (the cuda profile); never cuda, cuda-12-x, "
    "cuda-drivers or nvidia-driver-*.";

// A WSL2 Ubuntu 24.04 machine with alice, as probe_host sees it.
MemoryFileSystem wsl_machine(const std::string& kernel = kWsl2Kernel, bool dxg = true) {
  MemoryFileSystem fs;
  fs.add_file("/proc/sys/kernel/osrelease", kernel + "\n");
  if (dxg) fs.add_char_device("/dev/dxg");
  fs.add_dir("/usr/lib/wsl/lib");
  fs.add_file("/etc/os-release", "NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\nID=ubuntu\n");
  fs.add_file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n");
  fs.add_file("/etc/group", "root:x:0:\nvideo:x:44:\nrender:x:105:\nalice:x:1000:\n");
  fs.add_file("/var/lib/dpkg/status",
              "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nVersion: 2.39-0ubuntu8\n\n");
  return fs;
}

HostFacts facts(const MemoryFileSystem& fs) { return probe_host(fs, "/", HostOptions{}); }

Manifest load_guarded(const std::string& text, const HostFacts& host, const Variables& sets = {}) {
  return load_manifest(ManifestSource{"test.toml", text, false}, sets, host);
}

std::string guarded_input_error(const std::string& text, const HostFacts& host) {
  try {
    load_guarded(text, host);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(loaded without an error)";
}

const char* const kHeader = "[manifest]\nname = \"guarded\"\nschema_version = 1\n";
// A step for manifests that are about their [guards] only.
const char* const kCheckStep = "\n[[step]]\nid = \"dxg\"\nkind = \"check\"\npath = \"/dev/dxg\"\n";

std::string apt_install_manifest(const std::string& packages, const std::string& extra = "",
                                 const std::string& guards = "") {
  return std::string(kHeader) + guards + "\n[[step]]\nid = \"pkgs\"\nkind = \"apt_install\"\npackages = [" + packages +
         "]\n" + extra;
}

ProcessResult ok(const std::string& out) {
  ProcessResult r;
  r.exit_code = 0;
  r.out = out;
  return r;
}

// apt-get -s install, answered per requested package (the last argument),
// as apt prints it with -o Debug::pkgDepCache::AutoInstall=1.
const std::map<std::string, std::string> kSimulations = {
    {"rocm-dkms",
     "  Installing rocm-dev:amd64 as Depends of rocm-dkms:amd64\n"
     "  Installing amdgpu-dkms:amd64 as Depends of rocm-dkms:amd64\n"
     "NOTE: This is only a simulation!\n"
     "Inst amdgpu-dkms (1:6.12.12.60402-2164967.24.04 repo.radeon.com [all])\n"
     "Inst rocm-dev (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
     "Inst rocm-dkms (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
     "Conf amdgpu-dkms (1:6.12.12.60402-2164967.24.04 repo.radeon.com [all])\n"},
    {"rocm-extras",
     "  Installing rocm-core:amd64 as Depends of rocm-extras:amd64\n"
     "  Installing amdgpu-dkms:amd64 as Depends of rocm-extras:amd64\n"
     "Inst rocm-core (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
     "Inst amdgpu-dkms (1:6.12.12.60402-2164967.24.04 repo.radeon.com [all])\n"
     "Inst rocm-extras (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"},
    {"cuda",
     "  Installing cuda-toolkit-12-6:amd64 as Depends of cuda:amd64\n"
     "  Installing cuda-drivers:amd64 as Depends of cuda:amd64\n"
     "    Installing nvidia-driver-550:amd64 as Depends of cuda-drivers:amd64\n"
     "Inst cuda-toolkit-12-6 (12.6.3-1 cuda-wsl-ubuntu [amd64])\n"
     "Inst nvidia-driver-550 (550.127.05-0ubuntu1 cuda-wsl-ubuntu [amd64])\n"
     "Inst cuda-drivers (560.35.05-1 cuda-wsl-ubuntu [amd64])\n"
     "Inst cuda (12.6.3-1 cuda-wsl-ubuntu [amd64])\n"},
    {"nvidia-cuda-toolkit",
     "  Installing nvidia-cuda-dev:amd64 as Depends of nvidia-cuda-toolkit:amd64\n"
     "    Installing libnvidia-compute-550:amd64 as Depends of nvidia-cuda-dev:amd64\n"
     "Inst libnvidia-compute-550 (550.120-0ubuntu0.24.04.1 Ubuntu:24.04/noble-updates [amd64])\n"
     "Inst nvidia-cuda-dev (12.0.140~12.0.1-4build4 Ubuntu:24.04/noble [amd64])\n"
     "Inst nvidia-cuda-toolkit (12.0.140~12.0.1-4build4 Ubuntu:24.04/noble [amd64])\n"},
    {"cuda-toolkit-12-6",
     "Inst cuda-toolkit-12-6 (12.6.3-1 cuda-wsl-ubuntu [amd64])\n"
     "Conf cuda-toolkit-12-6 (12.6.3-1 cuda-wsl-ubuntu [amd64])\n"},
    {"rocm-smi-lib", "Inst rocm-smi-lib (7.5.0.60402-120~24.04 repo.radeon.com [amd64])\n"},
};

void answer_apt(FakeProcessRunner& runner) {
  runner.on({"apt-get", "-s"}, [](const Command& c) {
    auto it = kSimulations.find(c.argv.back());
    REQUIRE_MESSAGE(it != kSimulations.end(), "no recorded simulation for " << c.argv.back());
    return ok(it->second);
  });
}

// The one step of a manifest, planned on a WSL2 machine.
PlannedStep plan_one(const std::string& manifest_text) {
  MemoryFileSystem fs = wsl_machine();
  FakeProcessRunner runner;
  answer_apt(runner);
  HostFacts host = facts(fs);
  Manifest m = load_guarded(manifest_text, host);
  Plan plan = resolve_plan(m, "test.toml", fs, runner, host);
  REQUIRE(plan.steps.size() == 1);
  return plan.steps.front();
}

// A step whose only change installs NAME, guarded with GUARDS.
PlannedStep guarded_install(const std::string& name, const Guards& guards = {}, const std::string& action = "install") {
  PlannedStep s;
  s.index = 1;
  s.id = "pkgs";
  s.kind = "apt_install";
  s.plan.verdict = Verdict::change;
  s.plan.summary = "install 1 package: " + name;
  s.plan.changes.push_back({{"type", "package"}, {"action", action}, {"name", name}, {"version", "1.0-1"}});
  guard_step(s, guards);
  return s;
}

PlannedStep command_step(const std::string& argv) {
  return plan_one(std::string(kHeader) + "\n[[step]]\nid = \"amdgpu\"\nkind = \"command\"\nargv = [" + argv + "]\n");
}

Guards rocm_guards() {
  Guards g;
  g.min_kernel = "5.10.60.1";
  g.require_dxg = true;
  return g;
}

std::vector<std::string> environment_refusals(const MemoryFileSystem& fs, const Guards& guards,
                                              const GuardOptions& options = {}) {
  return guard_environment(facts(fs), guards, {}, fs, options);
}

const std::string kWsl1Refusal =
    "refused by guard wsl2: this distribution runs under WSL1 (kernel 4.4.0-19041-Microsoft), which has no GPU "
    "support.\n  Convert it from Windows: wsl --set-version <distro> 2";
const std::string kDxgRefusal =
    "refused by guard dxg: /dev/dxg is missing, so the GPU is not shared with this distribution.\n"
    "  On Windows: update the GPU driver, then run wsl --update and wsl --shutdown.";

}  // namespace

// ---------------------------------------------------------------- no-kernel-modules

TEST_CASE("a step installing rocm-dkms directly is refused, naming amdgpu-dkms and rocm-dkms") {
  PlannedStep s = plan_one(apt_install_manifest("\"rocm-dkms\""));
  CHECK(s.plan.verdict == Verdict::refused);
  CHECK(s.plan.summary ==
        "would install amdgpu-dkms 1:6.12.12.60402-2164967.24.04, rocm-dkms 6.4.2.60402-120~24.04, "
        "which are kernel-module packages");
  REQUIRE(s.plan.details.size() >= 2);
  CHECK(s.plan.details[0] == "amdgpu-dkms 1:6.12.12.60402-2164967.24.04 is pulled in by rocm-dkms → amdgpu-dkms");
  CHECK(s.plan.details[1] == "rocm-dkms 6.4.2.60402-120~24.04 is in this step's packages");
}

TEST_CASE("the kernel-module guard refuses rocm-dkms even when the step turns its own check off") {
  // no_dkms = false switches off apt_install's own refusal; the built-in
  // guard still reads the resolved transaction.
  PlannedStep s = plan_one(apt_install_manifest("\"rocm-dkms\"", "no_dkms = false\n"));
  CHECK(s.plan.verdict == Verdict::refused);
  CHECK(s.plan.summary ==
        "refused by guard no-kernel-modules: would install amdgpu-dkms "
        "1:6.12.12.60402-2164967.24.04, pulled in by rocm-dkms → amdgpu-dkms");
  REQUIRE(s.plan.details.size() >= 2);
  CHECK(s.plan.details[0] == kKernelWhy);
  CHECK(s.plan.details[1] == kKernelInstead);
}

TEST_CASE("a package that depends on amdgpu-dkms is refused with the chain that pulls it in") {
  PlannedStep own = plan_one(apt_install_manifest("\"rocm-extras\""));
  CHECK(own.plan.verdict == Verdict::refused);
  CHECK(own.plan.summary ==
        "would install amdgpu-dkms 1:6.12.12.60402-2164967.24.04, which is a kernel-module package");
  REQUIRE_FALSE(own.plan.details.empty());
  CHECK(own.plan.details[0] == "amdgpu-dkms 1:6.12.12.60402-2164967.24.04 is pulled in by rocm-extras → amdgpu-dkms");
  // The change record carries the chain, so the guard can name it.
  REQUIRE(own.plan.changes.size() == 3);
  CHECK(own.plan.changes[1] == nlohmann::json{{"type", "package"},
                                              {"action", "install"},
                                              {"name", "amdgpu-dkms"},
                                              {"version", "1:6.12.12.60402-2164967.24.04"},
                                              {"architecture", "all"},
                                              {"via", "rocm-extras → amdgpu-dkms"}});

  PlannedStep guarded = plan_one(apt_install_manifest("\"rocm-extras\"", "no_dkms = false\n"));
  CHECK(guarded.plan.verdict == Verdict::refused);
  CHECK(guarded.plan.summary ==
        "refused by guard no-kernel-modules: would install amdgpu-dkms "
        "1:6.12.12.60402-2164967.24.04, pulled in by rocm-extras → amdgpu-dkms");
  CHECK(guarded.plan.details[0] == kKernelWhy);
  CHECK(guarded.plan.details[1] == kKernelInstead);
}

TEST_CASE("every kernel-module package name is refused by no-kernel-modules") {
  for (const std::string name :
       {"rocm-dkms", "amdgpu-dkms", "rock-dkms", "dkms", "linux-headers-6.8.0-45-generic", "linux-headers-generic",
        "linux-modules-extra-6.8.0-45-generic", "linux-image-6.8.0-45-generic"}) {
    CAPTURE(name);
    auto r = refused_package(name, {});
    REQUIRE(r);
    CHECK(r->rule == "no-kernel-modules");
    CHECK(r->package == name);
    PlannedStep s = guarded_install(name);
    CHECK(s.plan.verdict == Verdict::refused);
    CHECK(s.plan.summary == std::string("refused by guard no-kernel-modules: would install ") + name + " 1.0-1");
  }
  for (const std::string name :
       {"rocm-dev", "rocm", "hsa-runtime-rocr4wsl-amdgpu", "dkms-tools", "linux-libc-dev", "rocminfo"}) {
    CAPTURE(name);
    CHECK_FALSE(refused_package(name, {}));
    CHECK(guarded_install(name).plan.verdict == Verdict::change);
  }
}

// ---------------------------------------------------------------- no-linux-nvidia-driver

TEST_CASE("each Linux NVIDIA driver package is refused, with why and what to do instead") {
  for (const std::string name :
       {"cuda", "cuda-12-6", "cuda-11-8", "cuda-drivers", "cuda-drivers-550", "nvidia-driver-550", "nvidia-dkms-550",
        "nvidia-kernel-common-550", "nvidia-kernel-source-550", "nvidia-utils-550", "libnvidia-compute-550", "libcuda1",
        "xserver-xorg-video-nvidia-550"}) {
    CAPTURE(name);
    PlannedStep s = guarded_install(name);
    CHECK(s.plan.verdict == Verdict::refused);
    CHECK(s.plan.summary == std::string("refused by guard no-linux-nvidia-driver: would install ") + name + " 1.0-1");
    REQUIRE(s.plan.details.size() == 2);
    CHECK(s.plan.details[0] == kNvidiaWhy);
    CHECK(s.plan.details[1] == kNvidiaInstead);
  }
}

TEST_CASE("the CUDA toolkit packages are allowed: cuda-toolkit-12-6, cuda-keyring, cuda-nvcc-12-6") {
  for (const std::string name : {"cuda-toolkit-12-6", "cuda-toolkit", "cuda-keyring", "cuda-nvcc-12-6",
                                 "cuda-cudart-12-6", "cuda-libraries-12-6", "nvidia-cuda-toolkit"}) {
    CAPTURE(name);
    CHECK_FALSE(refused_package(name, {}));
    PlannedStep s = guarded_install(name);
    CHECK(s.plan.verdict == Verdict::change);
    CHECK(s.plan.summary == std::string("install 1 package: ") + name);
  }
}

TEST_CASE("removing or purging a Linux NVIDIA driver is not refused: that is the fix") {
  CHECK(guarded_install("nvidia-driver-550", {}, "remove").plan.verdict == Verdict::change);
  CHECK(guarded_install("nvidia-driver-550", {}, "purge").plan.verdict == Verdict::change);
  CHECK(guarded_install("nvidia-driver-550", {}, "upgrade").plan.verdict == Verdict::refused);
}

TEST_CASE("the cuda metapackage is refused for the driver it pulls in") {
  PlannedStep s = plan_one(apt_install_manifest("\"cuda\""));
  CHECK(s.plan.verdict == Verdict::refused);
  CHECK(s.plan.summary ==
        "refused by guard no-linux-nvidia-driver: would install nvidia-driver-550 "
        "550.127.05-0ubuntu1, pulled in by cuda → cuda-drivers → nvidia-driver-550");
  CHECK(s.plan.details[0] == kNvidiaWhy);
}

TEST_CASE("the distribution's nvidia-cuda-toolkit is refused when it would bring a Linux libcuda") {
  PlannedStep s = plan_one(apt_install_manifest("\"nvidia-cuda-toolkit\""));
  CHECK(s.plan.verdict == Verdict::refused);
  CHECK(s.plan.summary ==
        "refused by guard no-linux-nvidia-driver: would install libnvidia-compute-550 "
        "550.120-0ubuntu0.24.04.1, pulled in by nvidia-cuda-toolkit → nvidia-cuda-dev → "
        "libnvidia-compute-550");
}

TEST_CASE("cuda-toolkit-12-6 from the wsl-ubuntu repository plans as an ordinary install") {
  PlannedStep s = plan_one(apt_install_manifest("\"cuda-toolkit-12-6\""));
  CHECK(s.plan.verdict == Verdict::change);
  CHECK(s.plan.summary == "install 1 package: cuda-toolkit-12-6");
}

// ---------------------------------------------------------------- amdgpu-install

TEST_CASE("the command step records its argv as a command change, which the guard reads") {
  PlannedStep s = command_step("\"ldconfig\"");
  CHECK(s.plan.verdict == Verdict::change);
  REQUIRE(s.plan.changes.size() == 1);
  CHECK(s.plan.changes[0] == nlohmann::json{{"type", "command"}, {"argv", {"ldconfig"}}});
}

TEST_CASE("amdgpu-install without --no-dkms is refused") {
  PlannedStep s = command_step("\"amdgpu-install\", \"-y\", \"--usecase=wsl,rocm\"");
  CHECK(s.plan.verdict == Verdict::refused);
  CHECK(s.plan.summary == "refused by guard no-kernel-modules: amdgpu-install without --no-dkms");
  REQUIRE(s.plan.details.size() >= 2);
  CHECK(s.plan.details[0] ==
        "amdgpu-install builds the amdgpu kernel module unless told not to, and WSL2 runs Microsoft's kernel, which "
        "has no headers to build against.");
  CHECK(s.plan.details[1] == "Run it as: amdgpu-install -y --usecase=wsl,rocm --no-dkms");

  // By its full path too.
  CHECK(command_step("\"/usr/bin/amdgpu-install\", \"-y\", \"--usecase=rocm\"").plan.summary ==
        "refused by guard no-kernel-modules: amdgpu-install without --no-dkms");
}

TEST_CASE("amdgpu-install with a dkms use case is refused even with --no-dkms") {
  CHECK(command_step("\"amdgpu-install\", \"-y\", \"--usecase=dkms\"").plan.summary ==
        "refused by guard no-kernel-modules: amdgpu-install with a dkms use case");
  CHECK(command_step("\"amdgpu-install\", \"-y\", \"--usecase=wsl,rocm,dkms\", \"--no-dkms\"").plan.summary ==
        "refused by guard no-kernel-modules: amdgpu-install with a dkms use case");
  CHECK(command_step("\"amdgpu-install\", \"-y\", \"--usecase\", \"dkms\", \"--no-dkms\"").plan.summary ==
        "refused by guard no-kernel-modules: amdgpu-install with a dkms use case");
}

TEST_CASE("amdgpu-install -y --usecase=wsl,rocm --no-dkms is allowed") {
  PlannedStep s = command_step("\"amdgpu-install\", \"-y\", \"--usecase=wsl,rocm\", \"--no-dkms\"");
  CHECK(s.plan.verdict == Verdict::change);
  CHECK(s.plan.summary == "run `amdgpu-install -y --usecase=wsl,rocm --no-dkms`");
}

// ---------------------------------------------------------------- the machine

TEST_CASE("a WSL2 machine with /dev/dxg and a recent kernel passes every environment guard") {
  MemoryFileSystem fs = wsl_machine();
  CHECK(environment_refusals(fs, rocm_guards(), {false, true, true}).empty());
}

TEST_CASE("WSL1 is refused with how to convert the distribution") {
  MemoryFileSystem fs = wsl_machine("4.4.0-19041-Microsoft", false);
  CHECK(facts(fs).wsl == "1");
  CHECK(environment_refusals(fs, Guards{}) == std::vector<std::string>{kWsl1Refusal});
  CHECK(environment_refusals(fs, rocm_guards()) ==
        std::vector<std::string>{kWsl1Refusal,
                                 "refused by guard kernel: the WSL kernel is 4.4.0-19041-Microsoft, older than "
                                 "5.10.60.1, the minimum for GPU access.\n  Update it from Windows: wsl --update, then "
                                 "wsl --shutdown.",
                                 kDxgRefusal});
}

TEST_CASE("plain Linux is refused, and --not-wsl lets an image builder run anyway") {
  MemoryFileSystem fs = wsl_machine("6.1.0-26-amd64", false);
  CHECK(facts(fs).wsl == "none");
  CHECK(
      environment_refusals(fs, rocm_guards()) ==
      std::vector<std::string>{"refused by guard wsl2: this is not WSL2 (kernel \"6.1.0-26-amd64\"): these profiles "
                               "configure GPU access through WSL2's /dev/dxg.\n  To build an image for WSL elsewhere, "
                               "pass --not-wsl (the package guards stay on).",
                               kDxgRefusal});
  GuardOptions not_wsl;
  not_wsl.not_wsl = true;
  CHECK(environment_refusals(fs, rocm_guards(), not_wsl).empty());
  // WSL1 too.
  CHECK(environment_refusals(wsl_machine("4.4.0-19041-Microsoft", false), rocm_guards(), not_wsl).empty());
}

TEST_CASE("--not-wsl leaves the package guards on") {
  // guard_step has no notion of --not-wsl: the same plan is refused.
  PlannedStep s = guarded_install("amdgpu-dkms");
  CHECK(s.plan.verdict == Verdict::refused);
}

TEST_CASE("a WSL kernel older than the minimum is refused with how to update it") {
  MemoryFileSystem fs = wsl_machine("5.10.16.3-microsoft-standard-WSL2");
  CHECK(environment_refusals(fs, rocm_guards()) ==
        std::vector<std::string>{"refused by guard kernel: the WSL kernel is 5.10.16.3-microsoft-standard-WSL2, older "
                                 "than 5.10.60.1, the minimum for GPU access.\n  Update it from Windows: wsl --update, "
                                 "then wsl --shutdown."});
  CHECK(environment_refusals(wsl_machine("5.10.60.1-microsoft-standard-WSL2"), rocm_guards()).empty());
  // Without a minimum, any WSL2 kernel will do.
  CHECK(environment_refusals(fs, Guards{}).empty());
}

TEST_CASE("a machine without /dev/dxg is refused when the manifest requires it") {
  MemoryFileSystem fs = wsl_machine(kWsl2Kernel, false);
  CHECK(environment_refusals(fs, rocm_guards()) == std::vector<std::string>{kDxgRefusal});
  CHECK(environment_refusals(fs, Guards{}).empty());
}

TEST_CASE("[gpu] enabled = false in /etc/wsl.conf is refused, naming its line, even with --not-wsl") {
  MemoryFileSystem fs = wsl_machine();
  fs.add_file("/etc/wsl.conf", "[boot]\nsystemd=true\n\n[gpu]\nenabled = false\n");
  const std::vector<std::string> refused = {
      "refused by guard gpu-enabled: /etc/wsl.conf line 5 sets [gpu] enabled = false, so WSL hides the GPU from this "
      "distribution.\n  Set it to true (or remove it), then run wsl --shutdown from Windows."};
  CHECK(environment_refusals(fs, rocm_guards()) == refused);
  GuardOptions not_wsl;
  not_wsl.not_wsl = true;
  CHECK(environment_refusals(fs, rocm_guards(), not_wsl) == refused);

  fs.add_file("/etc/wsl.conf", "[gpu]\nenabled = true\n");
  CHECK(environment_refusals(fs, rocm_guards()).empty());
}

TEST_CASE("a command that changes the machine is refused when not run as root") {
  MemoryFileSystem fs = wsl_machine();
  GuardOptions user;
  user.needs_root = true;
  user.is_root = false;
  CHECK(environment_refusals(fs, rocm_guards(), user) ==
        std::vector<std::string>{"refused by guard root: this command changes the machine and must run as root.\n"
                                 "  Run it again with sudo."});
  // plan changes nothing and needs no root.
  user.needs_root = false;
  CHECK(environment_refusals(fs, rocm_guards(), user).empty());
}

// ---------------------------------------------------------------- the manifest's own guards

TEST_CASE("a manifest's refuse_packages adds a refusal, matched against the whole transaction") {
  const std::string guards = "\n[guards]\nrefuse_packages = [\"rocm-smi*\"]\n";
  PlannedStep s = plan_one(apt_install_manifest("\"rocm-smi-lib\"", "", guards));
  CHECK(s.plan.verdict == Verdict::refused);
  CHECK(s.plan.summary ==
        "refused by guard manifest-refuse-packages: would install rocm-smi-lib 7.5.0.60402-120~24.04");
  CHECK(s.plan.details[0] == "the manifest's [guards] refuse_packages lists rocm-smi*.");
  CHECK(s.plan.details[1] == "Remove it from the step, or change the manifest's guards.");
  // Without it, the same step plans as an install.
  CHECK(plan_one(apt_install_manifest("\"rocm-smi-lib\"")).plan.verdict == Verdict::change);
}

TEST_CASE("a manifest cannot remove a built-in refusal") {
  // Its own patterns only add: the built-in rule still names amdgpu-dkms.
  Guards g;
  g.refuse_packages = {"rocm-smi*"};
  CHECK(guarded_install("amdgpu-dkms", g).plan.summary ==
        "refused by guard no-kernel-modules: would install amdgpu-dkms 1.0-1");
  auto r = refused_package("cuda-drivers", {"cuda-drivers"});
  REQUIRE(r);
  CHECK(r->rule == "no-linux-nvidia-driver");

  // There is no key to allow a package, and no pattern that negates one.
  HostFacts host = facts(wsl_machine());
  CHECK(
      guarded_input_error(std::string(kHeader) + "[guards]\nallow_packages = [\"amdgpu-dkms\"]\n" + kCheckStep, host) ==
      "test.toml:5:1: unknown key \"allow_packages\" in [guards] (known: refuse_packages, min_kernel, require_wsl2, "
      "require_dxg, refuse_if, warn_if, supported)");
  CHECK(guarded_input_error(std::string(kHeader) + "[guards]\nrefuse_packages = [\"!amdgpu-dkms\"]\n" + kCheckStep,
                            host) ==
        "test.toml:5:20: \"!amdgpu-dkms\" is not a package name or pattern: use only lowercase letters, digits, '+', "
        "'-', '.' and the wildcards '*' and '?'");
  // An empty list refuses nothing more, and the built-in rules stay.
  Manifest m = load_guarded(
      apt_install_manifest("\"rocm-extras\"", "no_dkms = false\n", "\n[guards]\nrefuse_packages = []\n"), host);
  CHECK(m.guards.refuse_packages.empty());
  CHECK(plan_one(apt_install_manifest("\"rocm-extras\"", "no_dkms = false\n", "\n[guards]\nrefuse_packages = []\n"))
            .plan.verdict == Verdict::refused);
}

TEST_CASE("refuse_if refuses the machine with the manifest's reason, variables substituted") {
  const std::string text = std::string(kHeader) +
                           "[vars]\nrocm_version = \"6.4.2.1\"\n"
                           "[guards]\nrefuse_if = [{ when = \"rocm_version >= '7.0' && rocm_version < '7.1'\", "
                           "reason = \"ROCm ${rocm_version} shipped no WSL runtime.\" }]\n" +
                           kCheckStep;
  MemoryFileSystem fs = wsl_machine();
  HostFacts host = facts(fs);
  Manifest fine = load_guarded(text, host);
  CHECK(guard_environment(host, fine.guards, fine.vars, fs, {}).empty());

  Manifest seven = load_guarded(text, host, {{"rocm_version", "7.0.2"}});
  CHECK(guard_environment(host, seven.guards, seven.vars, fs, {}) ==
        std::vector<std::string>{"refused by the manifest (rocm_version >= '7.0' && rocm_version < '7.1'): ROCm 7.0.2 "
                                 "shipped no WSL runtime."});
  // refuse_if is the manifest's own: --not-wsl does not lift it.
  GuardOptions not_wsl;
  not_wsl.not_wsl = true;
  CHECK(guard_environment(host, seven.guards, seven.vars, fs, not_wsl).size() == 1);
  // Host facts are in scope too.
  const std::string on_debian = std::string(kHeader) +
                                "[guards]\nrefuse_if = [{ when = \"host.distro == 'ubuntu'\", reason = \"not on "
                                "${host.distro}\" }]\n" +
                                kCheckStep;
  Manifest d = load_guarded(on_debian, host);
  CHECK(guard_environment(host, d.guards, d.vars, fs, {}) ==
        std::vector<std::string>{"refused by the manifest (host.distro == 'ubuntu'): not on ubuntu"});
}

TEST_CASE("glob_match: '*' matches any run, '?' one character, and the whole name must match") {
  CHECK(glob_match("*-dkms", "amdgpu-dkms"));
  CHECK_FALSE(glob_match("*-dkms", "amdgpu-dkms-firmware"));
  CHECK(glob_match("nvidia-driver-*", "nvidia-driver-550"));
  CHECK_FALSE(glob_match("nvidia-driver-*", "nvidia-driver"));
  CHECK(glob_match("cuda-1?-6", "cuda-12-6"));
  CHECK(glob_match("*", ""));
  CHECK_FALSE(glob_match("dkms", "dkms2"));
}
