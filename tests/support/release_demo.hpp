// A profile with a release table, as two versions of wslgpu-setup might
// bundle it: the newer one moves DEFAULT_RELEASE from 1.0 to 2.0. The tests
// of what an upgrade's defaults change (unit and black-box) name its lines:
// release's default at 7:11, the 2.0 row's repo_dir at 18:12.
#pragma once
#include <string>

namespace wslgpu::testing {

inline std::string release_demo_profile(const std::string& default_release) {
  return R"([manifest]
name = "release-demo"
description = "a release switch driven by a matrix"
schema_version = 1

[vars]
release = ")" + default_release + R"("
repo_dir = "none"
channel = "stable"

# Source: the vendor's 1.0 release notes.
[matrix.release."1.0"]
repo_dir = "r10"

# Source: the vendor's 2.0 release notes,
# which moved the repository.
[matrix.release."2.0"]
repo_dir = "r20"

[[step]]
id = "conf"
kind = "file"
path = "/etc/demo.conf"
content = "release ${release} from ${repo_dir} (${channel})\n"
)";
}

}  // namespace wslgpu::testing
