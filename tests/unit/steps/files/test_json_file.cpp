#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "installer/manifest/manifest.hpp"
#include "installer/planner/planner.hpp"
#include "installer/system/error.hpp"
#include "installer/transaction/journal.hpp"
#include "installer/transaction/transaction.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const std::string kDaemonJson = "/etc/docker/daemon.json";

// The step a containers profile writes for docker-ce.
const char* kNvidiaRuntimeStep = R"(
kind = "json_file"
path = "/etc/docker/daemon.json"
merge.runtimes.nvidia = { path = "nvidia-container-runtime", args = [] }
)";

struct DaemonJsonMachine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepPlan plan(const Step& step) {
    StepContext ctx{fs, runner, host, "containers"};
    return step.plan(ctx);
  }
};

}  // namespace

TEST_CASE(
    "json_file: a missing daemon.json is created as nvidia-ctk writes it, 0644 root, and the plan says what it adds") {
  DaemonJsonMachine m;
  auto plan = m.plan(*build_ok(kNvidiaRuntimeStep));
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == "create /etc/docker/daemon.json: add runtimes");
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == kDaemonJson);
  CHECK(*plan.writes[0].content ==
        "{\n    \"runtimes\": {\n        \"nvidia\": {\n            \"args\": [],\n            \"path\": "
        "\"nvidia-container-runtime\"\n        }\n    }\n}\n");
  CHECK(plan.writes[0].attrs.mode == 0644);
  CHECK(plan.writes[0].attrs.uid == 0);
  REQUIRE_FALSE(plan.details.empty());
  CHECK(plan.details[0] == "add runtimes = {\"nvidia\":{\"args\":[],\"path\":\"nvidia-container-runtime\"}}");
  CHECK(m.fs.writes == 0);
}

TEST_CASE("json_file: keys the file lacks are added, everything else stays, and it keeps its mode and owner") {
  DaemonJsonMachine m;
  const std::string before =
      "{\n  \"log-driver\": \"json-file\",\n  \"runtimes\": {\n    \"crun\": {\"path\": \"crun\"}\n  }\n}\n";
  m.fs.add_file(kDaemonJson, before, 0600, 0, 999);
  auto plan = m.plan(*build_ok(std::string(kNvidiaRuntimeStep) + "mode = \"0640\"\n"));
  CHECK(plan.summary == "update /etc/docker/daemon.json: add runtimes.nvidia");
  REQUIRE(plan.writes.size() == 1);
  CHECK(
      *plan.writes[0].content ==
      "{\n  \"log-driver\": \"json-file\",\n  \"runtimes\": {\n    \"crun\": {\"path\": \"crun\"},\n    \"nvidia\": {\n"
      "      \"args\": [],\n      \"path\": \"nvidia-container-runtime\"\n    }\n  }\n}\n");
  CHECK(plan.writes[0].attrs.mode == 0600);  // mode is for a file the step creates
  CHECK(plan.writes[0].attrs.gid == 999);
  REQUIRE(plan.changes.size() == 2);
  CHECK(plan.changes[0]["type"] == "file");
  CHECK(plan.changes[1] ==
        nlohmann::json{{"type", "json"},
                       {"path", kDaemonJson},
                       {"key", "runtimes.nvidia"},
                       {"action", "add"},
                       {"to", {{"args", nlohmann::json::array()}, {"path", "nvidia-container-runtime"}}}});
}

TEST_CASE("json_file: an already configured daemon.json is not written, and the plan says the keys are set") {
  DaemonJsonMachine m;
  m.fs.add_file(kDaemonJson,
                "{\n    \"runtimes\": {\n        \"nvidia\": {\n            \"path\": \"nvidia-container-runtime\",\n"
                "            \"args\": []\n        }\n    }\n}\n");
  auto plan = m.plan(*build_ok(kNvidiaRuntimeStep));
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.writes.empty());
  CHECK(plan.summary == "/etc/docker/daemon.json is as wanted");
  CHECK(plan.details == std::vector<std::string>{"already set: runtimes.nvidia.args, runtimes.nvidia.path"});
}

