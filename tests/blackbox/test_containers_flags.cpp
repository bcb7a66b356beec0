// `wslgpu-setup containers flags`: the docker run flags read from the GPU's
// CDI specs on the machine, for the engines that read no CDI spec.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "support/helpers.hpp"

using namespace wslgpu::blackbox;
using wslgpu::testing::contains;

namespace {

const char* kAmdLegacySpec = R"(cdiVersion: "0.5.0"
kind: amd.com/gpu
devices:
  - name: all
    containerEdits:
      deviceNodes:
        - path: /dev/dxg
      mounts:
        - hostPath: /usr/lib/wsl/lib/libdxcore.so
          containerPath: /usr/lib/libdxcore.so
          options: [ro, nosuid, nodev, bind]
        - hostPath: /opt/rocm/lib/libhsa-runtime64.so.1
          containerPath: /opt/rocm/lib/libhsa-runtime64.so.1
          options: [ro, nosuid, nodev, bind]
)";

}  // namespace

TEST_CASE("containers flags prints AMD's docker run flags from /etc/cdi/amd-wsl.yaml, as text and as JSON") {
  FakeWslRoot root;
  root.write("/etc/cdi/amd-wsl.yaml", kAmdLegacySpec);
  RunResult r = run_tool({"--root", root.path(), "containers", "flags"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "amd.com/gpu=all (/etc/cdi/amd-wsl.yaml)\ndocker run flags:\n  --device=/dev/dxg \\\n"
                        "  -v /usr/lib/wsl/lib/libdxcore.so:/usr/lib/libdxcore.so:ro \\\n"
                        "  -v /opt/rocm/lib/libhsa-runtime64.so.1:/opt/rocm/lib/libhsa-runtime64.so.1:ro\n"));
  CHECK(contains(r.out, "podman: --device amd.com/gpu=all"));

  RunResult j = run_tool({"--root", root.path(), "containers", "flags", "--output", "json"});
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.out);
  REQUIRE(doc.size() == 1);
  CHECK(doc[0]["device"] == "amd.com/gpu=all");
  CHECK(doc[0]["docker_flags"][0] == "--device=/dev/dxg");
}

TEST_CASE("containers flags without a GPU spec exits 1 and says how to write one; a broken spec is named") {
  FakeWslRoot root;
  RunResult none = run_tool({"--root", root.path(), "containers", "flags"});
  CHECK(none.exit_code == 1);
  CHECK(contains(none.err, "no CDI spec for the GPU in /etc/cdi or /var/run/cdi"));
  CHECK(contains(none.err, "sudo wslgpu-setup install containers"));

  root.write("/etc/cdi/amd-wsl.yaml", "cdiVersion: [\n");
  RunResult broken = run_tool({"--root", root.path(), "containers", "flags"});
  CHECK(broken.exit_code == 1);
  CHECK(contains(broken.err, "/etc/cdi/amd-wsl.yaml:"));
}

TEST_CASE("containers flags skips an unrelated broken spec with a warning naming it, and prints the GPU's flags") {
  FakeWslRoot root;
  root.write("/etc/cdi/acme-fpga.yaml", "cdiVersion: \"0.5.0\"\nkind: acme.com/fpga\ndevices: [\n");
  root.write("/etc/cdi/amd-wsl.yaml", kAmdLegacySpec);
  RunResult r = run_tool({"--root", root.path(), "containers", "flags"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.rfind("warning: /etc/cdi/acme-fpga.yaml:", 0) == 0);
  CHECK(contains(r.err, "\n  Skipped: it does not read as a CDI spec (Podman and Docker refuse it too).\n"));
  CHECK(contains(r.out, "amd.com/gpu=all (/etc/cdi/amd-wsl.yaml)\ndocker run flags:\n  --device=/dev/dxg \\\n"));

  RunResult j = run_tool({"--root", root.path(), "containers", "flags", "--output", "json"});
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.out);
  REQUIRE(doc.size() == 1);
  CHECK(doc[0]["spec"] == "/etc/cdi/amd-wsl.yaml");
}

TEST_CASE("containers flags with Docker Desktop's integration on NVIDIA needs no spec: --gpus all") {
  FakeWslRoot root;
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
  root.write("/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", "#!/bin/sh\n", 0755);
  std::filesystem::create_directories(root.path() + "/usr/bin");
  std::filesystem::create_symlink("/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", root.path() + "/usr/bin/docker");
  RunResult r = run_tool({"--root", root.path(), "containers", "flags"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        "nvidia.com/gpu=all (Docker Desktop's engine, which brings NVIDIA's runtime: no CDI spec needed)\n"
        "docker run flags (Docker Desktop):\n  --gpus all\n");
  RunResult j = run_tool({"--root", root.path(), "containers", "flags", "--output", "json"});
  REQUIRE(j.exit_code == 0);
  CHECK(nlohmann::json::parse(j.out) ==
        nlohmann::json::parse(R"([{"spec": null, "device": "nvidia.com/gpu=all", "docker_flags": ["--gpus all"]}])"));

  // Without the integration, an NVIDIA machine with no spec still has none to read.
  std::filesystem::remove(root.path() + "/usr/bin/docker");
  CHECK(run_tool({"--root", root.path(), "containers", "flags"}).exit_code == 1);
}
