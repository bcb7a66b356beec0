// The json_file step from outside, on Docker's /etc/docker/daemon.json in a
// fake WSL root: a malformed file stops plan and install as bad input (exit 2)
// with FILE:LINE:COLUMN and the machine untouched, and doctor reads the file
// by the same rule; a good one gets NVIDIA's runtime added with the
// rest byte for byte, and rollback gives the file back as it was.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

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

const std::string kLeftAsItIs =
    "\nThe file is left as it is: fix it by hand (or move it away), then run again. Nothing was changed.\n";

TEST_CASE("json_file: plan on a malformed daemon.json is bad input: exit 2 naming FILE:LINE:COLUMN, nothing changed") {
  FakeWslRoot root;
  root.write("/etc/docker/daemon.json", kTrailingComma);
  std::string m = daemon_runtime_manifest(root);
  auto before = snapshot(root.path());
  RunResult r = run_tool({"--root", root.path(), "plan", m});
  INFO(r.out, r.err);
  // As a malformed manifest: the file is the user's input (it was exit 3, a refused plan).
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: " + kMalformedSays + kLeftAsItIs);
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");
  std::filesystem::remove(m);
}

TEST_CASE("json_file: install on a malformed daemon.json stops before any change, exit 2" * needs_root()) {
  FakeWslRoot root;
  root.write("/etc/docker/daemon.json", kTrailingComma);
  std::string m = daemon_runtime_manifest(root);
  auto before = outside_state_without_times(snapshot(root.path()));
  RunResult r = run_tool({"--root", root.path(), "install", m, "--yes"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: " + kMalformedSays + kLeftAsItIs);
  CHECK(snapshot_difference(before, outside_state_without_times(snapshot(root.path()))) == "");
  std::filesystem::remove(m);
}

// One reading rule through both doors (installer/formats/json_text.hpp,
// read_json_object): what plan refuses to edit, doctor does not call valid.
TEST_CASE("json_file and doctor agree on a daemon.json with a byte-order mark or a key given twice") {
  FakeWslRoot root;
  root.write("/var/lib/dpkg/status",
             "Package: docker-ce\nStatus: install ok installed\nArchitecture: amd64\n"
             "Version: 5:28.3.2-1~ubuntu.24.04~noble\n\n");
  std::string m = daemon_runtime_manifest(root);
  struct Case {
    std::string text, where, message;
  };
  const std::vector<Case> cases = {
      {"\xEF\xBB\xBF{\"log-driver\": \"json-file\"}\n", "1:1",
       "the file starts with a UTF-8 byte-order mark, which JSON does not allow (RFC 8259, section 8.1) and Go's "
       "encoding/json refuses: save it without one"},
      {"{\n  \"debug\": true,\n  \"debug\": false\n}\n", "3:3",
       "key \"debug\" appears twice in this object (first at line 2, column 3); JSON readers disagree on which one "
       "counts: remove one of them"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.where);
    root.write("/etc/docker/daemon.json", c.text);
    auto before = snapshot(root.path());
    RunResult plan = run_tool({"--root", root.path(), "plan", m});
    CHECK(plan.exit_code == 2);
    CHECK(plan.err == "error: /etc/docker/daemon.json:" + c.where + ": " + c.message + kLeftAsItIs);

    RunResult doctor = run_tool({"--root", root.path(), "doctor", "--output", "json"});
    nlohmann::json f = doctor_finding(doctor, "containers.daemon-json");
    CHECK(f["status"] == "warn");
    std::string line = c.where.substr(0, c.where.find(':')), column = c.where.substr(c.where.find(':') + 1);
    CHECK(f["seen"] ==
          "/etc/docker/daemon.json is not strict JSON: line " + line + ", column " + column + ": " + c.message);
    CHECK(snapshot_difference(before, snapshot(root.path())) == "");
  }
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
