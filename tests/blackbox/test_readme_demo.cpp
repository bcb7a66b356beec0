// The README's first command ends with a demonstration: the built tool plans
// the default profile, and then the wslconfig profile, against the
// demonstration machine of cmake/demo_machine.cmake (a folder laid out as
// WSL2 Ubuntu 24.04 with AMD's Windows driver), offline. This runs those
// very commands, read from README.md, against a demonstration machine made
// by the same script, so that what the README promises a newcomer cannot
// rot: exit 0, the sections a plan prints, nothing refused, the .wslconfig
// change as a diff, and the folder unchanged.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness.hpp"
#include "installer/system/process.hpp"
#include "support/build_paths.hpp"
#include "support/helpers.hpp"

using namespace wslgpu::blackbox;
using wslgpu::testing::contains;

namespace {

// How the README names the demonstration machine for --root, which takes
// an absolute path.
constexpr const char* kReadmeRoot = "\"$PWD/build/demo-machine\"";

// The commands of the README's first code line (after "# 1.") that run the
// built tool: "./build/wslgpu-setup ..." split into words.
std::vector<std::vector<std::string>> readme_demo_commands() {
  std::ifstream in(std::string(wslgpu::testing::kSourceDir) + "/README.md");
  REQUIRE_MESSAGE(in, "README.md is missing");
  std::string line;
  bool after_heading = false;
  while (std::getline(in, line)) {
    if (line.rfind("# 1.", 0) == 0) after_heading = true;
    else if (after_heading && !line.empty()) break;
  }
  REQUIRE_MESSAGE(after_heading, "README.md has no line \"# 1. ...\" above its first command");
  std::vector<std::vector<std::string>> commands;
  std::size_t start = 0;
  while (start <= line.size()) {
    std::size_t end = line.find(" && ", start);
    std::string part = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.rfind("./build/wslgpu-setup ", 0) == 0) {
      // --root takes an absolute path: the one word with a shell expansion.
      for (std::size_t at; (at = part.find(kReadmeRoot)) != std::string::npos;)
        part.replace(at, std::string(kReadmeRoot).size(), "DEMO_ROOT");
      INFO("a demo command the test cannot split: ", part);
      REQUIRE(part.find_first_of("'\"$`|;<>") == std::string::npos);
      std::istringstream words(part);
      std::vector<std::string> argv;
      for (std::string w; words >> w;) argv.push_back(w);
      commands.push_back(argv);
    }
    if (end == std::string::npos) break;
    start = end + 4;
  }
  return commands;
}

// ARGV's arguments (the built tool runs them), the demonstration machine DEMO for DEMO_ROOT.
std::vector<std::string> with_paths(std::vector<std::string> argv, const std::string& demo) {
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  for (auto& a : args)
    if (a == "DEMO_ROOT") a = demo;
  return args;
}

}  // namespace

