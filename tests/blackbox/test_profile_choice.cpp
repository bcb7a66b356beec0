// `plan` and `install` with no profile choose it from the Windows driver
// that WSL mounts, say so on the first line, and exit 2 when they cannot.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace wslgpu::blackbox;


TEST_CASE("plan with no profile on a machine with NVIDIA's driver stubs plans cuda and says why first") {
  FakeWslRoot root;
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
  root.write("/usr/lib/wsl/lib/nvidia-smi", "", 0755);
  RunResult r = run_tool({"--root", root.path(), "plan"});
  CHECK(r.exit_code == 3);  // offline: the vendor's key and apt's simulation are refused (plan reports it)
  CHECK(first_line(r.out) ==
        "Profile cuda, chosen because NVIDIA's Windows driver is mounted (/usr/lib/wsl/lib/libcuda.so.1).");
  CHECK(r.out.find("· profile cuda (") != std::string::npos);
}

TEST_CASE("plan with no profile on a machine with AMD's driver store plans rocm and says why first") {
  FakeWslRoot root;
  root.write("/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d/amdxc64.so", "");
  RunResult r = run_tool({"--root", root.path(), "plan"});
  CHECK(r.exit_code == 3);  // offline: the vendor's key and apt's simulation are refused (plan reports it)
  CHECK(first_line(r.out) ==
        "Profile rocm, chosen because AMD's Windows driver is mounted "
        "(/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d).");
  CHECK(r.out.find("· profile rocm (") != std::string::npos);
}

TEST_CASE("plan --output json with no profile carries the choice") {
  FakeWslRoot root;
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
  RunResult r = run_tool({"--root", root.path(), "plan", "--output", "json"});
  REQUIRE(r.exit_code == 3);  // offline, as above
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["profile_choice"]["profile"] == "cuda");
  CHECK(doc["profile_choice"]["why"] == "NVIDIA's Windows driver is mounted (/usr/lib/wsl/lib/libcuda.so.1)");
  CHECK(doc["manifest"]["name"] == "cuda");
}

TEST_CASE(
    "install and plan with no profile exit 2 naming what was seen and both commands when both drivers are there") {
  FakeWslRoot root;
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
  root.write("/usr/lib/wsl/drivers/u0401234.inf_amd64_ab/amdxc64.so", "");
  auto before = snapshot(root.path());
  for (std::string command : {"plan", "install"}) {
    CAPTURE(command);
    std::vector<std::string> args{"--root", root.path(), command};
    if (command == "install") args.push_back("--yes");
    RunResult r = run_tool(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "error: cannot choose a profile: both NVIDIA's (/usr/lib/wsl/lib/libcuda.so.1) and AMD's "
          "(/usr/lib/wsl/drivers/u0401234.inf_amd64_ab) Windows drivers are mounted, so it is not clear which "
          "GPU to set up.\nName the one you want:\n  sudo wslgpu-setup " +
              command + " cuda    # NVIDIA\n  sudo wslgpu-setup " + command + " rocm    # AMD\n");
  }
  CHECK(snapshot_difference(before, snapshot(root.path())).empty());
}

TEST_CASE("install with no profile on a machine with no GPU driver mounted exits 2 and changes nothing") {
  FakeWslRoot root;
  auto before = snapshot(root.path());
  RunResult r = run_tool({"--root", root.path(), "install", "--yes"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no GPU driver under /usr/lib/wsl") != std::string::npos);
  CHECK(r.err.find("sudo wslgpu-setup install rocm") != std::string::npos);
  CHECK(snapshot_difference(before, snapshot(root.path())).empty());
}
