// The Windows GPUs asked through interop (installer/host/windows_gpus.hpp):
// what powershell.exe prints, parsed (CRLF, blank lines, other vendors,
// an APU beside a discrete GPU, garbage), which AMD GPU is chosen, and the
// one run with its timeout, from a fake runner: no test starts PowerShell.
#include <doctest/doctest.h>

#include "installer/host/windows_gpus.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::MemoryFileSystem;

namespace {

constexpr const char* kWinPowershell = "/mnt/c/Windows/System32/WindowsPowerShell/v1.0/powershell.exe";

ProcessResult ps_printed(const std::string& out, int exit_code = 0) {
  ProcessResult r;
  r.exit_code = exit_code;
  r.out = out;
  return r;
}

// A WSL root where interop is on and drive C holds powershell.exe.
MemoryFileSystem interop_root() {
  MemoryFileSystem fs;
  fs.add_file("/proc/sys/fs/binfmt_misc/WSLInterop", "enabled\n");
  fs.add_file(kWinPowershell, "MZ");
  return fs;
}

}  // namespace

TEST_CASE("each adapter line gives a name and a driver version, CRLF and blank lines aside") {
  auto gpus = parse_windows_gpus(
      "\r\nadapter|AMD Radeon RX 9070 XT|32.0.21041.1000\r\n\r\n"
      "adapter|Microsoft Basic Display Adapter|10.0.22621.1\r\n");
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].name == "AMD Radeon RX 9070 XT");
  CHECK(gpus[0].driver_version == "32.0.21041.1000");
  CHECK(gpus[0].memory == 0);
  CHECK(gpus[1].name == "Microsoft Basic Display Adapter");
}

TEST_CASE("the registry's memory size goes to the adapter of that name, as a number or as eight bytes") {
  auto gpus = parse_windows_gpus(
      "adapter|AMD Radeon(TM) Graphics|32.0.21041.1000\n"
      "adapter|AMD Radeon RX 7900 XTX|32.0.21041.1000\n"
      "memory|AMD Radeon(TM) Graphics|536870912\n"
      "memory|amd radeon rx 7900 xtx|0 0 0 0 6 0 0 0\n"
      "memory|Some Removed Adapter|1024\n");
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].memory == 536870912u);
  CHECK(gpus[1].memory == 25769803776u);  // 24 GB: past WMI's 4 GB AdapterRAM
}

TEST_CASE("lines that are not the query's, and sizes that are not sizes, are skipped") {
  auto gpus = parse_windows_gpus(
      "WARNING: something\nadapter||1.0\nadapter|AMD Radeon RX 7600|31.0.1\n"
      "memory|AMD Radeon RX 7600|System.Byte[]\nmemory|AMD Radeon RX 7600|1 2 3\n"
      "\x01\x02garbage|\n");
  REQUIRE(gpus.size() == 1);
  CHECK(gpus[0].name == "AMD Radeon RX 7600");
  CHECK(gpus[0].memory == 0);
}

TEST_CASE("UTF-16 output reads as UTF-8 does") {
  const std::string ascii = "adapter|AMD Radeon RX 7800 XT|32.0.1\r\n";
  std::string utf16 = "\xFF\xFE";
  for (char c : ascii) {
    utf16 += c;
    utf16 += '\0';
  }
  auto gpus = parse_windows_gpus(utf16);
  REQUIRE(gpus.size() == 1);
  CHECK(gpus[0].name == "AMD Radeon RX 7800 XT");
}

