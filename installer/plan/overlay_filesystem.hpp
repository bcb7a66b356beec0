// A FileSystem that reads through to another one but keeps writes in memory.
// The planner gives it to steps so that step N sees the files that steps
// 1..N-1 would write, without anything touching the disk: this is what makes
// a plan exact for manifests whose steps build on each other.
#pragma once
#include <map>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

class OverlayFileSystem : public FileSystem {
 public:
  explicit OverlayFileSystem(const FileSystem& base) : base_(base) {}

  std::optional<FileInfo> stat(const std::string& path) const override;
  // A planned write or removal replaces whatever is at PATH, a link too, so
  // both see the pending entry; below it, the base answers.
  std::optional<FileInfo> lstat(const std::string& path) const override;
  // A pending entry is never a link; below it, the base answers.
  std::optional<std::string> read_link(const std::string& path) const override;
  std::string read(const std::string& path) const override;
  std::vector<std::string> list(const std::string& dir) const override;
  void write_atomic(const std::string& path, std::string_view content, const FileAttrs& attrs) override;
  void remove(const std::string& path) override;
  void make_dirs(const std::string& path, std::uint32_t mode) override;
  // A plan moves nothing: renames are apply's and undo's (throws).
  void rename(const std::string& from, const std::string& to) override;
  std::string host_path(const std::string& path) const override { return base_.host_path(path); }

  // Target paths written or removed here and not yet on disk, sorted.
  // (apt_install's plan uses it to learn which apt sources are pending.)
  std::vector<std::string> pending_paths() const;

 private:
  struct Entry {
    bool removed = false;
    bool directory = false;
    std::string content;
    FileAttrs attrs;
    std::int64_t mtime_ns = 0;
  };
  static std::optional<FileInfo> pending_info(const Entry& entry);

  const FileSystem& base_;
  std::map<std::string, Entry> entries_;  // normalized target path -> state
};

}  // namespace wslgpu
