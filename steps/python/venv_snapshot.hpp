// What a virtual environment held before a python_packages step changed
// it, kept in the transaction's undo store, and how undo gives it back.
//
// Before pip runs, every regular file of the venv (bytecode caches, the
// `__pycache__` folders, left out: Python rebuilds them) is hard-linked
// into STATE/tx/ID/undo/venv-STEP/files/, and the tree (folders, files with
// size, mode and mtime) and the distribution set are written beside them
// as tree.json, last, so that a tree.json that exists is a whole one. A
// link costs no space while the venv still holds the same file, and keeps
// the old bytes when pip replaces it (pip unlinks and writes anew, never in
// place); where the store is on another file system than the venv, the
// files are copied (with their mode, owner and mtime) and cost their size.
//
// Undo then needs neither the network nor pip's cache, nor even a working
// interpreter: the distributions the transaction installed or changed are
// removed file by file from their RECORDs, the kept files are linked back
// where they are missing or differ, and the folders the transaction made
// go. Distributions the user added since the transaction (not in the set
// recorded after apply) are kept, their files untouched. After undo the
// venv's distribution set, and its file tree but for bytecode caches, is
// the one kept.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/formats/python_dist.hpp"
#include "installer/host/accounts.hpp"
#include "steps/step.hpp"

namespace wslgpu {

// The folder inside the venv where the tool stages the wheels it downloaded
// for pip (steps/python/wheel_fetch.hpp), there only while pip runs: never
// part of the kept tree.
inline constexpr const char* kWheelStagingFolder = ".wslgpu-setup-wheels";

// Distribution key (normalized name) -> {name as written, version}.
struct DistVersion {
  std::string name;
  std::string version;
  bool operator==(const DistVersion&) const = default;
};
using DistSet = std::map<std::string, DistVersion>;

// The files the RECORD of D names inside VENV (target paths), without D's
// own .dist-info folder; none when it has no RECORD.
std::vector<std::string> record_paths(const FileSystem& fs, const std::string& venv, const InstalledDist& d);

// The distributions of the site-packages folder SITE.
DistSet dist_set(const FileSystem& fs, const std::string& site);
nlohmann::json dist_set_to_json(const DistSet& set);
DistSet dist_set_from_json(const nlohmann::json& json);

struct VenvTree {
  struct File {
    std::string path;  // relative to the venv
    std::uint64_t size = 0;
    std::uint32_t mode = 0644;
    std::int64_t mtime_ns = 0;
  };
  bool existed = false;
  std::vector<std::string> dirs;  // relative, parents first
  std::vector<File> files;
  DistSet dists;
  std::uint64_t bytes = 0;         // the files' sizes
  std::uint64_t copied_bytes = 0;  // what had to be copied (no link across file systems)
  std::size_t linked = 0;          // files kept as links

  nlohmann::json to_json() const;
  // Throws StepFailure naming what is wrong with JSON.
  static VenvTree from_json(const nlohmann::json& json);
};

// The files and folders of VENV now, bytecode caches left out (no links
// followed: the venv's lib64 -> lib is one entry).
VenvTree walk_venv(const FileSystem& fs, const std::string& venv, const std::string& site);

// Keeps VENV's files in STORE_DIR (a target path inside the state folder)
// and writes STORE_DIR/tree.json last. A VENV that does not exist is kept
// as {"existed": false}. Throws StepFailure when a file cannot be kept.
VenvTree keep_venv(FileSystem& fs, const std::string& venv, const std::string& site, const std::string& store_dir);

// The tree.json in STORE_DIR, or nullopt when keeping never finished (then
// nothing was changed in the venv: pip runs only after it).
std::optional<VenvTree> read_kept_venv(const FileSystem& fs, const std::string& store_dir);

// What changed in the venv since the transaction left it AFTER: the
// distributions it had then that are gone or at another version now
// ("torch 2.14.1+cu130, now 2.15.0"). Distributions added since are not
// drift: undo keeps them.
std::vector<std::string> venv_drift(const FileSystem& fs, const std::string& site, const DistSet& after);

struct VenvRestore {
  std::vector<std::string> removed;        // "torch 2.14.1+cu126": what the transaction had installed
  std::vector<std::string> restored;       // "torch 2.14.1+cu130": put back from the store
  std::vector<std::string> kept_user;      // added since the transaction, left as they are
  std::size_t files_put_back = 0;
};

// Gives VENV back the tree BEFORE kept in STORE_DIR. AFTER: the
// distributions the transaction left (nullopt when apply never finished:
// then every distribution not in BEFORE is the transaction's). Folders are
// made as OWNER. Idempotent: a rollback killed half way runs it again.
VenvRestore restore_venv(StepContext& ctx, const UserEntry& owner, const std::string& venv, const std::string& site,
                         const VenvTree& before, const std::optional<DistSet>& after, const std::string& store_dir);

}  // namespace wslgpu
