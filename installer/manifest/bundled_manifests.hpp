// The profiles in manifests/, compiled into the binary at build time by
// cmake/embed_manifests.cmake, so that `wslgpu-setup plan rocm` needs no
// files next to the binary.
#pragma once
#include <string_view>
#include <vector>

namespace wslgpu {

struct BundledManifest {
  std::string_view name;     // "rocm": what the user types
  std::string_view path;     // "manifests/rocm.toml": shown in error positions
  std::string_view content;  // the TOML text
};

// Every bundled profile, sorted by name.
const std::vector<BundledManifest>& bundled_manifests();

}  // namespace wslgpu
