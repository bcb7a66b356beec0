// doctor's WSL checks (installer/doctor/checks_wsl.cpp): WSL2, the kernel,
// /dev/dxg, the driver mount and wsl.conf, each proved ok and failing.
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

TEST_CASE("doctor wsl.version: WSL2 is ok, WSL1 and plain Linux fail, an unknown kernel warns") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "wsl.version");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "WSL2 (kernel 5.15.153.1-microsoft-standard-WSL2)");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/proc/sys/kernel/osrelease", "4.4.0-19041-Microsoft\n");
    auto findings = m.diagnose();
    auto f = get(findings, "wsl.version");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "this distribution runs under WSL1 (kernel 4.4.0-19041-Microsoft)");
    CHECK(contains(f.cause, "WSL1 translates Linux calls without a virtual machine and cannot share the GPU"));
    CHECK(contains(f.fix, "`wsl --set-version <distribution> 2`"));
    CHECK_FALSE(lookup(findings, "wsl.kernel"));  // a WSL1 kernel release says nothing about GPU support
  }
  {
    DoctorFixture m;
    m.fs.add_file("/proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
    auto findings = m.diagnose();
    auto f = get(findings, "wsl.version");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "not WSL: kernel 6.1.0-18-amd64");
    CHECK(contains(f.cause, "plain Linux or a container"));
    CHECK(contains(f.fix, "Run wslgpu-setup inside a WSL2 distribution"));
    CHECK_FALSE(lookup(findings, "windows.interop"));  // no Windows behind plain Linux
  }
  {
    DoctorFixture m;
    m.fs.remove("/proc/sys/kernel/osrelease");
    auto f = get(m.diagnose(), "wsl.version");
    CHECK(f.status == FindingStatus::warn);
    CHECK(contains(f.fix, "`uname -r` should end in -microsoft-standard-WSL2"));
  }
}

TEST_CASE("doctor wsl.kernel: 5.10.60.1 is the minimum; NVIDIA's 5.10.16.3 only softens it to a warning") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "wsl.kernel");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "kernel 5.15.153.1 (minimum 5.10.60.1)");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/proc/sys/kernel/osrelease", "5.10.60.1-microsoft-standard-WSL2\n");
    CHECK(get(m.diagnose(), "wsl.kernel").status == FindingStatus::ok);
  }
  {
    DoctorFixture m;
    m.fs.add_file("/proc/sys/kernel/osrelease", "5.10.43.3-microsoft-standard-WSL2\n");
    auto f = get(m.diagnose(), "wsl.kernel");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "kernel 5.10.43.3 is older than the minimum 5.10.60.1");
    CHECK(f.cause == "GPU paravirtualisation (/dev/dxg) needs kernel 5.10.60.1 or later (NVIDIA: 5.10.16.3 or later).");
    CHECK(f.fix ==
          "On Windows: `wsl --update`, then `wsl --shutdown`. The WSL kernel is Microsoft's; apt cannot "
          "update it.");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.add_file("/proc/sys/kernel/osrelease", "5.10.43.3-microsoft-standard-WSL2\n");
    auto f = get(m.diagnose(), "wsl.kernel");
    CHECK(f.status == FindingStatus::warn);
    CHECK(contains(f.cause, "NVIDIA's minimum (5.10.16.3) is met"));
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.add_file("/proc/sys/kernel/osrelease", "5.10.16.2-microsoft-standard-WSL2\n");
    CHECK(get(m.diagnose(), "wsl.kernel").status == FindingStatus::fail);
  }
}

TEST_CASE("doctor wsl.dxg: a crw-rw-rw- device is ok; missing comes first and later GPU failures name it") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "wsl.dxg");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "/dev/dxg is a character device, crw-rw-rw-");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.remove("/dev/dxg");
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi", "-L"}] =
        output("", 9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n");
    auto findings = m.diagnose();
    auto f = get(findings, "wsl.dxg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/dev/dxg is missing");
    CHECK(contains(f.cause, "Everything below that needs the GPU will fail until this is fixed."));
    CHECK(contains(f.fix, "`wsl --update` and `wsl --shutdown`"));
    auto smi = get(findings, "nvidia.smi");
    CHECK(smi.status == FindingStatus::fail);
    CHECK(contains(smi.cause, "/dev/dxg is missing (see WSL above), which alone explains this."));
    CHECK(findings.front().group == "WSL");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/dev/dxg", "");
    auto f = get(m.diagnose(), "wsl.dxg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/dev/dxg exists but is not a character device");
    CHECK(contains(f.fix, "sudo rm -r /dev/dxg"));
  }
  {
    DoctorFixture m;
    m.fs.add_char_device("/dev/dxg", 0660);
    auto f = get(m.diagnose(), "wsl.dxg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/dev/dxg is crw-rw----, not crw-rw-rw-");
    CHECK(contains(f.cause, "other users than root cannot open it"));
  }
}

