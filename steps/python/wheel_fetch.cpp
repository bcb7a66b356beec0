#include "steps/python/wheel_fetch.hpp"

#include <sys/stat.h>

#include <algorithm>

#include <spdlog/spdlog.h>

#include "installer/formats/wheel_metadata.hpp"
#include "installer/net/download.hpp"
#include "installer/net/download_set.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "steps/files/download.hpp"

namespace wslgpu {

std::string wheel_cache_dir(const StepContext& ctx) { return ctx.state_dir + "/" + kWheelCacheFolder; }

std::string wheel_cache_path(const StepContext& ctx, const std::string& url, const std::string& sha256) {
  // The hash (or, unpinned, the wheel's own name) keeps two wheels of one
  // name from different URLs apart.
  std::string name = percent_decode(url_file_name(url));
  return wheel_cache_dir(ctx) + "/" + (sha256.empty() ? "unpinned" : sha256.substr(0, 16)) + "-" + name;
}

std::uint64_t wheel_bytes_cached(StepContext& ctx, const std::string& url, const std::string& sha256,
                                 std::uint64_t total) {
  if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) return 0;
  const std::string cached = wheel_cache_path(ctx, url, sha256);
  if (auto info = ctx.fs.stat(cached); info && info->type == FileType::regular)
    return !sha256.empty() && info->size == total ? total : 0;
  if (sha256.empty()) return 0;
  auto part = ctx.fs.stat(cached + ".part");
  return part && part->type == FileType::regular ? std::min(part->size, total) : 0;
}

namespace {

// The set's progress as the step's progress line: bytes, rate (the display
// computes it), files done.
std::function<void(const DownloadSetProgress&)> set_progress(StepContext& ctx, const std::string& subject) {
  if (!ctx.progress) return nullptr;
  ProgressSink* sink = ctx.progress;
  return [sink, subject](const DownloadSetProgress& p) {
    ProgressEvent ev;
    ev.phase = ProgressEvent::Phase::download;
    // The file that moved last, and what the set is: "torch-….whl (4 wheels
    // named by URL) 1.2 GB of 4.0 GB, file 2 of 4".
    ev.subject = p.files == 1 || subject.empty() ? p.current : p.current + " (" + subject + ")";
    ev.bytes_done = p.bytes_done;
    ev.bytes_total = p.bytes_total;
    ev.resumed_from = p.resumed_from;
    ev.item = p.files > 1 ? std::min(p.files_done + 1, p.files) : 0;
    ev.items = p.files > 1 ? p.files : 0;
    ev.percent = p.bytes_total > 0 ? 100.0 * static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total) : -1;
    sink->update(ev);
  };
}

}  // namespace

std::vector<std::string> fetch_wheels(StepContext& ctx, const std::vector<WheelDownload>& wheels,
                                      const std::string& staging, const std::string& subject) {
  if (wheels.empty()) return {};
  std::vector<SetDownload> set;
  for (const auto& w : wheels) {
    const std::string cached = wheel_cache_path(ctx, w.url, w.sha256);
    if (auto info = ctx.fs.stat(cached); info && info->type == FileType::regular && !w.sha256.empty() &&
                                         sha256_of_host_file(ctx.fs.host_path(cached)) == w.sha256)
      continue;  // a run that did not get to install it left it whole
    ctx.fs.make_dirs(parent_path(cached), 0700);
    SetDownload d;
    d.request.url = w.url;
    d.request.host_path = ctx.fs.host_path(cached);
    if (w.sha256.empty()) {
      d.request.checked_by_caller = true;
      d.request.max_bytes = kUnpinnedWheelLimit;
    } else {
      d.request.sha256 = w.sha256;
    }
    // No total limit: a slow link that keeps moving is never cut off.
    d.request.total_timeout = std::chrono::milliseconds(0);
    d.request.stall_timeout = kWheelStallTimeout;
    d.expected_bytes = w.expected_bytes;
    set.push_back(std::move(d));
  }
  DownloadSetOptions options;
  options.jobs = kWheelDownloadJobs;
  options.on_progress = set_progress(ctx, subject);
  options.fetch = ctx.fetch;
  download_set(set, options);

  std::vector<std::string> staged;
  ctx.fs.make_dirs(staging, 0755);
  for (const auto& w : wheels) {
    const std::string cached = wheel_cache_path(ctx, w.url, w.sha256);
    // pip reads it as the venv's owner through the staging link; the
    // cache folder itself stays root's alone (0700).
    ::chmod(ctx.fs.host_path(cached).c_str(), 0644);
    std::string to = staging + "/" + percent_decode(url_file_name(w.url));
    ctx.fs.link_or_copy(cached, to);
    staged.push_back(to);
  }
  return staged;
}

std::optional<std::string> downloaded_wheel_metadata(StepContext& ctx, const WheelDownload& w) {
  std::string error;
  auto text = read_wheel_metadata(ctx.fs.host_path(wheel_cache_path(ctx, w.url, w.sha256)), error);
  if (!text) spdlog::debug("what {} requires is left to pip: {}", w.url, error);
  return text;
}

namespace {

void remove_quietly(StepContext& ctx, const std::string& path) {
  try {
    if (ctx.fs.lstat(path)) ctx.fs.remove(path);
  } catch (const std::exception& e) {
    spdlog::debug("{} stays in the cache: {}", path, e.what());
  }
}

}  // namespace

void drop_cached_wheels(StepContext& ctx, const std::vector<WheelDownload>& wheels, bool installed) {
  for (const auto& w : wheels) {
    if (!installed && !w.sha256.empty()) continue;  // kept for the next run to go on from
    const std::string cached = wheel_cache_path(ctx, w.url, w.sha256);
    remove_quietly(ctx, cached);
    remove_quietly(ctx, cached + ".part");
  }
}

}  // namespace wslgpu
