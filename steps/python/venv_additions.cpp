#include "steps/python/venv_additions.hpp"

#include <algorithm>

#include "installer/formats/python_dist.hpp"
#include "steps/python/python_common.hpp"
#include "steps/python/venv_snapshot.hpp"

namespace wslgpu {

namespace {

// The files of VENV (relative) that no distribution's RECORD names, and the
// distributions, of every site-packages folder.
struct VenvFiles {
  std::vector<std::string> loose;
  std::vector<InstalledDist> dists;
};

VenvFiles venv_files(const FileSystem& fs, const std::string& venv) {
  VenvFiles out;
  std::set<std::string> recorded;  // target paths
  std::vector<std::string> dist_infos;
  std::vector<std::string> sites = venv_site_packages(fs, venv);
  for (const auto& site : sites)
    for (auto& d : installed_dists(fs, site)) {
      for (auto& p : record_paths(fs, venv, d)) recorded.insert(std::move(p));
      dist_infos.push_back(d.dist_info.substr(venv.size() + 1) + "/");
      out.dists.push_back(std::move(d));
    }
  const std::string site = sites.empty() ? venv + "/lib/site-packages" : sites.front();
  for (const auto& f : walk_venv(fs, venv, site).files) {
    if (recorded.count(venv + "/" + f.path)) continue;
    auto in_dist_info = [&](const std::string& d) { return f.path.rfind(d, 0) == 0; };
    if (std::any_of(dist_infos.begin(), dist_infos.end(), in_dist_info)) continue;
    out.loose.push_back(f.path);
  }
  return out;
}

}  // namespace

nlohmann::json VenvSkeleton::to_json() const { return {{"dists", dists}, {"loose_files", loose_files}}; }

VenvSkeleton VenvSkeleton::from_json(const nlohmann::json& json) {
  VenvSkeleton s;
  s.dists = json.value("dists", std::set<std::string>{});
  s.loose_files = json.value("loose_files", std::set<std::string>{});
  return s;
}

VenvSkeleton venv_skeleton(const FileSystem& fs, const std::string& venv) {
  VenvSkeleton s;
  VenvFiles files = venv_files(fs, venv);
  for (const auto& d : files.dists) s.dists.insert(d.key);
  s.loose_files.insert(files.loose.begin(), files.loose.end());
  return s;
}

std::string VenvAdditions::text() const {
  std::string out;
  for (const auto& d : dists) out += (out.empty() ? "" : ", ") + d;
  if (!files.empty()) {
    std::string shown;
    for (std::size_t i = 0; i < files.size() && i < 5; ++i) shown += (i ? ", " : "") + files[i];
    if (files.size() > 5) shown += ", …";
    out += std::string(out.empty() ? "" : " and ") + std::to_string(files.size()) +
           (files.size() == 1 ? " file" : " files") + " (" + shown + ")";
  }
  return out;
}

VenvAdditions venv_additions(const FileSystem& fs, const std::string& venv, const VenvSkeleton& skeleton,
                             const std::set<std::string>& made) {
  VenvAdditions out;
  auto info = fs.lstat(venv);
  if (!info || info->type != FileType::directory) return out;
  VenvFiles files = venv_files(fs, venv);
  for (const auto& d : files.dists)
    if (!skeleton.dists.count(d.key) && !made.count(d.key)) out.dists.push_back(d.name + " " + d.version);
  for (const auto& f : files.loose)
    if (!skeleton.loose_files.count(f)) out.files.push_back(f);
  return out;
}

std::string moved_aside_path(const FileSystem& fs, const std::string& venv) {
  return unused_path(fs, venv + ".kept-by-rollback");
}

}  // namespace wslgpu
