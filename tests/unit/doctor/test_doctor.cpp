// doctor on fake WSL machines (doctor_fixture.hpp): whole machines, healthy
// and broken, the order findings come in, and the text and JSON output.
// Each group of checks has a file of its own (test_doctor_wsl.cpp, _nvidia,
// _amd, _config, _windows, _apt_keys, _containers, _pytorch), where every
// finding is proved both ways (its ok verdict and its failing ones) with the
// cause and fix text.
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

TEST_CASE("doctor: a healthy NVIDIA WSL2 machine has no failure and no warning, and nothing is written") {
  DoctorFixture m;
  m.make_nvidia();
  auto findings = m.diagnose();
  INFO(problems(findings));
  CHECK(count_findings(findings, FindingStatus::fail) == 0);
  CHECK(count_findings(findings, FindingStatus::warn) == 0);
  CHECK(m.fs.writes == 0);
  CHECK(get(findings, "windows.nvidia-driver").seen ==
        "NVIDIA Windows driver 566.36, which supports CUDA up to 12.7 (465.89 or later)");
  CHECK(get(findings, "nvidia.cuda-driver").seen ==
        "the CUDA 12.6 toolkit is not newer than the CUDA 12.7 the Windows driver supports");
  CHECK_FALSE(lookup(findings, "amd.rocminfo"));  // AMD checks do not apply
}

TEST_CASE("doctor: a healthy AMD WSL2 machine has no failure and no warning") {
  DoctorFixture m;
  m.make_amd();
  auto findings = m.diagnose();
  INFO(problems(findings));
  CHECK(count_findings(findings, FindingStatus::fail) == 0);
  CHECK(count_findings(findings, FindingStatus::warn) == 0);
  CHECK_FALSE(lookup(findings, "nvidia.smi"));  // NVIDIA checks do not apply
}

TEST_CASE(
    "doctor: findings come grouped WSL, NVIDIA, AMD, PyTorch, Configuration, Windows, /dev/dxg before the GPU "
    "ones") {
  DoctorFixture m;
  m.make_nvidia();
  m.make_amd();
  auto findings = m.diagnose();
  std::vector<std::string> groups;
  for (const auto& f : findings)
    if (groups.empty() || groups.back() != f.group) groups.push_back(f.group);
  CHECK(groups == std::vector<std::string>{"WSL", "NVIDIA", "AMD", "PyTorch", "Configuration", "Windows"});
  auto index = [&](const std::string& id) {
    return std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.id == id; }) -
           findings.begin();
  };
  CHECK(index("wsl.dxg") < index("wsl.lib"));
  CHECK(index("wsl.dxg") < index("nvidia.stubs"));
}

TEST_CASE(
    "doctor: every probe runs with the machine's timeout (Windows' GPU query at most 10 s), never through a "
    "shell") {
  DoctorFixture m;
  m.make_nvidia();
  m.make_amd();
  m.diagnose();
  REQUIRE(m.runner.calls.size() >= 6);
  for (const auto& c : m.runner.calls) {
    CHECK(c.timeout == (c.argv.front() == kFixturePowershell ? std::chrono::seconds(10) : std::chrono::seconds(12)));
    CHECK(c.argv.front().front() == '/');
    CHECK(c.argv.front() != "/bin/sh");
  }
}

TEST_CASE("doctor text output: grouped, FAIL/warn/ok, cause and Fix under problems, a closing count") {
  std::vector<Finding> findings = {
      {"wsl.version", "WSL", FindingStatus::ok, "WSL2 (kernel 5.15.153.1)", "", ""},
      {"wsl.dxg", "WSL", FindingStatus::fail, "/dev/dxg is missing", "The GPU is not shared.", "wsl --update"},
      {"config.wslconfig", "Configuration", FindingStatus::warn, ".wslconfig is UTF-16; WSL ignores it",
       "first line\nsecond line", "Save it as UTF-8."},
  };
  CHECK(render_findings_text(findings, false) ==
        "WSL\n"
        "  ok    WSL2 (kernel 5.15.153.1)\n"
        "  FAIL  /dev/dxg is missing\n"
        "        The GPU is not shared.\n"
        "        Fix: wsl --update\n"
        "Configuration\n"
        "  warn  .wslconfig is UTF-16; WSL ignores it\n"
        "        first line\n"
        "        second line\n"
        "        Fix: Save it as UTF-8.\n"
        "1 failure, 1 warning.\n");
  CHECK(render_findings_text(findings, false, true).find("WSL2 (kernel") == std::string::npos);
  std::string coloured = render_findings_text(findings, true);
  CHECK(contains(coloured, "\033[1;31mFAIL\033[0m  /dev/dxg is missing"));
  CHECK(render_findings_text({}, false) == "0 failures, 0 warnings.\n");
}

TEST_CASE("doctor json output: one document with format_version, findings, failures and warnings") {
  DoctorFixture m;
  m.fs.remove("/dev/dxg");
  auto doc = findings_to_json(m.diagnose());
  CHECK(doc["format_version"] == 1);
  CHECK(doc["failures"].get<int>() >= 1);
  auto dxg = std::find_if(doc["findings"].begin(), doc["findings"].end(),
                          [](const nlohmann::ordered_json& f) { return f["id"] == "wsl.dxg"; });
  REQUIRE(dxg != doc["findings"].end());
  CHECK((*dxg)["group"] == "WSL");
  CHECK((*dxg)["status"] == "fail");
  CHECK((*dxg)["seen"] == "/dev/dxg is missing");
  CHECK((*dxg)["fix"].get<std::string>().find("wsl --update") != std::string::npos);
}
