// check with windows_build_min: the Windows build through interop (`cmd.exe
// /c ver`, read as doctor reads it). Older is refused in plan, with the
// advice; no interop is a warning, since nothing is known.
#include <doctest/doctest.h>

#include "installer/system/error.hpp"
#include "steps/windows/windows_interop.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const char* kWindows11 = R"(
kind = "check"
windows_build_min = 22000
advice = "Use the legacy runtime: --set rocm_version=6.4.2.1."
)";

ProcessResult ver(const std::string& version) {
  ProcessResult r;
  r.exit_code = 0;
  r.out = "\r\nMicrosoft Windows [Version " + version + "]\r\n";
  return r;
}

StepPlan plan_with(FakeProcessRunner& runner, MemoryFileSystem& fs) {
  HostFacts host;
  StepContext ctx{fs, runner, host, "rocm"};
  return build_ok(kWindows11)->plan(ctx);
}

}  // namespace

TEST_CASE("windows_build_from_ver reads the third number of cmd.exe's version") {
  std::string full;
  CHECK(windows_build_from_ver("\r\nMicrosoft Windows [Version 10.0.22631.4317]\r\n", &full) == 22631);
  CHECK(full == "10.0.22631.4317");
  CHECK(windows_build_from_ver("Microsoft Windows [Version 10.0.19045.5247]") == 19045);
  CHECK(windows_build_from_ver("no version here") == 0);
}

TEST_CASE("check windows_build_min: Windows 10 is refused in plan with the advice, Windows 11 holds") {
  MemoryFileSystem fs;
  fs.add_file("/mnt/c/Windows/System32/cmd.exe", "MZ");
  {
    FakeProcessRunner runner;
    runner.on({"/mnt/c/Windows/System32/cmd.exe", "/c", "ver"}, ver("10.0.19045.5247"));
    StepPlan p = plan_with(runner, fs);
    CHECK(p.verdict == Verdict::refused);
    CHECK(p.summary == "Windows build 19045 is older than 22000. Use the legacy runtime: --set rocm_version=6.4.2.1.");
  }
  {
    FakeProcessRunner runner;
    runner.on({"/mnt/c/Windows/System32/cmd.exe", "/c", "ver"}, ver("10.0.26100.2314"));
    StepPlan p = plan_with(runner, fs);
    CHECK(p.verdict == Verdict::verify);
    CHECK(p.summary == "Windows build is at least 22000");
    CHECK(p.details == std::vector<std::string>{"holds"});
  }
}

TEST_CASE("check windows_build_min without interop: a warning with the advice, not a refusal") {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  ProcessResult missing;
  missing.not_found = true;
  missing.exit_code = 127;
  runner.on({"cmd.exe"}, missing);
  StepPlan p = plan_with(runner, fs);
  CHECK(p.verdict == Verdict::verify);
  REQUIRE(p.details.size() == 1);
  CHECK(p.details[0] ==
        "warning: the Windows build is unknown (`cmd.exe /c ver` was not found (is interop off?)); Use the legacy "
        "runtime: --set rocm_version=6.4.2.1.");
}
