#include "steps/python/python_packages.hpp"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "installer/formats/glob.hpp"
#include "installer/formats/python_dist.hpp"
#include "installer/formats/python_requirement.hpp"
#include "installer/net/wheel_sizes.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"
#include "installer/system/units.hpp"
#include "steps/files/download.hpp"
#include "steps/python/moved_aside_undo.hpp"
#include "steps/python/pip_run.hpp"
#include "steps/python/python_common.hpp"
#include "steps/python/python_packages_step.hpp"
#include "steps/python/wheel_fetch.hpp"

namespace wslgpu {

namespace {

const InstalledDist* find_dist(const std::vector<InstalledDist>& dists, const std::string& key) {
  for (const auto& d : dists)
    if (d.key == key) return &d;
  return nullptr;
}

// The public part of a version ("2.14.1" of "2.14.1+cu130").
std::string public_version(const std::string& v) { return v.substr(0, v.find('+')); }

// The header lines of D's METADATA (it ends at the first empty line; the
// description follows); none when it cannot be read.
std::vector<std::string> metadata_header(const FileSystem& fs, const InstalledDist& d) {
  std::vector<std::string> out;
  try {
    for (auto& line : text::output_lines(fs.read(d.dist_info + "/METADATA"))) {
      if (line.empty()) break;
      out.push_back(std::move(line));
    }
  } catch (const StepFailure&) {
  }
  return out;
}

// METADATA's exact pins ("Requires-Dist: torch==2.11.0", or the older
// "torch (==2.11.0)"), markers aside: name key -> version.
std::map<std::string, std::string> exact_pins(const FileSystem& fs, const InstalledDist& d) {
  std::map<std::string, std::string> out;
  for (const auto& line : metadata_header(fs, d)) {
    if (line.rfind("Requires-Dist:", 0) != 0) continue;
    std::string req(text::trim(line.substr(14)));
    req = req.substr(0, req.find(';'));
    auto eq = req.find("==");
    if (eq == std::string::npos || req.find("===") != std::string::npos) continue;
    std::string name(text::trim(req.substr(0, eq)));
    name = name.substr(0, name.find_first_of(" ([<>!~"));
    std::string version(text::trim(req.substr(eq + 2)));
    version = version.substr(0, version.find_first_of(" ,)"));
    if (!name.empty() && !version.empty()) out[normalize_project_name(name)] = version;
  }
  return out;
}

std::string joined(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : separator) + i;
  return s;
}

// The marker environment of the venv's Python on Linux: pyvenv.cfg's full
// version when it says one (for python_full_version markers).
MarkerEnvironment venv_marker_environment(const FileSystem& fs, const std::string& venv, const PythonTarget& target) {
  std::string full;
  try {
    full = parse_pyvenv_cfg(fs.read(venv + "/pyvenv.cfg")).version;
  } catch (const StepFailure&) {
  }
  return marker_environment(target, parse_python_version(full) ? full : "");
}

// D's METADATA's Requires-Dist, each parsed (one that is not PEP 508 is
// left out: pip would refuse that distribution's metadata anyway).
std::vector<PythonRequirement> requires_dist(const FileSystem& fs, const InstalledDist& d) {
  std::vector<PythonRequirement> out;
  std::string text;
  try {
    text = fs.read(d.dist_info + "/METADATA");
  } catch (const StepFailure&) {
    return out;
  }
  for (const auto& line : parse_metadata(text).requires_dist) {
    std::string error;
    if (auto r = parse_python_requirement(line, error)) out.push_back(std::move(*r));
  }
  return out;
}

// Whether DISTS hold R's distribution at a version that satisfies it.
const InstalledDist* holding(const std::vector<InstalledDist>& dists, const PythonRequirement& r) {
  const InstalledDist* d = find_dist(dists, normalize_project_name(r.name));
  if (!d || r.specifier.clauses.empty()) return d;
  auto v = parse_python_version(d->version);
  return v && version_satisfies(*v, r.specifier, PreReleases::allowed) ? d : nullptr;
}

// What EXTRAS of D add that DISTS lack, into MISSING, and the same for the
// extras an installed requirement asks of its own; WALKED holds the
// "key[extra]" already looked at, so that a cycle ends.
void missing_requirements(const FileSystem& fs, const InstalledDist& d, const std::vector<std::string>& extras,
                          const std::vector<InstalledDist>& dists, const MarkerEnvironment& env,
                          std::set<std::string>& walked, std::vector<std::string>& missing) {
  std::vector<std::string> fresh;
  for (const auto& e : extras)
    if (walked.insert(d.key + "[" + normalize_project_name(e) + "]").second) fresh.push_back(e);
  if (fresh.empty()) return;
  for (const auto& r : requires_dist(fs, d)) {
    // The extras' own lines: what applies with them and not without. The
    // whole marker is evaluated (sys_platform, python_version ...), for
    // CPython on Linux (installer/formats/python_requirement.hpp).
    if (!requirement_applies(r, env, fresh) || requirement_applies(r, env, {})) continue;
    const InstalledDist* have = holding(dists, r);
    if (!have) {
      std::string text = r.name;
      if (!r.extras.empty()) text += "[" + joined(r.extras, ",") + "]";
      // ">=0.7.2,<=0.7.2" as PEP 508 writes it, so that the plan's list of
      // requirements, joined by ", ", reads unambiguously.
      std::string spec = r.specifier.str();
      for (auto at = spec.find(", "); at != std::string::npos; at = spec.find(", ", at)) spec.erase(at + 1, 1);
      text += r.url.empty() ? spec : " @ " + r.url;
      if (std::find(missing.begin(), missing.end(), text) == missing.end()) missing.push_back(text);
    } else if (!r.extras.empty()) {
      missing_requirements(fs, *have, r.extras, dists, env, walked, missing);
    }
  }
}

}  // namespace

