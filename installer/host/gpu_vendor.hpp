// Which GPU vendor's Windows driver is shared with this distribution, from
// what that driver mounts into WSL (never by running anything):
//   NVIDIA  /usr/lib/wsl/lib/libcuda.so* and nvidia-smi, the stubs of the
//           Windows driver; driver store folders nv*.inf_*.
//   AMD     driver store folders under /usr/lib/wsl/drivers/ whose INF name
//           or files name AMD (u0*.inf_* is AMD's INF naming; amd*, ati*
//           and amdhip*/amdxc* files inside).
//   Intel   iigd*.inf_* folders (no bundled profile).
// "amd64" in a folder name is the architecture (nv_dispi.inf_amd64_...),
// never evidence of AMD.
#pragma once
#include <string>
#include <vector>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

struct GpuEvidence {
  std::vector<std::string> nvidia;  // target paths that show NVIDIA's driver
  std::vector<std::string> amd;
  std::vector<std::string> intel;
};

GpuEvidence detect_gpu_vendors(const FileSystem& fs);

// The bundled profile for EVIDENCE and one line saying why, or an empty
// profile and the reason none can be chosen (both vendors, or neither).
struct ProfileChoice {
  std::string profile;  // "cuda", "rocm", or "" when it cannot choose
  std::string why;      // "NVIDIA's Windows driver is mounted (/usr/lib/wsl/lib/libcuda.so.1)"
};
ProfileChoice choose_profile(const GpuEvidence& evidence);

}  // namespace wslgpu