TEST_CASE("json_file: a value that differs is changed, and the plan shows from what to what") {
  DaemonJsonMachine m;
  m.fs.add_file(kDaemonJson, "{\"default-runtime\": \"runc\"}\n");
  auto plan = m.plan(*build_ok(R"(
kind = "json_file"
path = "/etc/docker/daemon.json"
merge = { default-runtime = "nvidia" }
)"));
  CHECK(plan.summary == "update /etc/docker/daemon.json: change default-runtime");
  CHECK(plan.details[0] == "change default-runtime from \"runc\" to \"nvidia\"");
}

TEST_CASE("json_file: ${...} in merge's strings is substituted") {
  std::vector<Diagnostic> d;
  auto step = build_step(R"(
kind = "json_file"
path = "/etc/docker/daemon.json"
merge.runtimes.nvidia = { path = "${runtime_path}", args = ["--debug", "${level}"] }
)",
                         d, Variables{{"runtime_path", "/usr/bin/nvidia-container-runtime"}, {"level", "2"}});
  REQUIRE(d.empty());
  DaemonJsonMachine m;
  m.fs.add_file(kDaemonJson, "{}");
  auto plan = m.plan(*step);
  CHECK(*plan.writes[0].content ==
        "{\n    \"runtimes\": {\n        \"nvidia\": {\n            \"args\": [\n                \"--debug\",\n"
        "                \"2\"\n            ],\n            \"path\": \"/usr/bin/nvidia-container-runtime\"\n"
        "        }\n    }\n}");
}

TEST_CASE("json_file: a variable that is not UTF-8 in merge is an error when the manifest loads") {
  std::vector<Diagnostic> d;
  build_step("kind = \"json_file\"\npath = \"/etc/docker/daemon.json\"\nmerge = { a = \"${x}\" }\n", d,
             Variables{{"x", "\xFF"}});
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == "m.toml:3:9: a string in \"merge\" is not valid UTF-8 (a --set value?); JSON text must be UTF-8");
}

TEST_CASE("json_file: a malformed daemon.json stops the plan with FILE:LINE:COLUMN and is not touched") {
  DaemonJsonMachine m;
  const std::string before = "{\n  \"debug\": true,\n}\n";
  m.fs.add_file(kDaemonJson, before);
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kNvidiaRuntimeStep)),
                       "/etc/docker/daemon.json:3:1: a comma before '}' is not allowed in JSON: remove it\nThe file is "
                       "left as it is: fix it by hand (or move it away), then run again. Nothing was changed.",
                       InputError);
  CHECK(m.fs.read(kDaemonJson) == before);
  CHECK(m.fs.writes == 0);
}

TEST_CASE("json_file: \"runtimes\": [] stops the plan naming the key path and where its value is") {
  DaemonJsonMachine m;
  m.fs.add_file(kDaemonJson, "{\n  \"runtimes\": []\n}\n");
  CHECK_THROWS_WITH_AS(
      m.plan(*build_ok(kNvidiaRuntimeStep)),
      "/etc/docker/daemon.json:2:15: runtimes is an array, not an object, so runtimes.nvidia cannot be "
      "merged into it (replacing it would lose what it holds): make it an object, or remove it, then "
      "run again\nThe file is left as it is: fix it by hand (or move it away), then run again. "
      "Nothing was changed.",
      InputError);
  CHECK(m.fs.writes == 0);
}

TEST_CASE("json_file: a folder where the file should be refuses, and a link is refused by its guard") {
  DaemonJsonMachine m;
  m.fs.add_dir(kDaemonJson);
  auto plan = m.plan(*build_ok(kNvidiaRuntimeStep));
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary == "/etc/docker/daemon.json exists but is not a regular file; move it away, then run again");

  // Links are real only on a real file system.
  TempDir root;
  root.write("etc/shadow", "root:*:1::::::\n");
  std::filesystem::create_directories(root.path() + "/etc/docker");
  std::filesystem::create_symlink("/etc/shadow", root.path() + "/etc/docker/daemon.json");
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "containers"};
  CHECK_THROWS_WITH_AS(build_ok(kNvidiaRuntimeStep)->plan(ctx),
                       doctest::Contains("refused by guard no-writes-through-links: /etc/docker/daemon.json is a "
                                         "symbolic link to /etc/shadow"),
                       Refusal);
}

