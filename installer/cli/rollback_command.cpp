// `wslgpu-setup rollback ID` and `recover --rollback | --resume`: undo a
// finished transaction, or finish an interrupted one either way. The
// manifest a transaction ran comes back from its record (plan_record.hpp).
#include <iostream>
#include <map>

#include "installer/cli/commands.hpp"
#include "installer/cli/plan_record.hpp"
#include "installer/cli/resolve.hpp"
#include "installer/cli/run_report.hpp"
#include "installer/cli/session.hpp"
#include "installer/cli/terminal.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/paths.hpp"
#include "installer/transaction/journal.hpp"
#include "installer/transaction/lock.hpp"
#include "installer/transaction/transaction.hpp"

namespace wslgpu {

namespace {

// `rollback ID` and `recover --rollback`: undoes JOURNAL's transaction. An
// undo that fails is reported, not thrown: the run says what was undone and
// that the rest is still applied (exit 5).
RunResult undo_transaction(Transactions& tx, Journal& journal, const Manifest& manifest,
                                  const RunCallbacks& callbacks) {
  RunResult r;
  r.transaction_id = journal.id();
  try {
    r.undone = tx.rollback(journal, manifest, callbacks);
  } catch (const RollbackFailure& e) {
    r.undone = e.undone();
    r.undo_error = e.what();
    r.failed = true;
    r.rc = static_cast<int>(ExitCode::needs_recovery);
  }
  r.notices = tx.rollback_notices();
  r.changed = !r.undone.empty();
  return r;
}

// What JOURNAL's transaction changed that has changed since (files, a
// venv's distributions, what the user added to a venv it created): named,
// and refused (exit 3) before anything is undone, unless FORCE.
void refuse_drift(Transactions& tx, const Journal& journal, const Manifest& manifest, const std::string& id,
                  bool force) {
  auto drift = tx.drifted(journal, manifest);
  if (drift.empty() || force) return;
  std::string msg = drift.size() == tx.drifted_files(journal).size()
                        ? "files that transaction " + id + " wrote have changed since:"
                        : "what transaction " + id + " changed has changed since:";
  for (const auto& d : drift) msg += "\n  " + d;
  throw Error(ExitCode::refused, msg + "\nRolling back would overwrite those changes. Nothing was changed; "
                                       "pass --force to roll back anyway.");
}

// After a rollback that a signal could not stop: the exit status says it
// came (128 + the signal), and what was done is said plainly.
int finish_rollback(const GlobalOptions& g, const ChangeOptions& o, RunResult& r) {
  int signo = interrupt_signal();
  if (!signo || !r.undo_error.empty()) return finish_run(g, o, r, "rolled back");
  r.interrupted = signo;
  r.rc = 128 + signo;
  if (o.output == OutputFormat::json || g.verbosity < 0) return finish_run(g, o, r, "rolled back");
  std::cerr << "error: interrupted (" << signal_name(signo) << ") during the rollback, which was finished first\n";
  std::cout << "Transaction " << r.transaction_id << " rolled back " << r.undone.size()
            << (r.undone.size() == 1 ? " step" : " steps") << "; the machine is as it was before it (exit " << r.rc
            << ").\n";
  return r.rc;
}

}  // namespace

int run_rollback(const GlobalOptions& g, const std::string& id, const ChangeOptions& o) {
  refuse_unless_root(g, "rollback");
  InterruptScope interrupts(kRollbackInterrupted, kRollbackAgain);
  Session s(g);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  RunLock lock = lock_state(s, tx, o);
  Journal journal = Journal::open(tx.tx_root(), id);
  journal.cut_torn_tail();
  TransactionSummary summary = summarize(id, journal.records());
  if (summary.status == "rolled_back") {
    std::cout << "Transaction " << id << " is already rolled back; nothing to do.\n";
    return 0;
  }
  if (summary.status == "interrupted")
    throw Error(ExitCode::needs_recovery, "transaction " + id + " was interrupted; use `wslgpu-setup recover --rollback`");
  // The manifest as the transaction ran it (its user), whose steps say what
  // changed since in what they undo (a venv's distributions).
  Manifest manifest = manifest_of(journal, s);
  refuse_drift(tx, journal, manifest, id, o.force);
  if (interactive(o) && !confirm("Roll back transaction " + id + " (" + summary.manifest + ")?")) {
    throw_if_interrupted("at the question; nothing was changed");
    return 0;
  }
  throw_if_interrupted("before the rollback began; nothing was changed");
  lock.record_holder(g.command_line);
  tx.set_allow_partial_undo(o.allow_partial_undo);
  RunResult r = undo_transaction(tx, journal, manifest, text_callbacks(g, o.output == OutputFormat::text));
  return finish_rollback(g, o, r);
}

int run_recover(const GlobalOptions& given, bool rollback, const ChangeOptions& o) {
  refuse_unless_root(given, "recover");
  InterruptScope interrupts(rollback ? kRollbackInterrupted : kChangeInterrupted, rollback ? kRollbackAgain : kChangeAgain);
  GlobalOptions g = given;
  Session s(g);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  RunLock lock = lock_state(s, tx, o);
  auto t = tx.interrupted();
  if (!t) {
    if (o.output == OutputFormat::json) std::cout << nlohmann::json{{"changed", false}, {"rc", 0}}.dump(2) << "\n";
    else std::cout << "No interrupted transaction: nothing to recover.\n";
    return 0;
  }
  if (!rollback && t->status == "half_undone")
    throw Refusal("transaction " + t->id +
                  " is half undone: a rollback began, so it can only be finished by "
                  "rolling back; nothing was changed.\n  Run: sudo wslgpu-setup recover --rollback");
  Journal journal = Journal::open(tx.tx_root(), t->id);
  journal.cut_torn_tail();
  lock.record_holder(g.command_line);
  Manifest manifest = manifest_of(journal, s);
  tx.set_allow_partial_undo(o.allow_partial_undo);
  if (rollback) {
    // A rollback that already began (half undone) was agreed to, with
    // --force where it needed it: finishing it asks nothing again.
    if (t->status != "half_undone") refuse_drift(tx, journal, manifest, t->id, o.force);
    RunResult r = undo_transaction(tx, journal, manifest, text_callbacks(g, o.output == OutputFormat::text));
    return finish_rollback(g, o, r);
  }
  nlohmann::json record = journal.read_plan();
  ManifestSource source = recorded_source(record);
  g.not_wsl = record.value("not_wsl", g.not_wsl);
  g.unsupported_distro = record.value("unsupported_distro", g.unsupported_distro);
  Resolved r = resolve(g, s, source, record.value("sets", Variables{}), true,
                       record.value("choices", std::map<std::string, std::string>{}));
  throw_if_interrupted("while planning the rest of the run; nothing was changed, and it can still be resumed");
  if (r.plan.refused()) {
    std::cerr << refusal_text(r.plan);
    return static_cast<int>(ExitCode::refused);
  }
  RunResult result = tx.resume(journal, r.manifest, r.plan, text_callbacks(g, o.output == OutputFormat::text));
  if (result.rc == 0) keep_remembered(s.fs, r.plan);
  return finish_run(g, o, result, "finished");
}

}  // namespace wslgpu
