#include "steps/python/venv_snapshot.hpp"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "installer/formats/python_dist.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "steps/python/python_common.hpp"

namespace wslgpu {

namespace {

constexpr const char* kBytecodeFolder = "__pycache__";

std::string tree_file(const std::string& store_dir) { return store_dir + "/tree.json"; }
std::string kept_file(const std::string& store_dir, const std::string& rel) { return store_dir + "/files/" + rel; }

void walk(const FileSystem& fs, const std::string& venv, const std::string& rel, VenvTree& tree) {
  std::string dir = rel.empty() ? venv : venv + "/" + rel;
  for (const auto& name : fs.list(dir)) {
    std::string child = rel.empty() ? name : rel + "/" + name;
    auto info = fs.lstat(venv + "/" + child);
    if (!info) continue;
    if (info->type == FileType::directory) {
      if (name == kBytecodeFolder || (rel.empty() && name == kWheelStagingFolder)) continue;
      tree.dirs.push_back(child);
      walk(fs, venv, child, tree);
    } else if (info->type == FileType::regular) {
      tree.files.push_back({child, info->size, info->mode, info->mtime_ns});
      tree.bytes += info->size;
    }
    // Links (bin/python -> python3, lib64 -> lib) are venv's own, made once
    // by `python -m venv`; pip writes none, and they are left as they are.
  }
}

std::string dist_text(const DistVersion& d) { return d.name + " " + d.version; }

}  // namespace

std::vector<std::string> record_paths(const FileSystem& fs, const std::string& venv, const InstalledDist& d) {
  std::vector<std::string> out;
  std::string site = parent_path(d.dist_info);
  try {
    for (const auto& e : parse_record(fs.read(d.dist_info + "/RECORD"))) {
      std::string target = record_target(site, e.path);
      if (target.rfind(venv + "/", 0) == 0 && target.rfind(d.dist_info + "/", 0) != 0) out.push_back(target);
    }
  } catch (const StepFailure&) {
    // No RECORD: only its .dist-info folder is known to be it.
  }
  return out;
}

DistSet dist_set(const FileSystem& fs, const std::string& site) {
  DistSet out;
  for (const auto& d : installed_dists(fs, site)) out[d.key] = {d.name, d.version};
  return out;
}

nlohmann::json dist_set_to_json(const DistSet& set) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, d] : set) out[key] = {{"name", d.name}, {"version", d.version}};
  return out;
}

DistSet dist_set_from_json(const nlohmann::json& json) {
  DistSet out;
  if (!json.is_object()) return out;
  for (const auto& [key, d] : json.items()) out[key] = {d.value("name", key), d.value("version", "")};
  return out;
}

nlohmann::json VenvTree::to_json() const {
  nlohmann::json f = nlohmann::json::array();
  for (const auto& x : files) f.push_back({x.path, x.size, x.mode, x.mtime_ns});
  return {{"existed", existed}, {"dirs", dirs},   {"files", f},           {"dists", dist_set_to_json(dists)},
          {"bytes", bytes},     {"linked", linked}, {"copied_bytes", copied_bytes}};
}

VenvTree VenvTree::from_json(const nlohmann::json& json) {
  VenvTree t;
  try {
    t.existed = json.at("existed").get<bool>();
    t.dirs = json.value("dirs", std::vector<std::string>{});
    for (const auto& x : json.value("files", nlohmann::json::array()))
      t.files.push_back({x.at(0).get<std::string>(), x.at(1).get<std::uint64_t>(), x.at(2).get<std::uint32_t>(),
                         x.at(3).get<std::int64_t>()});
    t.dists = dist_set_from_json(json.value("dists", nlohmann::json::object()));
    t.bytes = json.value("bytes", std::uint64_t{0});
    t.linked = json.value("linked", std::size_t{0});
    t.copied_bytes = json.value("copied_bytes", std::uint64_t{0});
  } catch (const nlohmann::json::exception& e) {
    throw StepFailure(std::string("the venv's kept tree is not what this version writes: ") + e.what());
  }
  return t;
}

VenvTree walk_venv(const FileSystem& fs, const std::string& venv, const std::string& site) {
  VenvTree tree;
  auto info = fs.lstat(venv);
  tree.existed = info && info->type == FileType::directory;
  if (!tree.existed) return tree;
  walk(fs, venv, "", tree);
  tree.dists = dist_set(fs, site);
  return tree;
}

VenvTree keep_venv(FileSystem& fs, const std::string& venv, const std::string& site, const std::string& store_dir) {
  VenvTree tree = walk_venv(fs, venv, site);
  fs.make_dirs(store_dir + "/files", 0700);
  for (const auto& d : tree.dirs) fs.make_dirs(kept_file(store_dir, d), 0700);
  for (const auto& f : tree.files) {
    if (fs.link_or_copy(venv + "/" + f.path, kept_file(store_dir, f.path)))
      ++tree.linked;
    else
      tree.copied_bytes += f.size;
  }
  // Last: a tree.json that exists says every file above is kept.
  fs.write_atomic(tree_file(store_dir), tree.to_json().dump() + "\n", FileAttrs{0600, 0, 0});
  return tree;
}

std::optional<VenvTree> read_kept_venv(const FileSystem& fs, const std::string& store_dir) {
  if (!fs.stat(tree_file(store_dir))) return std::nullopt;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(fs.read(tree_file(store_dir)));
  } catch (const nlohmann::json::exception& e) {
    throw StepFailure("cannot read " + tree_file(store_dir) + ": " + e.what());
  }
  return VenvTree::from_json(j);
}