bool version_satisfies(const std::string& installed, const WantedPackage& w) {
  if (w.version.empty() || installed == w.version) return true;
  if (!w.url.empty() || w.version.find('+') != std::string::npos) return false;
  return installed.compare(0, installed.find('+'), w.version) == 0 && installed.find('+') == w.version.size();
}

std::string local_label(const std::string& version) {
  auto plus = version.find('+');
  return plus == std::string::npos ? "" : version.substr(plus + 1);
}

std::string venv_store_dir(const StepContext& ctx, const std::string& step_id) {
  std::string base = ctx.undo_store ? ctx.undo_store->target_dir() : ctx.state_dir + "/tx/unknown/undo";
  return base + "/venv-" + step_id;
}

std::string WantedPackage::name_with_extras() const {
  return extras.empty() ? name : name + "[" + joined(extras, ",") + "]";
}

std::string WantedPackage::requirement() const {
  return version.empty() ? name_with_extras() : name_with_extras() + "==" + version;
}

bool PythonPackagesStep::converged(const FileSystem& fs, const WantedPackage& w,
                                   const std::vector<InstalledDist>& dists) const {
  return at_wanted_version(fs, w, dists) && missing_for_extras(fs, w, dists).empty();
}

namespace {

// METADATA's Provides-Extra names, normalized (PEP 685).
std::set<std::string> provided_extras(const FileSystem& fs, const InstalledDist& d) {
  std::set<std::string> out;
  try {
    for (const auto& e : parse_metadata(fs.read(d.dist_info + "/METADATA")).provides_extra)
      out.insert(normalize_project_name(e));
  } catch (const StepFailure&) {
  }
  return out;
}

// The keys DISTS hold that SEEDS (key, extras) require, themselves included,
// through the installed METADATA.
std::set<std::string> installed_closure(const FileSystem& fs, const std::vector<InstalledDist>& dists,
                                        const MarkerEnvironment& env,
                                        std::vector<std::pair<std::string, std::vector<std::string>>> seeds) {
  std::set<std::string> seen;
  std::set<std::string> walked;  // "key[extra,...]"
  while (!seeds.empty()) {
    auto [key, extras] = seeds.back();
    seeds.pop_back();
    const InstalledDist* d = find_dist(dists, key);
    if (!d || !walked.insert(key + "[" + joined(extras, ",") + "]").second) continue;
    seen.insert(key);
    for (const auto& r : requires_dist(fs, *d))
      if (requirement_applies(r, env, extras)) seeds.push_back({normalize_project_name(r.name), r.extras});
  }
  return seen;
}

}  // namespace

