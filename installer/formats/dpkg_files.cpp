#include "installer/formats/dpkg_files.hpp"
#include "installer/system/text.hpp"

#include <string_view>
#include <vector>

namespace wslgpu {

namespace {

const char* const kInfoDir = "/var/lib/dpkg/info";

// "cuda-keyring.list" -> "cuda-keyring", "libfoo:amd64.conffiles" -> "libfoo".
std::string package_of(const std::string& file_name, const std::string& ext) {
  std::string name = file_name.substr(0, file_name.size() - ext.size());
  return name.substr(0, name.find(':'));
}

// Whether TEXT has PATH as one of its lines. A conffiles line may start
// with a flag ("remove-on-upgrade /etc/x", deb-conffiles(5)).
bool lists_path(const std::string& text, const std::string& path, bool flags) {
  for (std::string_view raw : text::split_lines(text, text::LineEnd::newline_dropped)) {
    std::string_view line = text::trim_field(raw);
    if (flags && !line.empty() && line.front() != '/') {
      std::size_t space = line.find_first_of(" \t");
      line = space == std::string_view::npos ? std::string_view() : text::trim_field(line.substr(space));
    }
    if (line == path) return true;
  }
  return false;
}

std::optional<DpkgOwner> search(const FileSystem& fs, const std::vector<std::string>& names, const std::string& ext,
                                const std::string& path, bool conffiles) {
  for (const auto& name : names) {
    if (name.size() <= ext.size() || !name.ends_with(ext)) continue;  // ".list" alone is no package
    const std::string file = std::string(kInfoDir) + "/" + name;
    auto info = fs.stat(file);
    if (!info || info->type != FileType::regular) continue;
    // A cheap look for the path before splitting the file into lines.
    std::string text = fs.read(file);
    if (text.find(path) == std::string::npos) continue;
    if (lists_path(text, path, conffiles)) return DpkgOwner{package_of(name, ext), conffiles};
  }
  return std::nullopt;
}

}  // namespace

std::optional<DpkgOwner> find_conffile_owner(const FileSystem& fs, const std::string& path) {
  return search(fs, fs.list(kInfoDir), ".conffiles", path, true);
}

std::optional<DpkgOwner> find_dpkg_owner(const FileSystem& fs, const std::string& path) {
  auto names = fs.list(kInfoDir);
  if (auto owner = search(fs, names, ".conffiles", path, true)) return owner;
  return search(fs, names, ".list", path, false);
}

}  // namespace wslgpu
