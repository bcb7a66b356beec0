// doctor's AMD checks (installer/doctor/checks_amd.cpp): no DKMS, the WSL
// runtime of each ROCm release (rocr4wsl, librocdxg), the distribution's HSA
// packages, rocminfo and torch's bundled HSA, each proved ok and failing.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "doctor_fixture.hpp"
#include "findings.hpp"
#include "installer/doctor/doctor.hpp"
#include "installer/formats/ini.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/host/host.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

TEST_CASE("doctor amd: the checks apply only with a ROCm or HSA package or /opt/rocm") {
  DoctorFixture m;
  m.make_nvidia();
  auto findings = m.diagnose();
  CHECK_FALSE(lookup(findings, "amd.dkms"));
  DoctorFixture a;
  a.fs.add_dir("/opt/rocm");
  CHECK(lookup(a.diagnose(), "amd.dkms"));
}

TEST_CASE("doctor amd.dkms: any DKMS package fails, also on a machine without ROCm") {
  {
    DoctorFixture m;
    m.make_amd();
    auto f = get(m.diagnose(), "amd.dkms");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "no DKMS package is installed");
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.packages["amdgpu-dkms"] = "1:6.12.12.60402-2164967.22.04";
    m.packages["dkms"] = "3.0.11-1ubuntu13";
    auto f = get(m.diagnose(), "amd.dkms");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "DKMS packages are installed: amdgpu-dkms, dkms");
    CHECK(contains(f.cause, "\"kernel headers for ...-microsoft-standard-WSL2 cannot be found\""));
    CHECK(f.fix.rfind("sudo apt purge amdgpu-dkms dkms (", 0) == 0);
  }
  {
    DoctorFixture m;
    m.packages["v4l2loopback-dkms"] = "0.12.7-2";
    auto f = get(m.diagnose(), "amd.dkms");
    CHECK(f.status == FindingStatus::fail);
    CHECK_FALSE(lookup(m.diagnose(), "amd.rocminfo"));
  }
}

TEST_CASE("doctor amd.wsl-runtime: 6.x needs rocr4wsl, 7.0 has no WSL support, 7.1+ needs dxg detection") {
  {
    DoctorFixture m;
    m.make_amd();
    auto f = get(m.diagnose(), "amd.wsl-runtime");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "ROCm 6.4.2 with its WSL runtime (hsa-runtime-rocr4wsl-amdgpu)");
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.packages.erase("hsa-runtime-rocr4wsl-amdgpu");
    auto f = get(m.diagnose(), "amd.wsl-runtime");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "ROCm 6.4.2 without its WSL runtime: hsa-runtime-rocr4wsl-amdgpu is not installed");
    CHECK(contains(f.cause, "looks for /dev/kfd, which WSL does not have"));
    CHECK(contains(f.fix, "sudo apt install hsa-runtime-rocr4wsl-amdgpu"));
  }
  {
    DoctorFixture m;
    m.make_amd("7.0.2.70002-56~24.04");
    auto f = get(m.diagnose(), "amd.wsl-runtime");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "ROCm 7.0.2 has no WSL support");
    CHECK(contains(f.fix, "6.4.2.1"));
  }
  {
    // 7.2 is the last legacy release: its WSL runtime needs no dxg detection.
    DoctorFixture m;
    m.make_amd("7.2.0.70200-43~24.04");
    m.packages["hsa-runtime-rocr4wsl-amdgpu"] = "25.30.0-2222222.24.04";
    auto f = get(m.diagnose(), "amd.wsl-runtime");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "ROCm 7.2.0 with its WSL runtime (hsa-runtime-rocr4wsl-amdgpu)");
  }
  {
    DoctorFixture m;
    m.make_amd("7.1.0.70100-20~24.04");
    auto f = get(m.diagnose(), "amd.wsl-runtime");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "ROCm 7.1.0, but HSA_ENABLE_DXG_DETECTION=1 is not set");
    CHECK(contains(f.cause, "librocdxg bridge"));
    CHECK(contains(f.fix, "sets it for every login shell in /etc/profile.d"));
  }
  {
    DoctorFixture m;
    m.make_amd("7.1.0.70100-20~24.04");
    m.fs.add_file("/home/alice/.bashrc",
                  "# >>> wslgpu-setup rocm >>>\nexport HSA_ENABLE_DXG_DETECTION='1'\n# <<< wslgpu-setup rocm <<<\n");
    auto findings = m.diagnose();
    auto f = get(findings, "amd.wsl-runtime");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "ROCm 7.1.0 with dxg detection on (HSA_ENABLE_DXG_DETECTION=1 in /home/alice/.bashrc)");
    // rocminfo runs as a login shell would: with the variable
    bool passed = false;
    for (const auto& c : m.runner.calls)
      if (c.argv.front() == "/opt/rocm/bin/rocminfo") passed = c.env.count("HSA_ENABLE_DXG_DETECTION") == 1;
    CHECK(passed);
  }
  {
    DoctorFixture m;
    m.make_amd("7.1.0.70100-20~24.04");
    m.fs.add_file("/etc/profile.d/rocm-dxg.sh", "# export HSA_ENABLE_DXG_DETECTION=1\n");
    CHECK(get(m.diagnose(), "amd.wsl-runtime").status == FindingStatus::fail);  // a comment sets nothing
  }
  {
    DoctorFixture m;
    m.make_amd("6.0.2.60002-115~22.04");
    auto f = get(m.diagnose(), "amd.wsl-runtime");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "ROCm 6.0.2 predates WSL support");
  }
  {
    DoctorFixture m;
    m.fs.add_dir("/opt/rocm");
    auto f = get(m.diagnose(), "amd.wsl-runtime");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "ROCm's version is unknown: rocm-core is not installed");
  }
}

