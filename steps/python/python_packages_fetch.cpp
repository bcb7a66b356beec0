// python_packages: what apply downloads and how pip is run (the contract
// is in steps/python/wheel_fetch.hpp and python_packages.hpp).
#include <algorithm>

#include <spdlog/spdlog.h>

#include "installer/formats/python_dist.hpp"
#include "installer/formats/python_requirement.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"
#include "steps/python/pip_run.hpp"
#include "steps/python/python_common.hpp"
#include "steps/python/python_packages_step.hpp"
#include "steps/python/wheel_fetch.hpp"

namespace wslgpu {

namespace {

bool is_network_url(const std::string& url) {
  return url.rfind("https://", 0) == 0 || url.rfind("http://", 0) == 0;
}

// pip's words when what it was given locally does not hold what it needs
// (the tool's resolution and pip's differ): the run with the index may
// find it.
bool missing_locally(const ProcessResult& r) {
  const std::string all = r.out + "\n" + r.err;
  return all.find("No matching distribution found") != std::string::npos ||
         all.find("Could not find a version that satisfies") != std::string::npos ||
         all.find("ResolutionImpossible") != std::string::npos;
}

}  // namespace

std::vector<WantedWheel> PythonPackagesStep::wanted_wheels(const FileSystem& fs, const std::vector<InstalledDist>& dists,
                                                           std::map<std::string, std::string>& installed,
                                                           const std::map<std::string, std::string>& staged) const {
  std::vector<WantedWheel> wanted;
  installed.clear();
  for (const auto& d : dists) installed[d.key] = d.version;
  for (const auto& w : packages) {
    if (converged(fs, w, dists)) continue;
    auto at = staged.find(w.key);
    WantedWheel wheel{w.name, w.version, at != staged.end() ? file_url(at->second) : w.url, w.extras, std::nullopt};
    if (at_wanted_version(fs, w, dists)) {
      // Only its extras to complete: pip downloads what they require, read
      // from the installed METADATA, and nothing for the package itself.
      auto d = std::find_if(dists.begin(), dists.end(), [&](const InstalledDist& x) { return x.key == w.key; });
      try {
        wheel.installed_requires_dist = parse_metadata(fs.read(d->dist_info + "/METADATA")).requires_dist;
      } catch (const StepFailure&) {
        wheel.installed_requires_dist.emplace();
      }
    } else {
      installed.erase(w.key);  // reinstalled: pip downloads it whatever is there
    }
    wanted.push_back(std::move(wheel));
  }
  return wanted;
}

DownloadEstimate PythonPackagesStep::resolve_downloads(
    StepContext& ctx, const std::vector<InstalledDist>& dists, const std::map<std::string, std::string>& staged,
    std::function<std::optional<std::string>(const std::string&)> local_metadata) const {
  std::map<std::string, std::string> installed;
  std::vector<WantedWheel> wanted = wanted_wheels(ctx.fs, dists, installed, staged);
  if (wanted.empty()) return {};
  SizeOptions options;
  options.query.file_root = ctx.fs.host_path("/");
  options.ask = ctx.ask_urls;
  options.local_metadata = std::move(local_metadata);
  return estimate_downloads(wanted, index_url, find_links, target, installed, options);
}

void PythonPackagesStep::fetch_and_install(StepContext& ctx, const UserEntry& user,
                                           const std::vector<const WantedPackage*>& todo,
                                           const std::vector<const InstalledDist*>& leftover,
                                           const std::vector<InstalledDist>& dists, const std::string& staging) {
  std::vector<WheelDownload> by_url, from_index;
  try {
    fetch_and_run_pip(ctx, user, todo, leftover, dists, staging, by_url, from_index);
  } catch (...) {
    // Nothing would read an unpinned wheel again; a pinned one and its
    // .part stay for the next run to go on from.
    drop_cached_wheels(ctx, by_url, false);
    drop_cached_wheels(ctx, from_index, false);
    throw;
  }
  // Installed: the venv and the undo store hold what the wheels were for.
  drop_cached_wheels(ctx, by_url, true);
  drop_cached_wheels(ctx, from_index, true);
}

void PythonPackagesStep::fetch_and_run_pip(StepContext& ctx, const UserEntry& user,
                                           const std::vector<const WantedPackage*>& todo,
                                           const std::vector<const InstalledDist*>& leftover,
                                           const std::vector<InstalledDist>& dists, const std::string& staging,
                                           std::vector<WheelDownload>& by_url,
                                           std::vector<WheelDownload>& from_index) {
  // 1. The wheels named by URL; what they require is read from the
  // downloaded files (AMD's folders serve no PEP 658 metadata).
  std::vector<std::string> by_url_keys;
  for (const auto* w : todo)
    if (is_network_url(w->url)) {
      by_url.push_back({w->url, w->sha256, 0});
      by_url_keys.push_back(w->key);
    }
  std::map<std::string, std::string> staged;
  std::map<std::string, std::string> metadata_of;  // a downloaded wheel's URL (file:// when staged) -> its METADATA
  std::vector<std::string> paths = fetch_wheels(
      ctx, by_url, staging, std::to_string(by_url.size()) + " wheel" + (by_url.size() == 1 ? "" : "s") + " named by URL");
  for (std::size_t i = 0; i < paths.size(); ++i) {
    staged[by_url_keys[i]] = paths[i];
    if (auto text = downloaded_wheel_metadata(ctx, by_url[i])) metadata_of[file_url(paths[i])] = std::move(*text);
  }

  // 2. A package of another build or for another torch goes first, so that
  // pip resolves its companions anew (it keeps an installed one whose pins
  // still hold). It is in the store. One at its version that only lacks
  // what its extras require stays: pip adds the rest beside it.
  std::vector<std::string> stale;
  std::vector<std::string> stale_keys;
  for (const auto* w : todo) {
    const bool there = std::any_of(dists.begin(), dists.end(), [&](const InstalledDist& d) { return d.key == w->key; });
    if (w->url.empty() && there && !at_wanted_version(ctx.fs, *w, dists)) {
      stale.push_back(w->name);
      stale_keys.push_back(w->key);
    }
  }
  for (const auto* d : leftover) {
    stale.push_back(d->name);
    stale_keys.push_back(d->key);
  }
  if (!stale.empty()) {
    std::vector<std::string> args = {"uninstall", "-y", "--isolated", "--no-input", "--disable-pip-version-check"};
    args.insert(args.end(), stale.begin(), stale.end());
    Command c = pip_command(user, venv, args);
    ProcessResult r = ctx.runner.run(c);
    if (!r.ok()) throw StepFailure(pip_failure(venv, c, r));
  }
  if (todo.empty()) return;  // only what other extras left, removed

  // 3. What pip would download from the index and the find-links pages,
  // resolved by the tool against the venv as it is now, and downloaded.
  std::string unresolved;  // why the tool's resolution is not the whole set, "" when it is
  const bool remote_links = std::any_of(find_links.begin(), find_links.end(), is_network_url);
  if (!index_url.empty() || remote_links) {
    std::vector<InstalledDist> now = dists;
    now.erase(std::remove_if(now.begin(), now.end(),
                             [&](const InstalledDist& d) {
                               return std::find(stale_keys.begin(), stale_keys.end(), d.key) != stale_keys.end();
                             }),
              now.end());
    // A wheel whose page announces no PEP 658 file is read once
    // downloaded, and what it requires resolved in the next round: a few
    // rounds, one per level of the dependency tree that needs it.
    auto local_metadata = [&metadata_of](const std::string& url) -> std::optional<std::string> {
      auto it = metadata_of.find(url);
      if (it == metadata_of.end()) return std::nullopt;
      return it->second;
    };
    constexpr int kRounds = 6;
    for (int round = 0; round < kRounds; ++round) {
      if (ctx.progress) {  // also starts the next round's download lines afresh
        ProgressEvent ev;
        ev.subject = "resolving what " + (index_url.empty() ? std::string("the find-links pages") : index_url) +
                     " has for " + venv;
        ctx.progress->update(ev);
      }
      DownloadEstimate est = resolve_downloads(ctx, now, staged, local_metadata);
      unresolved.clear();
      std::vector<WheelDownload> fresh;
      for (const auto& w : est.wheels) {
        if (w.url.empty()) {
          unresolved = w.name + ": " + w.why_unknown;
          continue;
        }
        if (!is_network_url(w.url)) continue;
        const bool have = std::any_of(from_index.begin(), from_index.end(),
                                      [&](const WheelDownload& d) { return d.url == w.url; });
        if (!have) fresh.push_back({w.url, is_sha256_hex(w.sha256) ? w.sha256 : "", w.bytes.value_or(0)});
      }
      for (const auto& n : est.notes) {
        spdlog::debug("resolving {}'s downloads: {}", venv, n);
        // A dependency left out, or a pin of the manifest a dependency
        // contradicts (pip backtracks where the walk does not).
        if (unresolved.empty() && (n.find("not counted") != std::string::npos ||
                                   n.find("resolve it otherwise") != std::string::npos))
          unresolved = n;
      }
      if (fresh.empty()) break;
      fetch_wheels(ctx, fresh, staging,
                   std::to_string(fresh.size()) + " wheel" + (fresh.size() == 1 ? "" : "s") + " from " +
                       (index_url.empty() ? std::string("the find-links pages") : index_url));
      for (const auto& w : fresh) {
        from_index.push_back(w);
        if (auto text = downloaded_wheel_metadata(ctx, w)) metadata_of[w.url] = std::move(*text);
      }
    }
  }

  // 4. pip, from the staged files (and the local find-links folders) alone.
  auto install_args = [&](bool with_network) {
    std::vector<std::string> args = {"install", "--isolated", "--no-input", "--disable-pip-version-check",
                                     "--no-cache-dir"};
    if (with_network && ctx.fs.stat(kCaStore)) args.insert(args.end(), {"--cert", kCaStore});
    if (with_network && !index_url.empty())
      args.insert(args.end(), {"--index-url", index_url});
    else
      args.push_back("--no-index");
    if (ctx.fs.stat(staging)) args.insert(args.end(), {"--find-links", file_url(staging)});
    for (const auto& f : find_links)
      if (with_network || !is_network_url(f)) args.insert(args.end(), {"--find-links", f});
    for (const auto* w : todo) {
      std::string hash = w->sha256.empty() ? "" : "#sha256=" + w->sha256;
      if (auto it = staged.find(w->key); it != staged.end())
        args.push_back(w->name + " @ " + file_url(it->second) + hash);
      else if (!w->url.empty())
        args.push_back(w->name + " @ " + w->url + hash);
      else
        args.push_back(w->requirement());
    }
    return args;
  };
  // What the tool could not resolve (a page without PEP 658 metadata, a
  // package the index lacks) pip fetches itself, and the log says so: the
  // rest of the set is still the tool's download.
  const bool may_go_online = !index_url.empty() || remote_links;
  auto online_warning = [&](const std::string& why) {
    spdlog::warn("{}: {}; pip downloads what the {} wheels the tool fetched leave out itself (without resumption or "
                 "the tool's progress line)",
                 venv, why, from_index.size() + by_url.size());
  };
  if (!unresolved.empty()) online_warning("the tool could not resolve the whole set (" + unresolved + ")");
  Command c = pip_command(user, venv, install_args(!unresolved.empty()),
                          unresolved.empty() ? kPipLocalTimeout : kPipNetworkTimeout);
  show_pip_progress(ctx, c, todo.size());
  ProcessResult r = ctx.runner.run(c);
  if (!r.ok() && !r.interrupted && unresolved.empty() && may_go_online && missing_locally(r)) {
    online_warning("pip's resolution needs more than the tool's (pip said: " + pip_failure(venv, c, r) + ")");
    c = pip_command(user, venv, install_args(true), kPipNetworkTimeout);
    show_pip_progress(ctx, c, todo.size());
    r = ctx.runner.run(c);
  }
  if (!r.ok()) throw StepFailure(pip_failure(venv, c, r));
}

}  // namespace wslgpu
