#include "installer/transaction/transaction.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <set>

#include <spdlog/spdlog.h>

#include "installer/formats/sha256.hpp"
#include "installer/net/download.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/paths.hpp"
#include "installer/transaction/state_format.hpp"
#include "steps/apt/apt_keep.hpp"

namespace wslgpu {

RollbackFailure::RollbackFailure(std::string step, const std::string& cause, std::vector<std::string> undone)
    : Error(ExitCode::needs_recovery, "undoing step \"" + step + "\" failed: " + cause),
      step_(std::move(step)),
      cause_(cause),
      undone_(std::move(undone)) {}

void crash_point(const std::string& step_id, const char* when) {
  const char* spec = std::getenv("WSLGPU_SETUP_CRASH_AT");
  if (!spec || step_id + ":" + when != spec) return;
  ::kill(::getpid(), SIGKILL);
}

namespace {

// What a file apply wrote holds, for the drift check: the SHA-256 the plan
// promised or, when the plan could not know the bytes (an empty
// written_by_apply: a CDI spec a program prints only at install), the
// file's own, read now; null when apply left no file there.
nlohmann::json applied_sha256(const FileSystem& fs, const FileWrite& w) {
  if (!w.written_by_apply->empty()) return *w.written_by_apply;
  auto info = fs.lstat(w.path);
  if (!info) return nullptr;
  return info->type == FileType::regular ? sha256_of_host_file(entry_host_path(fs, w.path)) : sha256_hex("");
}

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Steps that run programs (apt, dpkg, groupadd) can change more than their
// plan's files. dpkg, purging the last package that shipped a file under
// /opt, removes /opt itself though it existed before; so the folders near the
// top of the tree are recorded before such a step and put back after its undo.
bool has_process_effects(const StepPlan& plan) {
  for (const auto& c : plan.changes)
    if (c.value("type", "") != "file") return true;
  return plan.changes.empty();
}

nlohmann::json top_directories(const FileSystem& fs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& first : fs.list("/")) {
    if (first == "proc" || first == "sys" || first == "dev" || first == "tmp" || first == "run") continue;
    std::string p1 = "/" + first;
    auto i1 = fs.stat(p1);
    if (!i1 || i1->type != FileType::directory) continue;
    out.push_back({{"path", p1}, {"mode", i1->mode}});
    // Below the top, only the folders no package owns are at risk; listing
    // /usr/bin and the like would cost thousands of stats per step.
    if (p1 != "/opt" && p1 != "/srv") continue;
    for (const auto& second : fs.list(p1)) {
      std::string p2 = p1 + "/" + second;
      auto i2 = fs.stat(p2);
      if (i2 && i2->type == FileType::directory) out.push_back({{"path", p2}, {"mode", i2->mode}});
    }
  }
  for (const char* deeper : {"/usr/local"}) {
    if (auto info = fs.stat(deeper); info && info->type == FileType::directory)
      out.push_back({{"path", deeper}, {"mode", info->mode}});
    for (const auto& name : fs.list(deeper)) {
      std::string p = std::string(deeper) + "/" + name;
      auto info = fs.stat(p);
      if (info && info->type == FileType::directory) out.push_back({{"path", p}, {"mode", info->mode}});
    }
  }
  return out;
}

const ManifestStep* find_step(const Manifest& m, const std::string& id) {
  for (const auto& s : m.steps)
    if (s.id == id) return &s;
  return nullptr;
}

// What a journal says about each step, in order of first intent.
struct StepRecord {
  std::string id;
  nlohmann::json pre = nlohmann::json::object();
  std::optional<nlohmann::json> undo;  // from the last "applied" outcome
  bool failed = false;
  bool undone = false;
  std::vector<nlohmann::json> backups;  // in order
  nlohmann::json dirs = nlohmann::json::array();  // top folders before a process step
};

std::vector<StepRecord> fold(const std::vector<nlohmann::json>& records) {
  std::vector<StepRecord> steps;
  auto get = [&](const std::string& id) -> StepRecord& {
    for (auto& s : steps)
      if (s.id == id) return s;
    steps.push_back(StepRecord{id, nlohmann::json::object(), std::nullopt, false, false, {}, nlohmann::json::array()});
    return steps.back();
  };
  for (const auto& r : records) {
    std::string type = r.value("type", "");
    if (type == "intent") {
      StepRecord& s = get(r.value("step", ""));
      if (s.pre.empty() && r.contains("pre")) s.pre = r["pre"];
      if (s.dirs.empty() && r.contains("dirs")) s.dirs = r["dirs"];
      s.undone = false;
    } else if (type == "backup") {
      get(r.value("step", "")).backups.push_back(r);
    } else if (type == "outcome") {
      StepRecord& s = get(r.value("step", ""));
      if (r.value("status", "") == "applied") s.undo = r.value("undo", nlohmann::json::object());
      else s.failed = true;
    } else if (type == "undone") {
      get(r.value("step", "")).undone = true;
    }
  }
  return steps;
}

// Puts back what step S wrote: the top folders a process step removed, then
// each file from its earliest backup in the transaction. WHAT says what was
// done, for the user.
void restore_files(FileSystem& fs, Journal& journal, const StepRecord& s,
                   std::map<std::string, std::string>& first_owner, std::string& what) {
  for (const auto& d : s.dirs) {
    std::string dir = d.value("path", "");
    if (!dir.empty() && !fs.stat(dir)) {
      fs.make_dirs(dir, d.value("mode", 0755u));
      what += (what.empty() ? "recreated " : ", ") + dir;
    }
  }
  // Each path once, from its earliest backup, and in the reverse of the
  // order the writes were made: a step that removes an old file before
  // it writes the new one (apt_repository replacing a vendor's source
  // list, where both at once make apt refuse every source) must get the
  // old one back only after the new one is gone.
  std::vector<const nlohmann::json*> restores;
  for (const auto& b : s.backups) {
    std::string path = b.value("path", "");
    if (first_owner[path] != s.id) continue;
    first_owner[path] = "";
    restores.push_back(&b);
  }
  for (auto r = restores.rbegin(); r != restores.rend(); ++r) {
    const nlohmann::json& b = **r;
    std::string path = b.value("path", "");
    if (b.value("existed", false) && b.value("whole_file", false)) {
      fs.make_dirs(parent_path(path), 0755);
      journal.restore_file_blob(b.value("blob", ""), entry_host_path(fs, path), b.value("mode", 0644u),
                                b.value("uid", 0u), b.value("gid", 0u));
      what += (what.empty() ? "restored " : ", ") + path;
    } else if (b.value("existed", false)) {
      FileAttrs attrs{b.value("mode", 0644u), b.value("uid", 0u), b.value("gid", 0u)};
      fs.write_atomic(path, journal.read_blob(b.value("blob", "")), attrs);
      what += (what.empty() ? "restored " : ", ") + path;
    } else {
      fs.remove(path);
      what += (what.empty() ? "removed " : ", ") + path;
    }
    if (b.contains("created_dirs")) {
      const auto& dirs = b["created_dirs"];
      for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) {
        std::string dir = d->get<std::string>();
        if (fs.list(dir).empty()) fs.remove(dir);
      }
    }
  }
}

}  // namespace

