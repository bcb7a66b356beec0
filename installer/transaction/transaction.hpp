// installer/transaction/: running and undoing a plan (runner, journal, lock).
// Includes planner/ and below.
//
// Runs a plan as a transaction, and undoes one. Either every step of a run
// is applied, or every step it applied is undone in reverse; a run killed
// partway leaves its journal (installer/transaction/journal.hpp), from which
// `recover --rollback` undoes it and `recover --resume` finishes it.
//
// For each step that changes something: an intent record (with the step's
// snapshot) is fsynced, then every file the step writes is backed up and
// written atomically (a file apply writes itself, FileWrite::written_by_apply,
// is only backed up), then the step's apply() runs, then an outcome record
// holding its undo data is fsynced. Undo runs the step's undo() and restores
// the step's files from the earliest backup of each path in the transaction.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/transaction/journal.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/plan/plan.hpp"
#include "steps/step.hpp"

namespace wslgpu {

struct StepReport {
  std::string id;
  std::string kind;
  bool changed = false;
  bool failed = false;
  std::string msg;
  std::string diff;
};

// A step's undo failed during a rollback (exit 5): the transaction is half
// undone. UNDONE: the steps this rollback did undo before it.
class RollbackFailure : public Error {
 public:
  RollbackFailure(std::string step, const std::string& cause, std::vector<std::string> undone);
  const std::string& step() const { return step_; }
  const std::string& cause() const { return cause_; }
  const std::vector<std::string>& undone() const { return undone_; }

 private:
  std::string step_;
  std::string cause_;
  std::vector<std::string> undone_;
};

struct RunResult {
  std::string transaction_id;  // "" when nothing needed changing
  bool changed = false;
  bool failed = false;
  int rc = 0;
  std::vector<StepReport> steps;
  std::vector<std::string> undone;  // step ids rolled back, in order
  std::vector<std::string> notices;
  std::string error;
  std::string undo_error;  // a failed undo during the rollback (the run then exits 5), else ""
  int interrupted = 0;  // the signal that stopped the run (installer/system/interrupt.hpp), or 0
};

// What the runner tells the user as it goes; every hook may be left empty.
struct RunCallbacks {
  // ACTIVITY: what the step is about to do (StepPlan::activity, else its summary).
  std::function<void(std::size_t index, std::size_t total, const std::string& id, const std::string& activity)>
      step_started;
  std::function<void(const StepReport&)> step_finished;
  std::function<void(const std::string& id)> undo_started;  // before a step's undo runs
  std::function<void(const std::string& id, const std::string& what)> step_undone;
  // Where steps report the progress of long programs while they apply.
  ProgressSink* progress = nullptr;
};

class Transactions {
 public:
  // STATE_DIR is the target path of our state ("/var/lib/wslgpu-setup").
  Transactions(FileSystem& fs, ProcessRunner& runner, const HostFacts& host, std::string state_dir);

  std::string tx_root() const;  // host path of STATE_DIR/tx

  // Runs PLAN (resolved from MANIFEST) in a new transaction. PLAN_RECORD is
  // stored as plan.json so the run can be rolled back or resumed later.
  RunResult run(const Manifest& manifest, const Plan& plan, const nlohmann::json& plan_record,
                const RunCallbacks& callbacks);

  // Continues an interrupted transaction with a freshly resolved PLAN.
  RunResult resume(Journal& journal, const Manifest& manifest, const Plan& plan, const RunCallbacks& callbacks);

  // Undoes every applied, not yet undone step of JOURNAL in reverse order,
  // then records the end. MANIFEST supplies the step objects. When a step's
  // undo fails, the rollback stops there (undoing the earlier steps under a
  // later one that is still in place could break it further), journals an
  // `undo_failed` record and throws RollbackFailure: the transaction is then
  // half undone, and `recover --rollback` or `rollback ID` finishes it.
  std::vector<std::string> rollback(Journal& journal, const Manifest& manifest, const RunCallbacks& callbacks);
  // What the last rollback's undos told the user (StepContext::notices):
  // a venv moved aside rather than removed.
  const std::vector<std::string>& rollback_notices() const { return rollback_notices_; }

  // Files that the transaction wrote and that have changed since (drift),
  // among the steps not yet undone: those a rollback killed half way already
  // put back are not drift.
  std::vector<std::string> drifted_files(const Journal& journal) const;
  // drifted_files(), then what each step not yet undone says changed since
  // in the state its undo acts on (Step::drift: a venv's distributions).
  std::vector<std::string> drifted(const Journal& journal, const Manifest& manifest);

  // The unfinished transaction, if any: the newest that is interrupted (no
  // end record) or half undone (a rollback began and did not end). State
  // of a newer format than this tool's is refused (NewerStateFormat, exit 2).
  std::optional<TransactionSummary> interrupted() const;

  // The newest committed transaction of the profile MANIFEST_NAME and its
  // plan.json: what last provisioned the machine with that profile (`plan`
  // compares today's defaults with it). A later rolled-back run does not
  // count: the rollback put the machine back to this one.
  struct CommittedRun {
    TransactionSummary summary;
    nlohmann::json plan_record;
  };
  std::optional<CommittedRun> last_committed(const std::string& manifest_name) const;

  // Throws NewerStateFormat (exit 2) when the state-format stamp or any
  // transaction's begin record names a newer format than this tool reads.
  // Reads the first line of each journal only; changes nothing, so the
  // commands that change the machine ask it before they take the lock.
  void refuse_newer_state() const;

  // --allow-partial-undo: a package version that no way can keep for undo
  // (steps/apt_keep.hpp) is left out with a warning instead of stopping the
  // run before its first change; a rollback whose store copy is corrupt
  // goes on without the store (undo then asks apt's sources, and leaves
  // what they lack as it is) instead of refusing.
  void set_allow_partial_undo(bool allow) { allow_partial_undo_ = allow; }

  // The transaction's undo store, read back from its `kept` records.
  UndoStore undo_store(const Journal& journal, const std::vector<nlohmann::json>& records) const;

 private:
  // Keeps, before the first side effect, every .deb the undo of PLAN's
  // steps would install, and journals each (`kept`). Throws StepFailure
  // when one cannot be kept (unless allow_partial_undo_).
  void keep_for_undo_first(Journal& journal, const Plan& plan, StepContext& ctx, UndoStore& store,
                           RunResult& result);

  void apply_steps(Journal& journal, const Manifest& manifest, const Plan& plan, const RunCallbacks& callbacks,
                   RunResult& result);

  std::string stamp_path() const;  // host path of STATE_DIR/state-format

  FileSystem& fs_;
  ProcessRunner& runner_;
  const HostFacts& host_;
  std::string state_dir_;
  bool allow_partial_undo_ = false;
  std::vector<std::string> rollback_notices_;
};

// Writes what PLAN's steps asked to remember (StepPlan::remember) into the
// state directory, each file only when its content differs: after a
// committed or converged install, never after a failed one.
void keep_remembered(FileSystem& fs, const Plan& plan);

// The testing hook: with WSLGPU_SETUP_CRASH_AT=<step-id>:<when>, the process
// kills itself with SIGKILL at that point of that step. WHEN is before (the
// intent recorded, nothing done), applied (apply() returned, none of it
// recorded yet: a download's file is in place without its written record or
// outcome), after (the outcome recorded) or undo (rollback about to undo it).
void crash_point(const std::string& step_id, const char* when);

}  // namespace wslgpu
