// `history` shows each transaction's undo store, and `history --prune`
// removes the stores that the retention policy lets go (docs/transactions.md,
// "The undo store"), from outside, against journals written as the runner
// writes them. Root only: the state folder is root's.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace wslgpu::blackbox;

namespace {

// A finished transaction ID that upgraded PACKAGES and kept one copy of
// STORE_BYTES bytes for each; STATUS: committed or rolled_back.
void write_transaction(const FakeWslRoot& root, const std::string& id, const std::vector<std::string>& packages,
                       std::size_t store_bytes, const std::string& status = "committed") {
  const std::string dir = "/var/lib/wslgpu-setup/tx/" + id;
  nlohmann::json upgraded = nlohmann::json::array();
  std::string journal = nlohmann::json{{"type", "begin"}, {"id", id}, {"time", "2026-12-01T10:00:00Z"},
                                       {"manifest", "rocm"}, {"source", "rocm (bundled)"}, {"pid", 1},
                                       {"state_format", 2}, {"tool_version", "0.1.0"}}
                            .dump() +
                        "\n";
  for (const auto& p : packages) {
    upgraded.push_back({{"name", p}, {"from", "1"}, {"to", "2"}, {"architecture", "all"}, {"auto", false}});
    std::string file = p + "_1_all.deb";
    root.write(dir + "/undo/" + file, std::string(store_bytes, 'x'), 0600);
    journal += nlohmann::json{{"type", "kept"}, {"step", "rocm"}, {"name", p}, {"version", "1"},
                              {"architecture", "all"}, {"from", "fetched"}, {"file", file}, {"size", store_bytes},
                              {"sha256", std::string(64, '0')}, {"index_sha256", ""}}
                   .dump() +
               "\n";
  }
  journal += nlohmann::json{{"type", "intent"}, {"step", "rocm"}, {"index", 1}, {"pre", nlohmann::json::object()}}.dump() + "\n";
  journal += nlohmann::json{{"type", "outcome"}, {"step", "rocm"}, {"status", "applied"},
                            {"undo", {{"installed", nlohmann::json::array()}, {"upgraded", upgraded},
                                      {"removed", nlohmann::json::array()}}}}
                 .dump() +
             "\n";
  if (status == "rolled_back") journal += R"({"type":"rollback","time":"2026-12-01T11:00:00Z","pid":1})" "\n";
  journal += nlohmann::json{{"type", "end"}, {"status", status}, {"time", "2026-12-01T10:01:00Z"}}.dump() + "\n";
  root.write(dir + "/journal.jsonl", journal, 0600);
}

bool has_store(const FakeWslRoot& root, const std::string& id) {
  return std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup/tx/" + id + "/undo");
}

}  // namespace

TEST_CASE("history shows each undo store's size, and --prune removes only the superseded and rolled-back ones" *
          needs_root()) {
  FakeWslRoot root;
  write_transaction(root, "20261201-100000-0001", {"rocm", "rocm-core"}, 100);
  write_transaction(root, "20261201-110000-0002", {"podman"}, 10);
  write_transaction(root, "20261201-120000-0003", {"rocm-core"}, 50, "rolled_back");
  write_transaction(root, "20261202-100000-0004", {"rocm-core", "rocm-dev"}, 30);

  RunResult list = run_tool({"--root", root.path(), "history"});
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find("20261201-100000-0001  2026-12-01T10:00:00Z  rocm  committed  1 changed  undo store 200 B (2 packages)") !=
        std::string::npos);
  RunResult shown = run_tool({"--root", root.path(), "history", "20261201-100000-0001"});
  CHECK(shown.out.find("  undo      200 B (2 packages)") != std::string::npos);
  CHECK(shown.out.find("  kept for undo: rocm-core 1 (fetched, 100 B)") != std::string::npos);

  RunResult pruned = run_tool({"--root", root.path(), "history", "--prune", "--output", "json"});
  REQUIRE(pruned.exit_code == 0);
  auto j = nlohmann::json::parse(pruned.out);
  REQUIRE(j["pruned"].size() == 2);
  CHECK(j["pruned"][0]["id"] == "20261201-100000-0001");
  CHECK(j["pruned"][0]["why"] == "superseded by 20261202-100000-0004 (rocm-core)");
  CHECK(j["pruned"][1]["id"] == "20261201-120000-0003");
  CHECK(j["pruned"][1]["why"] == "rolled back");
  CHECK(j["freed_bytes"] == 250);
  // The copies go; a note says why, so that a rollback asks apt's sources
  // instead of refusing the copies as missing.
  const std::string pruned_dir = root.path() + "/var/lib/wslgpu-setup/tx/20261201-100000-0001/undo";
  CHECK_FALSE(std::filesystem::exists(pruned_dir + "/rocm_1_all.deb"));
  CHECK(std::filesystem::exists(pruned_dir + "/pruned"));
  CHECK_FALSE(std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup/tx/20261201-120000-0003/undo/rocm-core_1_all.deb"));
  CHECK(has_store(root, "20261201-110000-0002"));  // other packages: still the way back
  CHECK(has_store(root, "20261202-100000-0004"));  // the newest: can be rolled back

  // The history stays; a pruned store shows as removed.
  RunResult after = run_tool({"--root", root.path(), "history", "--output", "json"});
  auto all = nlohmann::json::parse(after.out);
  REQUIRE(all.size() == 4);
  CHECK(all[0]["undo_store_bytes"] == 0);
  CHECK(all[3]["undo_store_bytes"] == 60);
  RunResult again = run_tool({"--root", root.path(), "history", "--prune"});
  CHECK(again.exit_code == 0);
  CHECK(again.out ==
        "No undo store can go: every one still serves a transaction that can be rolled back, and the wheel cache is "
        "empty. `history --prune ID` gives up one transaction's offline rollback.\n");
}

