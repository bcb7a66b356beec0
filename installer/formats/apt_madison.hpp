// The versions apt can fetch: the output of `apt-cache madison NAME...`,
// one line per version and source, newest first as apt sorts them:
//
//   cuda-toolkit-12-6 |   12.6.3-1 | https://developer.download.nvidia.com/... Packages
//   rocm | 6.4.2.60402-120~24.04 | https://repo.radeon.com/rocm/apt/6.4.2 noble/main amd64 Packages
//
// Only versions some configured source offers appear (never the one dpkg
// merely has installed), which is exactly "can apt still fetch it".
#pragma once
#include <map>
#include <string>
#include <vector>

namespace wslgpu {

// name -> its versions, each once, in apt's order. Lines that are not
// "NAME | VERSION | SOURCE" (apt's notes, blank lines) are ignored.
std::map<std::string, std::vector<std::string>> parse_apt_madison(const std::string& output);

}  // namespace wslgpu