TEST_CASE("AMD's GPUs are the names with AMD or Radeon; generic Radeon names and APU models are integrated") {
  CHECK(is_amd_gpu_name("AMD Radeon RX 9070 XT"));
  CHECK(is_amd_gpu_name("Radeon Pro Something"));
  CHECK(is_amd_gpu_name("AMD FirePro W9100"));
  CHECK_FALSE(is_amd_gpu_name("NVIDIA GeForce RTX 4090"));
  CHECK_FALSE(is_amd_gpu_name("Microsoft Basic Display Adapter"));
  CHECK_FALSE(is_amd_gpu_name("Intel(R) Arc(TM) Graphics"));
  CHECK(is_integrated_amd_gpu({"AMD Radeon(TM) Graphics", "", 0}));
  CHECK(is_integrated_amd_gpu({"AMD Radeon(TM) 8060S Graphics", "", 0}));
  CHECK_FALSE(is_integrated_amd_gpu({"AMD Radeon RX 7900 XTX", "", 0}));
  CHECK_FALSE(is_integrated_amd_gpu({"AMD Radeon RX 6600", "", 0}));
}

TEST_CASE("one discrete AMD GPU gives its name, driver and gfx target") {
  auto f = windows_gpus_from(ps_printed("adapter|AMD Radeon RX 9070 XT|32.0.21041.1000\r\n"), std::chrono::seconds(10));
  CHECK(f.answer == WindowsGpuAnswer::answered);
  CHECK(f.amd_gpu == "AMD Radeon RX 9070 XT");
  CHECK(f.amd_windows_driver == "32.0.21041.1000");
  CHECK(f.amd_gfx == "gfx1201");
  CHECK_FALSE(f.amd_igpu);
  CHECK(f.said == "AMD Radeon RX 9070 XT (gfx1201), Windows driver 32.0.21041.1000");
}

TEST_CASE("an integrated AMD GPU beside a discrete one: the discrete one is chosen, and the pair is said") {
  auto f = windows_gpus_from(ps_printed("adapter|AMD Radeon(TM) Graphics|32.0.11037.4004\r\n"
                                        "adapter|AMD Radeon RX 7900 XTX|32.0.21041.1000\r\n"),
                             std::chrono::seconds(10));
  CHECK(f.amd_gpu == "AMD Radeon RX 7900 XTX");
  CHECK(f.amd_gfx == "gfx1100");
  CHECK(f.amd_igpu);
  CHECK(f.amd_igpu_name == "AMD Radeon(TM) Graphics");
  CHECK(f.said ==
        "AMD Radeon RX 7900 XTX (gfx1100), Windows driver 32.0.21041.1000, beside the integrated AMD Radeon(TM) "
        "Graphics");
}

TEST_CASE("an APU alone is the GPU ROCm uses, and no integrated GPU is beside a discrete one") {
  auto f = windows_gpu_facts({{"AMD Radeon(TM) 8060S Graphics", "32.0.21041.1000", 0}});
  CHECK(f.amd_gpu == "AMD Radeon(TM) 8060S Graphics");
  CHECK(f.amd_gfx == "gfx1151");
  CHECK_FALSE(f.amd_igpu);
}

TEST_CASE("of two discrete AMD GPUs, the one with more memory is chosen") {
  auto f = windows_gpu_facts(
      {{"AMD Radeon RX 7600", "32.0.1", 8ull << 30}, {"AMD Radeon RX 7900 XTX", "32.0.1", 24ull << 30}});
  CHECK(f.amd_gpu == "AMD Radeon RX 7900 XTX");
  CHECK(f.said ==
        "AMD Radeon RX 7900 XTX (gfx1100), Windows driver 32.0.1, the one of 2 AMD GPUs with the most memory");
}

TEST_CASE("an AMD GPU the table lacks has no gfx target, and says so") {
  auto f = windows_gpu_facts({{"AMD Radeon RX 6600", "31.0.12027.9001", 0}});
  CHECK(f.amd_gpu == "AMD Radeon RX 6600");
  CHECK(f.amd_gfx.empty());
  CHECK(f.said == "AMD Radeon RX 6600 (gfx target unknown), Windows driver 31.0.12027.9001");
}