std::vector<const InstalledDist*> PythonPackagesStep::left_by_other_extras(const FileSystem& fs,
                                                                          const std::vector<InstalledDist>& dists) const {
  const MarkerEnvironment env = venv_marker_environment(fs, venv, target);
  // What the extras of the step's packages that it does not ask for bring.
  std::vector<std::pair<std::string, std::vector<std::string>>> other;
  for (const auto& w : packages) {
    const InstalledDist* d = find_dist(dists, w.key);
    if (!d || w.extras.empty()) continue;  // a package asked without extras: its extras are the user's business
    std::set<std::string> now;
    for (const auto& e : w.extras) now.insert(normalize_project_name(e));
    for (const auto& e : provided_extras(fs, *d)) {
      if (now.count(e)) continue;
      for (const auto& r : requires_dist(fs, *d))
        if (requirement_applies(r, env, {e}) && !requirement_applies(r, env, {}))
          other.push_back({normalize_project_name(r.name), r.extras});
    }
  }
  // Only what of it is installed: on a converged venv (the other extra's
  // plugin is not there) this ends the walk at once.
  std::set<std::string> left = installed_closure(fs, dists, env, other);
  if (left.empty()) return {};
  // What the step asks for now, as far as it is installed.
  std::vector<std::pair<std::string, std::vector<std::string>>> asked;
  for (const auto& w : packages) asked.push_back({w.key, w.extras});
  for (const auto& k : installed_closure(fs, dists, env, asked)) left.erase(k);
  if (left.empty()) return {};
  // Kept: what anything else installed requires (the user's own packages;
  // the step's own requirements are out of LEFT already).
  std::vector<std::pair<std::string, std::vector<std::string>>> others_need;
  for (const auto& d : dists)
    if (!left.count(d.key))
      for (const auto& r : requires_dist(fs, d))
        if (requirement_applies(r, env, {})) others_need.push_back({normalize_project_name(r.name), r.extras});
  for (const auto& k : installed_closure(fs, dists, env, others_need)) left.erase(k);
  std::vector<const InstalledDist*> out;
  for (const auto& d : dists)
    if (left.count(d.key)) out.push_back(&d);
  return out;
}

std::vector<std::string> PythonPackagesStep::missing_for_extras(const FileSystem& fs, const WantedPackage& w,
                                                                const std::vector<InstalledDist>& dists) const {
  std::vector<std::string> missing;
  const InstalledDist* d = find_dist(dists, w.key);
  if (w.extras.empty() || !d) return missing;
  std::set<std::string> walked;
  missing_requirements(fs, *d, w.extras, dists, venv_marker_environment(fs, venv, target), walked, missing);
  return missing;
}

bool PythonPackagesStep::at_wanted_version(const FileSystem& fs, const WantedPackage& w,
                                           const std::vector<InstalledDist>& dists) const {
  const InstalledDist* d = find_dist(dists, w.key);
  if (!d || !version_satisfies(d->version, w)) return false;
  if (!w.url.empty()) return true;
  // A build switch (cu130 -> cu126) changes the label, not the version.
  if (!build.empty() && local_label(d->version) != build) return false;
  // torchvision pins the torch it was built for: one that pins another
  // torch than the step's is the old build's, and is reinstalled with it.
  for (const auto& [key, pinned] : exact_pins(fs, *d))
    for (const auto& other : packages)
      if (other.key == key && !other.version.empty() && public_version(pinned) != public_version(other.version))
        return false;
  return true;
}

std::vector<std::string> PythonPackagesStep::remove_matches(const FileSystem& fs) const {
  std::vector<std::string> out;
  for (const auto& pattern : remove_files) {
    auto slash = pattern.rfind('/');
    std::string dir = slash == std::string::npos ? "" : pattern.substr(0, slash);
    std::string name = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
    std::string folder = dir.empty() ? site() : site() + "/" + dir;
    for (const auto& entry : fs.list(folder)) {
      if (!glob_match(name, entry)) continue;
      auto info = fs.lstat(folder + "/" + entry);
      if (!info || info->type == FileType::directory) continue;
      std::string rel = dir.empty() ? entry : dir + "/" + entry;
      if (std::find(out.begin(), out.end(), rel) == out.end()) out.push_back(rel);
    }
  }
  return out;
}

