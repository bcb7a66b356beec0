// doctor's PyTorch group on fake WSL machines: a MemoryFileSystem with a
// venv laid out as pip leaves one (pyvenv.cfg, *.dist-info/METADATA,
// torch/lib), on an AMD root (legacy runtime or librocdxg) or an NVIDIA one.
// Each finding is proved where it fires and where a healthy venv leaves it
// quiet; and a healthy venv is read without starting Python.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "findings.hpp"
#include "installer/doctor/doctor.hpp"
#include "installer/host/host.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using wslgpu::testing::get;
using wslgpu::testing::lookup;
using wslgpu::testing::contains;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::MemoryFileSystem;

// A namespace of its own, the test cases too: the test program is a unity
// build, and test_doctor.cpp's unnamed namespace (get, lookup) may share
// the translation unit.
namespace pytorch_doctor_test {

// The bytes of a literal with NULs in it (ld.so.cache is a string table).
template <std::size_t N>
std::string bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

ProcessResult said(const std::string& out, int exit_code = 0) {
  ProcessResult r;
  r.exit_code = exit_code;
  r.out = out;
  return r;
}

constexpr const char* kVenv = "/home/alice/.venvs/pytorch";
constexpr const char* kSite = "/home/alice/.venvs/pytorch/lib/python3.12/site-packages";
constexpr const char* kLegacy = "6.4.2.60402-120~24.04";
constexpr const char* kRocdxg = "7.2.1.70201-81~24.04";
constexpr const char* kAmdLw = "2.9.1+rocm7.2.1.lw.gitff65f5bc";
constexpr const char* kAmd642 = "2.6.0+rocm6.4.2.git76481f7c";

std::string nvidia_smi_table(const std::string& driver, const std::string& cuda) {
  return "| NVIDIA-SMI 565.77.01              Driver Version: " + driver + "         CUDA Version: " + cuda +
         "     |\n";
}

// A WSL2 Ubuntu 24.04 machine with user alice and nothing GPU-related yet.
struct Machine {
  MemoryFileSystem fs;
  std::map<std::vector<std::string>, ProcessResult> outputs;
  std::map<std::string, std::string> packages;
  FakeProcessRunner runner;
  HostFacts host;
  std::string python;  // doctor --python
  bool as_root = true;

