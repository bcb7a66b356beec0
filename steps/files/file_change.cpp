#include "steps/files/file_change.hpp"

#include <cstdio>

#include "installer/formats/diff.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"

namespace wslgpu {

std::string mode_string(std::uint32_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777u);
  return buf;
}

void refuse_link(const FileSystem& fs, const std::string& path) {
  if (auto target = link_at(fs, path))
    throw Refusal("refused by guard no-writes-through-links: " + normalize_path(path) + " is a symbolic link to " +
                  *target + "\n" + kNoLinksWhy);
}

ExistingFile probe_file(const FileSystem& fs, const std::string& path) {
  // Before reading: a .wslconfig linked to /etc/shadow must not even be
  // parsed (its lines would be quoted in the plan's error).
  refuse_link(fs, path);
  ExistingFile f;
  f.info = fs.stat(path);
  if (f.info && f.info->type == FileType::regular) f.content = fs.read(path);
  return f;
}

bool plan_file(const FileSystem& fs, const std::string& path, const std::optional<std::string>& content,
               const FileAttrs& attrs, StepPlan& plan) {
  ExistingFile now = probe_file(fs, path);
  plan.fingerprint["file:" + path] = now.content ? "sha256:" + sha256_hex(*now.content) + " mode:" +
                                                       mode_string(now.info->mode) + " owner:" +
                                                       std::to_string(now.info->uid) + ":" + std::to_string(now.info->gid)
                                     : now.info ? std::string("not a regular file")
                                                : std::string("absent");
  if (!content) {
    if (!now.info) return false;
    plan.verdict = Verdict::change;
    plan.details.push_back("remove " + path);
    plan.changes.push_back({{"type", "file"}, {"path", path}, {"action", "remove"}});
    plan.writes.push_back({path, std::nullopt, attrs});
    return true;
  }
  if (now.info && now.info->type != FileType::regular) {
    plan.verdict = Verdict::change;
    plan.details.push_back(path + " exists but is not a regular file; it would be replaced");
  }
  bool differs = false;
  nlohmann::json change = {{"type", "file"}, {"path", path}};
  if (!now.content || *now.content != *content) {
    differs = true;
    const std::string* before = now.content ? &*now.content : nullptr;
    const bool text = is_diffable_text(*content) && (!before || is_diffable_text(*before));
    auto diff = text ? unified_diff(path, before, *content) : binary_change_lines(path, before, *content);
    plan.details.insert(plan.details.end(), diff.begin(), diff.end());
    change["action"] = now.info ? "update" : "create";
    std::string d;
    for (const auto& l : diff) d += l + "\n";
    if (text) change["diff"] = d;
    else change["binary"] = true;
  }
  if (!now.info || now.info->mode != attrs.mode) {
    if (now.info) {
      differs = true;
      plan.details.push_back("mode " + mode_string(now.info->mode) + " -> " + mode_string(attrs.mode));
    }
    change["mode"] = mode_string(attrs.mode);
  }
  if (now.info && (now.info->uid != attrs.uid || now.info->gid != attrs.gid)) {
    differs = true;
    plan.details.push_back("owner " + std::to_string(now.info->uid) + ":" + std::to_string(now.info->gid) + " -> " +
                           std::to_string(attrs.uid) + ":" + std::to_string(attrs.gid));
  }
  if (!differs) return false;
  if (!change.contains("action")) change["action"] = "attributes";
  change["sha256"] = sha256_hex(*content);
  plan.verdict = Verdict::change;
  plan.changes.push_back(change);
  plan.writes.push_back({path, content, attrs});
  return true;
}

}  // namespace wslgpu
