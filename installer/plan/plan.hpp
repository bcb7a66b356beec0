// installer/plan/: the plan model, its output, and the overlay plans are made
// against. Includes the folders below it (system/ to net/).
//
// A plan: what an install would do, step by step, resolved against the
// current machine and immutable once made. `plan` prints it; `install` runs
// it. Each step's part says its verdict, a one-line summary for people, the
// detail lines (a diff, a package list), a machine-readable list of changes
// and the facts it probed, so that a saved plan can later prove the machine
// has not moved under it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/filesystem.hpp"
#include "installer/host/host.hpp"

namespace wslgpu {

enum class Verdict {
  noop,     // already as wanted: nothing to do
  change,   // apply would change the machine
  refused,  // a guard forbids it: install stops before any change
  verify,   // a check: reads only, run in its place during install
  skipped,  // its `when` condition is false
};

const char* verdict_name(Verdict v);

// A file a step would write (CONTENT set) or remove (CONTENT empty). The
// runner carries these out atomically, backing up what it replaces, so that
// steps whose effect is a file need no apply or undo code of their own.
//
// A file whose bytes the plan cannot hold (a download, up to gigabytes, not
// fetched during plan) is written by the step's apply() instead: then
// WRITTEN_BY_APPLY is the SHA-256 the file will have and CONTENT stays empty.
// WRITTEN_BY_APPLY is "" when not even that is known before apply (a CDI
// spec that a program installed by an earlier step prints): the runner then
// takes the file's SHA-256 once apply has returned.
// The runner backs PATH up before apply as for any write (streamed, never
// read into memory), writes nothing itself, records PATH as written with
// that SHA-256 once apply has returned (for rollback's drift check), and
// restores the backup on undo, whether or not apply finished. Such a step
// must replace PATH by a rename, never change it in place: the backup may be
// a hard link to the file it replaces. The plan's overlay does not hold the
// file, so later steps of the same plan see PATH as it is now.
struct FileWrite {
  std::string path;
  std::optional<std::string> content;
  FileAttrs attrs;
  std::optional<std::string> written_by_apply = std::nullopt;
};

// A package version that undo of a step would install again (one the step
// upgrades, downgrades or removes), and how the runner will keep its .deb
// in the transaction's undo store before the first side effect
// (installer/undo/undo_store.hpp): from apt's cache, fetched with the
// machine's sources as they are now (before any step of the run changes
// them), or rebuilt from what dpkg has installed. FROM is "" when none of the
// three can provide it, and WHY then says what each lacked.
struct UndoKeep {
  std::string name;
  std::string version;
  std::string architecture;
  std::string from;          // "apt cache", "fetched", "rebuilt" or ""
  std::string source;        // the cached file (target path) or the URI apt fetches; "" when rebuilt
  std::uint64_t bytes = 0;   // the copy's size (Installed-Size for a rebuilt one: an upper bound)
  std::string index_sha256;  // the Packages index's SHA-256, "" when unknown
  std::string why;           // when FROM is "": why no copy can be had
};

// Room a step's apply needs beyond apt's figures: BYTES on the filesystem
// of the target folder PATH (its nearest existing parent), for the
// disk-space guard. When FREE_ON_FILESYSTEM_OF is set, the bytes cost
// nothing if PATH is on that folder's filesystem (hard links there).
struct DiskNeed {
  std::string path;
  std::uint64_t bytes = 0;
  std::string what;  // "pip needs 3.2 GB to download and unpack into /home/alice/.venvs/pytorch"
  std::string free_on_filesystem_of;
};

struct StepPlan {
  Verdict verdict = Verdict::noop;
  std::string summary;                 // one line: "add /etc/profile.d/wslgpu-rocm.sh"
  std::vector<std::string> details;    // further lines: diff, package list, current check result
  nlohmann::json changes = nlohmann::json::array();  // [{"type": "file", "path": ..., ...}]
  nlohmann::json fingerprint = nlohmann::json::object();  // facts probed: {"file:/etc/x": "sha256:..."}
  std::vector<FileWrite> writes;       // file effects, applied by the runner
  std::vector<std::string> notices;    // told to the user after apply ("log in again ...")
  bool irreversible = false;           // apply cannot be undone (a command without undo)
  // What install prints when the step starts ("installing 43 packages, 2.9
  // GB to download"), so that a person always knows what is running; the
  // summary when empty.
  std::string activity;
  // apt's figures for what apply downloads into /var/cache/apt/archives and
  // adds to the disk (negative: frees), for the plan's totals and the
  // disk-space guard (installer/guards/disk_space.hpp). 0 when nothing.
  std::uint64_t download_bytes = 0;
  std::int64_t disk_bytes = 0;
  // Facts the tool keeps in its own state directory once an install has
  // used this plan (committed, or converged), so that later plans need not
  // ask again: the Windows profile folder found through interop. Not
  // changes: written without a transaction, never undone.
  std::vector<FileWrite> remember;
  // What undo of this step needs kept before the transaction changes anything.
  std::vector<UndoKeep> keeps;
  std::vector<DiskNeed> disk_needs;
  // In a plan made offline (StepContext::offline): what this step would
  // have asked a server ("the key at URL", "apt's package lists"), so that
  // the plan says which verdicts are incomplete; "" when it asked nothing.
  std::string not_asked;
};

// How the selector of a [matrix.VAR] table with auto got its value, for the plan's
// header: "cuda_version = 13.1 (auto): the newest toolkit ...".
struct VariableChoice {
  std::string variable;  // "cuda_version"
  std::string value;     // the row chosen: "13.1"
  std::string how;       // "auto", "fallback", "set" (--set), "default" ([vars]), "recorded" (a journal's)
  std::string why;       // the table's explanation for auto and fallback, else ""
};

// A variable whose value the profile now gives differently from what the
// transaction that provisioned the machine recorded, asked the same way
// (installer/manifest/defaults_changed.hpp): after an upgrade, a new
// default or [matrix] row.
struct DefaultChange {
  std::string variable;  // "rocm_version"
  std::string from;      // the value then: "7.2.1"
  std::string to;        // the value now: "7.2.2"
  std::string where;     // where the value now in force is written: "manifests/rocm.toml:27:16"
  std::string row;       // the [matrix] row behind it: "[matrix.rocm_version.\"7.2.2\"]", or ""
  bool in_row = false;   // WHERE is inside ROW (a column), not a [vars] default whose row ROW is (a selector)
  std::string source;    // that row's "# Source:" comment, or ""
};
struct DefaultsChanged {
  std::string transaction;   // the provisioning transaction's id
  std::string time;
  std::string tool_version;  // the wslgpu-setup that ran it
  std::vector<DefaultChange> changes;
};

struct PlannedStep {
  std::size_t index = 0;  // 1-based position in the manifest
  std::string id;
  std::string kind;
  std::string name;
  StepPlan plan;
};

struct Plan {
  std::string manifest_name;
  std::string manifest_description;
  std::string source;  // "rocm (bundled)" or the file path
  std::map<std::string, std::string> vars;
  HostFacts host;
  std::vector<PlannedStep> steps;
  std::vector<std::string> refusals;  // guards on the machine itself (installer/guards/guards.hpp)
  std::vector<std::string> warnings;  // the manifest's warn_if that hold: install goes ahead, and says so
  std::vector<VariableChoice> choices;
  // Set by `plan` when a committed transaction provisioned this profile:
  // what today's defaults change against it (empty changes: nothing).
  std::optional<DefaultsChanged> since;
  // Made by `plan --offline`: no server was asked (StepContext::offline),
  // so it is for reading only: it cannot be saved for `install --plan`.
  bool offline = false;

  bool changes_pending() const;
  bool refused() const;
  // The sums of the changing steps' download_bytes and disk_bytes.
  std::uint64_t download_bytes() const;
  std::int64_t disk_bytes() const;
  std::size_t count(Verdict v) const;
  // The steps that did not ask a server what they needed (StepPlan::not_asked).
  std::size_t count_not_asked() const;
  // The changing steps' keeps: what the undo store will hold, and what of
  // it cannot be had (UndoKeep::from empty).
  std::uint64_t undo_store_bytes() const;
  std::vector<UndoKeep> undo_keeps() const;
  std::vector<UndoKeep> undo_gaps() const;
};

}  // namespace wslgpu
