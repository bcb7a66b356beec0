// installer/formats/cdi_docker_flags.hpp: a CDI device as docker run flags,
// for the engines that read no CDI spec (`wslgpu-setup containers flags`).
#include <doctest/doctest.h>

#include <stdexcept>

#include "installer/formats/cdi_docker_flags.hpp"

using namespace wslgpu;

TEST_CASE("docker flags: AMD's librocdxg spec is AMD's documented docker run flags, read-only mounts") {
  CdiSpec spec = read_cdi_spec(R"(cdiVersion: "0.5.0"
kind: amd.com/gpu
devices:
- name: all
  containerEdits:
    deviceNodes:
    - path: /dev/dxg
    mounts:
    - hostPath: /usr/lib/wsl/lib/libdxcore.so
      containerPath: /usr/lib/libdxcore.so
      options: [ro, nosuid, nodev, bind]
    - hostPath: /opt/rocm/lib/librocdxg.so
      containerPath: /usr/lib/librocdxg.so
      options: [ro, nosuid, nodev, bind]
    env:
    - HSA_ENABLE_DXG_DETECTION=1
)");
  DockerFlags f = docker_flags(spec, "all");
  CHECK(f.flags == std::vector<std::string>{"--device=/dev/dxg", "-v /usr/lib/wsl/lib/libdxcore.so:/usr/lib/libdxcore.so:ro",
                                           "-v /opt/rocm/lib/librocdxg.so:/usr/lib/librocdxg.so:ro",
                                           "-e HSA_ENABLE_DXG_DETECTION=1"});
  CHECK(f.hooks.empty());
}

TEST_CASE("docker flags: the spec's own edits come too, a writable mount has no :ro, hooks are listed apart") {
  CdiSpec spec = read_cdi_spec(R"(cdiVersion: "0.5.0"
kind: nvidia.com/gpu
containerEdits:
  mounts:
  - hostPath: /usr/lib/wsl/lib/libdxcore.so
    containerPath: /usr/lib/wsl/lib/libdxcore.so
  hooks:
  - hookName: createContainer
    path: /usr/bin/nvidia-cdi-hook
    args: [nvidia-cdi-hook, update-ldcache]
devices:
- name: all
  containerEdits:
    deviceNodes:
    - path: /dev/dxg
      hostPath: /dev/dxg0
)");
  DockerFlags f = docker_flags(spec, "all");
  CHECK(f.flags ==
        std::vector<std::string>{"-v /usr/lib/wsl/lib/libdxcore.so:/usr/lib/wsl/lib/libdxcore.so", "--device=/dev/dxg0:/dev/dxg"});
  CHECK(f.hooks == std::vector<std::string>{"/usr/bin/nvidia-cdi-hook"});
  CHECK_THROWS_AS(docker_flags(spec, "0"), std::invalid_argument);
}