StepPlan PythonPackagesStep::plan(StepContext& ctx) const {
  StepPlan p;
  std::string why;
  auto user = find_venv_owner(ctx.accounts(), owner, why);
  p.fingerprint["user:" + owner] = user ? "uid:" + std::to_string(user->uid) : std::string("absent");
  if (!user) {
    p.verdict = Verdict::refused;
    p.summary = why;
    return p;
  }
  // An earlier python_venv step makes it anew (its Python is gone): what
  // is there now is not what pip will install into.
  const bool recreated =
      ctx.made_by_earlier_steps.value(venv, nlohmann::json::object()).value("recreated", false);
  bool venv_there = !recreated && ctx.fs.stat(venv + "/pyvenv.cfg").has_value();
  std::vector<InstalledDist> dists;
  if (venv_there) {
    std::string version = parse_pyvenv_cfg(ctx.fs.read(venv + "/pyvenv.cfg")).version;
    p.fingerprint["venv:" + venv] = version;
    if (!version.empty() && version != python_text && version.rfind(python_text + ".", 0) != 0) {
      p.verdict = Verdict::refused;
      p.summary = "the venv " + venv + " has Python " + version + ", and this step's packages are for Python " +
                  python_text +
                  ": set python to the venv's version (with wheels for it), or remove the venv so "
                  "that it is made again with the distribution's Python";
      return p;
    }
    dists = installed_dists(ctx.fs, site());
  } else {
    p.fingerprint["venv:" + venv] = "absent";
  }
  std::vector<std::string> todo, done;
  for (const auto& w : packages) {
    const InstalledDist* d = find_dist(dists, w.key);
    p.fingerprint["python_dist:" + w.key] = d ? d->version : std::string("absent");
    const std::string extras_text = w.extras.empty() ? "" : "[" + joined(w.extras, ",") + "]";
    std::vector<std::string> missing;
    if (at_wanted_version(ctx.fs, w, dists)) {
      missing = missing_for_extras(ctx.fs, w, dists);
      if (missing.empty()) {
        done.push_back(d->name + extras_text + " " + d->version);
        continue;
      }
    }
    nlohmann::json change = {{"type", "python_package"}, {"name", w.name}, {"version", w.version}};
    if (!w.extras.empty()) change["extras"] = w.extras;
    if (!missing.empty()) {
      // At its version, without all that its extras require: pip keeps it
      // and installs only the rest (nothing is uninstalled first). A saved
      // plan whose list differs from the machine's is drift (the change
      // holds the list).
      std::string from = !index_url.empty() ? "from the index " + index_url : "from the find-links folders";
      todo.push_back("complete " + w.name_with_extras() + " " + d->version + " " + from + ": its extras need " +
                     joined(missing) + ", which the venv lacks");
      change["action"] = "complete";
      change["requires"] = missing;
      p.changes.push_back(change);
      todo.push_back("  not pinned by the manifest: the version the index or find-links folder has, checked against the SHA-256 its page gives");
      continue;
    }
    // With a build label, an index package is that build: the plan says
    // "2.14.1+cu130 → 2.14.1+cu126", not "→ 2.14.1", which reads as no switch.
    const bool labelled = w.url.empty() && !build.empty();
    std::string wanted_version =
        labelled && !w.version.empty() && w.version.find('+') == std::string::npos ? w.version + "+" + build : w.version;
    std::string what = w.version.empty()
                           ? w.name_with_extras() + " (the newest " + (labelled ? build + " build" : std::string("version")) +
                                 " the index has that fits)"
                           : w.name_with_extras() + " " + wanted_version;
    std::string from = !w.url.empty() ? "from " + w.url
                       : !index_url.empty() ? "from the index " + index_url
                                            : "from the find-links folders";
    if (!d) {
      todo.push_back("install " + what + " " + from);
      change["action"] = "install";
    } else {
      todo.push_back(d->name + " " + d->version + " → " +
                     (w.version.empty() || !w.extras.empty() ? what : wanted_version) + " " + from);
      change["action"] = "replace";
      change["from"] = d->version;
    }
    if (!w.url.empty()) change["url"] = w.url;
    p.changes.push_back(change);
    if (w.url.empty())
      todo.push_back("  not pinned by the manifest: the version the index or find-links folder has, checked against the SHA-256 its page gives");
    else if (!w.sha256.empty())
      todo.push_back("  sha256 " + w.sha256 + " (pip refuses any other file)");
    else
      todo.push_back("  not verified: " + (unverified_note.empty() ? std::string("no sha256 given") : unverified_note) +
                     (w.url.rfind("file://", 0) == 0 ? "; a local file" : "; TLS only"));
  }
  // Another row's extra (jax[cuda13] before, jax[cuda12] now): what only
  // it required goes, or the run would keep both plugins and call itself
  // converged.
  std::vector<std::string> leftover;
  for (const auto* d : left_by_other_extras(ctx.fs, dists)) {
    leftover.push_back(d->name + " " + d->version);
    p.fingerprint["python_dist:" + d->key] = d->version;
    p.changes.push_back({{"type", "python_package"}, {"name", d->name}, {"action", "remove"}, {"from", d->version}});
  }
  if (!leftover.empty())
    todo.push_back("remove " + joined(leftover) +
                   ": installed for an extra this step no longer asks for, and nothing else installed requires them");
  auto matches = venv_there ? remove_matches(ctx.fs) : std::vector<std::string>{};
  for (const auto& m : matches)
    p.changes.push_back({{"type", "python_file"}, {"action", "remove"}, {"path", site() + "/" + m}});
  if (p.changes.empty()) {
    p.summary = (done.size() == 1 ? done.front() : std::to_string(done.size()) + " packages") + " installed in " +
                venv + (remove_files.empty() ? "" : ", none of the files remove_files names");
    if (done.size() > 1) p.details = done;
    return p;
  }
  p.verdict = Verdict::change;
  std::size_t n = static_cast<std::size_t>(std::count_if(p.changes.begin(), p.changes.end(), [](const auto& c) {
    return c.value("type", "") == "python_package" && c.value("action", "") != "remove";
  }));
  p.summary = n > 0                  ? "install " + std::to_string(n) + " Python package" + (n == 1 ? "" : "s") +
                                           " into " + venv + " as " + owner
              : !leftover.empty() ? "remove " + std::to_string(leftover.size()) + " Python package" +
                                        (leftover.size() == 1 ? "" : "s") + " from " + venv + " as " + owner
                                  : "remove " + std::to_string(matches.size()) + " file" +
                                        (matches.size() == 1 ? "" : "s") + " from " + venv;
  p.activity =
      n > 0 ? "pip installing " + std::to_string(n) + " package" + (n == 1 ? "" : "s") + " into " + venv : p.summary;
  p.details = todo;
  if (recreated)
    p.details.push_back("the venv " + venv + " is made anew by an earlier python_venv step (its Python is gone)");
  else if (!venv_there)
    p.details.push_back("the venv " + venv + " does not exist yet (an earlier python_venv step makes it)");
  if (!done.empty()) p.details.push_back("already installed: " + joined(done));
  for (const auto& m : matches) p.details.push_back("remove " + m + " from site-packages (kept for undo)");
  if (n > 0)
    for (const auto& r : remove_files) p.details.push_back("after pip: remove what matches " + r);
  add_download_estimate(ctx, p, dists);
  // What undo needs: the venv as it is, kept before pip runs.
  if (venv_there) {
    VenvTree tree = walk_venv(ctx.fs, venv, site());
    p.details.push_back("keeps the venv's " + std::to_string(tree.files.size()) + " files (" + human_size(tree.bytes) +
                        ", " + std::to_string(tree.dists.size()) + " distributions) in the undo store under " +
                        ctx.state_dir + " before pip runs, as hard links where it is on the venv's filesystem, "
                        "else as copies: a rollback gives back exactly these, with no network");
    // A hard link costs nothing while the venv holds the file; once pip
    // replaces it, the store's link is its only copy.
    std::vector<std::string> replaced;
    std::uint64_t replaced_bytes = 0;
    for (const auto& w : packages) {
      const InstalledDist* d = find_dist(dists, w.key);
      if (!d || at_wanted_version(ctx.fs, w, dists)) continue;
      replaced.push_back(d->name + " " + d->version);
      try {
        for (const auto& e : parse_record(ctx.fs.read(d->dist_info + "/RECORD")))
          if (!e.size.empty() && e.size.find_first_not_of("0123456789") == std::string::npos && e.size.size() < 19)
            replaced_bytes += std::stoull(e.size);
      } catch (const StepFailure&) {
      }
    }
    if (!replaced.empty())
      p.details.push_back("the files pip replaces (" + joined(replaced) + ", about " + human_size(replaced_bytes) +
                          ") stay on disk in the undo store until this transaction is rolled back or its store is "
                          "let go (`history --prune`, once a later install supersedes it, or `history --prune ID`)");
    DiskNeed keep;
    keep.path = ctx.state_dir;
    keep.bytes = tree.bytes;
    keep.free_on_filesystem_of = venv;
    keep.what = "wslgpu-setup keeps a copy of the venv " + venv + " (" + human_size(tree.bytes) + ") for undo in " +
                ctx.state_dir;
    p.disk_needs.push_back(keep);
  } else {
    p.details.push_back("rollback removes the venv whole (it is new)");
  }
  if (index_url.empty() && std::any_of(packages.begin(), packages.end(), [](const auto& w) { return w.url.empty(); }) &&
      find_links.empty())
    p.details.push_back("no index_url or find_links: pip runs with --no-index and finds only what is given by URL");
  return p;
}

