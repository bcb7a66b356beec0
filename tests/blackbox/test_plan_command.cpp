// `wslgpu-setup plan` from outside, against fake WSL roots: its JSON, its
// exit statuses, and that it changes nothing on disk.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace wslgpu::blackbox;

namespace {

std::string manifest(const std::string& name) { return source_dir() + "/tests/blackbox/manifests/" + name + ".toml"; }

// The files converged.toml wants, as it wants them, owned by whoever runs the
// tests (and the manifest is told that owner with --set).
void converge(const FakeWslRoot& root) {
  root.write("/etc/motd", "GPU ready on noble\n", 0644);
  root.write("/etc/profile.d/wslgpu.sh", "export PATH=\"${PATH}:/usr/lib/wsl/lib\"\n", 0755);
}

std::vector<std::string> owner_sets() {
  return {"--set", "owner=" + std::to_string(::geteuid()), "--set", "group=" + std::to_string(::getegid())};
}

std::vector<std::string> plan_args(const FakeWslRoot& root, const std::string& manifest_name,
                                   std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--root", root.path()};
  if (manifest_name == "converged") {
    auto sets = owner_sets();
    args.insert(args.end(), sets.begin(), sets.end());
  }
  args.push_back("plan");
  args.push_back(manifest(manifest_name));
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

TEST_CASE("plan --output json prints one JSON document with the plan's fields") {
  FakeWslRoot root;
  RunResult r = run_tool(plan_args(root, "good", {"--output", "json"}));
  REQUIRE(r.exit_code == 0);
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
  CHECK(j["format_version"] == 1);
  CHECK(j["changes_pending"] == true);
  CHECK(j["manifest"]["name"] == "blackbox-good");
  CHECK(j["root"] == root.path());
  CHECK(j["host"]["kernel"] == "5.15.153.1-microsoft-standard-WSL2");
  CHECK(j["host"]["wsl"] == "2");
  CHECK(j["host"]["codename"] == "noble");
  CHECK(j["host"]["user"] == "alice");
  CHECK(j["host"]["windows_home"] == "/mnt/c/Users/alice");
  REQUIRE(j["steps"].is_array());
  REQUIRE(j["steps"].size() == 5);
  for (const auto& s : j["steps"]) {
    CHECK(s.contains("id"));
    CHECK(s.contains("kind"));
    CHECK(s.contains("action"));
    CHECK(s["changes"].is_array());
  }
  CHECK(j["steps"][0]["id"] == "motd");
  CHECK(j["steps"][0]["kind"] == "file");
  CHECK(j["steps"][0]["action"] == "change");
  REQUIRE(j["steps"][0]["changes"].size() == 1);
  CHECK(j["steps"][0]["changes"][0]["type"] == "file");
  CHECK(j["steps"][0]["changes"][0]["action"] == "create");
  CHECK(j["steps"][0]["changes"][0]["path"] == "/etc/motd");
  CHECK(j["steps"][0]["changes"][0]["diff"] == "--- /dev/null\n+++ /etc/motd\n@@ -0,0 +1 @@\n+GPU ready on ubuntu noble\n");
  CHECK(j["steps"][1]["name"] == "PATH for the WSL driver tools");
  CHECK(j["steps"][1]["changes"][0]["mode"] == "0755");
  CHECK(j["steps"][2]["id"] == "nvidia-only");
  CHECK(j["steps"][2]["action"] == "skipped");
  CHECK(j["steps"][2]["changes"].empty());
  CHECK(j["steps"][3]["kind"] == "check");
  CHECK(j["steps"][3]["action"] == "verify");
  CHECK(j["steps"][4]["action"] == "verify");
}

TEST_CASE("plan sees /dev/dxg when it is a character device" * needs_root()) {
  FakeWslRoot root;
  REQUIRE_MESSAGE(root.dxg_is_device(), "only root can make /dev/dxg a character device");
  RunResult r = run_tool(plan_args(root, "good", {"--output", "json"}));
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["host"]["dxg"] == true);
  CHECK(j["steps"][3]["details"][0] == "holds (with the changes above)");
}

TEST_CASE("plan does not take a regular file at /dev/dxg for the device") {
  // Whoever runs the tests: a regular file is what an unprivileged user can put there.
  FakeWslRoot fake_device;
  std::filesystem::remove(fake_device.path() + "/dev/dxg");
  fake_device.write("/dev/dxg", "", 0666);
  auto k = nlohmann::json::parse(run_tool(plan_args(fake_device, "good", {"--output", "json"})).out);
  CHECK(k["host"]["dxg"] == false);
  CHECK(k["steps"][3]["details"][0] == "would fail: /dev/dxg is a file, not a char_device");
}

TEST_CASE("plan --detailed-exitcode exits 10 when changes are pending") {
  FakeWslRoot root;
  RunResult r = run_tool(plan_args(root, "converged", {"--detailed-exitcode"}));
  CHECK(r.exit_code == 10);
  CHECK(r.out.find("Plan: 2 changes, 1 already done, 1 check. Nothing has been changed.\n") != std::string::npos);
  // Without the flag, pending changes are not an error.
  CHECK(run_tool(plan_args(root, "converged")).exit_code == 0);
}

TEST_CASE("plan --detailed-exitcode exits 3, not 10, when install would refuse") {
  FakeWslRoot root;
  root.write("/proc/sys/kernel/osrelease", "4.4.0-19041-Microsoft\n");  // WSL1: a machine guard refuses
  RunResult r = run_tool(plan_args(root, "converged", {"--detailed-exitcode"}));
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.out.find("WSL1") != std::string::npos);
  // Without the flag too: a refused plan is never read as a good one.
  CHECK(run_tool(plan_args(root, "converged")).exit_code == 3);
}