Transactions::Transactions(FileSystem& fs, ProcessRunner& runner, const HostFacts& host, std::string state_dir)
    : fs_(fs), runner_(runner), host_(host), state_dir_(std::move(state_dir)) {}

std::string Transactions::tx_root() const { return fs_.host_path(state_dir_ + "/tx"); }

std::string Transactions::stamp_path() const { return fs_.host_path(state_dir_ + "/state-format"); }

void Transactions::refuse_newer_state() const {
  check_state_stamp(stamp_path());
  if (!fs_.stat(state_dir_ + "/tx")) return;
  for (const auto& id : list_transactions(tx_root())) (void)Journal::open(tx_root(), id);  // reads the begin record
}

std::optional<TransactionSummary> Transactions::interrupted() const {
  check_state_stamp(stamp_path());  // each journal's own format is checked by Journal::open
  auto ids = list_transactions(tx_root());
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    Journal j = Journal::open(tx_root(), *it);
    if (j.ended()) continue;  // the common case, without reading the whole journal
    TransactionSummary s = summarize(*it, j.records());
    if (!is_finished(s.status)) return s;
  }
  return std::nullopt;
}

std::optional<Transactions::CommittedRun> Transactions::last_committed(const std::string& manifest_name) const {
  check_state_stamp(stamp_path());
  if (!fs_.stat(state_dir_ + "/tx")) return std::nullopt;
  auto ids = list_transactions(tx_root());
  for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
    Journal j = Journal::open(tx_root(), *it);
    TransactionSummary s = summarize(*it, j.records());
    if (s.manifest == manifest_name && s.status == "committed") return CommittedRun{s, j.read_plan()};
  }
  return std::nullopt;
}