void PythonPackagesStep::add_download_estimate(StepContext& ctx, StepPlan& p,
                                               const std::vector<InstalledDist>& dists) const {
  if (ctx.offline) {
    // The sizes are the servers' to say; apply resolves and downloads anyway.
    p.not_asked = "the wheels' sizes";
    p.details.push_back("not asked offline: " + p.not_asked + " (the plan with the network resolves from the "
                        "servers' pages what the tool will download, and the disk-space guard counts it)");
    return;
  }
  DownloadEstimate est = resolve_downloads(ctx, dists);
  if (est.wheels.empty() && est.notes.empty()) return;
  std::uint64_t by_url = 0;  // what the tool downloads itself, into its cache
  std::uint64_t cached = 0;  // of which its cache already holds (an interrupted run's .part)
  std::vector<std::string> known, unknown;
  for (const auto& w : est.wheels) {
    std::string name = w.name + (w.version.empty() ? "" : " " + w.version);
    if (w.dependency) name += " (for " + w.required_by + ")";
    if (!w.bytes) {
      unknown.push_back(name + ": size unknown, " + w.why_unknown);
      continue;
    }
    known.push_back(name + " " + human_size(*w.bytes) + (w.local ? ", a local file" : ""));
    if (w.local || w.url.rfind("file://", 0) == 0) continue;
    // A wheel named by URL is pinned by the manifest's hash, one from an
    // index by the page's: the cache file is named by either.
    auto named = std::find_if(packages.begin(), packages.end(), [&](const auto& x) { return x.url == w.url; });
    by_url += *w.bytes;
    cached += wheel_bytes_cached(ctx, w.url, named != packages.end() ? named->sha256 : w.sha256, *w.bytes);
  }
  std::string line = "downloads " + human_size(est.known_bytes) + " (" + std::to_string(est.wheels.size()) +
                     " wheel" + (est.wheels.size() == 1 ? "" : "s");
  if (est.unknown > 0) line += ", " + std::to_string(est.unknown) + " of them of unknown size";
  line += ", resolved from the servers' pages; the tool downloads them, then pip installs from those files): " +
          joined(known);
  p.details.push_back(line);
  if (cached > 0)
    p.details.push_back("  " + human_size(cached) + " of it already in " + wheel_cache_dir(ctx) +
                        " (kept by an earlier run, whole or in part): " + human_size(est.known_bytes - cached) +
                        " left to download");
  for (const auto& u : unknown) p.details.push_back("  " + u);
  for (const auto& n : est.notes) p.details.push_back("  " + n);
  p.fingerprint["python_download_bytes"] = std::to_string(est.known_bytes);
  // Room: the tool's downloads in its cache, then every wheel unpacked
  // into the venv by pip.
  const std::uint64_t wheels = est.known_bytes + est.local_bytes;
  const std::uint64_t unpacked = wheels * kUnpackedPerWheelByte10 / 10;
  if (by_url > cached)
    p.disk_needs.push_back({ctx.state_dir, by_url - cached,
                            "wslgpu-setup downloads " + human_size(by_url - cached) + " of wheels into " +
                                wheel_cache_dir(ctx),
                            ""});
  // The staging folder links the cache's wheels into the venv while pip
  // runs: free on one filesystem, a copy of each on another.
  if (by_url > 0)
    p.disk_needs.push_back({venv, by_url,
                            "the tool's wheels (" + human_size(by_url) + ") copied into " + venv + "/" +
                                kWheelStagingFolder + " while pip runs (" + ctx.state_dir +
                                " is on another filesystem)",
                            ctx.state_dir});
  p.disk_needs.push_back({venv, unpacked,
                          "pip unpacks about " + human_size(unpacked) + " into " + venv + " (" +
                              std::to_string(kUnpackedPerWheelByte10 / 10) + "." +
                              std::to_string(kUnpackedPerWheelByte10 % 10) + " times the wheels' size)",
                          ""});
}

