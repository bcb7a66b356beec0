// doctor's Windows checks (installer/doctor/checks_windows.cpp): interop,
// the Windows build, WSL's version (wsl.exe or wslinfo) and the NVIDIA
// driver's version, each proved ok and failing.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "doctor_fixture.hpp"
#include "findings.hpp"
#include "installer/doctor/checks.hpp"
#include "installer/doctor/doctor.hpp"
#include "installer/formats/ini.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/host/host.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

TEST_CASE("doctor windows.interop: without WSLInterop or cmd.exe, say how to check by hand") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "windows.interop");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "interop is available (/mnt/c/Windows/System32/cmd.exe)");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.remove("/proc/sys/fs/binfmt_misc/WSLInterop");
    auto findings = m.diagnose();
    auto f = get(findings, "windows.interop");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen ==
          "Windows checks skipped: no WSLInterop entry in /proc/sys/fs/binfmt_misc, so Windows programs "
          "cannot run");
    CHECK(f.fix ==
          "Check by hand, in PowerShell on Windows: `winver` (build 19041 or later), `wsl --version` (the "
          "WSL release), and `nvidia-smi` (Driver Version 465.89 or later).");
    CHECK_FALSE(lookup(findings, "windows.build"));
  }
  {
    DoctorFixture m;
    m.fs.remove("/mnt/c/Windows/System32/cmd.exe");
    CHECK(get(m.diagnose(), "windows.interop").seen ==
          "Windows checks skipped: cmd.exe was not found under /mnt/<drive>/Windows/System32");
  }
  {
    DoctorFixture m;  // newer WSL registers WSLInterop-late; [automount] root moves the drives
    m.fs.remove("/proc/sys/fs/binfmt_misc/WSLInterop");
    m.fs.add_file("/proc/sys/fs/binfmt_misc/WSLInterop-late", "enabled\n");
    m.fs.add_file("/etc/wsl.conf", "[automount]\nroot = /win/\n");
    m.fs.add_file("/win/c/Windows/System32/cmd.exe", "MZ");
    m.outputs[{"/win/c/Windows/System32/cmd.exe", "/c", "ver"}] = output("Microsoft Windows [Version 10.0.22631.4317]");
    auto findings = m.diagnose();
    CHECK(get(findings, "windows.interop").seen == "interop is available (/win/c/Windows/System32/cmd.exe)");
    CHECK(get(findings, "windows.build").status == FindingStatus::ok);
  }
}

TEST_CASE("doctor windows.build: 19041 or later from cmd.exe /c ver; Windows 11 for ROCm 7") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "windows.build");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "Windows build 22631 (10.0.22631.4317)");
  }
  {
    DoctorFixture m;
    m.outputs[{"/mnt/c/Windows/System32/cmd.exe", "/c", "ver"}] = output("Microsoft Windows [Version 10.0.18363.1556]");
    auto f = get(m.diagnose(), "windows.build");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "Windows build 18363 is older than 19041");
    CHECK(contains(f.cause, "Windows 10 version 2004 (build 19041) or later"));
  }
  {
    DoctorFixture m;
    m.make_amd("7.1.0.70100-20~24.04");
    m.outputs[{"/mnt/c/Windows/System32/cmd.exe", "/c", "ver"}] = output("Microsoft Windows [Version 10.0.19045.5011]");
    auto f = get(m.diagnose(), "windows.build");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "Windows build 19045 is Windows 10; ROCm 7.x on WSL needs Windows 11");
  }
  {
    DoctorFixture m;
    m.outputs[{"/mnt/c/Windows/System32/cmd.exe", "/c", "ver"}] = timed_out();
    auto f = get(m.diagnose(), "windows.build");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "cmd.exe /c ver did not answer within 12 s");
    CHECK(contains(f.fix, "`winver`"));
  }
}

TEST_CASE("doctor windows.wsl-version: wsl.exe --version with WSL_UTF8=1, UTF-16 decoded, inbox WSL warned") {
  {
    DoctorFixture m;
    auto findings = m.diagnose();
    auto f = get(findings, "windows.wsl-version");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "WSL 2.3.26.0 (its kernel 5.15.167.4)");
    bool utf8 = false;
    for (const auto& c : m.runner.calls)
      if (c.argv.front() == "/mnt/c/Windows/System32/wsl.exe")
        utf8 = c.env.count("WSL_UTF8") && c.env.at("WSL_UTF8") == "1";
    CHECK(utf8);
  }
  {
    DoctorFixture m;
    m.outputs[{"/mnt/c/Windows/System32/wsl.exe", "--version"}] = output(utf16le(kWslVersion));
    CHECK(get(m.diagnose(), "windows.wsl-version").seen == "WSL 2.3.26.0 (its kernel 5.15.167.4)");
  }
  {
    DoctorFixture m;
    m.outputs[{"/mnt/c/Windows/System32/wsl.exe", "--version"}] =
        output(utf16le("Invalid command line option: --version\r\nUsage: wsl.exe [Argument]\r\n"), -1);
    auto f = get(m.diagnose(), "windows.wsl-version");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "wsl.exe --version is not understood: this is the WSL that ships inside Windows");
    CHECK(contains(f.fix, "`wsl --update`"));
  }
  {
    DoctorFixture m;
    m.fs.remove("/proc/sys/fs/binfmt_misc/WSLInterop");
    m.fs.add_file("/usr/bin/wslinfo", "elf", 0755);
    m.outputs[{"/usr/bin/wslinfo", "--wsl-version"}] = output("2.3.26\n");
    CHECK(get(m.diagnose(), "windows.wsl-version").seen == "WSL 2.3.26 (wslinfo)");
  }
  {
    DoctorFixture m;
    m.fs.remove("/proc/sys/fs/binfmt_misc/WSLInterop");
    m.fs.add_file("/usr/bin/wslinfo", "elf", 0755);
    m.outputs[{"/usr/bin/wslinfo", "--wsl-version"}] = timed_out();
    auto f = get(m.diagnose(), "windows.wsl-version");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "wslinfo --wsl-version did not answer within 12 s");
    CHECK(contains(f.cause, "wslinfo is known to hang"));
  }
}

