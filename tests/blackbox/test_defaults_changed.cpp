// After an upgrade changed a profile's defaults, `plan` on the machine that
// an earlier version provisioned says which values would change and why
// (the [matrix] row and the source it cites), as text and JSON, and changes
// nothing. install needs root, so these are in the needs-root suite.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "support/release_demo.hpp"

using namespace wslgpu::blackbox;

namespace {

std::vector<std::string> on(const FakeWslRoot& root, std::vector<std::string> rest) {
  std::vector<std::string> out = {"--root", root.path()};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// A profile whose values come from the machine as well as from its own
// data: a venv in the user's home, the distribution's codename, a [matrix]
// row that "auto" picks by the distribution's version and one by the GPU.
// Only RELEASE is the profile's own default, moved between two versions.
std::string machine_demo_profile(const std::string& release) {
  return R"([manifest]
name = "machine-demo"
description = "values taken from the machine"
schema_version = 1

[vars]
release = ")" + release + R"("
venv = "${host.user_home}/.venvs/demo"
venv_owner = "${host.user}"
codename = "${host.codename}"
python = "auto"
python_ubuntu = ""
runtime = "auto"
runtime_vendor = ""

# Source: the python3 of Ubuntu 24.04 (3.12) and 22.04 (3.10).
[matrix.python]
auto = "host.distro_version == python_ubuntu"
[matrix.python."3.12"]
python_ubuntu = "24.04"
[matrix.python."3.10"]
python_ubuntu = "22.04"

# Source: the vendors' runtimes.
[matrix.runtime]
auto = "host.gpu_vendor == runtime_vendor"
[matrix.runtime."hip"]
runtime_vendor = "amd"
[matrix.runtime."cuda"]
runtime_vendor = "nvidia"

[[step]]
id = "conf"
kind = "file"
path = "/etc/machine-demo.conf"
content = "release ${release} for ${venv_owner} in ${venv}, python ${python} on ${codename}, ${runtime}\n"
)";
}

// Profile version 1.0 and 2.0 of machine_demo_profile, in PROFILES.
struct MachineDemo {
  std::string old_profile;
  std::string new_profile;
};

MachineDemo machine_demo(const wslgpu::testing::TempDir& profiles) {
  profiles.write("old/machine-demo.toml", machine_demo_profile("1.0"));
  profiles.write("new/machine-demo.toml", machine_demo_profile("2.0"));
  return {profiles.path() + "/old/machine-demo.toml", profiles.path() + "/new/machine-demo.toml"};
}

// The lines of the "defaults changed" section of a text plan OUT (its
// header and the lines under it), "" when the plan has none.
std::string defaults_changed_section(const std::string& out) {
  auto begin = out.find("its defaults changed:");
  if (begin == std::string::npos) return "";
  auto end = out.find("The steps below make these changes", begin);
  return out.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// What the since.changes of a JSON plan OUT name.
std::vector<std::string> changed_variables(const std::string& out) {
  const nlohmann::json plan = nlohmann::json::parse(out);
  std::vector<std::string> names;
  for (const auto& c : plan.at("since").at("changes")) names.push_back(c.at("variable").get<std::string>());
  return names;
}

}  // namespace

TEST_CASE("plan after an upgrade names the defaults that changed since the machine was provisioned, and why" *
          needs_root()) {
  FakeWslRoot root;
  wslgpu::testing::TempDir profiles;
  profiles.write("old/release-demo.toml", wslgpu::testing::release_demo_profile("1.0"));
  profiles.write("new/release-demo.toml", wslgpu::testing::release_demo_profile("2.0"));
  const std::string old_profile = profiles.path() + "/old/release-demo.toml";
  const std::string new_profile = profiles.path() + "/new/release-demo.toml";

  RunResult installed = run_tool(on(root, {"install", old_profile, "--yes", "--output", "json"}));
  REQUIRE(installed.exit_code == 0);
  const std::string id = nlohmann::json::parse(installed.out)["transaction_id"].get<std::string>();

  // The same defaults: nothing to say.
  RunResult same = run_tool(on(root, {"plan", old_profile}));
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("its defaults changed") == std::string::npos);

  auto before = snapshot(root.path());
  RunResult text = run_tool(on(root, {"plan", new_profile}));
  CHECK(text.exit_code == 0);
  INFO(text.out);
  CHECK(text.out.find("Since transaction " + id + " (wslgpu-setup " WSLGPU_VERSION ", ") != std::string::npos);
  CHECK(text.out.find("provisioned this machine with this profile, its defaults changed:") != std::string::npos);
  CHECK(text.out.find("  release   1.0 -> 2.0  (the default at " + new_profile + ":7:11, its row [matrix.release.\"2.0\"])") !=
        std::string::npos);
  CHECK(text.out.find("  repo_dir  r10 -> r20  ([matrix.release.\"2.0\"] at " + new_profile + ":18:12)") !=
        std::string::npos);
  CHECK(text.out.find("[matrix.release.\"2.0\"]: Source: the vendor's 2.0 release notes, which moved the repository.") !=
        std::string::npos);
  CHECK(text.out.find("The steps below make these changes only when install runs") != std::string::npos);
  CHECK(text.out.find("-release 1.0 from r10") != std::string::npos);  // and the step that would make it so
  CHECK(text.out.find("+release 2.0 from r20") != std::string::npos);