nlohmann::json PythonPackagesStep::snapshot(StepContext& ctx) const {
  return {{"venv", venv},
          {"owner", owner},
          {"site", site()},
          {"store", venv_store_dir(ctx, ctx.step_id)},
          {"staging", venv + "/" + kWheelStagingFolder},
          {"dists", dist_set_to_json(dist_set(ctx.fs, site()))},
          // Made by this run's python_venv: its undo removes (or moves
          // aside) the whole venv, so this step's needs no store.
          {"new_venv", ctx.made_by_earlier_steps.value(venv, nlohmann::json::object()).value("created", false)}};
}

nlohmann::json PythonPackagesStep::apply(StepContext& ctx, const StepPlan& plan) {
  // Undo acts on what this records (the venv, its owner, the store), never
  // on a manifest reloaded later with another user.
  nlohmann::json data = snapshot(ctx);
  if (plan.verdict != Verdict::change) return data;
  std::string why;
  auto user = find_venv_owner(Accounts(ctx.fs), owner, why);
  if (!user) throw StepFailure(why);
  data["uid"] = user->uid;
  const std::string store = data["store"].get<std::string>();
  const std::string staging = data["staging"].get<std::string>();

  // 1. The venv as it is, into the undo store, before anything changes it.
  VenvTree kept = keep_venv(ctx.fs, venv, site(), store);
  data["kept"] = {{"files", kept.files.size()}, {"bytes", kept.bytes}, {"copied_bytes", kept.copied_bytes}};

  auto dists = installed_dists(ctx.fs, site());
  std::vector<const WantedPackage*> todo;
  for (const auto& w : packages)
    if (!converged(ctx.fs, w, dists)) todo.push_back(&w);

  const std::vector<const InstalledDist*> leftover = left_by_other_extras(ctx.fs, dists);
  if (!todo.empty() || !leftover.empty()) {
    // 2. The wheels, downloaded by the tool, and pip (python_packages_fetch.cpp).
    auto drop_staging = [&] {
      try {
        remove_tree(ctx.fs, staging);
      } catch (const std::exception&) {
      }
    };
    try {
      fetch_and_install(ctx, *user, todo, leftover, dists, staging);
    } catch (...) {
      drop_staging();
      throw;
    }
    drop_staging();
  }

  // 3. What remove_files names, from the files pip has just written (kept
  // in the store when they were there before).
  for (const auto& rel : remove_matches(ctx.fs)) ctx.fs.remove(site() + "/" + rel);
  data["after"] = dist_set_to_json(dist_set(ctx.fs, site()));
  return data;
}