TEST_CASE("doctor amd.distro-hsa: Ubuntu's own libhsa-runtime64-1 and libhsakmt1 fail") {
  {
    DoctorFixture m;
    m.make_amd();
    CHECK(get(m.diagnose(), "amd.distro-hsa").status == FindingStatus::ok);
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.packages["libhsa-runtime64-1"] = "5.7.1-2build1";
    m.packages["libhsakmt1"] = "5.7.0-1build1";
    auto f = get(m.diagnose(), "amd.distro-hsa");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "the distribution's ROCm runtime is installed: libhsa-runtime64-1, libhsakmt1");
    CHECK(contains(f.cause, "5.7 on 24.04"));
    CHECK(f.fix.rfind("sudo apt remove libhsa-runtime64-1 libhsakmt1", 0) == 0);
  }
  {
    // Ubuntu 26.04's ROCm 7.1, whose soname is the Core SDK's.
    DoctorFixture m;
    m.make_amd();
    m.packages["libamdhip64-7"] = "7.1.0-0ubuntu2";
    auto f = get(m.diagnose(), "amd.distro-hsa");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "the distribution's ROCm runtime is installed: libamdhip64-7");
    CHECK(contains(f.cause, "has the Core SDK's soname"));
  }
}

TEST_CASE("doctor amd.rocminfo: a gfx agent is ok; each known failure text maps to its cause") {
  {
    DoctorFixture m;
    m.make_amd();
    auto f = get(m.diagnose(), "amd.rocminfo");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "rocminfo lists gfx1100");
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.outputs[{"/opt/rocm/bin/rocminfo"}] =
        output("WSL environment detected.\n", 1,
               "hsa api call failure at: rocminfo.cc:1306\nCall returned "
               "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate\n");
    auto f = get(m.diagnose(), "amd.rocminfo");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "rocminfo: HSA_STATUS_ERROR_OUT_OF_RESOURCES");
    CHECK(contains(f.cause, "this ROCm release, this GPU or this distribution is not in AMD's WSL support matrix"));
    CHECK(contains(f.fix, "AMD's WSL support matrix"));
  }
  {
    DoctorFixture m;
    m.make_amd("7.1.0.70100-20~24.04");
    m.outputs[{"/opt/rocm/bin/rocminfo"}] = output("", 1, "No WDDM adapters found.\n");
    auto f = get(m.diagnose(), "amd.rocminfo");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "rocminfo: No WDDM adapters found");
    CHECK(contains(f.cause, "only when HSA_ENABLE_DXG_DETECTION=1, and it is not set"));
    CHECK(contains(f.fix, "export HSA_ENABLE_DXG_DETECTION=1"));
  }
  {
    DoctorFixture m;
    m.make_amd("7.1.0.70100-20~24.04");
    m.outputs[{"/opt/rocm/bin/rocminfo"}] = output("", 1,
                                                   "ROCk module is NOT loaded, possibly no GPU devices\n"
                                                   "hsa_init Failed, possibly no supported GPU devices\n");
    auto f = get(m.diagnose(), "amd.rocminfo");
    CHECK(f.seen == "rocminfo: hsa_init Failed");
    CHECK(contains(f.cause, "The HSA runtime could not start."));
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.outputs[{"/opt/rocm/bin/rocminfo"}] = timed_out();
    auto f = get(m.diagnose(), "amd.rocminfo");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "rocminfo did not answer within 12 s");
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.outputs[{"/opt/rocm/bin/rocminfo"}] = output("Agent 1\n  Name: CPU\n");
    CHECK(get(m.diagnose(), "amd.rocminfo").seen == "rocminfo lists no GPU agent");
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.fs.remove("/opt/rocm/bin/rocminfo");
    auto f = get(m.diagnose(), "amd.rocminfo");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "rocminfo not found");
  }
}

