// `plan` and `install` of the TensorFlow, JAX and ONNX Runtime families on
// fake WSL2 machines: on AMD each is refused before anything changes, in
// AMD's own words, naming what works; on NVIDIA the layer's steps follow
// the cuda profile's, into the framework's own venv.
#include <doctest/doctest.h>

#include "harness.hpp"
#include "support/helpers.hpp"

using namespace wslgpu::blackbox;
using wslgpu::testing::contains;

namespace {

const char* kAmdWindowsDriver = "/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d/amdxc64.so";

}  // namespace

TEST_CASE("install tensorflow, jax or onnxruntime on an AMD machine is refused before anything changes, exit 3") {
  struct Want {
    const char* family;
    const char* quote;
  };
  for (const Want& w : {Want{"tensorflow", "AMD publishes no TensorFlow for ROCm on WSL"},
                        Want{"jax", "\"The ROCm-supported version of JAX is not currently enabled or validated under "
                                    "WSL. As a result, JAX workloads on WSL may fail to install, initialize, or execute "
                                    "correctly.\""},
                        Want{"onnxruntime", "\"MIGraphX and mGPU configuration are not currently supported by WSL\""}}) {
    CAPTURE(w.family);
    FakeWslRoot root;
    root.write(kAmdWindowsDriver, "");
    // The machine outside the tool's own lock and journal.
    const auto before = outside_state_without_times(snapshot(root.path()));
    RunResult r = run_tool({"--root", root.path(), "install", w.family, "--yes"}, kOffline);
    INFO(r.out, r.err);
    CHECK(r.exit_code == 3);
    CHECK(contains(r.out + r.err, std::string("Profile ") + w.family + "-rocm, chosen because AMD's Windows driver is mounted"));
    CHECK(contains(r.out + r.err, w.quote));
    CHECK(contains(r.out + r.err, "What works on AMD under WSL: sudo wslgpu-setup install pytorch"));
    CHECK(snapshot_difference(before, outside_state_without_times(snapshot(root.path()))) == "");
  }
}

TEST_CASE("plan onnxruntime on an NVIDIA machine lists cuda's steps, then onnxruntime-gpu and its CUDA wheels in ~/.venvs/onnxruntime") {
  FakeWslRoot root;
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
  RunResult r = run_tool({"--root", root.path(), "plan", "onnxruntime"}, kOffline);
  INFO(r.out, r.err);
  CHECK(first_line(r.out).rfind("Profile onnxruntime-cuda, chosen because", 0) == 0);
  auto at = [&](const std::string& id) { return r.out.find("  " + id + " "); };
  REQUIRE(at("nvidia-smi") != std::string::npos);
  REQUIRE(at("onnxruntime") != std::string::npos);
  CHECK(at("nvidia-smi") < at("python-venv"));
  CHECK(at("venv") < at("onnxruntime"));
  CHECK(at("onnxruntime") < at("ort-smoke"));
  CHECK(contains(r.out, "/home/alice/.venvs/onnxruntime"));
  CHECK(contains(r.out, "nvidia-cudnn-cu12"));
}

TEST_CASE("plan tensorflow on a root without a WSL user yet refuses the venv steps, exit 3, and says to name one") {
  // A distribution installed with --no-launch and provisioned as root: no
  // user yet. The profile is not at fault, so the plan refuses, naming the
  // way out, rather than a load error at the profile's lines (exit 2).
  FakeWslRoot root;
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
  root.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  root.write("/etc/wsl.conf", "[boot]\nsystemd=true\n");
  RunResult r = run_tool({"--root", root.path(), "plan", "tensorflow"}, kOffline);
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);
  CHECK_FALSE(contains(r.err, "is not a valid user name"));
  CHECK(contains(r.out, "no user to own the virtual environment: this root has no WSL user yet"));
  CHECK(contains(r.out, "--user NAME"));
}