  Machine() {
    fs.add_file("/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
    fs.add_char_device("/dev/dxg", 0666);
    fs.add_file("/usr/lib/wsl/lib/libdxcore.so", "elf");
    fs.add_file("/etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n");
    fs.add_file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
    fs.add_file("/etc/group", "root:x:0:\nalice:x:1000:\n");
    fs.add_dir("/home/alice");
  }

  // ROCm 6.4.2 with the legacy WSL runtime.
  void amd_legacy() {
    packages["rocm-core"] = kLegacy;
    packages["hsa-runtime-rocr4wsl-amdgpu"] = "1.13.0.60402-120~24.04";
    fs.add_file("/opt/rocm/bin/rocminfo", "elf", 0755);
    outputs[{"/opt/rocm/bin/rocminfo"}] = said("  Name:                    gfx1100\n");
  }

  // ROCm 7.2.1 with librocdxg, set up as the rocm profile leaves it.
  void amd_librocdxg(const std::string& version = kRocdxg) {
    packages["rocm-core"] = version;
    packages["rocdxg-roct"] = "1.2.2";
    fs.add_file("/opt/rocm/bin/rocminfo", "elf", 0755);
    fs.add_file("/opt/rocm/lib/librocdxg.so", "elf");
    for (const char* lib : {"libroctx64.so.4", "librocprofiler64.so.2", "librocm_smi64.so.1"})
      fs.add_file(std::string("/opt/rocm/lib/") + lib, "elf");
    fs.add_file("/etc/ld.so.cache", bytes("glibc-ld.so.cache1.1\0librocdxg.so\0/opt/rocm/lib/librocdxg.so\0"));
    fs.add_file("/etc/profile.d/wslgpu-rocm.sh",
                "export PATH=\"$PATH\":'/opt/rocm/bin'\nexport HSA_ENABLE_DXG_DETECTION='1'\n");
    outputs[{"/opt/rocm/bin/rocminfo"}] = said("  Name:                    gfx1151\n");
  }

  // The Windows driver's stubs, nvidia-smi answering, the cuda profile's LD_LIBRARY_PATH.
  void nvidia(const std::string& driver = "581.15", const std::string& cuda = "13.0",
              const std::string& compute_cap = "8.9") {
    for (const char* f : {"libcuda.so", "libcuda.so.1", "libcuda.so.1.1"})
      fs.add_file(std::string("/usr/lib/wsl/lib/") + f, "elf");
    fs.add_file("/usr/lib/wsl/lib/nvidia-smi", "elf", 0755);
    fs.add_file("/etc/profile.d/wslgpu-cuda.sh", "export LD_LIBRARY_PATH='/usr/lib/wsl/lib'\n");
    outputs[{"/usr/lib/wsl/lib/nvidia-smi", "-L"}] = said("GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-1)\n");
    outputs[{"/usr/lib/wsl/lib/nvidia-smi"}] = said(nvidia_smi_table(driver, cuda));
    outputs[{"/usr/lib/wsl/lib/nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"}] =
        said(compute_cap + "\n");
  }

  // A venv as `python3 -m venv` and pip leave it, at VENV.
  void venv(const std::string& torch, const std::string& numpy = "1.26.4", const std::string& venv = kVenv) {
    const std::string site = venv + "/lib/python3.12/site-packages";
    fs.add_file(venv + "/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n");
    fs.add_symlink(venv + "/bin/python", "/usr/bin/python3.12");
    fs.add_file("/usr/bin/python3.12", "elf", 0755);
    dist(site, "torch", torch);
    fs.add_file(site + "/torch/lib/libtorch.so", "elf");
    if (!numpy.empty()) dist(site, "numpy", numpy);
  }

  void dist(const std::string& site, const std::string& name, const std::string& version) {
    const std::string info = site + "/" + name + "-" + version + ".dist-info";
    fs.add_file(info + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n\nText.\n");
    fs.add_file(info + "/RECORD", name + "/__init__.py,sha256=abc,10\n");
  }

  // A transaction of PROFILE under the state folder, with the venv its plan resolved.
  void transaction(const std::string& id, const std::string& profile, const std::string& status,
                   const std::string& venv) {
    const std::string dir = "/var/lib/wslgpu-setup/tx/" + id;
    std::string journal = "{\"type\":\"begin\",\"id\":\"" + id + "\",\"manifest\":\"" + profile + "\"}\n";
    if (status == "rolled_back") journal += "{\"type\":\"rollback\"}\n";
    if (!status.empty()) journal += "{\"type\":\"end\",\"status\":\"" + status + "\"}\n";
    fs.add_file(dir + "/journal.jsonl", journal, 0600);
    fs.add_file(dir + "/plan.json", "{\"plan\": {\"vars\": {\"venv\": \"" + venv + "\", \"other\": \"x\"}}}\n", 0600);
  }

  std::vector<Finding> diagnose() {
    DoctorMachine m = wslgpu::testing::doctor_machine(fs, runner, host, outputs, packages);
    m.python = python;
    m.as_root = as_root;
    m.free_disk_bytes = [] { return std::optional<std::uint64_t>(100ull << 30); };
    m.now = [] { return std::int64_t{1764547200}; };
    return wslgpu::diagnose(m);
  }

  // How many commands started a Python (the venv's, or through runuser).
  std::size_t pythons_started() const {
    return static_cast<std::size_t>(std::count_if(runner.calls.begin(), runner.calls.end(), [](const Command& c) {
      for (const auto& arg : c.argv)
        if (arg.find("python") != std::string::npos || arg.find("runuser") != std::string::npos) return true;
      return false;
    }));
  }
};

std::string pytorch_problems(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings)
    if (f.group == "PyTorch" && f.status != FindingStatus::ok) out += f.id + ": " + f.seen + "\n";
  return out;
}

// ---------------------------------------------------------------- which venv

TEST_CASE("doctor pytorch.venv: without a recorded or default venv it says so and how to point at one, not an error") {
  Machine m;
  m.amd_librocdxg();
  auto findings = m.diagnose();
  auto f = get(findings, "pytorch.venv");
  CHECK(f.status == FindingStatus::ok);
  CHECK(f.group == "PyTorch");
  CHECK(contains(f.seen, "no PyTorch venv"));
  CHECK(contains(f.seen, "/home/alice/.venvs/pytorch does not exist"));
  CHECK(contains(f.seen, "`wslgpu-setup doctor --python VENV/bin/python`"));
  CHECK_FALSE(lookup(findings, "pytorch.torch-hsa"));
  CHECK(m.pythons_started() == 0);
}

TEST_CASE("doctor pytorch.venv: the default ~USER/.venvs/pytorch is read when nothing was recorded") {
  Machine m;
  m.amd_librocdxg();
  m.venv(kAmdLw);
  auto f = get(m.diagnose(), "pytorch.venv");
  CHECK(f.status == FindingStatus::ok);
  CHECK(f.seen == "venv /home/alice/.venvs/pytorch (the default): torch 2.9.1+rocm7.2.1.lw.gitff65f5bc, Python 3.12.3");
}

TEST_CASE(
    "doctor pytorch.venv: the newest committed pytorch transaction's venv wins; rolled back, other profiles and "
    "interrupted runs do not count") {
  Machine m;
  m.amd_librocdxg();
  m.venv(kAmdLw, "1.26.4", "/home/alice/envs/recorded");
  m.venv(kAmdLw);  // the default exists too, and loses to the recorded one
  m.transaction("20261101-100000-aaaa", "pytorch-rocm", "committed", "/home/alice/envs/older");
  m.transaction("20261120-100000-bbbb", "pytorch-rocm", "committed", "/home/alice/envs/recorded");
  m.transaction("20261121-100000-cccc", "pytorch-rocm", "rolled_back", "/home/alice/envs/undone");
  m.transaction("20261122-100000-dddd", "rocm", "committed", "/home/alice/envs/not-pytorch");
  m.transaction("20261123-100000-eeee", "pytorch-cuda", "", "/home/alice/envs/interrupted");
  auto f = get(m.diagnose(), "pytorch.venv");
  CHECK(f.status == FindingStatus::ok);
  CHECK(f.seen ==
        "venv /home/alice/envs/recorded (recorded by `install pytorch-rocm` (transaction 20261120-100000-bbbb)): "
        "torch 2.9.1+rocm7.2.1.lw.gitff65f5bc, Python 3.12.3");
}

TEST_CASE("doctor pytorch.venv: --python VENV/bin/python names the venv; a recorded venv that is gone warns") {
  {
    Machine m;
    m.amd_librocdxg();
    m.venv(kAmdLw, "1.26.4", "/srv/torchenv");
    m.python = "/srv/torchenv/bin/python";
    auto f = get(m.diagnose(), "pytorch.venv");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "venv /srv/torchenv (--python): torch 2.9.1+rocm7.2.1.lw.gitff65f5bc, Python 3.12.3");
  }
  {
    Machine m;
    m.amd_librocdxg();
    m.transaction("20261120-100000-bbbb", "pytorch-rocm", "committed", "/home/alice/envs/removed");
    auto f = get(m.diagnose(), "pytorch.venv");
    CHECK(f.status == FindingStatus::warn);
    CHECK(contains(f.seen, "/home/alice/envs/removed"));
    CHECK(contains(f.seen, "is missing"));
    CHECK(contains(f.fix, "--python VENV/bin/python"));
  }
  {
    Machine m;
    m.amd_librocdxg();
    m.venv(kAmdLw);
    m.fs.remove(std::string(kSite) + "/torch-2.9.1+rocm7.2.1.lw.gitff65f5bc.dist-info/METADATA");
    auto f = get(m.diagnose(), "pytorch.venv");
    CHECK(f.status == FindingStatus::warn);
    CHECK(contains(f.seen, "torch is not installed in the venv /home/alice/.venvs/pytorch"));
  }
}

TEST_CASE("doctor pytorch: a healthy converged venv is read from its files alone; no Python is started") {
  {
    Machine m;
    m.amd_librocdxg();
    m.venv(kAmdLw);
    auto findings = m.diagnose();
    INFO(pytorch_problems(findings));
    CHECK(pytorch_problems(findings).empty());
    for (const char* id : {"pytorch.venv", "pytorch.torch-hsa", "pytorch.wheel-source", "pytorch.rocm-userspace",
                           "pytorch.librocdxg", "pytorch.dxg-detection"})
      CHECK(get(findings, id).status == FindingStatus::ok);
    CHECK(m.pythons_started() == 0);
    CHECK(m.fs.writes == 0);
  }
  {
    Machine m;
    m.nvidia();
    m.venv("2.9.1+cu130", "2.1.0");
    auto findings = m.diagnose();
    INFO(pytorch_problems(findings));
    CHECK(pytorch_problems(findings).empty());
    for (const char* id : {"pytorch.venv", "pytorch.cuda-driver", "pytorch.gpu-arch", "pytorch.libcuda"})
      CHECK(get(findings, id).status == FindingStatus::ok);
    CHECK(m.pythons_started() == 0);
  }
}

TEST_CASE(
    "doctor pytorch.venv: a Python outside a venv's layout is asked for its site-packages, once, as the user, "
    "with the timeout") {
  Machine m;
  m.amd_legacy();
  m.fs.add_file("/opt/py/bin/python", "elf", 0755);
  m.dist("/opt/py/site", "torch", kAmd642);
  m.fs.add_file("/opt/py/site/torch/lib/libhsa-runtime64.so.1", "elf");
  m.python = "/opt/py/bin/python";
  const std::vector<std::string> asked = {"/usr/sbin/runuser", "-u", "alice", "--", "/opt/py/bin/python", "-I", "-c"};
  m.outputs[asked] = said("/opt/py/site\n");
  auto findings = m.diagnose();
  CHECK(get(findings, "pytorch.venv").seen == "venv /opt/py (--python): torch 2.6.0+rocm6.4.2.git76481f7c");
  CHECK(get(findings, "pytorch.torch-hsa").status == FindingStatus::fail);  // read from the folder Python named
  REQUIRE(m.pythons_started() == 1);
  auto call = std::find_if(m.runner.calls.begin(), m.runner.calls.end(),
                           [](const Command& c) { return c.argv.front() == "/usr/sbin/runuser"; });
  REQUIRE(call != m.runner.calls.end());
  CHECK(std::equal(asked.begin(), asked.end(), call->argv.begin()));
  CHECK(call->timeout == std::chrono::seconds(12));

  // Not root: it runs as whoever runs doctor.
  m.as_root = false;
  m.outputs.erase(asked);
  m.outputs[{"/opt/py/bin/python", "-I", "-c"}] = said("/opt/py/site\n");
  findings = m.diagnose();
  CHECK(get(findings, "pytorch.torch-hsa").status == FindingStatus::fail);
  REQUIRE(m.runner.calls.size() >= 1);
  CHECK(m.pythons_started() == 1);
  for (const auto& c : m.runner.calls) CHECK(c.argv.front() != "/usr/sbin/runuser");
}

// ---------------------------------------------------------------- AMD

TEST_CASE("doctor pytorch.torch-hsa (A1): torch's bundled libhsa-runtime64.so on the legacy runtime fails with rm") {
  {
    Machine m;
    m.amd_legacy();
    m.venv(kAmd642);
    m.fs.add_file(std::string(kSite) + "/torch/lib/libhsa-runtime64.so", "elf");
    m.fs.add_file(std::string(kSite) + "/torch/lib/libhsa-runtime64.so.1", "elf");
    auto f = get(m.diagnose(), "pytorch.torch-hsa");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, std::string(kSite) + "/torch/lib/libhsa-runtime64.so.1"));
    CHECK(contains(f.cause, "ROCm/ROCm#5461"));
    CHECK(f.fix.rfind("rm " + std::string(kSite) + "/torch/lib/libhsa-runtime64.so*", 0) == 0);
  }
  {
    Machine m;  // healthy: removed, as AMD's WSL step does
    m.amd_legacy();
    m.venv(kAmd642);
    auto f = get(m.diagnose(), "pytorch.torch-hsa");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == std::string(kSite) + "/torch/lib bundles no libhsa-runtime64.so");
  }
  {
    Machine m;  // a librocdxg release uses it
    m.amd_librocdxg();
    m.venv(kAmdLw);
    m.fs.add_file(std::string(kSite) + "/torch/lib/libhsa-runtime64.so", "elf");
    CHECK(get(m.diagnose(), "pytorch.torch-hsa").status == FindingStatus::ok);
  }
}

