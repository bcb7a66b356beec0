// `wslgpu-setup history [ID]`: the transactions, or one's journal, with the
// size of each undo store; `history --prune` removes the stores that
// installer/undo/retention.hpp lets go.
#include <algorithm>
#include <cstdint>
#include <filesystem>
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

// "412 MB (7 packages; a venv of 12034 files)", "none", "removed".
std::string store_text(const StoreSize& size, bool had) {
  if (size.bytes > 0 || size.debs > 0 || size.venvs > 0) return store_size_text(size);
  return had ? "removed" : "none";
}

std::size_t kept_count(const std::vector<nlohmann::json>& records) {
  std::size_t n = 0;
  for (const auto& r : records) n += r.value("type", "") == "kept";
  return n;
}

std::string wheel_cache_dir(const std::string& state_host_dir) { return state_host_dir + "/" + kWheelCacheFolder; }

// "1.2 GB in 3 files (2 partial downloads a later run resumes)".
std::string cache_text(const FolderSize& size) {
  std::string s = human_size(size.bytes) + " in " + std::to_string(size.files) + (size.files == 1 ? " file" : " files");
  if (size.partial > 0)
    s += " (" + std::to_string(size.partial) + (size.partial == 1 ? " partial download" : " partial downloads") +
         " a later run resumes)";
  return s;
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

// The lines that say what pruning ID's store gives up, for its venvs.
void say_venvs_given_up(const std::string& id, const std::vector<std::string>& venvs) {
  for (const auto& v : venvs)
    std::cout << "  rollback " << id << " can no longer put back the venv " << v
              << " as it was: it will name the distributions to reinstall by hand first, or leave the venv as it "
                 "is with --allow-partial-undo\n";
}

int prune_stores(const GlobalOptions& g, OutputFormat output, const std::string& only_id) {
  refuse_unless_root(g, "history --prune");
  Session s(g);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  // The stores are what a rollback reads: never pruned under a running one.
  RunLock lock = lock_state(s, tx, ChangeOptions{});
  std::vector<StoreUse> uses;
  std::string only_status;
  for (const auto& id : list_transactions(tx.tx_root())) {
    auto records = Journal::open(tx.tx_root(), id).records();
    TransactionSummary summary = summarize(id, records);
    if (id == only_id) only_status = summary.status;
    uses.push_back({id, summary.status, packages_changed(records), store_folder_bytes(tx.tx_root() + "/" + id + "/undo")});
  }
  std::vector<Prunable> prune;
  if (only_id.empty()) {
    prune = prunable_stores(uses);
  } else {
    // The user gives up this transaction's offline rollback for the room.
    if (only_status.empty()) throw Refusal("history --prune " + only_id + ": there is no transaction " + only_id +
                                           "; `wslgpu-setup history` lists them");
    if (only_status == "interrupted" || only_status == "half_undone")
      throw Refusal("history --prune " + only_id + ": the transaction is " + only_status +
                    ", and `recover` needs its undo store; recover it first (sudo " + program(g) + root_option(g) +
                    " recover --rollback)");
    for (const auto& u : uses)
      if (u.id == only_id && u.store_bytes > 0) prune.push_back({u.id, "given up by `history --prune " + u.id + "`", u.store_bytes});
  }
  nlohmann::json pruned = nlohmann::json::array();
  std::uint64_t freed = 0;
  for (const auto& p : prune) {
    auto venvs = venvs_kept_in_store(Journal::open(tx.tx_root(), p.id).records());
    prune_store_folder(tx.tx_root() + "/" + p.id + "/undo", p.why);
    freed += p.store_bytes;
    pruned.push_back({{"id", p.id}, {"why", p.why}, {"bytes", p.store_bytes}, {"venvs_given_up", venvs}});
    if (output != OutputFormat::text) continue;
    std::cout << "Removed the undo store of " << p.id << " (" << human_size(p.store_bytes) << "): " << p.why << "\n";
    say_venvs_given_up(p.id, venvs);
  }
  // The wheel cache: what a run did not get to install, kept for the next
  // one (steps/python/wheel_fetch.hpp). Pruning lets it go too.
  const std::string cache = wheel_cache_dir(s.fs.host_path(kStateDir));
  const FolderSize cached = only_id.empty() ? folder_size(cache) : FolderSize{};
  if (cached.files > 0) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code e2;
      std::filesystem::remove_all(it->path(), e2);
      if (e2) throw StepFailure("cannot remove " + it->path().string() + ": " + e2.message());
    }
    freed += cached.bytes;
    if (output == OutputFormat::text)
      std::cout << "Emptied the wheel cache " << kStateDir << "/" << kWheelCacheFolder << " (" << cache_text(cached)
                << "): a later install downloads those wheels again\n";
  }
  if (output == OutputFormat::json) {
    std::cout << nlohmann::json{{"pruned", pruned}, {"wheel_cache_freed_bytes", cached.bytes}, {"freed_bytes", freed}}
                     .dump(2)
              << "\n";
  } else if (pruned.empty() && cached.files == 0) {
    std::cout << (only_id.empty()
                      ? "No undo store can go: every one still serves a transaction that can be rolled back, and the "
                        "wheel cache is empty. `history --prune ID` gives up one transaction's offline rollback.\n"
                      : "Transaction " + only_id + " has no undo store to remove.\n");
  } else if (!pruned.empty()) {
    std::cout << "Freed " << human_size(freed)
              << ". Those transactions stay in the history; rolling one back now asks apt's sources for the old "
                 "package versions, and stops before it changes anything where its store held what nothing else can "
                 "give back (a venv as it was, a package no source has).\n";
  } else {
    std::cout << "Freed " << human_size(freed) << ".\n";
  }
  return 0;
}

}  // namespace

