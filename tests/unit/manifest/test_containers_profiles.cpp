// The bundled containers layers as data: which engine each machine gets
// (container_engine = auto, from host facts read from files), and what is
// refused, read from the profiles themselves (manifests/containers-*.toml).
#include <doctest/doctest.h>

#include "bundled_profiles.hpp"

using namespace wslgpu;

using wslgpu::testing::bundled;
using wslgpu::testing::refusals;

namespace {

HostFacts nvidia_host() { return wslgpu::testing::with_driver("591.86", "13.1"); }

bool has_step(const Manifest& m, const std::string& id) {
  for (const auto& s : m.steps)
    if (s.id == id) return true;
  return false;
}

}  // namespace

TEST_CASE("containers: auto is Podman without an engine, docker-ce when one is installed, Desktop when integrated") {
  for (const char* layer : {"containers-cuda", "containers-rocm"}) {
    CAPTURE(layer);
    HostFacts host = nvidia_host();
    CHECK(load_manifest(bundled(layer), {}, host).vars.at("container_engine") == "podman");
    host.docker_ce = "5:28.5.1-1~ubuntu.24.04~noble";
    CHECK(load_manifest(bundled(layer), {}, host).vars.at("container_engine") == "docker");
    // Docker Desktop's integration wins over an engine in the distribution:
    // doctor reports the pair; the profile installs nothing beside Desktop.
    host.docker_desktop = true;
    Manifest m = load_manifest(bundled(layer), {}, host);
    CHECK(m.vars.at("container_engine") == "desktop");
    CHECK(m.vars.at("engine_why").find("Docker Desktop's WSL integration is on") != std::string::npos);
    CHECK(refusals(m, host).empty());
  }
}

TEST_CASE("containers: docker-ce asked for beside Docker Desktop's integration is refused, saying why and what to do") {
  HostFacts host = nvidia_host();
  host.docker_desktop = true;
  Manifest m = load_manifest(bundled("containers-cuda"), {{"container_engine", "docker"}}, host);
  auto reasons = refusals(m, host);
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0].find("Running both can cause conflicts") != std::string::npos);
  CHECK(reasons[0].find("--set container_engine=desktop") != std::string::npos);
  // Without the integration, docker-ce is what was asked for.
  host.docker_desktop = false;
  CHECK(refusals(load_manifest(bundled("containers-cuda"), {{"container_engine", "docker"}}, host), host).empty());
}

TEST_CASE("containers-cuda refuses a toolkit before 1.19.1 and an engine it does not know") {
  HostFacts host = nvidia_host();
  auto old = refusals(load_manifest(bundled("containers-cuda"), {{"nvct_version", "1.17.8"}}, host), host);
  REQUIRE(old.size() == 1);
  CHECK(old[0].find("1.19.1 fixed its CDI refresh on WSL2") != std::string::npos);
  CHECK(refusals(load_manifest(bundled("containers-cuda"), {{"nvct_version", "1.19.1"}}, host), host).empty());
  auto unknown = refusals(load_manifest(bundled("containers-cuda"), {{"container_engine", "lxc"}}, host), host);
  REQUIRE_FALSE(unknown.empty());
  CHECK(unknown.back().find("must be auto, desktop, docker or podman") != std::string::npos);
}

TEST_CASE("containers layers run after their GPU profile's steps and keep its name for them") {
  Manifest cuda = load_manifest(bundled("containers-cuda"), {}, nvidia_host());
  CHECK(cuda.base_name == "cuda-driver");
  REQUIRE(has_step(cuda, "nvidia-cdi"));
  CHECK(has_step(cuda, "libcuda"));  // the base's driver checks come along
  CHECK_FALSE(has_step(cuda, "toolkit"));  // and no CUDA toolkit: containers bring their own
  Manifest rocm = load_manifest(bundled("containers-rocm"), {}, wslgpu::testing::fake_wsl_host());
  CHECK(rocm.base_name == "rocm");
  CHECK(has_step(rocm, "amd-cdi-legacy"));
  CHECK(has_step(rocm, "amd-cdi-rocdxg"));
}

TEST_CASE("containers-rocm on the Core SDK mounts librocdxg from where the release keeps it") {
  HostFacts resolute = wslgpu::testing::fake_wsl_host();
  resolute.distro_version = "26.04";
  resolute.codename = "resolute";
  Manifest ten = load_manifest(bundled("containers-rocm"), {}, resolute);
  CHECK(ten.vars.at("rocm_version") == "10.0.0");
  CHECK(has_step(ten, "amd-cdi-core"));
  CHECK(ten.vars.at("rocdxg_lib") == "/opt/rocm/lib/librocdxg.so");
  Manifest preview = load_manifest(bundled("containers-rocm"), {{"rocm_version", "10.1.0"}}, resolute);
  CHECK(preview.vars.at("rocdxg_lib") == "/opt/rocm/core-10.1/lib/librocdxg.so");
}