TEST_CASE("doctor windows.nvidia-driver: the Driver Version nvidia-smi reports is at least 465.89" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  {
    DoctorFixture m;
    m.make_nvidia();
    CHECK(get(m.diagnose(), "windows.nvidia-driver").status == FindingStatus::ok);
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi"}] = output("| NVIDIA-SMI 460.00   Driver Version: 462.31   |\n");
    auto f = get(m.diagnose(), "windows.nvidia-driver");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "NVIDIA Windows driver 462.31 is older than 465.89");
    CHECK(f.fix == "On Windows: install NVIDIA's current driver, then run `wsl --shutdown`.");
  }
  {
    // A damaged installation (microsoft/WSL#11589): the version, but CUDA ERR!.
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi"}] =
        output(corpus_nvidia_smi("partial-table-cuda-version-err-truncated.txt"));
    auto findings = m.diagnose();
    auto f = get(findings, "windows.nvidia-driver");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "NVIDIA Windows driver 546.80, but nvidia-smi prints CUDA Version: ERR!");
    CHECK(f.fix == "On Windows: reinstall NVIDIA's driver (a clean installation), then run `wsl --shutdown`.");
    CHECK_FALSE(lookup(findings, "nvidia.cuda-driver"));  // nothing to compare the toolkit with
  }
  {
    // Driver series 615's names, and no interop at all.
    DoctorFixture m;
    m.make_nvidia();
    m.fs.remove("/proc/sys/fs/binfmt_misc/WSLInterop");
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi"}] =
        output("| NVIDIA-SMI 615.10                 KMD Version: 615.33          CUDA UMD Version: 13.4   |\n");
    CHECK(get(m.diagnose(), "windows.nvidia-driver").seen ==
          "NVIDIA Windows driver 615.33, which supports CUDA up to 13.4 (465.89 or later)");
  }
}

TEST_CASE("doctor windows.wsl-version: without wsl.exe next to cmd.exe, wslinfo answers instead") {
  DoctorFixture m;
  m.fs.remove("/mnt/c/Windows/System32/wsl.exe");
  m.fs.add_file("/usr/bin/wslinfo", "elf", 0755);
  m.outputs[{"/usr/bin/wslinfo", "--wsl-version"}] = output("2.4.13\n");
  auto findings = m.diagnose();
  CHECK(get(findings, "windows.wsl-version").seen == "WSL 2.4.13 (wslinfo)");
  for (const auto& c : m.runner.calls) CHECK(c.argv.front() != "/mnt/c/Windows/System32/wsl.exe");
}

TEST_CASE("version_after: the first dotted number after the prefix, as the regex [0-9]+(\\.[0-9]+)+ finds it") {
  const std::string smi = "| NVIDIA-SMI 575.57.04              Driver Version: 576.80         CUDA Version: 12.9     |";
  CHECK(doctor::version_after(smi, "Driver Version") == "576.80");
  CHECK(doctor::version_after(smi, "CUDA Version") == "12.9");
  CHECK(doctor::version_after(smi, "NVIDIA-SMI") == "575.57.04");
  CHECK(doctor::version_after(smi, "Kernel") == "");
  // A run of digits without ".N" after it is passed over whole; a trailing
  // dot or a dot before a non-digit ends the number.
  CHECK(doctor::version_after("WSL 2 version: 2.4.13.", "WSL") == "2.4.13");
  CHECK(doctor::version_after("v123. 45.x 6.7.a", "v") == "6.7");
  CHECK(doctor::version_after("1.2", "") == "1.2");
  CHECK(doctor::version_after("12", "") == "");
  CHECK(doctor::version_after("x.1.2", "") == "1.2");
}

TEST_CASE("version_after: a long run of digits is read in linear time, not retried at each digit") {
  // 200,000 digits then ".5": the regex it replaced tried every start
  // position and recursed per character (seconds, or a stack overflow).
  const std::string digits(200000, '7');
  CHECK(doctor::version_after("Driver Version: " + digits + ".5", "Driver Version") == digits + ".5");
  CHECK(doctor::version_after(digits + " 1.0", "") == "1.0");
}

TEST_CASE("version_after: finds what the regex it replaced finds, on 20,000 generated texts") {
  // The differential check lives here, not in fuzz_nvidia_smi: there, the
  // instrumented std::regex took most of each execution and steered the
  // fuzzer through the regex engine instead of our code.
  static const std::regex version(R"(([0-9]+(\.[0-9]+)+))");
  std::mt19937 random(36);  // fixed seed: the same texts every run
  const std::string alphabet = "0123456789....  aV:\n";
  for (int n = 0; n < 20000; ++n) {
    std::string text(random() % 24, ' ');
    for (char& c : text) c = alphabet[random() % alphabet.size()];
    std::smatch m;
    const std::string expected = std::regex_search(text, m, version) ? m[1].str() : "";
    INFO("text: \"" << text << "\"");
    REQUIRE(doctor::version_after(text, "") == expected);
  }
}