// A function-try-block: wherever the journal finds the transactions
// unreadable (the folder is root's alone), history says so with the command
// to type, never "No transactions yet."
int run_history(const GlobalOptions& g, const std::string& show_id, OutputFormat output, bool prune) try {
  check_root(g.root);
  if (prune) return prune_stores(g, output, show_id);
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
    const StoreSize store = store_folder_size(j.dir() + "/undo");
    const std::uint64_t store_bytes = store.bytes;
    const bool had = kept_count(records) > 0 || !venvs_kept_in_store(records).empty();
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
              << " steps\n  undo      " << store_text(store, had) << "\n";
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
    const StoreSize store = store_folder_size(tx_root + "/" + id + "/undo");
    all.push_back({{"id", s.id}, {"time", s.time}, {"manifest", s.manifest}, {"status", s.status},
                   {"changed_steps", s.changed_steps}, {"undo_store_bytes", store.bytes},
                   {"kept", kept_count(records)}, {"undo_store", store_text(store, false)}});
  }
  if (output == OutputFormat::json) {
    std::cout << all.dump(2) << "\n";
    return 0;
  }
  if (all.empty()) std::cout << "No transactions yet.\n";
  for (const auto& t : all) {
    const std::string store = t["undo_store"].get<std::string>();
    std::cout << t["id"].get<std::string>() << "  " << t["time"].get<std::string>() << "  "
              << t["manifest"].get<std::string>() << "  " << shown(t["status"].get<std::string>()) << "  "
              << t["changed_steps"].get<std::size_t>() << " changed"
              << (store != "none" ? "  undo store " + store : std::string()) << "\n";
  }
  // What else the tool keeps on disk: the wheels a run did not get to install.
  const FolderSize cached = folder_size(wheel_cache_dir(fs.host_path(kStateDir)));
  if (cached.files > 0)
    std::cout << "Wheel cache " << kStateDir << "/" << kWheelCacheFolder << ": " << cache_text(cached)
              << "; `sudo wslgpu-setup history --prune` empties it\n";
  return 0;
} catch (const TransactionsNeedRoot& e) {
  throw Refusal("history needs root: " + e.reason() + ".\n  Run it again with sudo: " + again_with_sudo(g));
}

}  // namespace wslgpu