RunResult Transactions::run(const Manifest& manifest, const Plan& plan, const nlohmann::json& plan_record,
                            const RunCallbacks& callbacks) {
  RunResult result;
  fs_.make_dirs(state_dir_ + "/tx", 0700);
  // Before the first record in this format: an older tool then refuses the
  // whole state folder rather than read part of it.
  write_state_stamp(stamp_path());
  Journal journal = Journal::create(tx_root(), new_transaction_id());
  result.transaction_id = journal.id();
  journal.write_plan(plan_record);
  journal.append({{"type", "begin"},
                  {"id", journal.id()},
                  {"time", now_iso()},
                  {"manifest", manifest.name},
                  {"source", plan.source},
                  {"pid", ::getpid()},
                  {"state_format", kStateFormat},
                  {"tool_version", WSLGPU_VERSION}});
  apply_steps(journal, manifest, plan, callbacks, result);
  return result;
}

RunResult Transactions::resume(Journal& journal, const Manifest& manifest, const Plan& plan,
                               const RunCallbacks& callbacks) {
  RunResult result;
  result.transaction_id = journal.id();
  journal.append({{"type", "resume"}, {"time", now_iso()}, {"pid", ::getpid()}});
  apply_steps(journal, manifest, plan, callbacks, result);
  return result;
}

UndoStore Transactions::undo_store(const Journal& journal, const std::vector<nlohmann::json>& records) const {
  UndoStore store(journal.dir() + "/undo", state_dir_ + "/tx/" + journal.id() + "/undo");
  // A pruned store's copies were let go on purpose: undo asks apt's
  // sources, as before the store, rather than refuse them as missing.
  if (store_was_pruned(store.host_dir())) return store;
  for (const auto& r : records)
    if (r.value("type", "") == "kept") store.add(KeptDeb::from_json(r));
  return store;
}

void Transactions::keep_for_undo_first(Journal& journal, const Plan& plan, StepContext& ctx, UndoStore& store,
                                       RunResult& result) {
  for (const auto& ps : plan.steps) {
    if (ps.plan.verdict != Verdict::change) continue;
    for (const auto& k : ps.plan.keeps) {
      if (k.from.empty()) {
        // install refused this plan unless --allow-partial-undo was given.
        std::string note = "undo will not put back " + k.name + " " + k.version + " (step \"" + ps.id +
                           "\"): no copy could be kept (" + k.why + ")";
        spdlog::warn("{}", note);
        result.notices.push_back(note);
        continue;
      }
      if (const KeptDeb* have = store.find(k.name, k.version, k.architecture); have && have->step == ps.id) continue;
      try {
        KeptDeb kept = keep_for_undo(ctx, store, ps.id, k);
        store.add(kept);
        nlohmann::json record = kept.to_json();
        record["type"] = "kept";
        journal.append(record);
      } catch (const CorruptCopy&) {
        throw;
      } catch (const StepFailure& e) {
        if (!allow_partial_undo_) throw;
        std::string note = "undo will not put back " + k.name + " " + k.version + ": " + e.what();
        spdlog::warn("{}", note);
        result.notices.push_back(note);
      }
    }
  }
}

