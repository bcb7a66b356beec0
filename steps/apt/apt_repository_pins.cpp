#include "steps/apt/apt_repository_pins.hpp"

#include "installer/formats/deb822.hpp"
#include "installer/formats/diff.hpp"
#include "installer/formats/dpkg_files.hpp"
#include "installer/system/error.hpp"
#include "steps/apt/apt_repository_sources.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu::apt_repo {

namespace {

// Whether apt reads a file of this name in preferences.d: no extension or
// ".pref", and the same characters as sources.list.d (apt_preferences(5)).
bool apt_reads_preferences_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  std::size_t dot = name.rfind('.');
  if (dot != std::string::npos && name.substr(dot + 1) != "pref") return false;
  return name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:") ==
         std::string::npos;
}

}  // namespace

// The preferences.d files holding only this step's pin, general pins of
// the same origin (AMD's repo-radeon-pin-600, rocm-pin-600): apt takes
// the highest priority of every general pin that matches, so a leftover
// one overrides this step's priority.
std::vector<std::pair<std::string, std::string>> same_origin_pins(const AptRepositorySpec& repo, StepContext& ctx) {
  std::vector<std::pair<std::string, std::string>> out;  // path, content
  if (repo.pin_origin.empty()) return out;
  for (const auto& n : ctx.fs.list("/etc/apt/preferences.d")) {
    const std::string path = "/etc/apt/preferences.d/" + n;
    if (path == repo.pref_path() || !apt_reads_preferences_name(n)) continue;
    // Another apt_repository step's pin (NAME.pref beside its NAME.sources)
    // is that step's to keep: the rocm profile pins both AMD repositories.
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".pref") == 0 &&
        ctx.fs.stat("/etc/apt/sources.list.d/" + n.substr(0, n.size() - 5) + ".sources"))
      continue;
    auto info = ctx.fs.stat(path);
    if (!info || info->type != FileType::regular) continue;
    std::string text = ctx.fs.read(path);
    std::vector<Deb822Stanza> stanzas;
    try {
      stanzas = parse_deb822(text, path);
    } catch (const InputError&) {
      continue;  // apt would complain about it; not ours to judge
    }
    bool all = !stanzas.empty();
    for (const auto& s : stanzas) {
      // "release o=AMD ROCm": the origin may hold spaces, so the rest after
      // "release" is compared whole.
      std::vector<std::string> pin = split_words(s.get_or("Pin", ""));
      std::string rest;
      for (std::size_t i = 1; i < pin.size(); ++i) rest += (i > 1 ? " " : "") + pin[i];
      all = all && s.get_or("Package", "") == "*" && pin.size() >= 2 && pin[0] == "release" &&
            rest == "o=" + repo.pin_origin;
    }
    if (all) out.emplace_back(path, text);
  }
  return out;
}

std::string wanted_pin(const AptRepositorySpec& repo) {
  Deb822Stanza pin;
  pin.set("Package", "*");
  pin.set("Pin", "release o=" + repo.pin_origin);
  pin.set("Pin-Priority", std::to_string(repo.pin_priority));
  return format_deb822({pin});
}
void plan_replaced_pins(const AptRepositorySpec& repo, StepContext& ctx, StepPlan& p) {
  const FileAttrs attrs{0644, 0, 0};
  for (const auto& [path, text] : same_origin_pins(repo, ctx)) {
    auto owner = find_dpkg_owner(ctx.fs, path);
    if (owner && !owner->conffile) {
      p.details.push_back("keeps " + path + ": a file of " + owner->package + ", which dpkg would put back");
      continue;
    }
    p.details.push_back("replaces " + path + " (" + owner_text(owner) + ") with " + repo.pref_path() +
                        ", which pins the same origin:");
    plan_file(ctx.fs, path, std::nullopt, attrs, p);
    auto diff = unified_diff(path, &text, "");
    p.details.insert(p.details.end(), diff.begin(), diff.end());
    std::string d;
    for (const auto& l : diff) d += l + "\n";
    p.changes.back()["diff"] = d;
  }
}

}  // namespace wslgpu::apt_repo
