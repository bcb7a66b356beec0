// doctor's AMD Windows preflight (installer/doctor/checks_amd_windows.cpp)
// and the Windows 10 preflight of windows.build: what Windows lists of the
// AMD GPU, from the fixture's recorded powershell.exe output, before and
// beside ROCm. No test starts PowerShell: the fake runner answers.
#include <doctest/doctest.h>

#include "doctor_fixture.hpp"
#include "findings.hpp"
#include "installer/doctor/doctor.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;
using wslgpu::testing::contains;

namespace {

// The fixture with AMD's driver folder mounted and no ROCm installed: what
// a machine looks like before `install rocm`.
void mount_amd_driver_only(DoctorFixture& m) {
  m.fs.add_file("/usr/lib/wsl/drivers/u0412345.inf_amd64_0123456789abcdef/amdxc64.so", "elf");
}

void windows_lists(DoctorFixture& m, const std::string& out) { m.outputs[{kFixturePowershell}] = output(out); }

}  // namespace

TEST_CASE("doctor amd.windows-gpu: the GPU Windows lists, its gfx target and AMD's WSL list, before ROCm") {
  DoctorFixture m;
  mount_amd_driver_only(m);
  windows_lists(m, "adapter|AMD Radeon RX 9070 XT|32.0.21041.1000\r\n");
  auto findings = m.diagnose();
  auto f = get(findings, "amd.windows-gpu");
  CHECK(f.status == FindingStatus::ok);
  CHECK(f.group == "AMD");
  CHECK(f.seen == "AMD Radeon RX 9070 XT, gfx1201, on AMD's list of GPUs for WSL (Windows driver 32.0.21041.1000)");
  CHECK_FALSE(lookup(findings, "amd.igpu"));
  CHECK_FALSE(lookup(findings, "amd.rocminfo"));  // no ROCm: the other AMD checks do not apply
}

TEST_CASE("doctor amd.windows-gpu: a GPU AMD does not list for WSL, or one the table lacks, is a warning") {
  {
    DoctorFixture m;
    mount_amd_driver_only(m);
    windows_lists(m, "adapter|AMD Radeon RX 7600|32.0.21041.1000\r\n");
    auto f = get(m.diagnose(), "amd.windows-gpu");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen ==
          "AMD Radeon RX 7600 (gfx1102) (Windows driver 32.0.21041.1000) is not on AMD's list of GPUs for WSL");
  }
  {
    DoctorFixture m;
    mount_amd_driver_only(m);
    windows_lists(m, "adapter|AMD Radeon RX 6600|31.0.12027.9001\r\n");
    auto f = get(m.diagnose(), "amd.windows-gpu");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen ==
          "AMD Radeon RX 6600 (Windows driver 31.0.12027.9001): its gfx target is not in this tool's table "
          "of AMD's GPUs");
    CHECK(contains(f.fix, "rocminfo"));
  }
}

TEST_CASE("doctor amd.windows-gpu: no AMD GPU in Windows' list, or no answer, says so and how to look by hand") {
  {
    DoctorFixture m;
    mount_amd_driver_only(m);
    windows_lists(m, "adapter|Microsoft Basic Display Adapter|10.0.22621.1\r\n");
    auto f = get(m.diagnose(), "amd.windows-gpu");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "Windows lists no AMD GPU (Microsoft Basic Display Adapter)");
  }
  {
    DoctorFixture m;
    mount_amd_driver_only(m);
    m.outputs[{kFixturePowershell}] = timed_out();
    auto f = get(m.diagnose(), "amd.windows-gpu");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "the GPU could not be read from Windows: powershell.exe did not answer within 10 s");
    CHECK(contains(f.fix, "Get-CimInstance Win32_VideoController | Select-Object Name, DriverVersion"));
  }
}

