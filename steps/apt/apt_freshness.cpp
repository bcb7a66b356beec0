#include "steps/apt/apt_freshness.hpp"

#include <cctype>
#include <chrono>

#include <nlohmann/json.hpp>

#include "installer/formats/sha256.hpp"

namespace wslgpu {

namespace {

const char* const kRecord = "/apt-lists.json";

// apt reads sources.list.d/NAME only when NAME ends in .list or .sources and
// holds only letters, digits, '_', '-' and '.' (others, such as
// foo.list.save or foo.list~, are ignored, so they must not count).
bool apt_reads(const std::string& name) {
  auto ends = [&](const std::string& suffix) {
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!ends(".list") && !ends(".sources")) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

void add_file(Sha256& h, const FileSystem& fs, const std::string& path) {
  auto info = fs.stat(path);
  if (!info || info->type != FileType::regular) return;
  std::string content = fs.read(path);
  h.update(path);
  h.update(std::string_view("\0", 1));
  h.update(std::to_string(content.size()));
  h.update(std::string_view("\0", 1));
  h.update(content);
}

}  // namespace

std::string apt_sources_digest(const FileSystem& fs) {
  Sha256 h;
  add_file(h, fs, "/etc/apt/sources.list");
  for (const auto& name : fs.list("/etc/apt/sources.list.d"))
    if (apt_reads(name)) add_file(h, fs, "/etc/apt/sources.list.d/" + name);
  return h.hex_digest();
}

std::string apt_lists_digest(const FileSystem& fs) {
  Sha256 h;
  bool any = false;
  for (const auto& name : fs.list("/var/lib/apt/lists")) {
    if (name == "lock" || name == "partial" || name == "auxfiles") continue;
    h.update(name);
    h.update(std::string_view("\0", 1));
    any = true;
  }
  return any ? h.hex_digest() : std::string();
}

std::optional<ListsRecord> read_lists_record(const FileSystem& fs, const std::string& state_dir) {
  const std::string path = state_dir + kRecord;
  auto info = fs.stat(path);
  if (!info || info->type != FileType::regular) return std::nullopt;
  try {
    auto j = nlohmann::json::parse(fs.read(path));
    ListsRecord r;
    r.sources_sha256 = j.at("sources_sha256").get<std::string>();
    r.lists_sha256 = j.at("lists_sha256").get<std::string>();
    r.refreshed = j.at("refreshed").get<std::int64_t>();
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: as if never refreshed, which a refresh repairs
  }
}

void write_lists_record(FileSystem& fs, const std::string& state_dir, std::int64_t now) {
  nlohmann::json j = {
      {"sources_sha256", apt_sources_digest(fs)}, {"lists_sha256", apt_lists_digest(fs)}, {"refreshed", now}};
  fs.write_atomic(state_dir + kRecord, j.dump() + "\n", FileAttrs{0644, 0, 0});
}

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ListsFreshness lists_freshness(const FileSystem& fs, const std::string& state_dir, std::int64_t now) {
  ListsFreshness f;
  auto record = read_lists_record(fs, state_dir);
  if (!record) {
    f.why = "never refreshed by wslgpu-setup";
    return f;
  }
  f.recorded = true;
  if (record->sources_sha256 != apt_sources_digest(fs)) {
    f.why = "the sources changed since the last refresh";
    return f;
  }
  std::string lists = apt_lists_digest(fs);
  if (lists.empty() || record->lists_sha256 != lists) {
    f.why = lists.empty() ? "there are no package lists" : "the package lists changed since the last refresh";
    return f;
  }
  f.matches = true;
  f.age_s = now - record->refreshed;
  return f;
}

}  // namespace wslgpu