TEST_CASE("json_file: its keys are checked when the manifest loads, with FILE:LINE:COLUMN") {
  CHECK(build_errors("kind = \"json_file\"\npath = \"etc/docker/daemon.json\"\nmerge = { debug = true }\n") ==
        "m.toml:2:8: path \"etc/docker/daemon.json\" is not absolute (it must start with /)");
  CHECK(build_errors("kind = \"json_file\"\npath = \"/etc/docker/daemon.json\"\nmerge = \"runtimes\"\n") ==
        "m.toml:3:9: \"merge\" must be a table of the keys to set, such as merge.runtimes.nvidia = { path = "
        "\"nvidia-container-runtime\", args = [] }, not a string");
  CHECK(build_errors("kind = \"json_file\"\npath = \"/etc/docker/daemon.json\"\nmerge = {}\n") ==
        "m.toml:3:9: \"merge\" must be a table of the keys to set, such as merge.runtimes.nvidia = { path = "
        "\"nvidia-container-runtime\", args = [] }, not an empty table");
  CHECK(build_errors("kind = \"json_file\"\npath = \"/etc/docker/daemon.json\"\n") ==
        "m.toml:1:1: step kind \"json_file\" needs the key \"merge\", a table of the keys to set, such as "
        "merge.runtimes.nvidia = { path = \"nvidia-container-runtime\", args = [] }");
  CHECK(build_errors("kind = \"json_file\"\npath = \"/etc/docker/daemon.json\"\nmerge.a = { when = 1979-05-27, "
                     "n = [nan] }\n") ==
        "m.toml:3:20: \"merge.a.when\" is a date or time, which JSON has no form for: write it as a string\n"
        "m.toml:3:37: \"merge.a.n[0]\" is nan, which JSON cannot hold: write a number");
  CHECK(build_errors(std::string(kNvidiaRuntimeStep) + "mode = 644\n") ==
        "m.toml:5:8: \"mode\" must be an octal mode written as a string, such as \"0644\", not an integer (TOML reads "
        "644 as a decimal number)");
}

TEST_CASE("json_file: install through a transaction, then rollback, leaves daemon.json byte for byte as it was") {
  TempDir root;
  const std::string before = "{\r\n  \"log-driver\": \"json-file\",\r\n  \"log-opts\": {\"max-size\": \"10m\"}\r\n}";
  root.write("etc/docker/daemon.json", before);
  std::filesystem::permissions(root.path() + "/etc/docker/daemon.json", std::filesystem::perms(0600));
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  host.root = root.path();
  Manifest manifest = load_manifest({"t.toml", R"(
[manifest]
name = "t"
schema_version = 1
[[step]]
id = "docker-nvidia-runtime"
kind = "json_file"
path = "/etc/docker/daemon.json"
merge.runtimes.nvidia = { path = "nvidia-container-runtime", args = [] }
)",
                                     false},
                                    {}, host);
  Plan plan = resolve_plan(manifest, "t.toml", fs, runner, host);
  Transactions tx(fs, runner, host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(manifest, plan, nlohmann::json::object(), {});
  REQUIRE_FALSE(r.failed);
  CHECK(r.changed);
  CHECK(
      fs.read("/etc/docker/daemon.json") ==
      "{\r\n  \"log-driver\": \"json-file\",\r\n  \"log-opts\": {\"max-size\": \"10m\"},\r\n  \"runtimes\": {\r\n"
      "    \"nvidia\": {\r\n      \"args\": [],\r\n      \"path\": \"nvidia-container-runtime\"\r\n    }\r\n  }\r\n}");

  // A second plan finds it converged.
  Plan again = resolve_plan(manifest, "t.toml", fs, runner, host);
  CHECK(again.steps[0].plan.verdict == Verdict::noop);

  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  CHECK(tx.rollback(j, manifest, {}) == std::vector<std::string>{"docker-nvidia-runtime"});
  CHECK(fs.read("/etc/docker/daemon.json") == before);
  CHECK(fs.stat("/etc/docker/daemon.json")->mode == 0600);
}

