// `wslgpu-setup containers flags`: the docker run flags read from the GPU's
// CDI specs on the machine, for the engines that read no CDI spec.
#include <doctest/doctest.h>

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
