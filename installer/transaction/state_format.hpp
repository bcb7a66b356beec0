// The format version of the state under /var/lib/wslgpu-setup (the journal,
// plan.json and the backups of every transaction), and the rule for reading
// it: this tool reads every format from 1 to kStateFormat, and refuses a
// newer one rather than misread it. docs/transactions.md, "Format versions".
//
// The formats, and what each changed:
//   1  everything written before the format had a number: no state_format
//      field anywhere (a record without one is read as 1).
//   2  adds the number itself: the begin record and plan.json carry
//      "state_format" and "tool_version", and the stamp file
//      STATE_DIR/state-format holds the newest format written there. The
//      records are those of docs/transactions.md as they were then,
//      undo_failed and the backups' whole_file among them.
// To change the format: bump kStateFormat, describe the new one above and
// in docs/transactions.md, and add a fixture written by the new format
// (tests/unit/transaction/data/state-format-N/) so the old ones stay read.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "installer/system/error.hpp"

namespace wslgpu {

inline constexpr int kStateFormat = 2;
inline constexpr int kOldestStateFormat = 1;

// State written in a newer format than this tool reads (exit 2). It is a
// class of its own so that a command that may go on without the state
// (plan, without root) still stops for it.
class NewerStateFormat : public Error {
 public:
  // WHAT: what was written ("transaction 20261201-…", "the state in …"),
  // FORMAT and WRITER: its format and the tool version that wrote it.
  NewerStateFormat(const std::string& what, int format, const std::string& writer);
};

// The format RECORD (a begin record, plan.json or the stamp) says it was
// written in: its "state_format", or 1 when it has none.
int state_format_of(const nlohmann::json& record);

// Throws NewerStateFormat when RECORD's format is newer than this tool's.
void refuse_newer_state(const std::string& what, const nlohmann::json& record);

// The stamp file in the state folder: HOST_PATH (STATE_DIR/state-format).
// check_state_stamp refuses when it names a newer format (an absent stamp
// is state of format 1 or none at all); write_state_stamp records
// kStateFormat and this tool's version, atomically, unless the stamp
// already says as much or more.
void check_state_stamp(const std::string& host_path);
void write_state_stamp(const std::string& host_path);

}  // namespace wslgpu