TEST_CASE("doctor pytorch.wheel-source (A1): download.pytorch.org's ROCm wheel on the legacy runtime fails") {
  {
    Machine m;
    m.amd_legacy();
    m.venv("2.6.0+rocm6.4");
    auto f = get(m.diagnose(), "pytorch.wheel-source");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "torch 2.6.0+rocm6.4 is download.pytorch.org's ROCm build, on the legacy WSL runtime");
    CHECK(contains(f.cause, "meant for use on regular Linux"));
    CHECK(contains(f.fix, "sudo wslgpu-setup install pytorch"));
  }
  {
    // direct_url.json (PEP 610) names the server, whatever the version says.
    Machine m;
    m.amd_legacy();
    m.venv(kAmd642);
    m.fs.add_file(std::string(kSite) + "/torch-" + kAmd642 + ".dist-info/direct_url.json",
                  R"({"url": "https://download.pytorch.org/whl/rocm6.4/torch-2.6.0.whl", "archive_info": {}})");
    auto f = get(m.diagnose(), "pytorch.wheel-source");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, "(from https://download.pytorch.org/whl/rocm6.4/torch-2.6.0.whl)"));
  }
  {
    Machine m;  // healthy: AMD's wheel
    m.amd_legacy();
    m.venv(kAmd642);
    auto f = get(m.diagnose(), "pytorch.wheel-source");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "torch 2.6.0+rocm6.4.2.git76481f7c is AMD's build");
  }
}

