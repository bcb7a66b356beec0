#include "steps/python/wheel_fetch.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "installer/net/download.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "steps/files/download.hpp"

namespace wslgpu {

std::string wheel_cache_path(const StepContext& ctx, const WantedPackage& w) {
  // The hash (or, unpinned, the wheel's own name) keeps two wheels of one
  // name from different URLs apart.
  std::string name = percent_decode(url_file_name(w.url));
  return ctx.state_dir + "/cache/wheels/" + (w.sha256.empty() ? "unpinned" : w.sha256.substr(0, 16)) + "-" + name;
}

std::uint64_t wheel_bytes_cached(StepContext& ctx, const WantedPackage& w, std::uint64_t total) {
  if (w.url.rfind("https://", 0) != 0) return 0;
  const std::string cached = wheel_cache_path(ctx, w);
  if (auto info = ctx.fs.stat(cached); info && info->type == FileType::regular)
    return !w.sha256.empty() && info->size == total ? total : 0;
  if (w.sha256.empty()) return 0;
  auto part = ctx.fs.stat(cached + ".part");
  return part && part->type == FileType::regular ? std::min(part->size, total) : 0;
}

std::map<std::string, std::string> fetch_wheels(StepContext& ctx, const std::vector<const WantedPackage*>& todo,
                                                const std::string& staging) {
  std::map<std::string, std::string> staged;
  for (const auto* w : todo) {
    if (w->url.rfind("https://", 0) != 0) continue;
    std::string cached = wheel_cache_path(ctx, *w);
    bool have = false;
    if (auto info = ctx.fs.stat(cached); info && info->type == FileType::regular)
      have = !w->sha256.empty() && sha256_of_host_file(ctx.fs.host_path(cached)) == w->sha256;
    if (!have) {
      ctx.fs.make_dirs(parent_path(cached), 0700);
      DownloadRequest req;
      req.url = w->url;
      req.host_path = ctx.fs.host_path(cached);
      if (w->sha256.empty()) {
        req.checked_by_caller = true;
        req.max_bytes = kUnpinnedWheelLimit;
      } else {
        req.sha256 = w->sha256;
      }
      req.total_timeout = std::chrono::hours(3);  // per attempt: 5 GB at 4 Mbit/s
      req.on_progress = download_progress(ctx, url_file_name(percent_decode(w->url)));
      fetch_file(req);
      // pip reads it as the venv's owner through the staging link; the
      // cache folder itself stays root's alone (0700).
      ::chmod(ctx.fs.host_path(cached).c_str(), 0644);
    }
    ctx.fs.make_dirs(staging, 0755);
    std::string to = staging + "/" + percent_decode(url_file_name(w->url));
    ctx.fs.link_or_copy(cached, to);
    staged[w->key] = to;
  }
  return staged;
}

}  // namespace wslgpu
