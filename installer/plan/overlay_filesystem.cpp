#include "installer/plan/overlay_filesystem.hpp"

#include <algorithm>
#include <chrono>

#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"

namespace wslgpu {

std::optional<FileInfo> OverlayFileSystem::stat(const std::string& path) const {
  auto it = entries_.find(normalize_path(path));
  if (it == entries_.end()) return base_.stat(path);
  return pending_info(it->second);
}

std::optional<FileInfo> OverlayFileSystem::lstat(const std::string& path) const {
  auto it = entries_.find(normalize_path(path));
  if (it == entries_.end()) return base_.lstat(path);
  return pending_info(it->second);
}

std::optional<std::string> OverlayFileSystem::read_link(const std::string& path) const {
  if (entries_.count(normalize_path(path))) return std::nullopt;
  return base_.read_link(path);
}

std::optional<FileInfo> OverlayFileSystem::pending_info(const Entry& entry) {
  if (entry.removed) return std::nullopt;
  FileInfo info;
  info.type = entry.directory ? FileType::directory : FileType::regular;
  info.mode = entry.attrs.mode;
  info.uid = entry.attrs.uid;
  info.gid = entry.attrs.gid;
  info.size = entry.content.size();
  info.mtime_ns = entry.mtime_ns;
  return info;
}

std::string OverlayFileSystem::read(const std::string& path) const {
  auto it = entries_.find(normalize_path(path));
  if (it == entries_.end()) return base_.read(path);
  if (it->second.removed || it->second.directory) throw StepFailure("cannot read " + path + ": not a file");
  return it->second.content;
}

std::vector<std::string> OverlayFileSystem::list(const std::string& dir) const {
  std::vector<std::string> names = base_.list(dir);
  std::string prefix = normalize_path(dir);
  if (prefix != "/") prefix += "/";
  for (const auto& [path, entry] : entries_) {
    if (path.rfind(prefix, 0) != 0 || path.size() == prefix.size()) continue;
    std::string rest = path.substr(prefix.size());
    if (rest.find('/') != std::string::npos) continue;
    auto pos = std::find(names.begin(), names.end(), rest);
    if (entry.removed && pos != names.end()) names.erase(pos);
    if (!entry.removed && pos == names.end()) names.push_back(rest);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void OverlayFileSystem::write_atomic(const std::string& path, std::string_view content, const FileAttrs& attrs) {
  // A planned write would happen now: later steps judging freshness by mtime
  // (apt_update against the sources) must see it as newer than what is on disk.
  auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  entries_[normalize_path(path)] = Entry{false, false, std::string(content), attrs, static_cast<std::int64_t>(now)};
}

void OverlayFileSystem::remove(const std::string& path) { entries_[normalize_path(path)] = Entry{true, false, "", {}, 0}; }

void OverlayFileSystem::make_dirs(const std::string& path, std::uint32_t mode) {
  if (!stat(path)) entries_[normalize_path(path)] = Entry{false, true, "", FileAttrs{mode, 0, 0}, 0};
}

void OverlayFileSystem::rename(const std::string& from, const std::string& to) {
  throw StepFailure("internal error: a plan moved " + from + " to " + to + "; only apply and undo move files");
}

std::vector<std::string> OverlayFileSystem::pending_paths() const {
  std::vector<std::string> out;
  for (const auto& [path, entry] : entries_)
    if (!entry.directory) out.push_back(path);
  return out;
}

}  // namespace wslgpu