TEST_CASE(
    "doctor pytorch.rocm-userspace (A3): a .lw torch without /opt/rocm's libroctx64.so.4 fails, naming the "
    "libraries") {
  {
    Machine m;
    m.amd_librocdxg();
    m.venv(kAmdLw);
    m.fs.remove("/opt/rocm/lib/libroctx64.so.4");
    m.fs.remove("/opt/rocm/lib/librocm_smi64.so.1");
    auto f = get(m.diagnose(), "pytorch.rocm-userspace");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, "/opt/rocm/lib has no libroctx64.so.4* and librocm_smi64.so*"));
    CHECK(contains(f.cause, "libroctx64.so.4: cannot open shared object file"));
    CHECK(contains(f.cause, "ROCm/ROCm#6053"));
    CHECK(contains(f.fix, "sudo apt install rocm"));
  }
  {
    Machine m;  // healthy
    m.amd_librocdxg();
    m.venv(kAmdLw);
    CHECK(get(m.diagnose(), "pytorch.rocm-userspace").status == FindingStatus::ok);
  }
  {
    Machine m;  // a wheel that bundles its libraries needs none of them
    m.amd_legacy();
    m.venv(kAmd642);
    CHECK_FALSE(lookup(m.diagnose(), "pytorch.rocm-userspace"));
  }
}