namespace {

// What this step left in its venv, for python_venv's drift and undo of a
// venv the transaction created (StepContext::made_by_later_steps): the
// distributions after pip, or the whole venv when apply never finished
// (killed during pip: nobody can have added anything since).
void note_made(StepContext& ctx, const nlohmann::json& data, const std::string& venv) {
  const bool partial = data.value("partial", false);
  const nlohmann::json& rec = partial ? data.value("pre", nlohmann::json::object()) : data;
  nlohmann::json& made = ctx.made_by_later_steps[rec.value("venv", venv)];
  if (!made.is_object()) made = nlohmann::json::object();
  if (partial) made["whole"] = true;
  if (!data.contains("after")) return;
  // The versions the latest step left (steps are visited latest first):
  // what an earlier step's drift must not call a change since.
  nlohmann::json& versions = made["versions"];
  if (!versions.is_object()) versions = nlohmann::json::object();
  for (const auto& [key, d] : dist_set_from_json(data["after"]))
    if (!versions.contains(key)) versions[key] = d.version;
}

// The distributions of AFTER that a later step of the same transaction
// left again (StepContext::made_by_later_steps): their state since is that
// step's to judge, and what it changed is no drift of this one's.
DistSet not_left_again(const StepContext& ctx, const std::string& venv, DistSet after) {
  const nlohmann::json made = ctx.made_by_later_steps.value(venv, nlohmann::json::object());
  const nlohmann::json versions = made.value("versions", nlohmann::json::object());
  for (auto it = after.begin(); it != after.end();) it = versions.contains(it->first) ? after.erase(it) : std::next(it);
  return after;
}

}  // namespace

std::vector<std::string> PythonPackagesStep::broken_by_restore(StepContext& ctx, const nlohmann::json& data) const {
  // What undo gives back: the set before apply, with what the user added
  // since (in neither that set nor the one after apply) kept as it is.
  const std::string at = data.value("venv", venv);
  const std::string at_site = data.value("site", site());
  const DistSet before = dist_set_from_json(data.value("dists", nlohmann::json::object()));
  const DistSet after = dist_set_from_json(data["after"]);
  std::vector<InstalledDist> now = installed_dists(ctx.fs, at_site);
  std::vector<const InstalledDist*> added;
  std::vector<InstalledDist> restored;
  for (const auto& d : now)
    if (!before.count(d.key) && !after.count(d.key)) {
      added.push_back(&d);
      restored.push_back(d);
    }
  for (const auto& [key, d] : before) restored.push_back({d.name, key, d.version, ""});
  const MarkerEnvironment env = venv_marker_environment(ctx.fs, at, target);
  std::vector<std::string> out;
  for (const auto* d : added)
    for (const auto& r : requires_dist(ctx.fs, *d)) {
      // Only what holds now and would not after the rollback.
      if (!requirement_applies(r, env) || !holding(now, r) || holding(restored, r)) continue;
      const InstalledDist* then = find_dist(restored, normalize_project_name(r.name));
      const InstalledDist* current = find_dist(now, normalize_project_name(r.name));
      out.push_back(d->name + " " + d->version + ", added since, requires " + r.name + r.specifier.str() +
                    ": the rollback would " +
                    (then ? "put back " + then->name + " " + then->version
                          : "remove " + current->name + " " + current->version) +
                    " (pip check would fail)");
    }
  return out;
}

