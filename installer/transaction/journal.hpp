// The transaction journal: one directory per run under the state directory
// (ROOT/var/lib/wslgpu-setup/tx/<id>/, 0700: backups may hold secrets)
// holding
//   plan.json      the resolved plan and what is needed to resolve it again
//   journal.jsonl  append-only, one JSON record per line, each fsynced
//                  before the side effect it announces
//   backups/N      the files the run replaced, as they were (a file a step's
//                  apply replaces, a download, by a hard link or a copy)
// Records, in order of a run:
//   begin        {id, time, manifest, source, pid, state_format, tool_version}
//                                           (state_format: installer/transaction/state_format.hpp)
//   intent       {step, index, pre, dirs}   before the step's first side effect
//                                           (dirs: the top folders, before a step that runs programs)
//   backup       {step, path, existed, blob, sha256, mode, uid, gid, created_dirs,
//                whole_file}                whole_file: stored by store_file_blob
//   written      {step, path, sha256}       after a file write, or after the apply
//                                           that wrote it itself (for drift checks)
//   outcome      {step, status, undo, msg}  status: applied | failed
//   resume       {time, pid}                `recover --resume` went on from here
//   rollback     {time, pid}                a rollback began
//   undone       {step}                     rollback reversed this step
//   undo_failed  {step, msg, time}          that step's undo failed; the rollback stopped
//   end          {status, time}             committed | rolled_back
// A journal without an end record belongs to an interrupted run; one whose
// last rollback has no end after it is half undone (a rollback killed, or an
// undo that failed). Both must be recovered before the next install.
// docs/transactions.md describes the format and the guarantees.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/error.hpp"

namespace wslgpu {

// The transactions cannot be read without root: the folder is 0700, because
// backups hold the files runs replaced, which may hold secrets (exit 3).
// Thrown where they are listed or opened, so that "cannot see them" is never
// read as "there are none"; a command that words its own advice uses reason().
class TransactionsNeedRoot : public Refusal {
 public:
  explicit TransactionsNeedRoot(const std::string& tx_root);
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

class Journal {
 public:
  // Creates a new transaction directory under TX_ROOT (a host path).
  static Journal create(const std::string& tx_root, const std::string& id);
  // Opens an existing one for appending (recovery, rollback), or reading.
  // Reads the first line, the begin record, for its format: one newer than
  // this tool's is refused (NewerStateFormat, exit 2) before anything else
  // of it is read.
  static Journal open(const std::string& tx_root, const std::string& id);

  const std::string& id() const { return id_; }
  const std::string& dir() const { return dir_; }
  // The state format its begin record names (1 when it names none).
  int state_format() const { return state_format_; }

  // Appends RECORD (with a "type" field) and fsyncs it. Throws StepFailure
  // when the disk refuses: no side effect may go unrecorded.
  void append(const nlohmann::json& record);

  // Stores CONTENT as a backup blob (temp file, fsync, rename, fsync dir);
  // returns its name relative to the transaction directory.
  std::string store_blob(const std::string& content);
  std::string read_blob(const std::string& name) const;

  // The same for the regular file at HOST_PATH, never read into memory (a
  // download may be gigabytes): a hard link when the transaction directory
  // is on the same file system, else a streamed copy. A link shares the
  // file's bytes, so this is only for a file that is about to be replaced by
  // a rename, never changed in place (FileWrite::written_by_apply).
  std::string store_file_blob(const std::string& host_path);
  // Puts blob NAME back at HOST_PATH the same way: linked or copied to a
  // temporary file beside it, given MODE and owner, renamed over HOST_PATH
  // (replacing whatever entry is there, a link too), folder fsynced.
  void restore_file_blob(const std::string& name, const std::string& host_path, std::uint32_t mode, std::uint32_t uid,
                         std::uint32_t gid) const;

  // Writes plan.json atomically.
  void write_plan(const nlohmann::json& plan);
  nlohmann::json read_plan() const;

  // Every record so far. A torn last line (a run killed while writing it)
  // is ignored; an unreadable line with records after it (a journal that
  // recovery appended to before cut_torn_tail existed) is skipped with a
  // warning, and the records after it are read.
  std::vector<nlohmann::json> records() const;

  // Cuts an incomplete last record, so that the records rollback and
  // recovery append start on a line of their own (appended to the torn
  // line, they would be unreadable too). Says what it cut in a warning and
  // returns it; empty when the journal ends in a complete line. Only runs
  // that hold the lock and are about to append call it.
  std::string cut_torn_tail();

  // True when the last line is a complete "end" record with a final status,
  // read from the file's tail alone. Every plan and install asks this of
  // every transaction in the history to find an interrupted one; reading
  // whole journals made that cost grow with the history (a 1000-step
  // journal took 5 MiB and a millisecond). False means "read records()".
  bool ended() const;

 private:
  std::string id_;
  std::string dir_;
  int blob_counter_ = 0;
  int state_format_ = 1;
};

// What a journal says about a run, folded from its records.
struct TransactionSummary {
  std::string id;
  std::string time;
  std::string manifest;
  std::string source;
  std::string status;        // committed, rolled_back, interrupted, half_undone
  std::string undo_failure;  // half_undone: the undo that failed ("step \"x\": why"), or "" when killed
  std::size_t changed_steps = 0;
  std::string interrupted_step;  // the step with an intent and no outcome
  std::string last_applied_step;  // the last step with an "applied" outcome
};

TransactionSummary summarize(const std::string& id, const std::vector<nlohmann::json>& records);

// Whether a summary's STATUS is final (committed, rolled_back): the others
// (interrupted, half_undone) must be recovered before the next install.
bool is_finished(const std::string& status);

// Transaction ids under TX_ROOT, oldest first (ids sort by time).
std::vector<std::string> list_transactions(const std::string& tx_root);

// "20261130-101502-7f3a": sortable, unique enough for one machine.
std::string new_transaction_id();

// Writes CONTENT to PATH (host path) through a temporary file, fsync and
// rename, then fsyncs the directory. MODE: the new file's permissions.
void write_file_durably(const std::string& path, const std::string& content, std::uint32_t mode = 0600);

}  // namespace wslgpu
