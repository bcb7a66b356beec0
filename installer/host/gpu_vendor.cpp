#include "installer/host/gpu_vendor.hpp"
#include "installer/system/text.hpp"

#include <algorithm>
#include <cctype>

namespace wslgpu {

namespace {

std::vector<std::string> list_or_empty(const FileSystem& fs, const std::string& dir) {
  try {
    auto info = fs.stat(dir);
    if (!info || info->type != FileType::directory) return {};
    auto names = fs.list(dir);
    std::sort(names.begin(), names.end());
    return names;
  } catch (const std::exception&) {
    return {};  // an unreadable folder is no evidence either way
  }
}

// A driver store folder is "<inf name>.inf_<arch>_<hash>"; the INF name
// says whose driver it is. The architecture part must not count.
std::string inf_name(const std::string& folder) {
  std::string l = text::lower(folder);
  auto dot = l.find(".inf");
  return dot == std::string::npos ? l : l.substr(0, dot);
}

bool names_amd_file(const std::string& file) {
  std::string l = text::lower(file);
  for (const char* prefix : {"amdxc", "amdhip", "amdxx", "amdgpu", "atidxx", "atiumd", "amd_", "libamd"})
    if (l.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

}  // namespace

GpuEvidence detect_gpu_vendors(const FileSystem& fs) {
  GpuEvidence e;
  const std::string lib = "/usr/lib/wsl/lib";
  for (const auto& name : list_or_empty(fs, lib))
    if (name.rfind("libcuda.so", 0) == 0 || name == "nvidia-smi") e.nvidia.push_back(lib + "/" + name);

  const std::string drivers = "/usr/lib/wsl/drivers";
  for (const auto& folder : list_or_empty(fs, drivers)) {
    const std::string path = drivers + "/" + folder;
    std::string inf = inf_name(folder);
    if (inf.rfind("nv", 0) == 0) {
      e.nvidia.push_back(path);
    } else if (inf.rfind("iigd", 0) == 0) {
      e.intel.push_back(path);
    } else if (inf.rfind("u0", 0) == 0 || inf.find("amd") != std::string::npos || inf.rfind("ati", 0) == 0) {
      e.amd.push_back(path);
    } else {
      auto files = list_or_empty(fs, path);
      if (std::any_of(files.begin(), files.end(), names_amd_file)) e.amd.push_back(path);
    }
  }
  return e;
}

ProfileChoice choose_profile(const GpuEvidence& e) {
  bool nvidia = !e.nvidia.empty(), amd = !e.amd.empty();
  if (nvidia && !amd) return {"cuda", "NVIDIA's Windows driver is mounted (" + e.nvidia.front() + ")"};
  if (amd && !nvidia) return {"rocm", "AMD's Windows driver is mounted (" + e.amd.front() + ")"};
  if (nvidia && amd)
    return {"", "both NVIDIA's (" + join(e.nvidia) + ") and AMD's (" + join(e.amd) +
                    ") Windows drivers are mounted, so it is not clear which GPU to set up"};
  std::string seen = e.intel.empty()
                         ? std::string("no GPU driver under /usr/lib/wsl")
                         : "only Intel's Windows driver (" + join(e.intel) + "), which no bundled profile serves";
  return {
      "",
      seen + ": neither NVIDIA's driver (/usr/lib/wsl/lib/libcuda.so*) nor AMD's (/usr/lib/wsl/drivers/) is mounted"};
}

}  // namespace wslgpu
