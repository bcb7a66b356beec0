// The rocm profile's two streams as data (manifests/rocm.toml): which
// release each Ubuntu gets by default, the ROCm Core SDK's rows, the GPU's
// target as Windows names it, and pytorch-rocm's wheels on the Core SDK.
#include <doctest/doctest.h>

#include <algorithm>

#include "bundled_profiles.hpp"
#include "installer/host/windows_gpus.hpp"
#include "installer/manifest/substitute.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

using wslgpu::testing::bundled;
using wslgpu::testing::refusals;

namespace {

HostFacts ubuntu(const std::string& version, const std::string& codename) {
  HostFacts host = wslgpu::testing::fake_wsl_host();
  host.distro_version = version;
  host.codename = codename;
  return host;
}

HostFacts with_windows_gpu(HostFacts host, const std::string& name) {
  host.windows_gpus = std::make_shared<const LazyWindowsGpus>(
      [name] { return windows_gpu_facts({{name, "32.0.31041.1004", 0}}); });
  return host;
}

const ManifestStep* step(const Manifest& m, const std::string& id) {
  auto it = std::find_if(m.steps.begin(), m.steps.end(), [&](const ManifestStep& s) { return s.id == id; });
  return it == m.steps.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("rocm's default is 7.2.4 on Ubuntu 22.04 and 24.04, and the Core SDK's 10.0.0 on 26.04") {
  CHECK(load_manifest(bundled("rocm"), {}, ubuntu("24.04", "noble")).vars.at("rocm_version") == "7.2.4");
  CHECK(load_manifest(bundled("rocm"), {}, ubuntu("22.04", "jammy")).vars.at("rocm_version") == "7.2.4");
  Manifest resolute = load_manifest(bundled("rocm"), {}, ubuntu("26.04", "resolute"));
  CHECK(resolute.vars.at("rocm_version") == "10.0.0");
  CHECK(resolute.vars.at("rocm_wsl") == "core");
  CHECK(resolute.vars.at("rocm_core_repo") == "https://stable.repo.amd.com/rocm/core/packages/ubuntu2604/");
  CHECK(resolute.vars.at("rocm_dxg_env") == "false");
  CHECK(resolute.vars.at("rocdxg_version") == "1.2.2");
  CHECK(refusals(resolute, ubuntu("26.04", "resolute")).empty());
}

TEST_CASE("rocm 10.1.0 ships librocdxg itself: no separate .deb, the library in the release's own folder") {
  Manifest m = load_manifest(bundled("rocm"), {{"rocm_version", "10.1.0"}}, ubuntu("24.04", "noble"));
  CHECK(m.vars.at("rocm_core") == "10.1");
  CHECK(m.vars.at("rocdxg_version").empty());
  CHECK(m.vars.at("rocdxg_lib") == "/opt/rocm/core-10.1/lib/librocdxg.so");
  CHECK(m.vars.at("rocm_bin") == "/opt/rocm/core-10.1/bin");
  CHECK(m.vars.at("rocm_known_issues").find("ROCm/TheRock issue 8787") != std::string::npos);
  REQUIRE(step(m, "no-rocdxg-deb"));
}

TEST_CASE("rocm takes the gfx target of the AMD GPU Windows lists, and refuses a target AMD does not build") {
  Manifest seen =
      load_manifest(bundled("rocm"), {}, with_windows_gpu(ubuntu("26.04", "resolute"), "AMD Radeon RX 9070 XT"));
  CHECK(seen.vars.at("rocm_gfx") == "gfx1201");
  Manifest unseen = load_manifest(bundled("rocm"), {}, ubuntu("26.04", "resolute"));
  CHECK(unseen.vars.at("rocm_gfx") == "all");
  Manifest wrong = load_manifest(bundled("rocm"), {{"rocm_gfx", "gfx9999"}}, ubuntu("26.04", "resolute"));
  std::vector<std::string> reasons = refusals(wrong, ubuntu("26.04", "resolute"));
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0].rfind("rocm_gfx=gfx9999 is not a GPU target AMD builds the ROCm Core SDK for", 0) == 0);
}