void Transactions::apply_steps(Journal& journal, const Manifest& manifest, const Plan& plan,
                               const RunCallbacks& callbacks, RunResult& result) {
  StepContext ctx{fs_, runner_, host_, manifest.name, state_dir_};
  ctx.progress = callbacks.progress;
  UndoStore store = undo_store(journal, journal.records());
  ctx.undo_store = &store;
  const std::size_t total = plan.steps.size();
  // A signal (installer/system/interrupt.hpp) is acted on between steps, the
  // safe points: the step in progress has finished (or, for a download,
  // stopped where it may), and everything applied so far is undone.
  std::string last_step;
  // Undoes what the run applied. Both failures are the user's to know: the
  // one that stopped the run (already in RESULT), and an undo that fails,
  // which leaves the machine half undone (exit 5).
  auto undo_everything = [&] {
    try {
      result.undone = rollback(journal, manifest, callbacks);
    } catch (const RollbackFailure& u) {
      result.undone = u.undone();
      result.undo_error = u.what();
      result.rc = static_cast<int>(ExitCode::needs_recovery);
    }
    for (const auto& n : rollback_notices_) result.notices.push_back(n);
  };
  auto stop_for_signal = [&](int signo) {
    result.interrupted = signo;
    result.failed = true;
    result.error = "interrupted by " + signal_name(signo) +
                   (last_step.empty() ? std::string(" before the first step") : " after step \"" + last_step + "\"");
    spdlog::info("{}; rolling back", result.error);
    result.rc = 128 + signo;
    undo_everything();
  };
  // Before the first side effect, and so before any step changes the
  // sources: what undo will install instead of asking the network.
  try {
    keep_for_undo_first(journal, plan, ctx, store, result);
  } catch (const Interrupted& e) {
    result.error = std::string("interrupted while keeping what undo needs: ") + e.what();
    result.interrupted = e.signal();
    result.failed = true;
    result.rc = 128 + e.signal();
    undo_everything();
    return;
  } catch (const Error& e) {
    result.failed = true;
    // A copy that does not match apt's index is never let through; one
    // that no way could keep may be, when the person says so.
    bool corrupt = dynamic_cast<const CorruptCopy*>(&e) != nullptr;
    result.error = std::string("keeping what undo needs failed before the first change: ") + e.what() +
                   (corrupt ? "" : "\nNothing was changed. Run again with --allow-partial-undo to go ahead without it.");
    result.rc = static_cast<int>(ExitCode::failed);
    undo_everything();
    return;
  }
  for (const auto& ps : plan.steps) {
    if (int signo = interrupt_signal()) return stop_for_signal(signo);
    StepReport report{ps.id, ps.kind, false, false, ps.plan.summary, ""};
    if (ps.plan.verdict == Verdict::skipped || ps.plan.verdict == Verdict::noop) {
      if (callbacks.step_finished) callbacks.step_finished(report);
      result.steps.push_back(report);
      continue;
    }
    if (callbacks.step_started)
      callbacks.step_started(ps.index, total, ps.id, ps.plan.activity.empty() ? ps.plan.summary : ps.plan.activity);
    last_step = ps.id;
    const ManifestStep* ms = find_step(manifest, ps.id);
    if (ms) ctx.manifest_name = step_manifest_name(manifest, *ms);
    ctx.step_id = ps.id;
    try {
      if (!ms) throw StepFailure("the plan names step \"" + ps.id + "\", which the manifest does not have");
      if (ps.plan.verdict == Verdict::refused) throw StepFailure("refused: " + ps.plan.summary);
      if (ps.plan.verdict == Verdict::verify) {
        nlohmann::json r = ms->step->apply(ctx, ps.plan);
        if (r.contains("warning")) {
          report.msg = r["warning"].get<std::string>();
          result.notices.push_back(ps.id + ": " + report.msg);
        } else {
          report.msg = "ok: " + ps.plan.summary;
        }
      } else {
        nlohmann::json pre = ms->step->snapshot(ctx);
        nlohmann::json intent = {{"type", "intent"}, {"step", ps.id}, {"index", ps.index}, {"pre", pre}};
        if (has_process_effects(ps.plan)) intent["dirs"] = top_directories(fs_);
        journal.append(intent);
        crash_point(ps.id, "before");
        for (const auto& w : ps.plan.writes) {
          // A file apply writes itself is replaced by a rename of its own
          // entry, so a link there is what would be replaced: looked at as such.
          auto info = w.written_by_apply ? fs_.lstat(w.path) : fs_.stat(w.path);
          nlohmann::json backup = {{"type", "backup"}, {"step", ps.id}, {"path", w.path}, {"existed", info.has_value()}};
          if (info && w.written_by_apply) {
            // The plan refused a link here; this is the same rule for one made since.
            if (info->type == FileType::symlink)
              throw StepFailure("refusing to write " + w.path +
                                ": it is a symbolic link, and wslgpu-setup does not "
                                "write through links. Replace it with the file it points to, then run again.");
            std::string host = entry_host_path(fs_, w.path);
            bool regular = info->type == FileType::regular;
            backup["blob"] = regular ? journal.store_file_blob(host) : journal.store_blob("");
            backup["sha256"] = regular ? sha256_of_host_file(host) : sha256_hex("");
            backup["whole_file"] = regular;
          } else if (info) {
            std::string old = info->type == FileType::regular ? fs_.read(w.path) : std::string();
            backup["blob"] = journal.store_blob(old);
            backup["sha256"] = sha256_hex(old);
          }
          if (info) {
            backup["mode"] = info->mode;
            backup["uid"] = info->uid;
            backup["gid"] = info->gid;
          }
          // Directories the write creates are recorded too, so that undo
          // leaves no empty folder behind.
          nlohmann::json created = nlohmann::json::array();
          bool writes = w.content || w.written_by_apply;
          for (std::string dir = parent_path(w.path); writes && dir != "/" && !fs_.stat(dir); dir = parent_path(dir))
            created.insert(created.begin(), dir);
          backup["created_dirs"] = created;
          journal.append(backup);
          if (w.written_by_apply) {
            continue;  // apply writes it; recorded as written once apply has returned
          } else if (w.content) {
            fs_.write_atomic(w.path, *w.content, w.attrs);
            journal.append({{"type", "written"}, {"step", ps.id}, {"path", w.path}, {"sha256", sha256_hex(*w.content)}});
          } else {
            fs_.remove(w.path);
            journal.append({{"type", "written"}, {"step", ps.id}, {"path", w.path}, {"sha256", nullptr}});
          }
        }
        nlohmann::json undo = ms->step->apply(ctx, ps.plan);
        crash_point(ps.id, "applied");
        for (const auto& w : ps.plan.writes)
          if (w.written_by_apply)
            journal.append(
                {{"type", "written"}, {"step", ps.id}, {"path", w.path}, {"sha256", applied_sha256(fs_, w)}});
        journal.append({{"type", "outcome"}, {"step", ps.id}, {"status", "applied"}, {"undo", undo}});
        crash_point(ps.id, "after");
        report.changed = true;
        result.changed = true;
        for (const auto& c : ps.plan.changes)
          if (c.contains("diff")) report.diff += c["diff"].get<std::string>();
        for (const auto& n : ps.plan.notices) result.notices.push_back(n);
      }
    } catch (const Interrupted& e) {
      // The step stopped where it safely could (a download); it is undone
      // with the others.
      report.failed = true;
      report.msg = e.what();
      if (ps.plan.verdict != Verdict::verify)
        journal.append({{"type", "outcome"}, {"step", ps.id}, {"status", "failed"}, {"msg", e.what()}});
      if (callbacks.step_finished) callbacks.step_finished(report);
      result.steps.push_back(report);
      last_step = "";
      stop_for_signal(e.signal());
      result.error = "interrupted by " + signal_name(e.signal()) + " during step " + std::to_string(ps.index) + " \"" +
                     ps.id + "\"";
      return;
    } catch (const std::exception& e) {
      report.failed = true;
      report.msg = e.what();
      result.failed = true;
      result.error = "step " + std::to_string(ps.index) + " \"" + ps.id + "\" failed: " + e.what();
      spdlog::debug("{}", result.error);
      if (ps.plan.verdict != Verdict::verify)
        journal.append({{"type", "outcome"}, {"step", ps.id}, {"status", "failed"}, {"msg", e.what()}});
      if (callbacks.step_finished) callbacks.step_finished(report);
      result.steps.push_back(report);
      result.rc = static_cast<int>(ExitCode::failed);
      undo_everything();
      return;
    }
    if (callbacks.step_finished) callbacks.step_finished(report);
    result.steps.push_back(report);
  }
  if (int signo = interrupt_signal()) return stop_for_signal(signo);
  journal.append({{"type", "end"}, {"status", "committed"}, {"time", now_iso()}});
}

