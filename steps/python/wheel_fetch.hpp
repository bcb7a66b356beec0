// The wheels a python_packages step names by URL are downloaded by the tool
// itself, not by pip: they are the one long wait of a PyTorch install (AMD's
// torch wheel is 4-5 GB), and installer/net gives them what pip's download
// does not: a progress line with bytes and rate like apt's, resumption of a
// partial file after a dropped connection or a Ctrl-C (the `.part` file
// stays in STATE/cache/wheels/ for the next run), the manifest's SHA-256
// checked while the bytes arrive, and the proxy and CA settings of every
// other download of the tool. pip is then given the local file (with the
// same #sha256=, which it checks again) and installs without a network for
// that wheel.
//
// A wheel without a SHA-256 (AMD publishes none for its PyTorch wheels; the
// manifest's unverified_note says so) is fetched whole each time, at most
// kUnpinnedWheelLimit bytes: without a hash, nothing proves that a partial
// file is of the same wheel, and a limit is what stops a wrong URL from
// filling the disk.
//
// The cache is root's (STATE is 0700); pip runs as the venv's owner, so
// each wheel is linked (or copied) into a staging folder the owner can
// read, next to the venv, removed once pip has run.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "steps/python/python_packages_step.hpp"

namespace wslgpu {

inline constexpr std::uint64_t kUnpinnedWheelLimit = 16ull << 30;  // 16 GiB: 3x AMD's largest torch wheel

// Where the cache keeps the wheel at URL (a target path).
std::string wheel_cache_path(const StepContext& ctx, const WantedPackage& w);

// What the cache already holds of W's TOTAL bytes, for the plan's figure:
// TOTAL when the wheel is there whole (by size; apply checks its hash), the
// size of a .part an interrupted run kept when W is pinned (only a pinned
// wheel is resumed), else 0.
std::uint64_t wheel_bytes_cached(StepContext& ctx, const WantedPackage& w, std::uint64_t total);

// Downloads every https:// wheel of TODO not yet in the cache (file://
// wheels are read by pip where they are) and links each into STAGING, a
// folder made for the purpose; returns key -> the staged file's target
// path. Throws StepFailure (a hash mismatch, a failed download) or
// Interrupted (Ctrl-C: the partial file is kept for the next run).
std::map<std::string, std::string> fetch_wheels(StepContext& ctx, const std::vector<const WantedPackage*>& todo,
                                                const std::string& staging);

}  // namespace wslgpu
