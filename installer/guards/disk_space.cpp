#include "installer/guards/disk_space.hpp"
#include "installer/system/paths.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <filesystem>

#include "installer/system/units.hpp"
#include "installer/undo/undo_store.hpp"

namespace wslgpu {

std::optional<FreeSpace> free_space(const std::string& host_path) {
  struct statvfs vfs {};
  struct stat st {};
  if (::statvfs(host_path.c_str(), &vfs) != 0 || ::stat(host_path.c_str(), &st) != 0) return std::nullopt;
  return FreeSpace{static_cast<std::uint64_t>(vfs.f_bfree) * vfs.f_frsize, static_cast<std::uint64_t>(st.st_dev)};
}

namespace {

std::uint64_t with_margin(std::uint64_t need) { return need + need * kMarginPercent / 100 + kMarginBytes; }

// What the tool itself keeps that can go: the wheel cache and the undo
// stores, each named with its size when it holds anything.
std::string own_keeps(const FileSystem& fs) {
  const std::string state = fs.host_path(kStateDir);
  const FolderSize cache = folder_size(state + "/" + kWheelCacheFolder);
  std::uint64_t stores = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(state + "/tx", ec), end; !ec && it != end; it.increment(ec))
    stores += store_folder_bytes(it->path().string() + "/undo");
  std::vector<std::string> parts;
  if (cache.bytes > 0) parts.push_back("its wheel cache holds " + human_size(cache.bytes));
  if (stores > 0) parts.push_back("its undo stores " + human_size(stores));
  if (parts.empty()) return "";
  return "; wslgpu-setup's own: " + (parts.size() == 1 ? parts[0] : parts[0] + " and " + parts[1]) +
         " (`sudo wslgpu-setup history` lists them; `history --prune` frees the stores no rollback needs and empties "
         "the cache, `history --prune ID` gives up one transaction's offline rollback for its store)";
}

std::string advice(const FileSystem& fs) {
  return "Nothing was changed. Free some space and run again: `sudo apt-get clean` empties apt's cache of "
         "downloaded packages" +
         own_keeps(fs) + "; and WSL's virtual disk also needs room to grow on the Windows drive that holds it.";
}

}  // namespace

std::vector<std::string> guard_disk_space(const Plan& plan, const FileSystem& fs, const FreeSpaceProbe& probe) {
  const std::uint64_t download = plan.download_bytes();
  const std::int64_t disk = plan.disk_bytes();
  const std::uint64_t installed = disk > 0 ? static_cast<std::uint64_t>(disk) : 0;
  // The undo store (installer/undo/): what is fetched or rebuilt takes room
  // in the state folder; a copy of apt's cache is a hard link there, free
  // when both are on one filesystem.
  std::uint64_t store_new = 0, store_linked = 0;
  for (const auto& k : plan.undo_keeps()) {
    if (k.from.empty()) continue;
    (k.from == "apt cache" ? store_linked : store_new) += k.bytes;
  }
  std::vector<const DiskNeed*> step_needs;
  for (const auto& st : plan.steps)
    if (st.plan.verdict == Verdict::change)
      for (const auto& n : st.plan.disk_needs)
        if (n.bytes) step_needs.push_back(&n);
  if (download == 0 && installed == 0 && store_new + store_linked == 0 && step_needs.empty())
    return {};  // the converged path reads nothing
  auto root = probe(fs.host_path("/"));
  if (!root) return {};
  auto archives = probe(fs.host_path("/var/cache/apt/archives"));
  if (!archives) archives = root;
  auto state = probe(fs.host_path(kStateDir));
  if (!state) state = probe(fs.host_path("/var/lib"));
  if (!state) state = root;
  const std::uint64_t store = store_new + (state->filesystem == archives->filesystem ? 0 : store_linked);

  auto refusal = [&](const std::string& what, std::uint64_t need, const std::string& where, std::uint64_t free) {
    return "not enough disk space: " + what + ", " + human_size(with_margin(need)) + " with a margin of " +
           human_size(with_margin(need) - need) + ", but the filesystem of " + where + " has " + human_size(free) +
           " free.\n" + advice(fs);
  };
  std::vector<std::string> out;
  std::string fetch = human_size(download) + " to download into /var/cache/apt/archives";
  std::string more = human_size(installed) + " more on disk once installed";
  std::string kept = "wslgpu-setup keeps " + human_size(store) + " for undo in " + std::string(kStateDir);
  // Each filesystem once, with everything that lands on it.
  struct Need {
    const FreeSpace* fs;
    std::string where;
    std::uint64_t bytes = 0;
    std::string what;
  };
  // The root first, so that a filesystem it shares is judged by its figures.
  std::vector<Need> needs = {{&*root, "/", 0, ""}};
  auto add = [&](const FreeSpace& on, const std::string& where, std::uint64_t bytes, const std::string& what) {
    if (bytes == 0) return;
    for (auto& n : needs)
      if (n.fs->filesystem == on.filesystem) {
        n.bytes += bytes;
        // "apt needs A and apt needs B" reads "apt needs A and B".
        if (n.what.empty()) n.what = what;
        else n.what += " and " + (n.what.rfind("apt needs ", 0) == 0 && what.rfind("apt needs ", 0) == 0 ? what.substr(10) : what);
        return;
      }
    needs.push_back({&on, where, bytes, what});
  };
  add(*archives, "/var/cache/apt/archives", download, "apt needs " + fetch);
  add(*root, "/", installed, "apt needs " + more);
  add(*state, std::string(kStateDir), store, kept);
  // The folder itself may not exist yet (a venv an earlier step makes): its
  // nearest parent that does is on the same filesystem.
  auto probe_folder = [&](const std::string& path) {
    std::string p = path;
    while (p != "/" && !fs.stat(p)) p = parent_path(p);
    auto got = probe(fs.host_path(p));
    return got ? *got : *root;
  };
  std::vector<FreeSpace> step_fs;  // kept alive: NEEDS points into it
  step_fs.reserve(step_needs.size());
  for (const auto* n : step_needs) {
    FreeSpace on = probe_folder(n->path);
    if (!n->free_on_filesystem_of.empty() && probe_folder(n->free_on_filesystem_of).filesystem == on.filesystem)
      continue;
    step_fs.push_back(on);
    add(step_fs.back(), n->path, n->bytes, n->what);
  }
  for (const auto& n : needs)
    if (n.bytes && n.fs->free_bytes < with_margin(n.bytes)) out.push_back(refusal(n.what, n.bytes, n.where, n.fs->free_bytes));
  return out;
}

}  // namespace wslgpu