TEST_CASE("no AMD GPU among Windows' adapters: every AMD fact is empty, and the adapters are named") {
  auto f = windows_gpus_from(ps_printed("adapter|NVIDIA GeForce RTX 4090|32.0.15.6603\r\n"
                                        "adapter|Microsoft Basic Display Adapter|10.0.1\r\n"),
                             std::chrono::seconds(10));
  CHECK(f.answer == WindowsGpuAnswer::answered);
  CHECK(f.amd_gpu.empty());
  CHECK(f.amd_gfx.empty());
  CHECK(f.amd_windows_driver.empty());
  CHECK(f.said == "Windows lists no AMD GPU (NVIDIA GeForce RTX 4090, Microsoft Basic Display Adapter)");
}

TEST_CASE("a run that times out, fails or prints garbage says why, with no AMD facts") {
  ProcessResult slow;
  slow.timed_out = true;
  slow.exit_code = 137;
  auto f = windows_gpus_from(slow, std::chrono::seconds(10));
  CHECK(f.answer == WindowsGpuAnswer::failed);
  CHECK(f.said == "powershell.exe did not answer within 10 s");

  ProcessResult failed = ps_printed("", 1);
  failed.err = "\r\nGet-CimInstance : Access denied\r\n";
  CHECK(windows_gpus_from(failed, std::chrono::seconds(10)).said ==
        "powershell.exe failed (exit 1): Get-CimInstance : "
        "Access denied");

  auto garbage = windows_gpus_from(ps_printed("\x01\x02\x03 not what was asked\n"), std::chrono::seconds(10));
  CHECK(garbage.answer == WindowsGpuAnswer::failed);
  CHECK(garbage.said == "powershell.exe printed no video controller: \x01\x02\x03 not what was asked");
  CHECK(garbage.amd_gpu.empty());
}

TEST_CASE("the probe runs drive C's powershell.exe once, with the timeout") {
  MemoryFileSystem fs = interop_root();
  FakeProcessRunner runner;
  runner.on({kWinPowershell}, ps_printed("adapter|AMD Radeon RX 9060 XT|32.0.21041.1000\r\n"));
  auto f = probe_windows_gpus(fs, runner, std::chrono::seconds(10));
  REQUIRE(runner.calls.size() == 1);
  CHECK(runner.calls[0].argv[0] == kWinPowershell);
  CHECK(runner.calls[0].argv[1] == "-NoProfile");
  CHECK(runner.calls[0].timeout == std::chrono::seconds(10));
  CHECK(runner.calls[0].argv.back().find('"') == std::string::npos);  // nothing for interop's quoting to mangle
  CHECK(f.amd_gfx == "gfx1200");
}

TEST_CASE("with interop off nothing runs, and the reason is the phrase") {
  {
    MemoryFileSystem fs = interop_root();
    fs.add_file("/etc/wsl.conf", "[interop]\nenabled = false\n");
    FakeProcessRunner runner;
    auto f = probe_windows_gpus(fs, runner, std::chrono::seconds(10));
    CHECK(runner.calls.empty());
    CHECK(f.answer == WindowsGpuAnswer::interop_off);
    CHECK(f.said == "interop is turned off in /etc/wsl.conf");
  }
  {
    MemoryFileSystem fs;  // no binfmt_misc entry: a plain root folder, as the tests' machines are
    fs.add_file(kWinPowershell, "MZ");
    FakeProcessRunner runner;
    auto f = probe_windows_gpus(fs, runner, std::chrono::seconds(10));
    CHECK(runner.calls.empty());
    CHECK(f.said == "no WSLInterop entry in /proc/sys/fs/binfmt_misc, so Windows programs cannot run");
  }
}

TEST_CASE("with interop on but no drive holding powershell.exe, PATH is asked, and a miss says so") {
  MemoryFileSystem fs;
  fs.add_file("/proc/sys/fs/binfmt_misc/WSLInterop-late", "enabled\n");
  FakeProcessRunner runner;  // answers every program as not found
  auto f = probe_windows_gpus(fs, runner, std::chrono::seconds(10));
  REQUIRE(runner.calls.size() == 1);
  CHECK(runner.calls[0].argv[0] == "powershell.exe");
  CHECK(f.said == "powershell.exe could not run (is interop off?)");
}
