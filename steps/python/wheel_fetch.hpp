// Every wheel a python_packages step installs from the network is
// downloaded by the tool itself, not by pip: they are the one long wait of
// a PyTorch install (AMD's torch wheel is 4-5 GB; NVIDIA's torch with its
// nvidia-* wheels 3-4 GB in some twenty files), and installer/net gives
// them what pip's download does not: a progress line with bytes and rate
// like apt's, several files at once (installer/net/download_set.hpp),
// resumption of a partial file after a dropped connection or a Ctrl-C (the
// `.part` file stays in STATE/cache/wheels/ for the next run), a stop
// within a second on Ctrl-C, no time limit on a slow link that keeps
// moving (only a stalled one is given up and resumed), the SHA-256 checked
// while the bytes arrive, and the proxy and CA settings of every other
// download of the tool.
//
// Two kinds, in this order:
//   - the wheels the manifest names by URL, pinned by its sha256 (pip is
//     given the local file with the same #sha256=, which it checks again);
//     their METADATA is read from the downloaded file, so that what they
//     require can be resolved without pip;
//   - the wheels pip would fetch from the step's index and find-links pages:
//     resolved by the tool (installer/net/wheel_sizes.hpp's walk of the
//     index's PEP 691 pages and PEP 658 metadata, what the plan's estimate
//     reads), checked against the SHA-256 the index page gives. pip then
//     installs with --no-index from the staged files alone.
//
// A wheel without a SHA-256 (AMD publishes none for its PyTorch wheels; the
// manifest's unverified_note says so) is fetched whole each time, at most
// kUnpinnedWheelLimit bytes: without a hash, nothing proves that a partial
// file is of the same wheel, and a limit is what stops a wrong URL from
// filling the disk.
//
// The cache keeps only what can be used again: a pinned wheel's `.part`
// and the whole wheels of a run that did not get to install them (the next
// run goes on from there); once pip has installed a set, its wheels leave
// the cache (the venv and the undo store hold what they were for), and an
// unpinned wheel never stays. `history` shows the cache, `--prune` empties it.
//
// The cache is root's (STATE is 0700); pip runs as the venv's owner, so
// each wheel is linked (or copied) into a staging folder the owner can
// read, next to the venv, removed once pip has run.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "steps/python/python_packages_step.hpp"

namespace wslgpu {

inline constexpr std::uint64_t kUnpinnedWheelLimit = 16ull << 30;  // 16 GiB: 3x AMD's largest torch wheel
// A wheel download that receives under 1 KiB/s for this long is given up
// and resumed (DownloadRequest::stall_timeout); there is no total limit.
inline constexpr std::chrono::seconds kWheelStallTimeout{120};
// How many wheels download at once.
inline constexpr unsigned kWheelDownloadJobs = 4;

// Where the cache keeps the wheel at URL with SHA256 ("" unpinned), a target path.
std::string wheel_cache_path(const StepContext& ctx, const std::string& url, const std::string& sha256);
inline std::string wheel_cache_path(const StepContext& ctx, const WantedPackage& w) {
  return wheel_cache_path(ctx, w.url, w.sha256);
}

// The cache folder (a target path).
std::string wheel_cache_dir(const StepContext& ctx);

// What the cache already holds of a wheel's TOTAL bytes, for the plan's
// figure: TOTAL when the wheel is there whole (by size; apply checks its
// hash), the size of a .part an interrupted run kept when it is pinned
// (only a pinned wheel is resumed), else 0.
std::uint64_t wheel_bytes_cached(StepContext& ctx, const std::string& url, const std::string& sha256,
                                 std::uint64_t total);

// Downloads every wheel of WHEELS not yet in the cache, KWheelDownloadJobs
// at a time with one progress line (SUBJECT: "3 wheels named by URL"), and
// links each into STAGING, a folder made for the purpose; returns the
// staged files' target paths, in WHEELS' order. Throws StepFailure (a hash
// mismatch, a failed download) or Interrupted (Ctrl-C: what was fetched is
// kept for the next run).
std::vector<std::string> fetch_wheels(StepContext& ctx, const std::vector<WheelDownload>& wheels,
                                      const std::string& staging, const std::string& subject);

// The METADATA of W, read from its file in the cache (fetch_wheels() put it
// there), for the resolution of what it requires (SizeOptions::
// local_metadata); nullopt, with the reason logged, when it has none.
std::optional<std::string> downloaded_wheel_metadata(StepContext& ctx, const WheelDownload& w);

// WHEELS leave the cache: all of them once pip has INSTALLED them; after a
// run that did not, only the unpinned ones (nothing would read them again),
// while a pinned whole wheel and .part stay for the next run. Never throws.
void drop_cached_wheels(StepContext& ctx, const std::vector<WheelDownload>& wheels, bool installed);

}  // namespace wslgpu
