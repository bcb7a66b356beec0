#include "installer/formats/wheel_metadata.hpp"

#include <memory>

#include "installer/formats/archive_api.hpp"

namespace wslgpu {

namespace {

using ArchivePtr = std::unique_ptr<archive, int (*)(archive*)>;

std::string problem_of(const ArchiveApi& la, archive* a) {
  const char* text = la.error_string(a);
  return text ? text : "unknown error";
}

// "torch-2.9.1.dist-info/METADATA": one folder deep, the folder's name ending
// in ".dist-info".
bool is_metadata_member(const std::string& path) {
  auto slash = path.find('/');
  if (slash == std::string::npos || path.compare(slash, std::string::npos, "/METADATA") != 0) return false;
  const std::string folder = path.substr(0, slash);
  const std::string suffix = ".dist-info";
  return folder.size() > suffix.size() && folder.compare(folder.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<std::string> read_wheel_metadata(const std::string& host_path, std::string& error,
                                               std::uint64_t max_bytes) {
  const ArchiveApi& la = archive_api();
  ArchivePtr a(la.read_new(), la.read_free);
  la.read_support_format_zip_seekable(a.get());
  if (la.read_open_filename(a.get(), host_path.c_str(), 65536) != ARCHIVE_OK) {
    error = host_path + " cannot be read as a wheel (a zip archive): " + problem_of(la, a.get());
    return std::nullopt;
  }
  std::optional<std::string> found;
  archive_entry* entry = nullptr;
  int r;
  while ((r = la.read_next_header(a.get(), &entry)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
    const char* name = la.entry_pathname(entry);
    if (!name || !is_metadata_member(name)) {
      la.read_data_skip(a.get());
      continue;
    }
    if (found) {
      error = host_path + " holds more than one *.dist-info/METADATA";
      return std::nullopt;
    }
    std::string text;
    char buf[16384];
    la_ssize_t got;
    while ((got = la.read_data(a.get(), buf, sizeof buf)) > 0) {
      text.append(buf, static_cast<std::size_t>(got));
      if (text.size() > max_bytes) {
        error = host_path + ": its " + name + " is larger than " + std::to_string(max_bytes) + " bytes";
        return std::nullopt;
      }
    }
    if (got < 0) {
      error = host_path + ": its " + name + " cannot be read: " + problem_of(la, a.get());
      return std::nullopt;
    }
    found = std::move(text);
  }
  if (r != ARCHIVE_EOF) {
    error = host_path + " is damaged: " + problem_of(la, a.get());
    return std::nullopt;
  }
  if (!found) error = host_path + " has no *.dist-info/METADATA (it is not a wheel)";
  return found;
}

}  // namespace wslgpu
