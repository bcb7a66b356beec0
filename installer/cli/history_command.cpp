// `wslgpu-setup history [ID]`: the transactions, or one's journal, with the
// size of each undo store; `history --prune` removes the stores that
// installer/undo/retention.hpp lets go.
#include <algorithm>
#include <cstdint>
#include <iostream>
#include <set>

#include <nlohmann/json.hpp>

#include "installer/cli/commands.hpp"
#include "installer/cli/session.hpp"
#include "installer/cli/suggested_commands.hpp"
#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/units.hpp"
#include "installer/transaction/journal.hpp"
#include "installer/transaction/lock.hpp"
#include "installer/transaction/state_format.hpp"
#include "installer/transaction/transaction.hpp"
#include "installer/undo/retention.hpp"
#include "installer/undo/undo_store.hpp"

namespace wslgpu {

namespace {

// Every package a transaction's steps installed, upgraded, downgraded or
// removed (their undo data), for the retention policy.
std::set<std::string> packages_changed(const std::vector<nlohmann::json>& records) {
  std::set<std::string> out;
  for (const auto& r : records) {
    if (r.value("type", "") != "outcome" || !r.contains("undo") || !r["undo"].is_object()) continue;
    for (const char* list : {"installed", "upgraded", "removed"})
      if (r["undo"].contains(list) && r["undo"][list].is_array())
        for (const auto& p : r["undo"][list])
          if (p.is_object()) out.insert(p.value("name", ""));
    // A venv a python_packages step kept: a later transaction that changed
    // the same venv supersedes it, as one over the same packages does.
    if (r["undo"].contains("store") && r["undo"].contains("venv") && r["undo"]["venv"].is_string())
      out.insert("venv:" + r["undo"]["venv"].get<std::string>());
  }
  out.erase("");
  return out;
}

// "412 MB (7 packages)", "none", "pruned (...)"
std::string store_text(std::uint64_t bytes, std::size_t kept, bool had) {
  if (bytes > 0) return human_size(bytes) + " (" + std::to_string(kept) + (kept == 1 ? " package)" : " packages)");
  return had ? "removed" : "none";
}

std::size_t kept_count(const std::vector<nlohmann::json>& records) {
  std::size_t n = 0;
  for (const auto& r : records) n += r.value("type", "") == "kept";
  return n;
}

// The venvs that were there before the transaction of RECORDS and whose
// files its store keeps (python_packages' undo data): what a rollback can no
// longer give back once the store is pruned, unless the user reinstalls
// their old distributions by hand. A venv the transaction created needs no
// store (it is removed whole).
std::vector<std::string> venvs_kept_in_store(const std::vector<nlohmann::json>& records) {
  std::vector<std::string> venvs;
  for (const auto& r : records) {
    if (r.value("type", "") != "outcome" || r.value("status", "") != "applied") continue;
    const nlohmann::json undo = r.value("undo", nlohmann::json::object());
    if (!undo.is_object() || !undo.contains("kept") || !undo.contains("venv") || undo.value("new_venv", false)) continue;
    std::string venv = undo.value("venv", "");
    if (std::find(venvs.begin(), venvs.end(), venv) == venvs.end()) venvs.push_back(venv);
  }
  return venvs;
}

int prune_stores(const GlobalOptions& g, OutputFormat output) {
  refuse_unless_root(g, "history --prune");
  Session s(g);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  // The stores are what a rollback reads: never pruned under a running one.
  RunLock lock = lock_state(s, tx, ChangeOptions{});
  std::vector<StoreUse> uses;
  for (const auto& id : list_transactions(tx.tx_root())) {
    auto records = Journal::open(tx.tx_root(), id).records();
    TransactionSummary summary = summarize(id, records);
    uses.push_back({id, summary.status, packages_changed(records), store_folder_bytes(tx.tx_root() + "/" + id + "/undo")});
  }
  nlohmann::json pruned = nlohmann::json::array();
  std::uint64_t freed = 0;
  for (const auto& p : prunable_stores(uses)) {
    auto venvs = venvs_kept_in_store(Journal::open(tx.tx_root(), p.id).records());
    prune_store_folder(tx.tx_root() + "/" + p.id + "/undo", p.why);
    freed += p.store_bytes;
    pruned.push_back({{"id", p.id}, {"why", p.why}, {"bytes", p.store_bytes}, {"venvs_given_up", venvs}});
    if (output != OutputFormat::text) continue;
    std::cout << "Removed the undo store of " << p.id << " (" << human_size(p.store_bytes) << "): " << p.why << "\n";
    for (const auto& v : venvs)
      std::cout << "  rollback " << p.id << " can no longer put back the venv " << v
                << " as it was: it will name the distributions to reinstall by hand first, or leave the venv as it "
                   "is with --allow-partial-undo\n";
  }
  if (output == OutputFormat::json) {
    std::cout << nlohmann::json{{"pruned", pruned}, {"freed_bytes", freed}}.dump(2) << "\n";
  } else if (pruned.empty()) {
    std::cout << "No undo store can go: every one still serves a transaction that can be rolled back.\n";
  } else {
    std::cout << "Freed " << human_size(freed) << ". Those transactions stay in the history; rolling one back now "
              << "asks apt's sources for the old versions, and stops before it changes anything where its store "
                 "held what nothing else can give back.\n";
  }
  return 0;
}

}  // namespace

// A function-try-block: wherever the journal finds the transactions
// unreadable (the folder is root's alone), history says so with the command
// to type, never "No transactions yet."
int run_history(const GlobalOptions& g, const std::string& show_id, OutputFormat output, bool prune) try {
  check_root(g.root);
  if (prune) return prune_stores(g, output);
  RootedFileSystem fs(g.root);
  std::string tx_root = fs.host_path(std::string(kStateDir) + "/tx");
  check_state_stamp(fs.host_path(std::string(kStateDir) + "/state-format"));  // each journal's own: Journal::open
  // What history shows for a status a person must act on.
  auto shown = [](const std::string& status) {
    if (status == "half_undone") return std::string("half_undone (rollback unfinished: run it again)");
    if (status == "interrupted") return std::string("interrupted (recover --rollback or --resume)");
    return status;
  };
  if (!show_id.empty()) {
    Journal j = Journal::open(tx_root, show_id);
    auto records = j.records();
    TransactionSummary s = summarize(show_id, records);
    const std::uint64_t store_bytes = store_folder_bytes(j.dir() + "/undo");
    const std::size_t kept = kept_count(records);
    if (output == OutputFormat::json) {
      std::cout << nlohmann::json{{"id", s.id}, {"time", s.time}, {"manifest", s.manifest}, {"source", s.source},
                                  {"status", s.status}, {"changed_steps", s.changed_steps},
                                  {"undo_store_bytes", store_bytes}, {"records", records}}
                       .dump(2)
                << "\n";
      return 0;
    }
    std::cout << "Transaction " << s.id << "\n  time      " << s.time << "\n  profile   " << s.manifest << " ("
              << s.source << ")\n  result    " << shown(s.status) << "\n  changed   " << s.changed_steps
              << " steps\n  undo      " << store_text(store_bytes, kept, kept > 0) << "\n";
    if (!s.undo_failure.empty()) std::cout << "  stopped   undoing " << s.undo_failure << "\n";
    for (const auto& r : records) {
      std::string type = r.value("type", "");
      if (type == "kept")
        std::cout << "  kept for undo: " << r.value("name", "") << " " << r.value("version", "") << " ("
                  << r.value("from", "") << ", " << human_size(r.value("size", std::uint64_t{0})) << ")\n";
      if (type == "outcome") std::cout << "  step " << r.value("step", "") << ": " << r.value("status", "") << "\n";
      if (type == "written")
        std::cout << "    " << (r["sha256"].is_null() ? "removed " : "wrote ") << r.value("path", "") << "\n";
      if (type == "undone") std::cout << "  step " << r.value("step", "") << ": undone\n";
      if (type == "undo_failed")
        std::cout << "  step " << r.value("step", "") << ": undo failed: " << r.value("msg", "") << "\n";
    }
    return 0;
  }
  nlohmann::json all = nlohmann::json::array();
  for (const auto& id : list_transactions(tx_root)) {
    auto records = Journal::open(tx_root, id).records();
    TransactionSummary s = summarize(id, records);
    all.push_back({{"id", s.id}, {"time", s.time}, {"manifest", s.manifest}, {"status", s.status},
                   {"changed_steps", s.changed_steps}, {"undo_store_bytes", store_folder_bytes(tx_root + "/" + id + "/undo")},
                   {"kept", kept_count(records)}});
  }
  if (output == OutputFormat::json) {
    std::cout << all.dump(2) << "\n";
    return 0;
  }
  if (all.empty()) std::cout << "No transactions yet.\n";
  for (const auto& t : all) {
    std::uint64_t bytes = t["undo_store_bytes"].get<std::uint64_t>();
    std::size_t kept = t["kept"].get<std::size_t>();
    std::cout << t["id"].get<std::string>() << "  " << t["time"].get<std::string>() << "  "
              << t["manifest"].get<std::string>() << "  " << shown(t["status"].get<std::string>()) << "  "
              << t["changed_steps"].get<std::size_t>() << " changed"
              << (kept ? "  undo store " + store_text(bytes, kept, true) : std::string()) << "\n";
  }
  return 0;
} catch (const TransactionsNeedRoot& e) {
  throw Refusal("history needs root: " + e.reason() + ".\n  Run it again with sudo: " + again_with_sudo(g));
}

}  // namespace wslgpu