std::vector<std::string> PythonPackagesStep::drift(StepContext& ctx, const nlohmann::json& data) const {
  if (!data.contains("after")) {
    note_made(ctx, data, venv);
    return {};
  }
  std::vector<std::string> out;
  std::string at = data.value("venv", venv);
  DistSet mine = not_left_again(ctx, at, dist_set_from_json(data["after"]));
  note_made(ctx, data, venv);
  for (const auto& d : venv_drift(ctx.fs, data.value("site", site()), mine))
    out.push_back(at + ": " + d + " (changed since)");
  if (!data.value("new_venv", false))
    for (const auto& b : broken_by_restore(ctx, data)) out.push_back(at + ": " + b);
  return out;
}

namespace {

// "pip==23.0.1, setuptools==66.1.1": the set REC recorded before apply.
std::string dists_before(const nlohmann::json& rec) {
  std::vector<std::string> v;
  for (const auto& [k, d] : dist_set_from_json(rec.value("dists", nlohmann::json::object())))
    v.push_back(d.name + "==" + d.version);
  return joined(v);
}

}  // namespace

std::string PythonPackagesStep::undo_blocker(StepContext& ctx, const nlohmann::json& data) const {
  // Old layout, or apply never changed the venv (nothing kept), or a venv
  // this run created (python_venv's undo removes it whole).
  if (data.contains("undo_dir") || data.value("partial", false) || !data.contains("kept") ||
      data.value("new_venv", false))
    return "";
  const std::string store = data.value("store", "");
  if (store.empty() || read_kept_venv(ctx.fs, store)) return "";
  const std::string at = data.value("venv", venv);
  // Already as it was (the user reinstalled the set by hand): nothing to give back.
  if (dist_set(ctx.fs, data.value("site", site())) == dist_set_from_json(data.value("dists", nlohmann::json::object())))
    return "";
  const std::string why = ctx.fs.stat(parent_path(store) + "/pruned")
                              ? "`history --prune` let the undo store of step \"" + ctx.step_id + "\" go"
                              : "the undo store of step \"" + ctx.step_id + "\" is missing (" + store + "/tree.json)";
  return why + ": the venv " + at + " cannot be put back as it was. Its distributions before the transaction: " +
         dists_before(data) +
         "; make the venv hold exactly those (pip install and pip uninstall by hand) and roll back again, and it "
         "counts as put back";
}

void PythonPackagesStep::undo(StepContext& ctx, const nlohmann::json& data) {
  note_made(ctx, data, venv);
  // A transaction of a version that moved old files aside inside the venv.
  if (data.contains("undo_dir") || (data.value("partial", false) && data["pre"].contains("undo_dirs"))) {
    undo_moved_aside(ctx, data.value("venv", venv), owner, site(), data);
    return;
  }
  const bool partial = data.value("partial", false);
  const nlohmann::json& rec = partial ? data.value("pre", nlohmann::json::object()) : data;
  if (!rec.contains("store")) return;  // killed before its snapshot was journalled: nothing changed
  const std::string at = rec.value("venv", venv);
  const std::string at_site = rec.value("site", site());
  const std::string store = rec["store"].get<std::string>();
  const std::string owner_then = rec.value("owner", owner);
  if (rec.contains("staging")) remove_tree(ctx.fs, rec["staging"].get<std::string>());

  std::optional<VenvTree> before = read_kept_venv(ctx.fs, store);
  if (!before) {
    // Apply stopped before its store was whole, so before pip ran: the venv
    // is as it was. Or a venv this run created: python_venv's undo removes it.
    if (partial || !data.contains("kept") || data.value("new_venv", false)) return;
    // The store is gone (undo_blocker said so before anything was undone).
    if (std::string why = undo_blocker(ctx, data); !why.empty()) {
      if (!ctx.allow_partial_undo) throw StepFailure(why);
      spdlog::info("left as it is (--allow-partial-undo): {}", why);
    }
    return;
  }
  if (!before->existed) return;  // python_venv's undo removes the venv the transaction made
  auto user = Accounts(ctx.fs).user(owner_then);
  if (!user) throw StepFailure("cannot undo the packages of " + at + ": user " + owner_then + " is gone from /etc/passwd");
  std::optional<DistSet> after;
  if (!partial && data.contains("after")) after = dist_set_from_json(data["after"]);
  VenvRestore r = restore_venv(ctx, *user, at, at_site, *before, after, store);
  if (!r.kept_user.empty() && ctx.notices)
    ctx.notices->push_back(at + ": kept what was added since the transaction: " + joined(r.kept_user));
  spdlog::info("{}: removed {}; put back {}{}", at, r.removed.empty() ? "nothing" : joined(r.removed),
               r.restored.empty() ? "nothing" : joined(r.restored),
               r.kept_user.empty() ? "" : "; kept what was added since: " + joined(r.kept_user));
}

}  // namespace wslgpu
