// For the doctor's unit tests: running doctor on a fake machine, and
// finding a finding by id.
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "installer/doctor/doctor.hpp"
#include "installer/host/host.hpp"
#include "support/fakes.hpp"

namespace wslgpu::testing {

inline const Finding* lookup(const std::vector<Finding>& findings, const std::string& id) {
  for (const auto& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

// The finding ID, which must be there.
inline Finding get(const std::vector<Finding>& findings, const std::string& id) {
  const Finding* f = lookup(findings, id);
  INFO("finding " << id);
  REQUIRE(f != nullptr);
  return *f;
}

// A machine doctor reads: FS with PACKAGES installed (name -> version, after
// EXTRA_STATUS's raw stanzas) in dpkg's status, and OUTPUTS as what programs
// answer (argv prefix -> result, the longest prefix first, so that
// "nvidia-smi -L" is not answered by the rule for "nvidia-smi"). RUNNER is
// reset and HOST probed from FS; the DoctorMachine is returned for the test
// to adjust (clock, free disk, --python) before wslgpu::diagnose.
inline DoctorMachine doctor_machine(MemoryFileSystem& fs, FakeProcessRunner& runner, HostFacts& host,
                                    const std::map<std::vector<std::string>, ProcessResult>& outputs,
                                    const std::map<std::string, std::string>& packages,
                                    const std::string& extra_status = "") {
  std::string status = extra_status;
  for (const auto& [name, version] : packages)
    status += "Package: " + name + "\nStatus: install ok installed\nArchitecture: amd64\nVersion: " + version + "\n\n";
  fs.add_file("/var/lib/dpkg/status", status);
  runner = FakeProcessRunner();
  std::vector<std::pair<std::vector<std::string>, ProcessResult>> rules(outputs.begin(), outputs.end());
  std::stable_sort(rules.begin(), rules.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [argv, result] : rules) runner.on(argv, result);
  host = probe_host(fs, "/", HostOptions{});
  return DoctorMachine{fs, runner, host, {}, std::chrono::seconds(12)};
}

}  // namespace wslgpu::testing