TEST_CASE(
    "doctor pytorch.librocdxg (A4): on a librocdxg release it must be present and in the loader's cache or on "
    "LD_LIBRARY_PATH") {
  {
    Machine m;
    m.amd_librocdxg();
    m.venv(kAmdLw);
    m.fs.remove("/opt/rocm/lib/librocdxg.so");
    auto findings = m.diagnose();
    auto f = get(findings, "pytorch.librocdxg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "torch cannot load librocdxg: /opt/rocm/lib/librocdxg.so is missing");
    CHECK(contains(f.fix, "sudo wslgpu-setup install rocm --set rocm_version=7.2.1"));
    CHECK(get(findings, "amd.librocdxg").status == FindingStatus::fail);  // the AMD check says the same first
  }
  {
    Machine m;
    m.amd_librocdxg();
    m.venv(kAmdLw);
    m.fs.add_file("/etc/ld.so.cache",
                  bytes("glibc-ld.so.cache1.1\0libhsa-runtime64.so.1\0/opt/rocm/lib/libhsa-runtime64.so.1\0"));
    auto f = get(m.diagnose(), "pytorch.librocdxg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, "not in the loader's cache"));
    CHECK(contains(f.cause, "ROCm/librocdxg PR #47"));
    CHECK(contains(f.fix, "echo /opt/rocm/lib | sudo tee /etc/ld.so.conf.d/rocm.conf && sudo ldconfig"));
  }
  {
    Machine m;  // LD_LIBRARY_PATH, AMD's workaround, is enough
    m.amd_librocdxg();
    m.venv(kAmdLw);
    m.fs.remove("/etc/ld.so.cache");
    m.fs.add_file("/home/alice/.bashrc", "export LD_LIBRARY_PATH=/opt/rocm/lib:$LD_LIBRARY_PATH\n");
    auto f = get(m.diagnose(), "pytorch.librocdxg");
    CHECK(f.status == FindingStatus::ok);
    CHECK(contains(f.seen, "(/home/alice/.bashrc)"));
  }
  {
    Machine m;  // healthy
    m.amd_librocdxg();
    m.venv(kAmdLw);
    auto f = get(m.diagnose(), "pytorch.librocdxg");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "librocdxg is in the loader's cache (/opt/rocm/lib/librocdxg.so)");
  }
  {
    Machine m;  // not a librocdxg release
    m.amd_legacy();
    m.venv(kAmd642);
    CHECK_FALSE(lookup(m.diagnose(), "pytorch.librocdxg"));
  }
}

TEST_CASE(
    "doctor pytorch.dxg-detection (A5): HSA_ENABLE_DXG_DETECTION=1 for login shells on librocdxg releases "
    "before 7.13") {
  {
    Machine m;
    m.amd_librocdxg();
    m.venv(kAmdLw);
    m.fs.add_file("/etc/profile.d/wslgpu-rocm.sh",
                  "export PATH=\"$PATH\":'/opt/rocm/bin'\n"
                  "# export HSA_ENABLE_DXG_DETECTION=1\n");
    auto f = get(m.diagnose(), "pytorch.dxg-detection");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "ROCm 7.2.1, and no login file sets HSA_ENABLE_DXG_DETECTION=1");
    CHECK(contains(f.cause, "ROCm/librocdxg#34"));
    CHECK(contains(f.fix, "export HSA_ENABLE_DXG_DETECTION=1"));
  }
  {
    Machine m;  // healthy
    m.amd_librocdxg();
    m.venv(kAmdLw);
    auto f = get(m.diagnose(), "pytorch.dxg-detection");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "HSA_ENABLE_DXG_DETECTION=1 for login shells (/etc/profile.d/wslgpu-rocm.sh), as ROCm 7.2.1 needs");
  }
  {
    Machine m;  // 7.13 finds librocdxg without it
    m.amd_librocdxg("7.13.0.71300-1~24.04");
    m.venv("2.11.0+rocm7.13.0.lw.git1234abcd");
    m.fs.add_file("/etc/profile.d/wslgpu-rocm.sh", "export PATH=\"$PATH\":'/opt/rocm/bin'\n");
    auto f = get(m.diagnose(), "pytorch.dxg-detection");
    CHECK(f.status == FindingStatus::ok);
    CHECK(contains(f.seen, "without HSA_ENABLE_DXG_DETECTION"));
  }
}

