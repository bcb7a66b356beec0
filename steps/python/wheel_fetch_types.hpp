// One wheel the tool downloads (steps/python/wheel_fetch.hpp).
#pragma once
#include <cstdint>
#include <string>

namespace wslgpu {

struct WheelDownload {
  std::string url;     // https:// (an http:// one, linked from a page, is refused by the download)
  std::string sha256;  // lowercase hex; "" when nothing pins it
  std::uint64_t expected_bytes = 0;  // known beforehand (the index page's size), 0 when not
};

}  // namespace wslgpu
