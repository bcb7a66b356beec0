#include "installer/guards/disk_space.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include "installer/system/units.hpp"

namespace wslgpu {

std::optional<FreeSpace> free_space(const std::string& host_path) {
  struct statvfs vfs {};
  struct stat st {};
  if (::statvfs(host_path.c_str(), &vfs) != 0 || ::stat(host_path.c_str(), &st) != 0) return std::nullopt;
  return FreeSpace{static_cast<std::uint64_t>(vfs.f_bfree) * vfs.f_frsize, static_cast<std::uint64_t>(st.st_dev)};
}

namespace {

std::uint64_t with_margin(std::uint64_t need) { return need + need * kMarginPercent / 100 + kMarginBytes; }

std::string advice() {
  return "Nothing was changed. Free some space and run again: `sudo apt-get clean` empties apt's cache of "
         "downloaded packages, and WSL's virtual disk also needs room to grow on the Windows drive that holds it.";
}

}  // namespace

std::vector<std::string> guard_disk_space(const Plan& plan, const FileSystem& fs, const FreeSpaceProbe& probe) {
  const std::uint64_t download = plan.download_bytes();
  const std::int64_t disk = plan.disk_bytes();
  const std::uint64_t installed = disk > 0 ? static_cast<std::uint64_t>(disk) : 0;
  if (download == 0 && installed == 0) return {};  // nothing to fit: the converged path reads nothing
  auto root = probe(fs.host_path("/"));
  if (!root) return {};
  auto archives = probe(fs.host_path("/var/cache/apt/archives"));
  if (!archives) archives = root;

  auto refusal = [&](const std::string& what, std::uint64_t need, const std::string& where, std::uint64_t free) {
    return "not enough disk space: " + what + ", " + human_size(with_margin(need)) + " with a margin of " +
           human_size(with_margin(need) - need) + ", but the filesystem of " + where + " has " + human_size(free) +
           " free.\n" + advice();
  };
  std::vector<std::string> out;
  std::string fetch = human_size(download) + " to download into /var/cache/apt/archives";
  std::string more = human_size(installed) + " more on disk once installed";
  if (archives->filesystem == root->filesystem) {
    std::uint64_t need = download + installed;
    if (root->free_bytes < with_margin(need))
      out.push_back(
          refusal("apt needs " + (download ? fetch + " and " : std::string()) + more, need, "/", root->free_bytes));
    return out;
  }
  if (download && archives->free_bytes < with_margin(download))
    out.push_back(refusal("apt needs " + fetch, download, "/var/cache/apt/archives", archives->free_bytes));
  if (installed && root->free_bytes < with_margin(installed))
    out.push_back(refusal("apt needs " + more, installed, "/", root->free_bytes));
  return out;
}

}  // namespace wslgpu