TEST_CASE("doctor pytorch.numpy (A9): NumPy 2 with a ROCm 6.x torch fails with the pin") {
  {
    Machine m;
    m.amd_legacy();
    m.venv(kAmd642, "2.1.3");
    auto f = get(m.diagnose(), "pytorch.numpy");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "NumPy 2.1.3 with torch 2.6.0+rocm6.4.2.git76481f7c");
    CHECK(f.fix.rfind("/home/alice/.venvs/pytorch/bin/python -m pip install numpy==1.26.4", 0) == 0);
  }
  {
    Machine m;  // healthy
    m.amd_legacy();
    m.venv(kAmd642, "1.26.4");
    CHECK(get(m.diagnose(), "pytorch.numpy").status == FindingStatus::ok);
  }
  {
    Machine m;  // 7.x wheels take NumPy 2
    m.amd_librocdxg();
    m.venv(kAmdLw, "2.1.3");
    CHECK_FALSE(lookup(m.diagnose(), "pytorch.numpy"));
  }
}

// ---------------------------------------------------------------- NVIDIA

TEST_CASE("doctor pytorch.cuda-driver (N3): the wheel's CUDA newer than the Windows driver's") {
  {
    Machine m;
    m.nvidia("566.36", "12.7");
    m.venv("2.9.1+cu130");
    auto f = get(m.diagnose(), "pytorch.cuda-driver");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "torch's CUDA 13.0 (cu130) needs a newer Windows driver than 566.36 (it supports CUDA 12.7)");
    CHECK(contains(f.cause, "The NVIDIA driver on your system is too old"));
    CHECK(contains(f.fix, "install NVIDIA's driver 580 or later"));
  }
  {
    Machine m;  // minor-version compatibility: runs, with limits
    m.nvidia("581.15", "13.0");
    m.venv("2.14.0+cu132");
    auto f = get(m.diagnose(), "pytorch.cuda-driver");
    CHECK(f.status == FindingStatus::warn);
    CHECK(contains(f.cause, "minor-version compatibility (driver 580 or later for CUDA 13.x)"));
  }
  {
    Machine m;  // healthy
    m.nvidia("566.36", "12.7");
    m.venv("2.9.1+cu126");
    auto f = get(m.diagnose(), "pytorch.cuda-driver");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "torch's CUDA 12.6 (cu126) is not newer than the CUDA 12.7 the Windows driver supports");
  }
}