std::vector<std::string> venv_drift(const FileSystem& fs, const std::string& site, const DistSet& after) {
  std::vector<std::string> out;
  DistSet now = dist_set(fs, site);
  for (const auto& [key, d] : after) {
    auto it = now.find(key);
    if (it == now.end())
      out.push_back(dist_text(d) + ", removed since");
    else if (it->second.version != d.version)
      out.push_back(dist_text(d) + ", now " + it->second.version);
  }
  return out;
}

VenvRestore restore_venv(StepContext& ctx, const UserEntry& owner, const std::string& venv, const std::string& site,
                         const VenvTree& before, const std::optional<DistSet>& after, const std::string& store_dir) {
  FileSystem& fs = ctx.fs;
  VenvRestore report;
  if (!before.existed) return report;  // the venv is the transaction's: python_venv's undo removes it whole

  // 1. What the user added since: kept, and its files are no one else's to remove.
  std::vector<InstalledDist> now = installed_dists(fs, site);
  std::set<std::string> protected_paths;
  std::set<std::string> user_keys;
  for (const auto& d : now) {
    bool added_since = after ? !after->count(d.key) && !before.dists.count(d.key) : false;
    if (!added_since) continue;
    user_keys.insert(d.key);
    report.kept_user.push_back(d.name + " " + d.version);
    for (const auto& p : record_paths(fs, venv, d)) protected_paths.insert(p);
  }

  // 2. What the transaction installed or changed: removed, file by file.
  for (const auto& d : now) {
    if (user_keys.count(d.key)) continue;
    auto was = before.dists.find(d.key);
    if (was != before.dists.end() && was->second.version == d.version) continue;
    for (const auto& p : record_paths(fs, venv, d)) {
      if (protected_paths.count(p)) continue;
      auto info = fs.lstat(p);
      if (info && info->type != FileType::directory) fs.remove(p);
    }
    remove_tree(fs, d.dist_info);
    report.removed.push_back(d.name + " " + d.version);
  }

  // 3. The kept files, back where they are missing or differ.
  std::set<std::string> dirs_before(before.dirs.begin(), before.dirs.end());
  std::vector<const VenvTree::File*> todo;
  std::set<std::string> missing_dirs;
  for (const auto& d : before.dirs)
    if (!fs.lstat(venv + "/" + d)) missing_dirs.insert(venv + "/" + d);
  for (const auto& f : before.files) {
    std::string path = venv + "/" + f.path;
    if (protected_paths.count(path)) continue;
    auto info = fs.lstat(path);
    if (info && info->type == FileType::regular && info->size == f.size && info->mode == f.mode &&
        info->mtime_ns == f.mtime_ns)
      continue;
    if (!fs.stat(kept_file(store_dir, f.path)))
      throw StepFailure("the undo store has no copy of " + path + " (" + kept_file(store_dir, f.path) +
                        " is missing): the venv cannot be put back exactly");
    if (info && info->type == FileType::directory) remove_tree(fs, path);
    for (std::string p = parent_path(path); p != venv && !fs.lstat(p); p = parent_path(p)) missing_dirs.insert(p);
    todo.push_back(&f);
  }
  if (!missing_dirs.empty()) make_dirs_as(ctx, owner, std::vector<std::string>(missing_dirs.begin(), missing_dirs.end()));
  for (const auto* f : todo) fs.link_or_copy(kept_file(store_dir, f->path), venv + "/" + f->path);
  report.files_put_back = todo.size();

  // 3b. Apply never finished (killed during pip, then `recover --rollback`):
  // pip writes a distribution's RECORD last, so files of the half-written
  // one are in no RECORD step 2 read. Nobody can have added anything since
  // the kill, so every file that is not in the kept tree is the run's.
  VenvTree now_tree = walk_venv(fs, venv, site);
  if (!after) {
    std::set<std::string> kept_paths;
    for (const auto& f : before.files) kept_paths.insert(f.path);
    std::size_t strays = 0;
    for (const auto& f : now_tree.files) {
      if (kept_paths.count(f.path) || f.path.rfind(std::string(kWheelStagingFolder) + "/", 0) == 0) continue;
      fs.remove(venv + "/" + f.path);
      ++strays;
    }
    if (strays > 0) {
      spdlog::info("{}: removed {} file{} the interrupted pip run had written outside any RECORD", venv, strays,
                   strays == 1 ? "" : "s");
      now_tree = walk_venv(fs, venv, site);
    }
  }

  // 4. The folders the transaction made, deepest first, once nothing but
  // bytecode caches is left in them.
  for (auto it = now_tree.dirs.rbegin(); it != now_tree.dirs.rend(); ++it) {
    if (dirs_before.count(*it)) continue;
    std::string dir = venv + "/" + *it;
    auto entries = fs.list(dir);
    if (std::all_of(entries.begin(), entries.end(), [](const std::string& n) { return n == kBytecodeFolder; }))
      remove_tree(fs, dir);
  }

  // 5. Checked, not assumed: the distributions are the kept ones again.
  DistSet result = dist_set(fs, site);
  for (const auto& k : user_keys) result.erase(k);
  std::vector<std::string> wrong;
  for (const auto& [key, d] : before.dists) {
    auto it = result.find(key);
    if (it == result.end() || it->second.version != d.version)
      wrong.push_back(dist_text(d) + (it == result.end() ? " is missing" : " is " + it->second.version));
    else if (!after || !after->count(key) || after->at(key).version != d.version)
      report.restored.push_back(dist_text(d));
  }
  for (const auto& [key, d] : result)
    if (!before.dists.count(key)) wrong.push_back(dist_text(d) + " is still there");
  if (!wrong.empty()) {
    std::string all;
    for (const auto& w : wrong) all += (all.empty() ? "" : "; ") + w;
    throw StepFailure("the venv " + venv + " is not what it was before the transaction after undo: " + all);
  }
  return report;
}

}  // namespace wslgpu