TEST_CASE("doctor amd.torch-hsa: a libhsa-runtime64.so bundled in torch/lib fails with the rm command") {
  {
    DoctorFixture m;
    m.make_amd();
    m.fs.add_file("/home/alice/.local/lib/python3.12/site-packages/torch/lib/libtorch.so", "elf");
    auto f = get(m.diagnose(), "amd.torch-hsa");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen ==
          "PyTorch (/home/alice/.local/lib/python3.12/site-packages/torch/lib) bundles no "
          "libhsa-runtime64.so");
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.fs.add_file("/home/alice/.local/lib/python3.12/site-packages/torch/lib/libhsa-runtime64.so", "elf");
    m.fs.add_file("/usr/local/lib/python3.12/dist-packages/torch/lib/libhsa-runtime64.so.1", "elf");
    auto f = get(m.diagnose(), "amd.torch-hsa");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, "/home/alice/.local/lib/python3.12/site-packages/torch/lib/libhsa-runtime64.so"));
    CHECK(contains(f.seen, "/usr/local/lib/python3.12/dist-packages/torch/lib/libhsa-runtime64.so.1"));
    CHECK(contains(f.cause, "rocminfo can work while PyTorch sees no GPU"));
    CHECK(f.fix.rfind("rm /home/alice/.local/lib/python3.12/site-packages/torch/lib/libhsa-runtime64.so* "
                      "/usr/local/lib/python3.12/dist-packages/torch/lib/libhsa-runtime64.so*",
                      0) == 0);
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.fs.add_file("/usr/lib/python3/dist-packages/torch/lib/libhsa-runtime64.so", "elf");
    CHECK(get(m.diagnose(), "amd.torch-hsa").status == FindingStatus::fail);
  }
}

TEST_CASE("doctor amd.librocdxg: present and the matrix's version for 7.2.x, never next to the legacy runtime") {
  {
    DoctorFixture m;
    m.make_amd("7.2.2.70202-10~24.04");
    m.packages["rocdxg-roct"] = "1.2.2";
    m.fs.add_file("/opt/rocm/lib/librocdxg.so", "elf");
    auto f = get(m.diagnose(), "amd.librocdxg");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "librocdxg 1.2.2 for ROCm 7.2.2 (/opt/rocm/lib/librocdxg.so)");
  }
  {
    DoctorFixture m;
    m.make_amd("7.2.1.70201-10~24.04");
    auto f = get(m.diagnose(), "amd.librocdxg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "ROCm 7.2.1 without librocdxg: /opt/rocm/lib/librocdxg.so is missing");
    CHECK(contains(f.fix, "sudo wslgpu-setup install rocm --set rocm_version=7.2.1"));
  }
  {
    // A librocdxg the profile's matrix does not pair with this release.
    DoctorFixture m;
    m.make_amd("7.2.2.70202-10~24.04");
    m.packages["rocdxg-roct"] = "1.1.0";
    m.fs.add_file("/opt/rocm/lib/librocdxg.so", "elf");
    auto f = get(m.diagnose(), "amd.librocdxg");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "librocdxg 1.1.0 with ROCm 7.2.2; the rocm profile pairs 7.2.2 with librocdxg 1.2.2");
  }
  {
    DoctorFixture m;
    m.make_amd();  // 6.4.2 with hsa-runtime-rocr4wsl-amdgpu
    m.packages["rocdxg-roct"] = "1.2.2";
    auto f = get(m.diagnose(), "amd.librocdxg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen ==
          "both the legacy WSL runtime (hsa-runtime-rocr4wsl-amdgpu) and librocdxg (rocdxg-roct) are installed");
  }
}