TEST_CASE("plan --detailed-exitcode exits 0 on a machine that already matches") {
  FakeWslRoot root;
  converge(root);
  RunResult r = run_tool(plan_args(root, "converged", {"--detailed-exitcode"}));
  INFO(r.out, r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("Plan: 0 changes, 3 already done, 1 check. Nothing has been changed.\n") != std::string::npos);
  CHECK(r.out.find("The machine already matches this profile.\n") != std::string::npos);
  RunResult j = run_tool(plan_args(root, "converged", {"--detailed-exitcode", "--output", "json"}));
  CHECK(j.exit_code == 0);
  CHECK(nlohmann::json::parse(j.out)["changes_pending"] == false);
}

TEST_CASE("plan --detailed-exitcode exits 10 when only a mode differs") {
  FakeWslRoot root;
  converge(root);
  root.write("/etc/profile.d/wslgpu.sh", "export PATH=\"${PATH}:/usr/lib/wsl/lib\"\n", 0644);
  RunResult r = run_tool(plan_args(root, "converged", {"--detailed-exitcode"}));
  CHECK(r.exit_code == 10);
  CHECK(r.out.find("mode 0644 -> 0755\n") != std::string::npos);
}

TEST_CASE("plan changes nothing under the root, whatever it would change") {
  FakeWslRoot root;
  root.write("/etc/motd", "an older message\n");
  root.write("/etc/apt/sources.list.d/old.list", "deb http://example.invalid/ubuntu noble main\n");
  auto before = snapshot(root.path());
  for (const auto& name : {"good", "converged"}) {
    for (std::vector<std::string> extra : {std::vector<std::string>{}, {"--output", "json"}, {"--detailed-exitcode"}}) {
      RunResult r = run_tool(plan_args(root, name, extra));
      CHECK((r.exit_code == 0 || r.exit_code == 10));
    }
  }
  run_tool({"--root", root.path(), "validate", manifest("good")});
  auto after = snapshot(root.path());
  CHECK_MESSAGE(before == after, snapshot_difference(before, after));
}

TEST_CASE("the text plan names the machine and has no colour codes when not on a terminal") {
  FakeWslRoot root;
  RunResult r = run_tool(plan_args(root, "good"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find("wslgpu-setup " WSLGPU_VERSION " · profile blackbox-good (black-box test manifest) · root " +
                   root.path() + " · user alice\n") == 0);
  CHECK(r.out.find("Machine: WSL2 kernel 5.15.153.1-microsoft-standard-WSL2 · /dev/dxg ") != std::string::npos);
  CHECK(r.out.find("ubuntu 24.04 (noble) · Windows home /mnt/c/Users/alice\n") != std::string::npos);
  CHECK(r.out.find("  1  file   motd         change   create /etc/motd\n") != std::string::npos);
  CHECK(r.out.find("  3  file   nvidia-only  skipped  skipped: host.gpu_vendor == 'nvidia' is false\n") !=
        std::string::npos);
  CHECK(r.out.find("+GPU ready on ubuntu noble\n") != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("plan of a broken manifest exits 2 and prints every error") {
  FakeWslRoot root;
  RunResult r = run_tool({"--root", root.path(), "plan", source_dir() + "/tests/broken/check_two_subjects.toml"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: " + source_dir() +
                     "/tests/broken/check_two_subjects.toml:9:14: a check has one subject, and this one already has "
                     "\"path\": put \"kernel_min\" in a check step of its own\n");
}