TEST_CASE("doctor wsl.lib: the driver mount needs libdxcore.so") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "wsl.lib");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "/usr/lib/wsl/lib holds libdxcore.so");
  }
  {
    DoctorFixture m;
    m.fs.remove("/usr/lib/wsl/lib/libdxcore.so");
    auto f = get(m.diagnose(), "wsl.lib");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/usr/lib/wsl/lib has no libdxcore.so");
    CHECK(contains(f.cause, "the Windows driver did not expose WSL support"));
    CHECK(contains(f.fix, "[gpu] enabled=false"));
  }
  {
    DoctorFixture m;
    m.fs.remove("/usr/lib/wsl/lib/libdxcore.so");
    m.fs.remove("/usr/lib/wsl/lib");
    m.fs.remove("/dev/dxg");
    auto f = get(m.diagnose(), "wsl.lib");
    CHECK(f.seen == "/usr/lib/wsl/lib is missing");
    CHECK(contains(f.cause, "/dev/dxg is missing (see WSL above)"));
  }
}

TEST_CASE("doctor wsl.conf: absent or valid is ok; a file WSL cannot read warns with FILE:LINE") {
  {
    DoctorFixture m;
    auto findings = m.diagnose();
    CHECK(get(findings, "wsl.conf").seen == "/etc/wsl.conf is absent: GPU sharing and interop are on (WSL's defaults)");
    CHECK_FALSE(lookup(findings, "wsl.conf-gpu"));
  }
  {
    DoctorFixture m;
    m.fs.add_file("/etc/wsl.conf", "[boot]\nsystemd=true\n[gpu]\nenabled=true\n");
    auto findings = m.diagnose();
    CHECK(get(findings, "wsl.conf").status == FindingStatus::ok);
    CHECK(get(findings, "wsl.conf-gpu").seen == "GPU sharing is on ([gpu] enabled=true)");
    CHECK(get(findings, "wsl.conf-interop").seen == "interop is on (WSL's default)");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/etc/wsl.conf", "[boot] systemd=true\n");
    auto f = get(m.diagnose(), "wsl.conf");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "/etc/wsl.conf cannot be read as WSL reads it");
    CHECK(contains(f.cause, "/etc/wsl.conf:1:8: \"systemd=true\" follows the section header on the same line"));
    CHECK(contains(f.fix, "Correct the lines named above"));
  }
  {
    DoctorFixture m;
    m.fs.add_file("/etc/wsl.conf", utf16le("[gpu]\r\nenabled=true\r\n"));
    auto f = get(m.diagnose(), "wsl.conf");
    CHECK(f.status == FindingStatus::warn);
    CHECK(contains(f.cause, "saved as UTF-16"));
  }
}

TEST_CASE("doctor wsl.conf-gpu and wsl.conf-interop: turning them off is found, with the line") {
  DoctorFixture m;
  m.fs.add_file("/etc/wsl.conf", "[gpu]\nenabled=false\n\n[interop]\nenabled = false\n");
  auto findings = m.diagnose();
  auto gpu = get(findings, "wsl.conf-gpu");
  CHECK(gpu.status == FindingStatus::fail);
  CHECK(gpu.seen == "/etc/wsl.conf turns GPU sharing off ([gpu] enabled=false, line 2)");
  CHECK(gpu.cause == "With GPU sharing off, WSL gives this distribution neither /dev/dxg nor /usr/lib/wsl/lib.");
  CHECK(contains(gpu.fix, "Set enabled=true under [gpu] in /etc/wsl.conf"));
  auto interop = get(findings, "wsl.conf-interop");
  CHECK(interop.status == FindingStatus::warn);
  CHECK(interop.seen == "/etc/wsl.conf turns interop off ([interop] enabled=false, line 5)");
  // and the Windows checks say how to check by hand instead of running cmd.exe
  auto w = get(findings, "windows.interop");
  CHECK(w.status == FindingStatus::warn);
  CHECK(w.seen == "Windows checks skipped: interop is turned off in /etc/wsl.conf");
  CHECK(contains(w.fix, "`winver` (build 19041 or later)"));
  for (const auto& c : m.runner.calls) CHECK(c.argv.front().find(".exe") == std::string::npos);
}
