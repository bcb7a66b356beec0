// check with only_if: a command check (a smoke test) that runs only when
// another program succeeds (the image is on the machine); otherwise the plan
// and the install say what to run by hand, and nothing fails.
#include <doctest/doctest.h>

#include "support/helpers.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const char* kSmoke = R"(
kind = "check"
command = ["podman", "run", "--rm", "--device", "nvidia.com/gpu=all", "ubuntu", "nvidia-smi", "-L"]
output_matches = "GPU [0-9]+:"
only_if = ["podman", "image", "exists", "ubuntu"]
otherwise = "To test by hand: podman pull ubuntu, then run it again."
on_fail = "warn"
)";

}  // namespace

TEST_CASE("check only_if: the plan says when it runs and what to do by hand otherwise") {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "containers-cuda"};
  StepPlan p = build_ok(kSmoke)->plan(ctx);
  CHECK(p.verdict == Verdict::verify);
  std::string details;
  for (const auto& d : p.details) details += d + "\n";
  CHECK(contains(details, "only when `podman image exists ubuntu` succeeds then; otherwise: To test by hand: "
                          "podman pull ubuntu, then run it again.\n"));
  CHECK(runner.calls.empty());  // plan runs neither
}

TEST_CASE("check only_if: without the image the check is not run and says so; with it, it runs and must match") {
  MemoryFileSystem fs;
  HostFacts host;
  {
    FakeProcessRunner runner;
    runner.on({"podman", "image", "exists"}, exited(1));
    StepContext ctx{fs, runner, host, "containers-cuda"};
    auto step = build_ok(kSmoke);
    nlohmann::json r = step->apply(ctx, step->plan(ctx));
    CHECK(r["warning"] == "not run: `podman image exists ubuntu` failed. To test by hand: podman pull ubuntu, then run "
                         "it again.");
    REQUIRE(runner.calls.size() == 1);  // podman run was not started
  }
  {
    FakeProcessRunner runner;
    runner.on({"podman", "image", "exists"}, exited(0));
    runner.on({"podman", "run"}, exited(0, "", "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-0)\n"));
    StepContext ctx{fs, runner, host, "containers-cuda"};
    auto step = build_ok(kSmoke);
    CHECK(step->apply(ctx, step->plan(ctx)).empty());
    CHECK(runner.calls.size() == 2);
  }
  {
    FakeProcessRunner runner;
    runner.on({"podman", "image", "exists"}, exited(0));
    runner.on({"podman", "run"}, exited(126, "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all"));
    StepContext ctx{fs, runner, host, "containers-cuda"};
    auto step = build_ok(kSmoke);
    nlohmann::json r = step->apply(ctx, step->plan(ctx));
    CHECK(contains(r["warning"].get<std::string>(), "check failed: `podman run"));
    CHECK(contains(r["warning"].get<std::string>(), "unresolvable CDI devices"));
  }
}