void keep_remembered(FileSystem& fs, const Plan& plan) {
  for (const auto& s : plan.steps)
    for (const auto& w : s.plan.remember) {
      if (!w.content) continue;
      try {
        auto info = fs.stat(w.path);
        if (info && info->type == FileType::regular && fs.read(w.path) == *w.content) continue;
        fs.write_atomic(w.path, *w.content, w.attrs);
      } catch (const std::exception& e) {
        // A memory only saves a later plan some time; failing to keep it is no failure.
        spdlog::warn("could not keep {}: {}", w.path, e.what());
      }
    }
}

std::vector<std::string> Transactions::rollback(Journal& journal, const Manifest& manifest,
                                                const RunCallbacks& callbacks) {
  StepContext ctx{fs_, runner_, host_, manifest.name, state_dir_};
  ctx.progress = callbacks.progress;
  rollback_notices_.clear();
  ctx.notices = &rollback_notices_;
  auto records = journal.records();
  auto steps = fold(records);
  // Every copy undo will install is checked before anything is undone: a
  // corrupt one stops the rollback with nothing changed (CorruptCopy, exit
  // 3), rather than half way.
  UndoStore store = undo_store(journal, records);
  std::vector<std::string> to_undo;
  for (const auto& s : steps)
    if (!s.undone) to_undo.push_back(s.id);
  try {
    store.check_all(to_undo);
    ctx.undo_store = &store;
  } catch (const CorruptCopy& e) {
    if (!allow_partial_undo_) throw;
    spdlog::warn("{} Going on without the undo store (--allow-partial-undo).", e.what());
  }
  // What else undo needs, asked of every step before anything is undone.
  ctx.allow_partial_undo = allow_partial_undo_;
  std::vector<std::string> blockers;
  for (const auto& s : steps) {
    if (s.undone || !s.undo) continue;
    if (const ManifestStep* ms = find_step(manifest, s.id)) {
      ctx.step_id = s.id;
      if (std::string why = ms->step->undo_blocker(ctx, *s.undo); !why.empty()) blockers.push_back(why);
    }
  }
  if (!blockers.empty() && !allow_partial_undo_) {
    std::string msg = "the rollback cannot put everything back:";
    for (const auto& b : blockers) msg += "\n  " + b;
    throw Error(ExitCode::refused, msg + "\nNothing was changed. --allow-partial-undo rolls back the rest and leaves "
                                         "that as it is.");
  }
  for (const auto& b : blockers) rollback_notices_.push_back("not put back (--allow-partial-undo): " + b);
  // The earliest backup of each path in the whole transaction is what the
  // machine held before it; later ones may hold a resumed step's partial work.
  std::map<std::string, std::string> first_owner;
  for (const auto& s : steps)
    for (const auto& b : s.backups) first_owner.emplace(b.value("path", ""), s.id);

  std::vector<std::string> undone;
  journal.append({{"type", "rollback"}, {"time", now_iso()}, {"pid", ::getpid()}});
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const StepRecord& s = *it;
    if (s.undone) continue;
    const ManifestStep* ms = find_step(manifest, s.id);
    auto fail = [&](const std::string& cause) {
      journal.append({{"type", "undo_failed"}, {"step", s.id}, {"msg", cause}, {"time", now_iso()}});
      throw RollbackFailure(s.id, cause, undone);
    };
    if (!ms) fail("the manifest no longer has this step");
    ctx.manifest_name = step_manifest_name(manifest, *ms);
    ctx.step_id = s.id;
    crash_point(s.id, "undo");
    nlohmann::json data = s.undo ? *s.undo : nlohmann::json{{"partial", true}, {"pre", s.pre}};
    if (callbacks.undo_started) callbacks.undo_started(s.id);
    std::string what;
    try {
      bool applied = s.undo || s.failed || !s.pre.empty();
      if (applied) ms->step->undo(ctx, data);
      restore_files(fs_, journal, s, first_owner, what);
      // A rollback killed between the two runs both again: the restore finds
      // the files already back, and after_restore must be idempotent.
      if (applied) {
        std::string after = ms->step->after_restore(ctx, data);
        if (!after.empty()) what += (what.empty() ? "" : "; ") + after;
      }
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception& e) {
      fail(e.what());
    }
    journal.append({{"type", "undone"}, {"step", s.id}});
    undone.push_back(s.id);
    if (callbacks.step_undone) callbacks.step_undone(s.id, what.empty() ? "undone" : what);
  }
  journal.append({{"type", "end"}, {"status", "rolled_back"}, {"time", now_iso()}});
  // Nothing can roll this transaction back again: its store has served.
  // Failing to remove it is no failure of the rollback; `history --prune`
  // tries again.
  try {
    remove_store_folder(store.host_dir());
  } catch (const std::exception& e) {
    spdlog::warn("{}", e.what());
  }
  return undone;
}

