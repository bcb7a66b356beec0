// The json_file step from outside, on Docker's /etc/docker/daemon.json in a
// fake WSL root: a malformed file stops plan and install with FILE:LINE:COLUMN
// and the machine untouched; a good one gets NVIDIA's runtime added with the
// rest byte for byte, and rollback gives the file back as it was.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace wslgpu::blackbox;

namespace {

const char* kDaemonRuntimeManifest = R"([manifest]
name = "docker-runtime"
description = "NVIDIA's runtime in daemon.json"
schema_version = 1

[[step]]
id = "docker-nvidia-runtime"
kind = "json_file"
path = "/etc/docker/daemon.json"
merge.runtimes.nvidia = { path = "nvidia-container-runtime", args = [] }
)";

// The manifest, next to the root (not in it, so that snapshots of the root
// see only what the tool does).
std::string daemon_runtime_manifest(const FakeWslRoot& root) {
  std::string path = root.path() + "/../docker-runtime.toml";
  std::ofstream(path) << kDaemonRuntimeManifest;
  return std::filesystem::weakly_canonical(path).string();
}

std::string daemon_json_of(const FakeWslRoot& root) {
  std::ifstream in(root.path() + "/etc/docker/daemon.json", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const std::string kTrailingComma = "{\n  \"log-driver\": \"json-file\",\n}\n";
const std::string kMalformedSays = "/etc/docker/daemon.json:3:1: a comma before '}' is not allowed in JSON: remove it";

}  // namespace

TEST_CASE("json_file: plan on a malformed daemon.json names FILE:LINE:COLUMN, exits 3 and changes nothing") {
  FakeWslRoot root;
  root.write("/etc/docker/daemon.json", kTrailingComma);
  std::string m = daemon_runtime_manifest(root);
  auto before = snapshot(root.path());
  RunResult r = run_tool({"--root", root.path(), "plan", m});
  INFO(r.out, r.err);
  // As a malformed .wslconfig: the step cannot be planned, so the plan is refused.
  CHECK(r.exit_code == 3);
  CHECK(r.out.find("refused  cannot be planned: " + kMalformedSays) != std::string::npos);
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");
  std::filesystem::remove(m);
}

TEST_CASE("json_file: install on a malformed daemon.json stops before any change, exit 3" * needs_root()) {
  FakeWslRoot root;
  root.write("/etc/docker/daemon.json", kTrailingComma);
  std::string m = daemon_runtime_manifest(root);
  auto before = outside_state_without_times(snapshot(root.path()));
  RunResult r = run_tool({"--root", root.path(), "install", m, "--yes"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find(kMalformedSays) != std::string::npos);
  CHECK(r.err.find("Nothing was changed (exit 3).") != std::string::npos);
  CHECK(snapshot_difference(before, outside_state_without_times(snapshot(root.path()))) == "");
  std::filesystem::remove(m);
}

TEST_CASE("json_file: install adds NVIDIA's runtime keeping the rest, a rerun writes nothing, rollback restores it" *
          needs_root()) {
  FakeWslRoot root;
  const std::string before_text = "{\n  \"log-driver\": \"json-file\",\n  \"log-opts\": {\"max-size\": \"10m\"}\n}";
  root.write("/etc/docker/daemon.json", before_text, 0600);
  std::string m = daemon_runtime_manifest(root);
  auto before = outside_state_without_times(snapshot(root.path()));

  RunResult r = run_tool({"--root", root.path(), "install", m, "--yes", "--output", "json"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(daemon_json_of(root) ==
        "{\n  \"log-driver\": \"json-file\",\n  \"log-opts\": {\"max-size\": \"10m\"},\n  \"runtimes\": {\n"
        "    \"nvidia\": {\n      \"args\": [],\n      \"path\": \"nvidia-container-runtime\"\n    }\n  }\n}");
  std::string id = nlohmann::json::parse(r.out)["transaction_id"];

  RunResult again = run_tool({"--root", root.path(), "plan", m});
  INFO(again.out);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("already set: runtimes.nvidia.args, runtimes.nvidia.path") != std::string::npos);

  RunResult back = run_tool({"--root", root.path(), "rollback", id, "--yes"});
  CHECK(back.exit_code == 0);
  CHECK(daemon_json_of(root) == before_text);
  CHECK(snapshot_difference(before, outside_state_without_times(snapshot(root.path()))) == "");
  std::filesystem::remove(m);
}
