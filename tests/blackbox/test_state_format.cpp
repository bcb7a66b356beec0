// State that survives upgrades, from outside: a run records its state
// format; state of a newer format (a newer tool's) is refused by every
// command that reads it, with exit 2 and nothing changed; a saved plan of
// another tool version is refused as stale (exit 3). install needs root, so
// these tests are in the needs-root suite (harness.hpp).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace wslgpu::blackbox;

namespace {

std::string state_test_manifest() { return source_dir() + "/tests/blackbox/manifests/install.toml"; }

std::vector<std::string> rooted(const FakeWslRoot& root, std::vector<std::string> rest) {
  std::vector<std::string> out = {"--root", root.path()};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void overwrite(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

// Installs the test manifest and returns the transaction's id.
std::string installed_transaction(const FakeWslRoot& root) {
  RunResult r = run_tool(rooted(root, {"install", state_test_manifest(), "--yes", "--output", "json"}));
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["transaction_id"].get<std::string>();
}

// Every command that reads the state, on ROOT whose state a newer tool
// wrote: each exits 2 naming FORMAT, and nothing under ROOT changes, the
// state folder and the modification times included.
void every_reader_refuses(const FakeWslRoot& root, const std::string& id, const std::string& named) {
  auto before = snapshot(root.path());
  const std::vector<std::vector<std::string>> commands = {
      {"history"},
      {"history", id},
      {"plan", state_test_manifest()},
      {"install", state_test_manifest(), "--yes"},
      {"rollback", id, "--yes"},
      {"recover", "--rollback", "--yes"},
  };
  for (const auto& command : commands) {
    CAPTURE(command.front());
    CAPTURE(command.size());
    RunResult r = run_tool(rooted(root, command));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(named) != std::string::npos);
    CHECK(r.err.find("; this is wslgpu-setup ") != std::string::npos);
    CHECK(r.err.find("so it does not read it rather than misread it") != std::string::npos);
    CHECK(r.err.find("sudo apt install --only-upgrade wslgpu-setup") != std::string::npos);
    CHECK(snapshot_difference(before, snapshot(root.path())) == "");
  }
}

}  // namespace

TEST_CASE("a run stamps the state folder and its begin record with the state format" * needs_root()) {
  FakeWslRoot root;
  std::string id = installed_transaction(root);
  auto stamp = nlohmann::json::parse(file_text(root.path() + "/var/lib/wslgpu-setup/state-format"));
  CHECK(stamp["state_format"] == 2);
  CHECK(stamp["tool_version"].is_string());
  std::string tx = root.path() + "/var/lib/wslgpu-setup/tx/" + id;
  std::istringstream journal(file_text(tx + "/journal.jsonl"));
  std::string first;
  std::getline(journal, first);
  auto begin = nlohmann::json::parse(first);
  CHECK(begin["type"] == "begin");
  CHECK(begin["state_format"] == 2);
  CHECK(begin["tool_version"] == stamp["tool_version"]);
  CHECK(nlohmann::json::parse(file_text(tx + "/plan.json"))["state_format"] == 2);
}

TEST_CASE("a state folder stamped by a newer tool is refused with exit 2 by every command, and left as it is" *
          needs_root()) {
  FakeWslRoot root;
  std::string id = installed_transaction(root);
  overwrite(root.path() + "/var/lib/wslgpu-setup/state-format", R"({"state_format":3,"tool_version":"0.2.0"})");
  const std::string named =
      "the state in " + root.path() + "/var/lib/wslgpu-setup was written by wslgpu-setup 0.2.0 (state format 3)";
  every_reader_refuses(root, id, named);
  // plan without root cannot read the transactions (root's alone), but it
  // reads the stamp, and stops for it too.
  REQUIRE(::chmod(root.path().c_str(), 0755) == 0);  // as / is (mkdtemp makes it 0700)
  auto before = snapshot(root.path());
  RunResult as_nobody =
      run_tool(rooted(root, {"plan", reachable_by_anyone(state_test_manifest())}), RunOptions{"", {}, kUnprivilegedUid});
  INFO(as_nobody.out, as_nobody.err);
  CHECK(as_nobody.exit_code == 2);
  CHECK(as_nobody.err.find(named) != std::string::npos);
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");
}

TEST_CASE("a journal written by a newer tool is refused with exit 2 by every command, and left as it is" *
          needs_root()) {
  FakeWslRoot root;
  std::string id = installed_transaction(root);
  // No end record after it, as a newer tool's journal may look: read as
  // ours, it would be an interrupted run for recover to roll back.
  std::string path = root.path() + "/var/lib/wslgpu-setup/tx/" + id + "/journal.jsonl";
  overwrite(path, nlohmann::json{{"type", "begin"},
                                 {"id", id},
                                 {"manifest", "blackbox-install"},
                                 {"state_format", 3},
                                 {"tool_version", "0.2.0"}}
                          .dump() +
                      "\n{\"type\":\"a record of format 3\"}\n");
  every_reader_refuses(root, id, "transaction " + id + " was written by wslgpu-setup 0.2.0 (state format 3)");
}

TEST_CASE("a saved plan made by another tool version, or of another format, is refused as stale with exit 3" *
          needs_root()) {
  FakeWslRoot root;
  std::string plan = root.path() + "/../" + std::filesystem::path(root.path()).filename().string() + "-other.plan";
  REQUIRE(run_tool(rooted(root, {"plan", state_test_manifest(), "--out", plan})).exit_code == 0);
  auto saved = nlohmann::json::parse(file_text(plan));
  const std::string ours = saved["tool_version"];
  auto before = snapshot(root.path());

  saved["tool_version"] = "0.0.9";
  overwrite(plan, saved.dump(2));
  RunResult older = run_tool(rooted(root, {"install", "--plan", plan, "--yes"}));
  CHECK(older.exit_code == 3);
  CHECK(older.err.find("is stale: it was made by wslgpu-setup 0.0.9; this is " + ours +
                       ": the profiles' defaults and the plan format may differ") != std::string::npos);
  CHECK(older.err.find("Make it again with `plan --out`") != std::string::npos);
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");

  saved["tool_version"] = ours;
  saved["saved_plan_format"] = 2;
  overwrite(plan, saved.dump(2));
  RunResult other_format = run_tool(rooted(root, {"install", "--plan", plan, "--yes"}));
  CHECK(other_format.exit_code == 3);
  CHECK(other_format.err.find("is stale: it is of saved-plan format 2") != std::string::npos);
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");

  // The same plan as it was made runs: only the version made it stale.
  saved["saved_plan_format"] = 1;
  overwrite(plan, saved.dump(2));
  CHECK(run_tool(rooted(root, {"install", "--plan", plan, "--yes"})).exit_code == 0);
  std::filesystem::remove(plan);
}
