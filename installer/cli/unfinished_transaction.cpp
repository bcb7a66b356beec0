#include "installer/cli/unfinished_transaction.hpp"

#include "installer/system/error.hpp"

namespace wslgpu {

std::string unfinished_text(const TransactionSummary& t) {
  if (t.status == "half_undone")
    return "transaction " + t.id + " (" + t.manifest + ") is half undone: its rollback " +
           (t.undo_failure.empty() ? std::string("was stopped before its end")
                                   : "stopped when undoing " + t.undo_failure) +
           "\n  Finish the rollback (once the cause is fixed):   sudo wslgpu-setup recover --rollback";
  return "transaction " + t.id + " (" + t.manifest + ") was interrupted" +
         (!t.interrupted_step.empty()    ? " at step \"" + t.interrupted_step + "\""
          : !t.last_applied_step.empty() ? " after step \"" + t.last_applied_step + "\""
                                         : std::string(" before its first step")) +
         "\n  Roll it back:   sudo wslgpu-setup recover --rollback\n"
         "  Or finish it:   sudo wslgpu-setup recover --resume";
}

void refuse_if_interrupted(const Transactions& tx) {
  if (auto t = tx.interrupted()) throw Error(ExitCode::needs_recovery, unfinished_text(*t));
}

}  // namespace wslgpu
