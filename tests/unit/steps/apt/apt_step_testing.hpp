// What the tests of the package step kinds (apt_install, apt_remove,
// apt_update, apt_repository, deb_install) share: a step built from TOML as
// the loader builds it, dpkg status files, scripted process results, the
// options every apt run carries, and a MemoryFileSystem world with a step
// context. Nothing here runs apt or dpkg.
#pragma once
#include <doctest/doctest.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "installer/manifest/step_keys.hpp"
#include "installer/manifest/step_kind.hpp"
#include "installer/system/process.hpp"
#include "steps/step.hpp"
#include "support/fakes.hpp"

namespace wslgpu::testing {

inline std::shared_ptr<Step> make_step(const std::string& kind, const std::string& keys_text, std::vector<Diagnostic>& diags) {
  auto table = toml::parse("kind = \"" + kind + "\"\n" + keys_text);
  Variables vars;
  StepKeys keys(table, "test.toml", kind, vars, diags);
  keys.mark_common("kind");
  auto step = find_step_kind(kind)->make(keys);
  keys.finish();
  return step;
}

inline std::shared_ptr<Step> make_step(const std::string& kind, const std::string& keys_text) {
  std::vector<Diagnostic> diags;
  auto step = make_step(kind, keys_text, diags);
  std::string all;
  for (const auto& d : diags) all += d.str() + "\n";
  REQUIRE_MESSAGE(diags.empty(), all);
  return step;
}

struct Pkg {
  std::string name, version, state = "install ok installed";
};

inline std::string status_text(const std::vector<Pkg>& pkgs) {
  std::string out;
  for (const auto& p : pkgs)
    out += "Package: " + p.name + "\nStatus: " + p.state + "\nArchitecture: amd64\nVersion: " + p.version + "\n\n";
  return out;
}

inline ProcessResult ok(const std::string& out = "") {
  ProcessResult r;
  r.exit_code = 0;
  r.out = out;
  return r;
}

inline ProcessResult fail(int code, const std::string& err) {
  ProcessResult r;
  r.exit_code = code;
  r.err = err;
  return r;
}

using Argv = std::vector<std::string>;
inline const std::map<std::string, std::string> kAptEnv = {{"DEBIAN_FRONTEND", "noninteractive"}, {"NEEDRESTART_SUSPEND", "1"}};
inline const Argv kDpkgOptions = {"-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold",
                           "-o", "DPkg::Lock::Timeout=120"};

// What keeps apt's simulation from writing its planner log and caches in the target.
inline const Argv kNoWrites = {"-o", "Dir::Log::Planner=", "-o", "Dir::Cache::pkgcache=", "-o", "Dir::Cache::srcpkgcache="};

inline Argv concat(std::initializer_list<Argv> parts) {
  Argv out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline const char* const kRocmSimulation =
    "NOTE: This is only a simulation!\n"
    "Inst rocm-core (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Inst hsa-runtime-rocr4wsl-amdgpu (1.14.0.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Inst rocm-dev (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Conf rocm-core (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Conf hsa-runtime-rocr4wsl-amdgpu (1.14.0.60402-120~24.04 repo.radeon.com [amd64])\n"
    "Conf rocm-dev (6.4.2.60402-120~24.04 repo.radeon.com [amd64])\n";

struct AptWorld {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  AptWorld() { fs.add_file("/var/lib/dpkg/status", status_text({{"libc6", "2.36-9"}, {"bash", "5.2.15-2"}})); }
};

// madison's answer for every name asked that VERSIONS lists.
inline std::function<ProcessResult(const Command&)> madison(std::map<std::string, std::vector<std::string>> versions) {
  return [versions](const Command& c) {
    std::string out;
    for (std::size_t i = 2; i < c.argv.size(); ++i) {
      if (c.argv[i] == "-o" || c.argv[i] == "-c") {
        ++i;
        continue;
      }
      auto it = versions.find(c.argv[i]);
      if (it == versions.end()) continue;
      for (const auto& v : it->second) out += c.argv[i] + " | " + v + " | file:/srv/repo  Packages\n";
    }
    return ok(out);
  };
}

}  // namespace wslgpu::testing
