// What each NVIDIA profile installs, read from the bundled profiles: the
// frameworks and containers stand on cuda-driver (the Windows driver's
// checks and library path) and install no CUDA toolkit and no NVIDIA apt
// repository; cuda is cuda-driver plus that repository and toolkit.
#include <doctest/doctest.h>

#include <algorithm>

#include "bundled_profiles.hpp"

using namespace wslgpu;

using wslgpu::testing::bundled;
using wslgpu::testing::with_driver;

namespace {

std::vector<std::string> step_ids(const Manifest& m) {
  std::vector<std::string> ids;
  for (const auto& s : m.steps) ids.push_back(s.id);
  return ids;
}

bool has_kind(const Manifest& m, const std::string& kind) {
  return std::any_of(m.steps.begin(), m.steps.end(), [&](const auto& s) { return s.kind == kind; });
}

bool holds(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

TEST_CASE("the CUDA frameworks and containers stand on cuda-driver and add no CUDA toolkit or NVIDIA apt source") {
  const HostFacts host = with_driver("591.86", "13.1");
  for (const char* layer :
       {"pytorch-cuda", "tensorflow-cuda", "jax-cuda", "onnxruntime-cuda"}) {
    CAPTURE(layer);
    Manifest m = load_manifest(bundled(layer), {}, host);
    CHECK(m.base_name == "cuda-driver");
    const auto ids = step_ids(m);
    CHECK(holds(ids, "dxg"));
    CHECK(holds(ids, "libcuda"));
    CHECK(holds(ids, "nvidia-smi"));
    CHECK_FALSE(holds(ids, "toolkit"));
    CHECK_FALSE(holds(ids, "nvcc"));
    // The only apt packages are the distribution's (python3.X-venv): no
    // repository is added, so NVIDIA's SHA-1-bound key never meets sqv.
    CHECK_FALSE(has_kind(m, "apt_repository"));
    CHECK_FALSE(m.vars.count("cuda_version"));
  }
  Manifest containers = load_manifest(bundled("containers-cuda"), {}, host);
  CHECK(containers.base_name == "cuda-driver");
  CHECK_FALSE(holds(step_ids(containers), "toolkit"));
}

TEST_CASE("cuda is cuda-driver's checks, then NVIDIA's repository, the toolkit the driver supports and nvcc") {
  Manifest m = load_manifest(bundled("cuda"), {}, with_driver("591.86", "13.1"));
  CHECK(m.base_name == "cuda-driver");
  const auto ids = step_ids(m);
  REQUIRE(ids.size() >= 6);
  CHECK(std::vector<std::string>(ids.begin(), ids.begin() + 4) ==
        std::vector<std::string>{"dxg", "libcuda", "driver-env", "nvidia-smi"});
  CHECK(holds(ids, "cuda-repo"));
  CHECK(holds(ids, "toolkit"));
  CHECK(holds(ids, "nvcc"));
  CHECK(m.vars.at("cuda_toolkit") == "13-1");
}

TEST_CASE("cuda-driver is written for Ubuntu 22.04, 24.04 and 26.04, the release wsl --install gives today") {
  Manifest m = load_manifest(bundled("cuda-driver"), {}, with_driver("591.86", "13.1"));
  REQUIRE(m.guards.supported);
  std::vector<std::string> versions;
  for (const auto& s : m.guards.supported->systems) {
    CHECK(s.distro == "ubuntu");
    versions.insert(versions.end(), s.versions.begin(), s.versions.end());
  }
  CHECK(versions == std::vector<std::string>{"22.04", "24.04", "26.04"});
}
