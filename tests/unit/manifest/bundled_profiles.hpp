// What the tests of the bundled profiles as data share: a bundled profile's
// source, a fake WSL host with an NVIDIA driver, and the refuse_if guards
// that hold for a loaded manifest.
#pragma once
#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "installer/host/host.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/manifest.hpp"
#include "support/fakes.hpp"

namespace wslgpu::testing {

inline ManifestSource bundled(const std::string& name) {
  for (const auto& m : bundled_manifests())
    if (m.name == name) return {std::string(m.path), std::string(m.content), true};
  FAIL("no bundled profile " << name);
  return {};
}

// fake_wsl_host() whose nvidia-smi says DRIVER and CUDA.
inline HostFacts with_driver(const std::string& driver, const std::string& cuda) {
  HostFacts host = fake_wsl_host();
  NvidiaDriverFacts facts{driver, cuda, "driver " + driver + ", CUDA " + cuda};
  host.nvidia_driver = std::make_shared<const LazyNvidiaDriver>([facts] { return facts; });
  return host;
}

// The reasons of every refuse_if of M that holds on HOST, in file order.
inline std::vector<std::string> refusals(const Manifest& m, const HostFacts& host) {
  Variables scope = host.as_variables();
  for (const auto& [k, v] : m.vars) scope[k] = v;
  auto lookup = [&](const std::string& name) -> std::optional<std::string> {
    auto it = scope.find(name);
    return it == scope.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  std::vector<std::string> reasons;
  for (const auto& r : m.guards.refuse_if)
    if (r.when->evaluate(lookup)) reasons.push_back(r.reason);
  return reasons;
}

}  // namespace wslgpu::testing