TEST_CASE("doctor pytorch.gpu-arch (N4): the GPU's compute capability among the wheel's architectures") {
  {
    Machine m;  // Pascal on cu13x
    m.nvidia("581.15", "13.0", "6.1");
    m.venv("2.9.1+cu130");
    auto f = get(m.diagnose(), "pytorch.gpu-arch");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "compute capability 6.1 is not among the cu130 wheel's sm_75 to sm_120 (+PTX)");
    CHECK(contains(f.cause, "no kernel image is available for execution on the device"));
    CHECK(contains(f.fix, "cu126"));
  }
  {
    Machine m;  // Blackwell on cu126
    m.nvidia("581.15", "13.0", "12.0");
    m.venv("2.9.1+cu126");
    auto f = get(m.diagnose(), "pytorch.gpu-arch");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "compute capability 12.0 is not among the cu126 wheel's sm_50 to sm_90");
    CHECK(contains(f.fix, "cu13x"));
  }
  {
    Machine m;  // healthy
    m.nvidia("581.15", "13.0", "8.9");
    m.venv("2.9.1+cu130");
    auto findings = m.diagnose();
    auto f = get(findings, "pytorch.gpu-arch");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "compute capability 8.9 is among the cu130 wheel's sm_75 to sm_120 (+PTX)");
    bool asked = std::any_of(m.runner.calls.begin(), m.runner.calls.end(), [](const Command& c) {
      return c.argv.size() == 3 && c.argv[1] == "--query-gpu=compute_cap" && c.timeout == std::chrono::seconds(12);
    });
    CHECK(asked);
  }
  {
    Machine m;  // newer than 12.0: the PTX
    m.nvidia("581.15", "13.0", "12.1");
    m.venv("2.9.1+cu130");
    auto f = get(m.diagnose(), "pytorch.gpu-arch");
    CHECK(f.status == FindingStatus::ok);
    CHECK(contains(f.seen, "through PTX compiled at first use"));
  }
}

TEST_CASE("doctor pytorch.libcuda (N1): libcuda.so must be on LIBRARY_PATH or LD_LIBRARY_PATH for torch.compile") {
  {
    Machine m;
    m.nvidia();
    m.venv("2.9.1+cu130");
    m.fs.remove("/etc/profile.d/wslgpu-cuda.sh");
    m.fs.add_file("/etc/ld.so.conf.d/ld.wsl.conf", "/usr/lib/wsl/lib\n");  // the cache alone lists libcuda.so.1 only
    auto f = get(m.diagnose(), "pytorch.libcuda");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/usr/lib/wsl/lib is on neither LIBRARY_PATH nor LD_LIBRARY_PATH for login shells");
    CHECK(contains(f.cause, "cannot find -lcuda"));
    CHECK(contains(f.cause, "pytorch/pytorch#97501"));
    CHECK(contains(f.fix, "export LIBRARY_PATH=/usr/lib/wsl/lib"));
    CHECK(contains(f.fix, "Leave /usr/lib/wsl/lib itself alone"));
  }
  {
    Machine m;
    m.nvidia();
    m.venv("2.9.1+cu130");
    m.fs.remove("/usr/lib/wsl/lib/libcuda.so");
    auto f = get(m.diagnose(), "pytorch.libcuda");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/usr/lib/wsl/lib/libcuda.so is missing");
    CHECK(contains(f.fix, "change nothing in it"));
  }
  {
    Machine m;  // LIBRARY_PATH in the user's ~/.profile
    m.nvidia();
    m.venv("2.9.1+cu130");
    m.fs.remove("/etc/profile.d/wslgpu-cuda.sh");
    m.fs.add_file("/home/alice/.profile", "export LIBRARY_PATH=\"/usr/lib/wsl/lib:$LIBRARY_PATH\"\n");
    auto f = get(m.diagnose(), "pytorch.libcuda");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen ==
          "libcuda.so is found for torch.compile: /usr/lib/wsl/lib is on LIBRARY_PATH for login shells "
          "(/home/alice/.profile)");
  }
  {
    Machine m;  // healthy: the cuda profile's LD_LIBRARY_PATH
    m.nvidia();
    m.venv("2.9.1+cu130");
    auto f = get(m.diagnose(), "pytorch.libcuda");
    CHECK(f.status == FindingStatus::ok);
    CHECK(contains(f.seen, "LD_LIBRARY_PATH for login shells (/etc/profile.d/wslgpu-cuda.sh)"));
  }
}

