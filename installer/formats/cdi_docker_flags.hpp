// What a CDI device amounts to as `docker run` flags, for an engine that
// reads no CDI spec (Docker Desktop's, or a docker-ce without CDI): its
// device nodes as --device, its mounts as -v (read-only when the spec says
// "ro"), its environment as -e. Hooks have no flag: a device that needs
// them (NVIDIA's create-symlinks and update-ldcache) is the runtime's to
// give, and says so.
#pragma once
#include <string>
#include <vector>

#include "installer/formats/cdi_spec.hpp"

namespace wslgpu {

struct DockerFlags {
  std::vector<std::string> flags;  // one flag with its value each: "--device=/dev/dxg", "-v A:B:ro", "-e K=V"
  std::vector<std::string> hooks;  // the paths of hooks no flag can stand for
};

// The flags of SPEC's device NAME (the spec's own edits first, as CDI
// applies them). Throws std::invalid_argument when SPEC has no such device.
DockerFlags docker_flags(const CdiSpec& spec, const std::string& name);

}  // namespace wslgpu