TEST_CASE("doctor amd.igpu: an integrated AMD GPU beside the discrete one, with AMD's words and fix") {
  DoctorFixture m;
  mount_amd_driver_only(m);
  windows_lists(m,
                "adapter|AMD Radeon(TM) Graphics|32.0.11037.4004\r\n"
                "adapter|AMD Radeon RX 7900 XTX|32.0.21041.1000\r\n"
                "memory|AMD Radeon(TM) Graphics|536870912\r\nmemory|AMD Radeon RX 7900 XTX|25769803776\r\n");
  auto findings = m.diagnose();
  CHECK(get(findings, "amd.windows-gpu").status == FindingStatus::ok);
  auto f = get(findings, "amd.igpu");
  CHECK(f.status == FindingStatus::warn);
  CHECK(f.seen == "an integrated AMD GPU (AMD Radeon(TM) Graphics) is enabled beside AMD Radeon RX 7900 XTX");
  CHECK(contains(f.cause, "\"Presence of an iGPU is known to cause problems with GPU detection\""));
  CHECK(contains(f.cause, "ROCm/ROCm issue 6323"));
  CHECK(contains(f.fix, "Disable the integrated GPU in the BIOS"));
}

TEST_CASE("doctor amd.adrenalin: never said to be met from Windows' version; rocminfo finding the GPU is evidence") {
  {
    DoctorFixture m;  // before ROCm: the default release's floor, unverifiable
    mount_amd_driver_only(m);
    auto f = get(m.diagnose(), "amd.adrenalin");
    CHECK(f.status == FindingStatus::warn);
    CHECK(contains(f.seen, "Windows driver 32.0.21041.1000: whether it is Adrenalin "));
    CHECK(contains(f.seen, "cannot be told from it"));
    CHECK(contains(f.cause, "AMD publishes no rule from one to the other"));
  }
  {
    DoctorFixture m;  // ROCm installed and rocminfo lists the GPU
    m.make_amd("7.2.2.70202-1~24.04");
    m.fs.add_file("/opt/rocm/lib/librocdxg.so", "elf");
    auto f = get(m.diagnose(), "amd.adrenalin");
    CHECK(f.status == FindingStatus::ok);
    CHECK(contains(f.seen, "Windows driver 32.0.21041.1000 runs ROCm 7.2.2: rocminfo lists gfx1100"));
  }
  {
    DoctorFixture m;  // ROCm installed, rocminfo finds nothing: no evidence
    m.make_amd("7.2.2.70202-1~24.04");
    m.outputs[{"/opt/rocm/bin/rocminfo"}] = output("WSL environment detected.\nhsa_init Failed\n", 1);
    CHECK(get(m.diagnose(), "amd.adrenalin").status == FindingStatus::warn);
  }
}

TEST_CASE("doctor: the AMD Windows preflight does not run on NVIDIA machines, nor without interop") {
  {
    DoctorFixture m;
    m.make_nvidia();
    auto findings = m.diagnose();
    CHECK_FALSE(lookup(findings, "amd.windows-gpu"));
    for (const auto& c : m.runner.calls) CHECK(c.argv.front() != kFixturePowershell);
  }
  {
    DoctorFixture m;
    mount_amd_driver_only(m);
    m.fs.add_file("/etc/wsl.conf", "[interop]\nenabled=false\n");
    auto findings = m.diagnose();
    CHECK_FALSE(lookup(findings, "amd.windows-gpu"));
    for (const auto& c : m.runner.calls) CHECK(c.argv.front() != kFixturePowershell);
  }
}

TEST_CASE("doctor windows.build: Windows 10 before ROCm, when the release `install rocm` installs needs Windows 11") {
  DoctorFixture m;
  mount_amd_driver_only(m);
  m.outputs[{"/mnt/c/Windows/System32/cmd.exe", "/c", "ver"}] = output("Microsoft Windows [Version 10.0.19045.5011]");
  auto f = get(m.diagnose(), "windows.build");
  CHECK(f.status == FindingStatus::warn);
  CHECK(contains(f.seen, "Windows build 19045 is Windows 10; ROCm "));
  CHECK(contains(f.seen, ", which `sudo wslgpu-setup install rocm` installs, needs Windows 11"));
  CHECK(contains(f.cause, "ROCm/ROCm issue 6323"));
  CHECK(contains(f.fix, "--set rocm_version=6.4.2.1"));
}
