// `plan containers` on fake WSL2 machines: the family takes the layer for the
// mounted driver, auto takes the engine from what the machine has (files
// only), and one plan lists the GPU profile's steps and then the engine's.
// The fake root is offline (the vendors' keys and apt's simulation are
// refused, exit 3); the tests read the plan's text.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>

#include "harness.hpp"
#include "support/helpers.hpp"

using namespace wslgpu::blackbox;
using wslgpu::testing::contains;

namespace {

void as_nvidia_machine(const FakeWslRoot& root) {
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
  root.write("/usr/lib/wsl/drivers/nv_dispi.inf_amd64_1111111111111111/libcuda.so.1.1", "");
}

// The plan line of step ID ("  N  KIND  ID  ACTION ..."), or "" when it has none.
std::string step_line(const std::string& plan, const std::string& id) {
  auto at = plan.find("  " + id + " ");
  if (at == std::string::npos) return "";
  auto start = plan.rfind('\n', at);
  start = start == std::string::npos ? 0 : start + 1;
  return plan.substr(start, plan.find('\n', at) - start);
}

}  // namespace

TEST_CASE("plan containers on a WSL2 NVIDIA machine with no engine shows Podman, NVIDIA's toolkit and its CDI spec") {
  FakeWslRoot root;
  as_nvidia_machine(root);
  RunResult r = run_tool({"--root", root.path(), "plan", "containers"}, kOffline);
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);  // offline: the vendors' keys and apt's simulation are refused
  CHECK(first_line(r.out).rfind("Profile containers-cuda, chosen because NVIDIA's Windows driver is mounted", 0) == 0);
  CHECK(contains(r.out, "Chose container_engine=podman (auto): no Docker Desktop integration and no docker-ce here"));
  // The fake root has no apt: the two installs are planned, and refused
  // only for that (the real-root scenarios plan them).
  CHECK(contains(step_line(r.out, "podman"), "apt_install"));
  CHECK(contains(step_line(r.out, "nvct"), "apt_install"));
  CHECK_FALSE(contains(step_line(r.out, "podman"), "skipped"));
  CHECK_FALSE(contains(step_line(r.out, "nvct"), "skipped"));
  CHECK(contains(step_line(r.out, "nvct-repo"), "nvidia.github.io"));
  CHECK(contains(step_line(r.out, "nvidia-cdi"),
                 "change   generate /etc/cdi/nvidia.yaml at install with `nvidia-ctk cdi generate --mode=wsl`"));
  for (const char* skipped : {"docker-repo", "docker-engine", "docker-nvidia-runtime", "desktop-reached"}) {
    CAPTURE(skipped);
    CHECK(contains(step_line(r.out, skipped), "skipped"));
  }
  // cuda-driver's steps come first, in one plan, and no CUDA toolkit.
  auto at = [&](const std::string& id) { return r.out.find("  " + id + " "); };
  REQUIRE(at("libcuda") != std::string::npos);
  REQUIRE(at("podman") != std::string::npos);
  CHECK(at("libcuda") < at("nvct-repo"));
  CHECK(at("toolkit") == std::string::npos);
  CHECK(at("nvct") < at("nvidia-cdi"));
}

TEST_CASE("plan containers with Docker Desktop's WSL integration on installs nothing for the engine") {
  FakeWslRoot root;
  as_nvidia_machine(root);
  root.write("/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", "#!/bin/sh\n", 0755);
  std::filesystem::create_directories(root.path() + "/usr/bin");
  REQUIRE(::symlink("/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", (root.path() + "/usr/bin/docker").c_str()) ==
          0);
  RunResult r = run_tool({"--root", root.path(), "plan", "containers"}, kOffline);
  INFO(r.out, r.err);
  CHECK(contains(r.out, "Chose container_engine=desktop (auto): Docker Desktop's WSL integration is on"));
  for (const char* skipped : {"podman", "nvct-repo", "nvct", "nvidia-cdi", "docker-engine"}) {
    CAPTURE(skipped);
    CHECK(contains(step_line(r.out, skipped), "skipped"));
  }
  RunResult docker = run_tool({"--root", root.path(), "--set", "container_engine=docker", "plan", "containers"}, kOffline);
  CHECK(docker.exit_code == 3);
  CHECK(contains(docker.out + docker.err, "Running both can cause conflicts"));
}
