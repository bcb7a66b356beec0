// Whether apt's package lists describe the sources, judged by the tool's
// own record of its last successful `apt-get update`, kept in the state
// directory (STATE_DIR/apt-lists.json):
//   {"sources_sha256": "...", "lists_sha256": "...", "refreshed": 1764580000}
// sources_sha256 covers what apt reads as sources (sources.list and the
// *.list and *.sources files of sources.list.d, names and content);
// lists_sha256 the names of the list files the update left. File times are
// not used: apt keeps the old time of a list whose content did not change,
// so "a sources file is newer than the lists" stayed true after a refresh
// forever (an install, a rollback and the same install again), and a tool
// that merely touches a file would count as a change.
//
// A refresh recorded for exactly the current sources still holds when the
// list files are the same ones: a rollback that removes a source leaves its
// lists (nothing refreshes them), and installing it again needs no refresh;
// an `apt-get update` by someone else after that deletes those lists, which
// the names show.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

struct ListsRecord {
  std::string sources_sha256;
  std::string lists_sha256;
  std::int64_t refreshed = 0;  // seconds since the epoch
};

// The digest of the sources FS holds, as apt would read them.
std::string apt_sources_digest(const FileSystem& fs);

// The digest of the names of the list files in /var/lib/apt/lists ("" when
// there are none).
std::string apt_lists_digest(const FileSystem& fs);

// The record under STATE_DIR, or nullopt when there is none or it cannot be read.
std::optional<ListsRecord> read_lists_record(const FileSystem& fs, const std::string& state_dir);

// Records a refresh of FS's current sources and lists at NOW (seconds).
void write_lists_record(FileSystem& fs, const std::string& state_dir, std::int64_t now);

// How the lists stand against the sources FS holds now.
struct ListsFreshness {
  bool recorded = false;   // a record exists at all
  bool matches = false;    // it is of exactly these sources and these lists
  std::int64_t age_s = 0;  // since that refresh, when it matches
  std::string why;         // when it does not match: "the sources changed since the last refresh"
};
// Seconds since the epoch, now: the clock lists_freshness compares with.
std::int64_t now_s();

ListsFreshness lists_freshness(const FileSystem& fs, const std::string& state_dir, std::int64_t now);

}  // namespace wslgpu
