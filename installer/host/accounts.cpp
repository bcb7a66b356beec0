#include "installer/host/accounts.hpp"

#include <string_view>

#include "installer/system/text.hpp"

namespace wslgpu {

namespace {
// Plans read these files once per step that names an owner or a group (a
// manifest of 500 file steps reads them 500 times), so the parsers avoid
// per-character appends and string streams.
std::vector<std::string> split_fields(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = s.find(sep, start);
    if (end == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
}

std::optional<std::uint32_t> number(const std::string& s) {
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  unsigned long v = std::stoul(s);
  if (v > 0xFFFFFFFFul) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

std::string read_if_present(const FileSystem& fs, const std::string& path) {
  auto info = fs.stat(path);
  return info && info->type == FileType::regular ? fs.read(path) : std::string();
}
}  // namespace

std::vector<GroupEntry> parse_group_file(const std::string& text) {
  std::vector<GroupEntry> out;
  for (std::string_view line : text::split_lines(text, text::LineEnd::newline_dropped)) {
    auto f = split_fields(line, ':');
    if (f.size() < 4) continue;
    auto gid = number(f[2]);
    if (!gid) continue;
    GroupEntry g{f[0], *gid, {}};
    if (!f[3].empty()) g.members = split_fields(f[3], ',');
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<UserEntry> parse_passwd_file(const std::string& text) {
  std::vector<UserEntry> out;
  for (std::string_view line : text::split_lines(text, text::LineEnd::newline_dropped)) {
    auto f = split_fields(line, ':');
    if (f.size() < 7) continue;
    auto uid = number(f[2]), gid = number(f[3]);
    if (!uid || !gid) continue;
    out.push_back({f[0], *uid, *gid, f[5]});
  }
  return out;
}

Accounts::Accounts(const FileSystem& fs)
    : users_(parse_passwd_file(read_if_present(fs, "/etc/passwd"))),
      groups_(parse_group_file(read_if_present(fs, "/etc/group"))) {}

std::optional<UserEntry> Accounts::user(const std::string& name) const {
  for (const auto& u : users_)
    if (u.name == name) return u;
  return std::nullopt;
}

std::optional<GroupEntry> Accounts::group(const std::string& name) const {
  for (const auto& g : groups_)
    if (g.name == name) return g;
  return std::nullopt;
}

std::optional<std::uint32_t> Accounts::uid_of(const std::string& name_or_id) const {
  if (auto n = number(name_or_id)) return n;
  if (name_or_id == "root" && !user("root")) return 0;  // uid 0 is root on every Linux
  if (auto u = user(name_or_id)) return u->uid;
  return std::nullopt;
}

std::optional<std::uint32_t> Accounts::gid_of(const std::string& name_or_id) const {
  if (auto n = number(name_or_id)) return n;
  if (name_or_id == "root" && !group("root")) return 0;
  if (auto g = group(name_or_id)) return g->gid;
  return std::nullopt;
}

}  // namespace wslgpu
