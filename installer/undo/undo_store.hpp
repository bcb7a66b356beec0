// installer/undo/: what undo needs kept before a transaction changes
// packages. Includes manifest/ and below.
//
// A transaction's undo store: the .deb files its undo would install, kept
// in STATE_DIR/tx/ID/undo/ before the transaction's first side effect, so
// that rolling back a package upgrade, downgrade or removal never depends on
// what apt can still fetch (after `apt-get clean`, after a vendor took an
// old release off its repository, with `file:` sources apt does not cache
// from). Each copy is checked when it is stored (its size and, where the
// Packages index says, its SHA-256) and again before undo installs it (the
// SHA-256 it had when stored): a copy that changed on disk is refused, never
// installed.
//
// The journal holds one `kept` record per copy (KeptDeb::to_json); the store
// folder holds only the files, named as apt names its cache
// (NAME_VERSION_ARCH.deb, the epoch's ':' as %3a).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/error.hpp"

namespace wslgpu {

// Where a copy came from, in the order they are tried.
enum class KeptFrom {
  apt_cache,       // /var/cache/apt/archives (or the tool's download cache)
  fetched,         // downloaded with the machine's sources as they were before the transaction
  rebuilt,         // rebuilt from what dpkg has installed (installer/undo/deb_repack.hpp)
};
const char* kept_from_name(KeptFrom from);
std::optional<KeptFrom> kept_from_parse(const std::string& text);

struct KeptDeb {
  std::string step;  // the id of the step whose undo needs it
  std::string name;
  std::string version;
  std::string architecture;
  KeptFrom from = KeptFrom::apt_cache;
  std::string file;  // file name inside the store folder
  std::uint64_t size = 0;
  std::string sha256;        // of the copy as stored
  std::string index_sha256;  // what the Packages index says, "" when unknown (a rebuilt copy)

  nlohmann::json to_json() const;  // the journal's `kept` record, without "type"
  // Throws Error (exit 2) naming the field when RECORD is not a kept record.
  static KeptDeb from_json(const nlohmann::json& record);
};

// apt's cache file name for NAME VERSION ARCH: dpkg-deb's name with the
// epoch's ':' written as %3a, as apt stores downloads in /var/cache/apt/archives.
std::string deb_file_name(const std::string& name, const std::string& version, const std::string& arch);

// A copy that does not match what was recorded for it: undo refuses it
// (exit 3) and installs nothing.
class CorruptCopy : public Error {
 public:
  CorruptCopy(const std::string& message) : Error(ExitCode::refused, message) {}
};

// Size and SHA-256 of a file on the machine running the tool, streamed.
struct FileDigest {
  std::uint64_t size = 0;
  std::string sha256;
};
// Throws StepFailure when HOST_PATH cannot be read.
FileDigest digest_file(const std::string& host_path);

class UndoStore {
 public:
  // HOST_DIR: the store folder on the machine running the tool; TARGET_DIR:
  // the same seen from inside the target root (what apt and dpkg are given).
  UndoStore(std::string host_dir, std::string target_dir);

  const std::string& host_dir() const { return host_dir_; }
  const std::string& target_dir() const { return target_dir_; }

  // Records a copy that is already in the folder under KEPT.file, after
  // checking it: its size and SHA-256 are measured and, when EXPECTED_SIZE
  // (non-zero) or KEPT.index_sha256 are known, must match them. Returns the
  // entry with size and sha256 filled in; throws CorruptCopy otherwise (and
  // removes the bad file).
  KeptDeb admit(KeptDeb kept, std::uint64_t expected_size = 0);

  // Adds an entry read back from the journal.
  void add(KeptDeb kept);

  // The entry for NAME VERSION (ARCH, or any when empty), or nullptr.
  const KeptDeb* find(const std::string& name, const std::string& version, const std::string& arch = "") const;

  // Checks that KEPT's copy is still what was stored; throws CorruptCopy
  // naming the file, what differs and what to do.
  void check(const KeptDeb& kept) const;
  // check() for every entry of the steps in STEPS (all when empty).
  void check_all(const std::vector<std::string>& steps = {}) const;

  std::string host_path(const KeptDeb& kept) const { return host_dir_ + "/" + kept.file; }
  std::string target_path(const KeptDeb& kept) const { return target_dir_ + "/" + kept.file; }

  const std::vector<KeptDeb>& entries() const { return entries_; }
  std::uint64_t bytes() const;

 private:
  std::string host_dir_;
  std::string target_dir_;
  std::vector<KeptDeb> entries_;
};

// What a store folder holds, at the room removing it would free: its .deb
// copies, and the files of the venvs it keeps (steps/python/venv_snapshot.hpp)
// that only the store still holds (a hard link the venv shares costs
// nothing; once the venv let the file go, as after a build switch, the
// store's link is its only copy and counts).
struct StoreSize {
  std::uint64_t bytes = 0;
  std::size_t debs = 0;
  std::size_t venvs = 0;
  std::size_t venv_files = 0;  // every file of the kept venvs, shared or not
};
StoreSize store_folder_size(const std::string& host_dir);
// store_folder_size(HOST_DIR).bytes.
std::uint64_t store_folder_bytes(const std::string& host_dir);

// "4.1 GB (3 packages; a venv of 12034 files)", "79 kB (a venv of 42 files)".
std::string store_size_text(const StoreSize& size);

// The files of a folder and their bytes, for the wheel cache
// (steps/python/wheel_fetch.hpp): zeros when there is none.
struct FolderSize {
  std::uint64_t bytes = 0;
  std::size_t files = 0;
  std::size_t partial = 0;  // *.part: downloads a later run resumes
};
FolderSize folder_size(const std::string& host_dir);

// Removes a store folder and everything in it (nothing when there is none).
void remove_store_folder(const std::string& host_dir);

// `history --prune`: removes the copies of a store but leaves the folder
// with a file `pruned` saying WHY, so that a later rollback knows the copies
// were let go on purpose (and asks apt's sources, as before the store) and
// does not refuse them as missing.
void prune_store_folder(const std::string& host_dir, const std::string& why);
bool store_was_pruned(const std::string& host_dir);

}  // namespace wslgpu
