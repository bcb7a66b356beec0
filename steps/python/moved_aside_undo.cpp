// The undo of a python_packages step that wslgpu-setup 0.1.0 before the
// venv undo store applied (steps/python/moved_aside_undo.hpp).
#include "steps/python/moved_aside_undo.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "installer/formats/python_dist.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "steps/commands/command.hpp"
#include "steps/python/pip_run.hpp"
#include "steps/python/python_common.hpp"

namespace wslgpu {

namespace {

std::map<std::string, InstalledDist> dists_by_key(const FileSystem& fs, const std::string& site) {
  std::map<std::string, InstalledDist> out;
  for (auto& d : installed_dists(fs, site)) out.emplace(d.key, d);
  return out;
}

// Moves MOVES ({"from", "to"} target paths) with the folders they need
// made as USER; the undo direction when BACK.
void carry_out(StepContext& ctx, const UserEntry& user, const nlohmann::json& moves, bool back) {
  std::vector<std::pair<std::string, std::string>> todo;
  std::set<std::string> dirs;
  for (const auto& m : moves) {
    std::string from = m.at(back ? "to" : "from").get<std::string>();
    std::string to = m.at(back ? "from" : "to").get<std::string>();
    // Done already, or never started. Moving back, a file the new version
    // left in the old one's place is replaced; a folder there is kept.
    if (!ctx.fs.lstat(from)) continue;
    if (auto there = ctx.fs.lstat(to); there && (!back || there->type == FileType::directory)) continue;
    if (!ctx.fs.lstat(parent_path(to))) dirs.insert(parent_path(to));
    todo.emplace_back(from, to);
  }
  if (!dirs.empty()) make_dirs_as(ctx, user, std::vector<std::string>(dirs.begin(), dirs.end()));
  for (const auto& [from, to] : todo) ctx.fs.rename(from, to);
}

}  // namespace

void undo_moved_aside(StepContext& ctx, const std::string& venv, const std::string& owner, const std::string& site,
                      const nlohmann::json& data) {
  const std::string undo_root = venv + "/.wslgpu-setup-undo";
  nlohmann::json pre;
  nlohmann::json moves = nlohmann::json::array();
  std::vector<std::string> undo_dirs;
  if (data.value("partial", false)) {
    pre = data.value("pre", nlohmann::json::object());
    if (!pre.contains("dists")) return;
    auto before = pre.value("undo_dirs", std::vector<std::string>{});
    for (const auto& name : ctx.fs.list(undo_root)) {
      if (std::find(before.begin(), before.end(), name) != before.end()) continue;
      std::string dir = undo_root + "/" + name;
      undo_dirs.push_back(dir);
      try {
        for (auto& m : nlohmann::json::parse(ctx.fs.read(dir + "/moves.json"))) moves.push_back(m);
      } catch (const std::exception&) {
        // No list yet: apply was killed before it moved anything.
      }
    }
  } else {
    pre = data.value("pre", nlohmann::json::object());
    if (data.contains("undo_dir")) {
      std::string dir = data["undo_dir"].get<std::string>();
      undo_dirs.push_back(dir);
      try {
        if (ctx.fs.stat(dir + "/moves.json")) moves = nlohmann::json::parse(ctx.fs.read(dir + "/moves.json"));
      } catch (const std::exception& e) {
        throw StepFailure("cannot read what apply moved aside, " + dir + "/moves.json: " + e.what() +
                          "; the old files are in " + dir);
      }
    }
  }
  const nlohmann::json before = pre.value("dists", nlohmann::json::object());
  std::set<std::string> set_aside;  // keys whose old files apply moved aside
  for (const auto& m : moves)
    if (m.value("why", "") == "replaced") set_aside.insert(m.value("dist", ""));

  Accounts accounts(ctx.fs);
  auto user = accounts.user(owner);
  if (!user)
    throw StepFailure("cannot undo the packages of " + venv + ": user " + owner + " is gone from /etc/passwd");
  std::vector<std::string> problems;

  // 1. What pip installed in place of what was there: uninstalled.
  std::vector<std::string> uninstall;
  for (const auto& [key, d] : dists_by_key(ctx.fs, site)) {
    bool absent_before = !before.contains(key);
    bool changed = !absent_before && before[key].value("version", "") != d.version;
    if (absent_before || (changed && set_aside.count(key))) uninstall.push_back(d.name);
  }
  if (!uninstall.empty() && ctx.fs.stat(venv + "/bin/python")) {
    std::vector<std::string> args = {"uninstall", "-y", "--isolated", "--no-input", "--disable-pip-version-check"};
    args.insert(args.end(), uninstall.begin(), uninstall.end());
    Command c = pip_command(*user, venv, args);
    ProcessResult r = ctx.runner.run(c);
    if (!r.ok()) problems.push_back(process_failure_message(c, r));
  }

  // 2. The old versions' files, back where they were.
  nlohmann::json replaced = nlohmann::json::array(), removed = nlohmann::json::array();
  for (const auto& m : moves) (m.value("why", "") == "replaced" ? replaced : removed).push_back(m);
  try {
    carry_out(ctx, *user, replaced, true);
  } catch (const StepFailure& e) {
    problems.push_back(e.what());
  }

  // 3. Files remove_files took, while their distribution is the version they came from.
  auto now = dists_by_key(ctx.fs, site);
  nlohmann::json back = nlohmann::json::array();
  for (const auto& m : removed) {
    // A file no RECORD listed belongs to nobody's version: it goes back.
    auto it = now.find(m.value("dist", ""));
    if (!m.contains("dist") || (it != now.end() && it->second.version == m.value("version", ""))) back.push_back(m);
  }
  try {
    carry_out(ctx, *user, back, true);
  } catch (const StepFailure& e) {
    problems.push_back(e.what());
  }
  if (!problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "\n") + p;
    throw StepFailure(all);
  }
  // 4. Nothing left to put back: the folders go.
  for (const auto& dir : undo_dirs) remove_tree(ctx.fs, dir);
  if (ctx.fs.lstat(undo_root) && ctx.fs.list(undo_root).empty()) ctx.fs.remove(undo_root);
}


}  // namespace wslgpu