TEST_CASE(
    "doctor pytorch.ldconfig (N2): the 'is not a symbolic link' warning is information, never a problem, and "
    "never advises changing /usr/lib/wsl/lib") {
  {
    Machine m;
    m.nvidia();
    m.venv("2.9.1+cu130");
    auto f = get(m.diagnose(), "pytorch.ldconfig");
    CHECK(f.status == FindingStatus::ok);
    CHECK(contains(f.seen, "is not a symbolic link"));
    CHECK(contains(f.seen, "harmless"));
    CHECK(contains(f.seen, "leave /usr/lib/wsl/lib as it is"));
    CHECK(f.fix.empty());
    CHECK_FALSE(contains(f.seen, "ln -s"));
    CHECK_FALSE(contains(f.seen, "rm "));
  }
  {
    Machine m;  // a ROCm venv has nothing to do with it
    m.amd_librocdxg();
    m.venv(kAmdLw);
    CHECK_FALSE(lookup(m.diagnose(), "pytorch.ldconfig"));
  }
}

TEST_CASE("doctor pytorch.venv: a venv whose Python a distribution upgrade took away fails, with the way to make it anew") {
  Machine m;
  m.amd_librocdxg();
  m.venv(kAmdLw);
  // As 22.04 made it; on this system /usr/bin/python3.10 is gone.
  m.fs.write_atomic(std::string(kVenv) + "/pyvenv.cfg", "home = /usr/bin\nversion = 3.10.12\n", FileAttrs{});
  auto f = get(m.diagnose(), "pytorch.venv");
  CHECK(f.status == FindingStatus::fail);
  CHECK(f.seen == "the venv /home/alice/.venvs/pytorch (the default) was made by Python 3.10.12, which this system no "
                  "longer has (/usr/bin/python3.10 is gone): nothing installed in it can run");
  CHECK(contains(f.fix, "moved aside to /home/alice/.venvs/pytorch.made-by-python3.10"));
  CHECK(m.pythons_started() == 0);
}


TEST_CASE("doctor pytorch.rocm-kernels: the Core SDK's wheels with the GPU's device extra, without it, or none for it") {
  auto machine = [](const std::string& device_installed) {
    auto m = std::make_unique<Machine>();
    m->amd_librocdxg();  // rocminfo names gfx1151
    m->venv("2.13.0+rocm10.0.0");
    m->fs.add_file(std::string(kSite) + "/rocm-10.0.0.dist-info/METADATA",
                   "Metadata-Version: 2.1\nName: rocm\nVersion: 10.0.0\nProvides-Extra: libraries\n"
                   "Provides-Extra: device-gfx1151\nProvides-Extra: device-gfx1201\nProvides-Extra: device-all\n"
                   "Requires-Dist: rocm-sdk-core==10.0.0\n"
                   "Requires-Dist: rocm-sdk-libraries==10.0.0; extra == \"libraries\"\n"
                   "Requires-Dist: rocm-sdk-device-gfx1151==10.0.0; extra == \"device-gfx1151\"\n"
                   "Requires-Dist: rocm-sdk-device-gfx1201==10.0.0; extra == \"device-gfx1201\"\n"
                   "Requires-Dist: rocm-sdk-device-gfx1151==10.0.0; extra == \"device-all\"\n"
                   "Requires-Dist: rocm-sdk-device-gfx1201==10.0.0; extra == \"device-all\"\n\n");
    m->fs.add_file(std::string(kSite) + "/rocm-10.0.0.dist-info/RECORD", "rocm/__init__.py,sha256=abc,10\n");
    if (!device_installed.empty()) m->dist(kSite, device_installed, "10.0.0");
    return m;
  };
  {
    auto m = machine("rocm_sdk_device_gfx1151");
    auto f = get(m->diagnose(), "pytorch.rocm-kernels");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "rocm 10.0.0 in /home/alice/.venvs/pytorch has the kernels of gfx1151 (device-gfx1151)");
  }
  {
    // Installed for another target: torch fails at its first kernel.
    auto m = machine("rocm_sdk_device_gfx1201");
    auto f = get(m->diagnose(), "pytorch.rocm-kernels");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "rocm 10.0.0 in /home/alice/.venvs/pytorch lacks the kernels of gfx1151 (installed: "
                    "device-gfx1201)");
    CHECK(contains(f.fix, "--set rocm_gfx=gfx1151"));
  }
  {
    // A GPU whose target the wheel has no extra for.
    auto m = machine("");
    m->outputs[{"/opt/rocm/bin/rocminfo"}] = said("  Name:                    gfx1036\n");
    auto f = get(m->diagnose(), "pytorch.rocm-kernels");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "rocm 10.0.0 in /home/alice/.venvs/pytorch has no device-gfx1036 extra: AMD builds no kernels of "
                    "gfx1036 into it");
  }
}

}  // namespace pytorch_doctor_test