TEST_CASE("history lists a venv's undo store and the wheel cache at the room they take, --prune empties the cache, "
          "and --prune ID gives up the newest rollback" *
          needs_root()) {
  FakeWslRoot root;
  write_transaction(root, "20261201-100000-0001", {"rocm"}, 100);
  // The newest transaction, a build switch: its store holds the old torch,
  // whose files the venv no longer has (one link each), and a file the venv
  // still shares (two links: it costs nothing).
  const std::string tx2 = "20261202-100000-0002";
  write_transaction(root, tx2, {}, 0);
  const std::string store = "/var/lib/wslgpu-setup/tx/" + tx2 + "/undo/venv-torch/files";
  root.write(store + "/torch/lib/libtorch_cuda.so", std::string(4000, 'o'), 0644);
  root.write(store + "/torch/__init__.py", std::string(300, 'i'), 0644);
  root.write("/home/alice/venv-shared-file", "", 0644);
  std::filesystem::remove(root.path() + "/home/alice/venv-shared-file");
  std::filesystem::create_hard_link(root.path() + store + "/torch/__init__.py", root.path() + "/home/alice/venv-shared-file");
  // What an interrupted run left in the wheel cache.
  root.write("/var/lib/wslgpu-setup/cache/wheels/0123456789abcdef-torch.whl.part", std::string(700, 'w'), 0644);

  RunResult list = run_tool({"--root", root.path(), "history"});
  REQUIRE(list.exit_code == 0);
  CHECK(list.out.find(tx2 + "  2026-12-01T10:00:00Z  rocm  committed  1 changed  undo store 4.0 kB (a venv of 2 files)") !=
        std::string::npos);
  CHECK(list.out.find("Wheel cache /var/lib/wslgpu-setup/cache/wheels: 700 B in 1 file (1 partial download a later "
                      "run resumes); `sudo wslgpu-setup history --prune` empties it") != std::string::npos);

  // --prune: the newest store stays (its rollback needs it); the cache goes.
  RunResult pruned = run_tool({"--root", root.path(), "history", "--prune", "--output", "json"});
  REQUIRE(pruned.exit_code == 0);
  auto j = nlohmann::json::parse(pruned.out);
  CHECK(j["pruned"].empty());
  CHECK(j["wheel_cache_freed_bytes"] == 700);
  CHECK(std::filesystem::is_empty(root.path() + "/var/lib/wslgpu-setup/cache/wheels"));
  CHECK(std::filesystem::exists(root.path() + store + "/torch/lib/libtorch_cuda.so"));

  // --prune ID: the user gives up that rollback for the room, and is told.
  RunResult given_up = run_tool({"--root", root.path(), "history", tx2, "--prune"});
  REQUIRE(given_up.exit_code == 0);
  CHECK(given_up.out.find("Removed the undo store of " + tx2 + " (4.0 kB): given up by `history --prune " + tx2 + "`") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(root.path() + store));
  CHECK(std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup/tx/" + tx2 + "/undo/pruned"));

  // A transaction that does not exist is refused, exit 3.
  RunResult unknown = run_tool({"--root", root.path(), "history", "20990101-000000-0009", "--prune"});
  CHECK(unknown.exit_code == 3);
  CHECK(unknown.err.find("there is no transaction 20990101-000000-0009") != std::string::npos);
}