TEST_CASE("rocm 7.14.1 is refused until librocdxg 1.2.1's hash is given, naming the hash that is pinned") {
  Manifest m = load_manifest(bundled("rocm"), {{"rocm_version", "7.14.1"}}, ubuntu("24.04", "noble"));
  std::vector<std::string> reasons = refusals(m, ubuntu("24.04", "noble"));
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0].find("needs librocdxg 1.2.1, and no SHA-256 is pinned") != std::string::npos);
  CHECK(reasons[0].find("--set rocdxg_version=1.2.2 --set rocdxg_sha256=28ded125") != std::string::npos);
}

TEST_CASE("pytorch-rocm on the Core SDK takes AMD's whl-next wheels with the GPU's device extra, by 26.04's Python") {
  HostFacts host = with_windows_gpu(ubuntu("26.04", "resolute"), "AMD Radeon RX 9070 XT");
  Manifest m = load_manifest(bundled("pytorch-rocm"), {}, host);
  CHECK(m.vars.at("torch_cp") == "cp314");
  CHECK(m.vars.at("torch_core_version") == "2.13.0");
  CHECK(m.vars.at("rocm_whl_index") == "https://stable.repo.amd.com/rocm/whl-next/");
  CHECK(refusals(m, host).empty());
  const ManifestStep* torch = step(m, "torch-core");
  REQUIRE(torch);
  CHECK(torch->name == "PyTorch 2.13.0 for the ROCm Core SDK 10.0.0 (AMD's wheels, cp314, device-gfx1201)");
  // Ubuntu 22.04's Python 3.10 has no Core SDK wheels; 26.04's 3.14 none of 7.2.x.
  Manifest jammy = load_manifest(bundled("pytorch-rocm"), {{"rocm_version", "10.0.0"}}, ubuntu("22.04", "jammy"));
  std::vector<std::string> old_python = refusals(jammy, ubuntu("22.04", "jammy"));
  REQUIRE(old_python.size() == 1);
  CHECK(old_python[0].find("for Python 3.11 to 3.14, and Ubuntu 22.04's Python is 3.10") != std::string::npos);
  Manifest legacy = load_manifest(bundled("pytorch-rocm"), {{"rocm_version", "7.2.4"}}, ubuntu("26.04", "resolute"));
  std::vector<std::string> no_cp314 = refusals(legacy, ubuntu("26.04", "resolute"));
  REQUIRE(no_cp314.size() == 1);
  CHECK(no_cp314[0].find("no Python 3.14 (cp314) wheel of PyTorch for ROCm 7.2.4") != std::string::npos);
}

TEST_CASE("rocm warns before any change of an integrated AMD GPU and names the release's Adrenalin floor") {
  HostFacts host = wslgpu::testing::fake_wsl_host();
  host.windows_gpus = std::make_shared<const LazyWindowsGpus>([] {
    return windows_gpu_facts({{"AMD Radeon RX 7900 XTX", "32.0.21041.1000", 24ull << 30},
                              {"AMD Radeon(TM) Graphics", "32.0.21041.1000", 512ull << 20}});
  });
  Manifest m = load_manifest(bundled("rocm"), {}, host);
  Variables scope = host.as_variables();
  for (const auto& [k, v] : m.vars) scope[k] = v;
  std::vector<std::string> warnings;
  for (const auto& w : m.guards.warn_if)
    if (w.when->evaluate([&](const std::string& n) -> std::optional<std::string> {
          auto it = scope.find(n);
          return it == scope.end() ? std::nullopt : std::optional<std::string>(it->second);
        }))
    {
      std::vector<Diagnostic> diagnostics;
      warnings.push_back(substitute(w.reason, scope, SourcePos{}, diagnostics));
      CHECK(diagnostics.empty());
    }
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].rfind("Windows lists an integrated AMD GPU beside AMD Radeon RX 7900 XTX.", 0) == 0);
  CHECK(warnings[1] == "ROCm 7.2.4 needs AMD's Adrenalin 26.2.2 or later on Windows; Windows reports AMD Radeon RX "
                       "7900 XTX's driver as 32.0.21041.1000, which does not say its Adrenalin release: check it in AMD "
                       "Software on Windows before installing");
}
