// The disk-space guard: a plan whose packages do not fit is refused before
// its first change. WSL's virtual disk fills up often (it lives on the
// Windows drive, and grows only while that has room), and a 20 GB install
// that stops halfway for want of space is the worst outcome there is: dpkg
// half-way through unpacking, and no room to undo it.
//
// The figures are apt's own, which each apt_install step's plan asked for
// (StepPlan::download_bytes and disk_bytes): what goes into
// /var/cache/apt/archives, and what the packages add once installed. Both
// must fit with a margin (kMarginPercent of them, plus kMarginBytes) on the
// filesystems of the root and of the archives folder (one sum when they are
// the same filesystem).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "installer/plan/plan.hpp"
#include "installer/system/filesystem.hpp"

namespace wslgpu {

inline constexpr std::uint64_t kMarginPercent = 10;
inline constexpr std::uint64_t kMarginBytes = 100'000'000;  // 100 MB: dpkg's own database, logs, triggers

struct FreeSpace {
  std::uint64_t free_bytes = 0;  // what root may still write (statvfs f_bfree: root may use the reserved blocks)
  std::uint64_t filesystem = 0;  // the device, to tell whether two paths share a filesystem
};

// The free space of the filesystem holding HOST_PATH, or nullopt when it cannot be read.
std::optional<FreeSpace> free_space(const std::string& host_path);

using FreeSpaceProbe = std::function<std::optional<FreeSpace>(const std::string& host_path)>;

// The refusal, one full message, when PLAN's changing steps need more than
// the root (FS) has free; empty when they fit, need nothing, or the free
// space cannot be read. PROBE is free_space, or a test's stand-in.
std::vector<std::string> guard_disk_space(const Plan& plan, const FileSystem& fs,
                                          const FreeSpaceProbe& probe = free_space);

}  // namespace wslgpu