TEST_CASE("json_file: rollback of an install that created daemon.json removes it") {
  TempDir root;
  root.write("etc/hostname", "wsl\n");
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  host.root = root.path();
  Manifest manifest = load_manifest({"t.toml", std::string(R"(
[manifest]
name = "t"
schema_version = 1
[[step]]
id = "docker-nvidia-runtime"
)") + kNvidiaRuntimeStep,
                                     false},
                                    {}, host);
  Plan plan = resolve_plan(manifest, "t.toml", fs, runner, host);
  Transactions tx(fs, runner, host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(manifest, plan, nlohmann::json::object(), {});
  REQUIRE_FALSE(r.failed);
  CHECK(fs.stat("/etc/docker/daemon.json")->mode == 0644);
  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  tx.rollback(j, manifest, {});
  CHECK_FALSE(fs.stat("/etc/docker/daemon.json"));
}

namespace {

// A root with an administrator's daemon.json, a manifest whose json_file
// step restarts docker, and a systemctl that remembers what daemon.json held
// each time it was asked: what a restarted dockerd would have read.
struct RestartingDocker {
  TempDir root;
  const std::string before = "{\n  \"log-driver\": \"json-file\"\n}\n";
  RootedFileSystem fs{root.path()};
  FakeProcessRunner runner;
  HostFacts host;
  std::vector<std::string> systemctl;  // "restart docker: <daemon.json then>"
  Manifest manifest;
  Transactions tx{fs, runner, host, "/var/lib/wslgpu-setup"};

  explicit RestartingDocker(bool systemd, int restart_exit = 0) {
    root.write("etc/docker/daemon.json", before);
    host.root = root.path();
    host.systemd = systemd;
    runner.on({"systemctl"}, [this, restart_exit](const Command& c) {
      systemctl.push_back(c.argv[1] + " " + c.argv[2] + ": " + fs.read(kDaemonJson));
      ProcessResult r;
      r.exit_code = c.argv[1] == "restart" ? restart_exit : 0;
      if (r.exit_code != 0) r.err = "Job for docker.service failed because the control process exited with error code.";
      return r;
    });
    manifest = load_manifest({"t.toml", std::string(R"(
[manifest]
name = "t"
schema_version = 1
[[step]]
id = "docker-nvidia-runtime"
)") + kNvidiaRuntimeStep + "restart = \"docker\"\n",
                              false},
                             {}, host);
  }
  Plan plan() { return resolve_plan(manifest, "t.toml", fs, runner, host); }
  // Rolls transaction ID back; returns what the rollback said of each step.
  std::vector<std::string> rollback_saying(const std::string& id) {
    Journal j = Journal::open(tx.tx_root(), id);
    std::vector<std::string> said;
    RunCallbacks callbacks;
    callbacks.step_undone = [&](const std::string& step, const std::string& what) { said.push_back(step + ": " + what); };
    CHECK(tx.rollback(j, manifest, callbacks) == std::vector<std::string>{"docker-nvidia-runtime"});
    return said;
  }
};

}  // namespace

TEST_CASE("json_file: restart = \"docker\" restarts it once the file is written, and a rollback restarts it again "
          "once the file is back") {
  RestartingDocker m(true);
  Plan plan = m.plan();
  REQUIRE(plan.steps.size() == 1);
  const StepPlan& p = plan.steps[0].plan;
  CHECK(p.verdict == Verdict::change);
  CHECK(std::find(p.details.begin(), p.details.end(),
                  "then restart docker (`systemctl restart docker`), which reads /etc/docker/daemon.json only when it "
                  "starts; a rollback restarts it again once the file is back") != p.details.end());
  CHECK(p.changes.back() == nlohmann::json{{"type", "service"}, {"unit", "docker"}, {"action", "restart"}});
  CHECK(m.systemctl.empty());  // the plan ran nothing

  RunResult r = m.tx.run(m.manifest, plan, nlohmann::json::object(), {});
  REQUIRE_FALSE(r.failed);
  const std::string after = m.fs.read(kDaemonJson);
  REQUIRE(after != m.before);
  CHECK(m.systemctl == std::vector<std::string>{"restart docker: " + after});

  // Converged: nothing to write, so nothing to restart.
  Plan again = m.plan();
  CHECK(again.steps[0].plan.verdict == Verdict::noop);
  CHECK(m.systemctl.size() == 1);

  const std::vector<std::string> said = m.rollback_saying(r.transaction_id);
  CHECK(m.fs.read(kDaemonJson) == m.before);
  CHECK(m.systemctl == std::vector<std::string>{"restart docker: " + after, "try-restart docker: " + m.before});
  CHECK(said == std::vector<std::string>{"docker-nvidia-runtime: restored /etc/docker/daemon.json; restarted docker"});
}

TEST_CASE("json_file: a restart that fails rolls the file back and restarts the service on the file as it was") {
  RestartingDocker m(true, 1);
  RunResult r = m.tx.run(m.manifest, m.plan(), nlohmann::json::object(), {});
  CHECK(r.failed);
  CHECK(r.error.find("`systemctl restart docker` exited 1:\n  Job for docker.service failed") != std::string::npos);
  CHECK(m.fs.read(kDaemonJson) == m.before);
  REQUIRE(m.systemctl.size() == 2);
  CHECK(m.systemctl[1] == "try-restart docker: " + m.before);
}

TEST_CASE("json_file: without systemd nothing is restarted, and the plan says to restart the service by hand") {
  RestartingDocker m(false);
  Plan plan = m.plan();
  const StepPlan& p = plan.steps[0].plan;
  CHECK(std::find(p.details.begin(), p.details.end(),
                  "docker is not restarted: systemd does not run this distribution. docker reads "
                  "/etc/docker/daemon.json when it starts: restart it yourself (sudo service docker restart)") !=
        p.details.end());
  CHECK(p.changes.back().value("type", "") == "json");
  RunResult r = m.tx.run(m.manifest, plan, nlohmann::json::object(), {});
  REQUIRE_FALSE(r.failed);
  Journal j = Journal::open(m.tx.tx_root(), r.transaction_id);
  m.tx.rollback(j, m.manifest, {});
  CHECK(m.fs.read(kDaemonJson) == m.before);
  CHECK(m.systemctl.empty());
}

TEST_CASE("json_file: restart must name a systemd service, never something systemctl would read as an option") {
  CHECK(build_errors(std::string(kNvidiaRuntimeStep) + "restart = \"--now\"\n") ==
        "m.toml:5:11: \"restart\" must name a systemd service, such as \"docker\" (letters, digits and \":_.@-\", not "
        "starting with '-'), not \"--now\"");
  CHECK(build_errors(std::string(kNvidiaRuntimeStep) + "restart = \"docker daemon\"\n") ==
        "m.toml:5:11: \"restart\" must name a systemd service, such as \"docker\" (letters, digits and \":_.@-\", not "
        "starting with '-'), not \"docker daemon\"");
  CHECK(build_ok(std::string(kNvidiaRuntimeStep) + "restart = \"docker.service\"\n"));
}

TEST_CASE("json_file: a rollback after systemd was turned off restores the file and says to restart the service") {
  RestartingDocker m(true);
  RunResult r = m.tx.run(m.manifest, m.plan(), nlohmann::json::object(), {});
  REQUIRE_FALSE(r.failed);
  m.host.systemd = false;  // [boot] systemd=false and a WSL restart since
  const std::vector<std::string> said = m.rollback_saying(r.transaction_id);
  CHECK(m.fs.read(kDaemonJson) == m.before);
  CHECK(m.systemctl.size() == 1);  // the install's restart only
  CHECK(said == std::vector<std::string>{"docker-nvidia-runtime: restored /etc/docker/daemon.json; docker not restarted: "
                                         "systemd does not run this distribution now; restart it yourself"});
}