TEST_CASE("the README's demonstration plans the default profile and .wslconfig on the demo machine, exit 0, "
          "nothing refused, nothing changed" *
          needs_root()) {
  auto commands = readme_demo_commands();
  REQUIRE(commands.size() == 2);
  CHECK(commands[0] == std::vector<std::string>{"./build/wslgpu-setup", "--root", "DEMO_ROOT", "plan",
                                                "--offline"});
  CHECK(commands[1] == std::vector<std::string>{"./build/wslgpu-setup", "--root", "DEMO_ROOT", "plan",
                                                "wslconfig"});

  wslgpu::testing::TempDir dir;
  const std::string demo = dir.path() + "/demo-machine";
  wslgpu::RealProcessRunner runner("/");
  auto made = runner.run(wslgpu::testing::host_command(
      {wslgpu::testing::kCMakeCommand, "-DROOT=" + demo, "-P", std::string(wslgpu::testing::kSourceDir) + "/cmake/demo_machine.cmake"}));
  INFO(made.out, made.err);
  REQUIRE(made.ok());
  auto before = snapshot(demo);

  // No server is reached in a test: kOffline points every proxy at a closed port.
  RunResult rocm = run_tool(with_paths(commands[0], demo), kOffline);
  INFO(rocm.out, rocm.err);
  CHECK(rocm.exit_code == 0);
  CHECK(rocm.err.empty());
  CHECK(contains(rocm.out, "Profile rocm, chosen because AMD's Windows driver is mounted "
                           "(/usr/lib/wsl/drivers/u0417839.inf_amd64_3b6c2d4fa97e1c05)"));
  CHECK(contains(rocm.out, "Machine: WSL2 kernel 6.6.87.2-microsoft-standard-WSL2 · /dev/dxg ok · ubuntu 24.04 (noble)"));
  CHECK(contains(rocm.out, "\nOffline (--offline): no server was asked."));
  // AMD's repositories, shown as the files they would be, with the key not fetched.
  CHECK(contains(rocm.out, "apt_repository  rocm-repo        change   add /etc/apt/sources.list.d/rocm.sources, key "
                           "rocm.asc (not asked offline), pin 600\n"));
  CHECK(contains(rocm.out, "+URIs: https://repo.radeon.com/rocm/apt/7.2.4\n"));
  CHECK(contains(rocm.out, "not asked offline: the key at https://repo.radeon.com/rocm/rocm.gpg.key"));
  // ROCm itself, by name and version, and what the plan with the network adds.
  CHECK(contains(rocm.out, "apt_install     rocm7            change   install rocm 7.2.4.* and what apt adds to it "
                           "(not asked offline)\n"));
  CHECK(contains(rocm.out, "refuses a kernel-module (DKMS) package among them"));
  // The WSL runtime, pinned by hash, and the environment every login shell gets.
  CHECK(contains(rocm.out, "rocdxg-roct_1.2.2_amd64.deb"));
  CHECK(contains(rocm.out, "+export HSA_ENABLE_DXG_DETECTION='1'\n"));
  CHECK_FALSE(contains(rocm.out, " refused "));
  CHECK(contains(rocm.out, " not asked offline. Nothing has been changed.\n"));
  CHECK(contains(rocm.out, " install rocm --root " + demo + "` on the machine, with the network, to apply it"));

  RunResult wslconfig = run_tool(with_paths(commands[1], demo), kOffline);
  INFO(wslconfig.out, wslconfig.err);
  CHECK(wslconfig.exit_code == 0);
  CHECK(contains(wslconfig.out, "--- /mnt/c/Users/alice/.wslconfig\n"));
  CHECK(contains(wslconfig.out, "-memory=8GB\n"));
  CHECK(contains(wslconfig.out, "+memory=16GB\n"));
  CHECK(contains(wslconfig.out, "+processors=8\n"));
  CHECK(contains(wslconfig.out, "the WSL VM has 16 logical CPUs, by /proc/cpuinfo"));
  CHECK_FALSE(contains(wslconfig.out, " refused "));

  auto after = snapshot(demo);
  CHECK_MESSAGE(before == after, snapshot_difference(before, after));
}

TEST_CASE("plan --offline says in JSON which steps it did not ask, and cannot be saved for install") {
  FakeWslRoot root;
  RunResult r = run_tool({"--root", root.path(), "plan", "rocm", "--offline", "--output", "json"}, kOffline);
  INFO(r.out, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["offline"] == true);
  // The three repositories' key and apt's lists of them; nothing refused for the network.
  CHECK(j["counts"]["not_asked"] == 4);
  std::vector<std::string> not_asked;
  for (const auto& s : j["steps"])
    if (s.contains("not_asked")) not_asked.push_back(s["id"].get<std::string>() + ": " + s["not_asked"].get<std::string>());
  CHECK(not_asked == std::vector<std::string>{"amdgpu-repo: the key at https://repo.radeon.com/rocm/rocm.gpg.key",
                                              "rocm-repo: the key at https://repo.radeon.com/rocm/rocm.gpg.key",
                                              "graphics-repo: the key at https://repo.radeon.com/rocm/rocm.gpg.key",
                                              "rocm7: apt's package lists of the repositories"});
  for (const auto& s : j["steps"]) CHECK_MESSAGE(s["action"] != "refused", s.dump());
  // Without --offline the same machine's plan asks AMD's server, which the
  // test's proxy refuses: the key steps are refused, as install would be.
  RunResult online = run_tool({"--root", root.path(), "plan", "rocm", "--output", "json"}, kOffline);
  CHECK(online.exit_code == 3);
  CHECK(nlohmann::json::parse(online.out)["offline"] == false);

  RunResult saved = run_tool({"--root", root.path(), "plan", "rocm", "--offline", "--out", root.path() + "/p.json"});
  CHECK(saved.exit_code == 2);
  CHECK(contains(saved.err, "--out excludes --offline"));
  CHECK_FALSE(std::filesystem::exists(root.path() + "/p.json"));
}
