// What the package steps (apt_install, apt_remove) need kept for their undo,
// found at plan time and kept at the start of the run (installer/undo/).
//
// A step that upgrades, downgrades or removes a package can only be undone
// by installing the old version again. Its .deb is kept in the
// transaction's store before the transaction's first side effect, so that a
// rollback needs neither the network nor sources that still offer it. Three
// ways, in order:
//   1. apt's cache (/var/cache/apt/archives) or the tool's download cache:
//      copied (a hard link where the store is on the same filesystem);
//   2. fetched with `apt-get download NAME=VERSION` and the machine's sources
//      as they are before the run: the keeping happens before any step, so a
//      release switch that replaces the vendor's sources fetches the old
//      release while its sources are still there;
//   3. rebuilt from what dpkg has installed (installer/undo/deb_repack.hpp),
//      its configuration files as they are now.
// A copy that apt's index describes is checked against the index's size and
// SHA-256 when it is stored; every copy against its stored SHA-256 before
// undo installs it.
#pragma once
#include <string>
#include <vector>

#include "installer/undo/undo_store.hpp"
#include "steps/step.hpp"

namespace wslgpu {

struct OldPackage {
  std::string name;
  std::string version;
  std::string architecture;
};

// Where each of OLDS would be kept from, asking apt about the target's own
// sources (the ones in place when the run starts, not the plan's). Changes
// nothing. A package no way provides gets UndoKeep::from "" and the reason.
std::vector<UndoKeep> plan_undo_keeps(StepContext& ctx, const std::vector<OldPackage>& olds);

// Adds to PLAN's details what its keeps cost and where they come from, and
// which cannot be kept.
void add_keep_details(StepPlan& plan);

// Keeps KEEP's .deb in STORE for the step STEP_ID: the way the plan found
// first, then the later ones when that one fails now (the cache was cleaned
// since the plan). Returns the admitted entry; throws StepFailure naming the
// package and why each way failed, or CorruptCopy when a copy does not match
// apt's index.
KeptDeb keep_for_undo(StepContext& ctx, UndoStore& store, const std::string& step_id, const UndoKeep& keep);

// The store's copy of NAME VERSION, checked (CorruptCopy when it changed on
// disk), as a target path for apt-get; "" when the store has none.
std::string kept_deb(const StepContext& ctx, const std::string& name, const std::string& version,
                     const std::string& arch);

// The undo store is root's alone (0700, like the journal, whose backups may
// hold secrets), so apt must read a stored .deb as root rather than as its
// _apt sandbox user, which cannot enter the folder.
inline constexpr const char* kStoreReader = "APT::Sandbox::User=root";

}  // namespace wslgpu