std::vector<std::string> Transactions::drifted(const Journal& journal, const Manifest& manifest) {
  std::vector<std::string> out = drifted_files(journal);
  StepContext ctx{fs_, runner_, host_, manifest.name, state_dir_};
  // Latest first, as a rollback visits them (StepContext::made_by_later_steps).
  auto steps = fold(journal.records());
  std::vector<std::string> steps_drift;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const StepRecord& s = *it;
    if (s.undone || !s.undo) continue;
    const ManifestStep* ms = find_step(manifest, s.id);
    if (!ms) continue;
    ctx.step_id = s.id;
    auto said = ms->step->drift(ctx, *s.undo);
    steps_drift.insert(steps_drift.begin(), said.begin(), said.end());
  }
  out.insert(out.end(), steps_drift.begin(), steps_drift.end());
  return out;
}

std::vector<std::string> Transactions::drifted_files(const Journal& journal) const {
  auto records = journal.records();
  std::set<std::string> undone;
  for (const auto& s : fold(records))
    if (s.undone) undone.insert(s.id);
  std::map<std::string, nlohmann::json> last;
  for (const auto& r : records)
    if (r.value("type", "") == "written" && !undone.count(r.value("step", ""))) last[r.value("path", "")] = r["sha256"];
  std::vector<std::string> drifted;
  for (const auto& [path, sha] : last) {
    auto info = fs_.stat(path);
    if (sha.is_null()) {
      if (info) drifted.push_back(path + " (removed by the transaction, now present)");
      continue;
    }
    if (!info) {
      drifted.push_back(path + " (now missing)");
    } else if (info->type != FileType::regular ||
               // Streamed: a downloaded file may be gigabytes.
               sha256_of_host_file(fs_.host_path(path)) != sha.get<std::string>()) {
      drifted.push_back(path + " (changed since)");
    }
  }
  return drifted;
}

}  // namespace wslgpu