  RunResult json = run_tool(on(root, {"plan", new_profile, "--output", "json"}));
  REQUIRE(json.exit_code == 0);
  auto since = nlohmann::json::parse(json.out)["since"];
  CHECK(since["transaction"] == id);
  CHECK(since["tool_version"] == WSLGPU_VERSION);
  REQUIRE(since["changes"].size() == 2);
  CHECK(since["changes"][0] == nlohmann::json{{"variable", "release"}, {"from", "1.0"}, {"to", "2.0"},
                                              {"where", new_profile + ":7:11"}, {"row", "[matrix.release.\"2.0\"]"},
                                              {"in_row", false},
                                              {"source", "Source: the vendor's 2.0 release notes, which moved the repository."}});
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");  // plan changed nothing

  // Asked for with --set now, the old release is what the user wants: no changed default.
  RunResult kept = run_tool(on(root, {"--set", "release=1.0", "plan", new_profile}));
  CHECK(kept.exit_code == 0);
  CHECK(kept.out.find("its defaults changed") == std::string::npos);
}

TEST_CASE("plan on a machine never provisioned with the profile compares with nothing") {
  FakeWslRoot root;
  wslgpu::testing::TempDir profiles;
  profiles.write("release-demo.toml", wslgpu::testing::release_demo_profile("2.0"));
  RunResult json = run_tool(on(root, {"plan", profiles.path() + "/release-demo.toml", "--output", "json"}));
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["since"].is_null());
}

TEST_CASE("plan for another user than the one the machine was provisioned for does not list the user's home as a "
          "changed default" * needs_root()) {
  FakeWslRoot root;
  root.write("/etc/passwd",
             "root:x:0:0:root:/root:/bin/bash\n"
             "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
             "bob:x:1001:1001:Bob,,,:/home/bob:/bin/bash\n");
  root.write("/etc/group", "root:x:0:\nalice:x:1000:\nbob:x:1001:\n");
  root.write("/home/bob/.keep", "");
  root.write("/usr/lib/wsl/drivers/u0123456.inf_amd64_0a1b2c3d4e5f6a7b/amdxc64.so", "");
  wslgpu::testing::TempDir profiles;
  MachineDemo demo = machine_demo(profiles);

  RunResult installed = run_tool(on(root, {"--user", "bob", "install", demo.old_profile, "--yes"}));
  REQUIRE(installed.exit_code == 0);

  RunResult text = run_tool(on(root, {"--user", "alice", "plan", demo.new_profile}));
  REQUIRE(text.exit_code == 0);
  INFO(text.out);
  // The profile's own change still shows: the comparison was made.
  const std::string section = defaults_changed_section(text.out);
  CHECK(section.find("  release ") != std::string::npos);
  CHECK(section.find("1.0 -> 2.0  (the default at " + demo.new_profile + ":7:11)") != std::string::npos);
  // bob's venv is alice's now because alice was asked for, not because the
  // profile changed its default.
  CHECK(section.find("venv") == std::string::npos);
  CHECK(section.find("/home/bob") == std::string::npos);
  // The plan itself does switch to alice's venv, as the steps say.
  CHECK(text.out.find("release 2.0 for alice in /home/alice/.venvs/demo") != std::string::npos);

  RunResult json = run_tool(on(root, {"--user", "alice", "plan", demo.new_profile, "--output", "json"}));
  REQUIRE(json.exit_code == 0);
  INFO(json.out);
  CHECK(changed_variables(json.out) == std::vector<std::string>{"release"});
}

TEST_CASE("plan after a distribution upgrade and a new GPU does not list the rows the machine now selects as changed "
          "defaults" * needs_root()) {
  FakeWslRoot root;
  root.write("/etc/os-release", "NAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nVERSION_CODENAME=jammy\nID=ubuntu\n");
  root.write("/usr/lib/wsl/drivers/u0123456.inf_amd64_0a1b2c3d4e5f6a7b/amdxc64.so", "");
  wslgpu::testing::TempDir profiles;
  MachineDemo demo = machine_demo(profiles);

  RunResult installed = run_tool(on(root, {"install", demo.old_profile, "--yes"}));
  REQUIRE(installed.exit_code == 0);

  // Ubuntu 22.04 upgraded to 24.04, and the AMD card swapped for an NVIDIA one.
  root.write("/etc/os-release", "NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\nID=ubuntu\n");
  std::filesystem::remove_all(root.path() + "/usr/lib/wsl/drivers");
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");

  RunResult text = run_tool(on(root, {"plan", demo.new_profile}));
  REQUIRE(text.exit_code == 0);
  INFO(text.out);
  const std::string section = defaults_changed_section(text.out);
  CHECK(section.find("  release ") != std::string::npos);
  CHECK(section.find("1.0 -> 2.0  (the default at " + demo.new_profile + ":7:11)") != std::string::npos);
  for (const char* machine_made : {"python", "runtime", "codename", "jammy", "3.10", "hip"}) {
    INFO(machine_made);
    CHECK(section.find(machine_made) == std::string::npos);
  }
  // The plan itself takes the rows of the machine as it is now.
  CHECK(text.out.find("python 3.12 on noble, cuda") != std::string::npos);

  RunResult json = run_tool(on(root, {"plan", demo.new_profile, "--output", "json"}));
  REQUIRE(json.exit_code == 0);
  INFO(json.out);
  CHECK(changed_variables(json.out) == std::vector<std::string>{"release"});
}