namespace {

// The ROCm Core SDK as the rocm profile installs it: the package of the
// GPU's target, the release's own prefix, rocminfo there.
void make_core_sdk(DoctorFixture& m, const std::string& series, const std::string& version) {
  const std::string rocminfo = "/opt/rocm/core-" + series + "/bin/rocminfo";
  m.fs.add_file(rocminfo, "elf", 0755);
  m.packages["amdrocm" + series + "-gfx1100"] = version;
  m.packages["amdrocm-core" + series + "-gfx1100"] = version;
  m.outputs[{rocminfo}] = output(kRocminfo);
}

}  // namespace

TEST_CASE("doctor amd on the ROCm Core SDK: the release from its package, librocdxg where it keeps it, known issues") {
  {
    DoctorFixture m;
    make_core_sdk(m, "10.0", "10.0.0-4");
    m.fs.add_file("/opt/rocm/lib/librocdxg.so", "elf");
    m.packages["rocdxg-roct"] = "1.2.2";
    auto findings = m.diagnose();
    auto runtime = get(findings, "amd.wsl-runtime");
    CHECK(runtime.status == FindingStatus::ok);
    CHECK(runtime.seen == "the ROCm Core SDK 10.0.0 (amdrocm10.0-gfx1100)");
    CHECK(get(findings, "amd.librocdxg").status == FindingStatus::ok);
    CHECK(get(findings, "amd.rocminfo").seen == "rocminfo lists gfx1100");  // from /opt/rocm/core-10.0/bin
    auto issues = get(findings, "amd.known-issues");
    CHECK(issues.status == FindingStatus::warn);
    CHECK(contains(issues.cause, "[CreateContext] fail 11"));
  }
  {
    // 10.1 keeps librocdxg inside ROCm; without it, the finding names that path.
    DoctorFixture m;
    make_core_sdk(m, "10.1", "10.1.0-2");
    auto f = get(m.diagnose(), "amd.librocdxg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "the ROCm Core SDK 10.1.0 without librocdxg: /opt/rocm/core-10.1/lib/librocdxg.so is missing");
    CHECK(contains(f.cause, "ships inside ROCm"));
  }
  {
    // A legacy release left beside it.
    DoctorFixture m;
    make_core_sdk(m, "10.0", "10.0.0-4");
    m.packages["rocm-core"] = "7.2.4.70204-1";
    auto f = get(m.diagnose(), "amd.streams");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.cause, "Uninstall ROCm 7.2.4 or older first"));
  }
}

TEST_CASE("doctor amd.gfx-override: HSA_OVERRIDE_GFX_VERSION in a login file is a warning naming the file") {
  DoctorFixture m;
  m.make_amd("7.2.4.70204-1~24.04");
  CHECK_FALSE(lookup(m.diagnose(), "amd.gfx-override"));
  m.fs.add_file("/etc/profile.d/zz-override.sh", "export HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
  auto f = get(m.diagnose(), "amd.gfx-override");
  CHECK(f.status == FindingStatus::warn);
  CHECK(f.seen == "HSA_OVERRIDE_GFX_VERSION=11.0.0 is set in /etc/profile.d/zz-override.sh");
  CHECK(contains(f.fix, "Remove the line from /etc/profile.d/zz-override.sh"));
}
