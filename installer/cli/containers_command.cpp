// `wslgpu-setup containers flags`: what `docker run` needs to give a
// container the GPU, read from the CDI specs `install containers` wrote, for
// the engines that take no CDI device: Docker Desktop's, and a docker-ce
// without CDI. Podman takes `--device KIND=all` itself. Reads only.
#include <iostream>

#include <nlohmann/json.hpp>

#include "installer/cli/commands.hpp"
#include "installer/formats/cdi_docker_flags.hpp"
#include "installer/formats/cdi_spec.hpp"
#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"

namespace wslgpu {

namespace {

// The folders CDI reads specs from (CDI's default spec dirs).
constexpr const char* kCdiDirs[] = {"/etc/cdi", "/var/run/cdi"};

struct FoundSpec {
  std::string path;
  CdiSpec spec;
  DockerFlags flags;
};

// AMD's examples pass these as well; none of them is needed to reach the GPU.
constexpr const char* kAmdExtras =
    "--cap-add=SYS_PTRACE --security-opt seccomp=unconfined --ipc=host --shm-size 8G";

bool is_spec_name(const std::string& name) {
  auto ends = [&](const std::string& s) { return name.size() > s.size() && name.ends_with(s); };
  return ends(".yaml") || ends(".json");
}

std::vector<FoundSpec> gpu_specs(const FileSystem& fs) {
  std::vector<FoundSpec> out;
  for (const char* dir : kCdiDirs) {
    for (const auto& name : fs.list(dir)) {
      if (!is_spec_name(name)) continue;
      std::string path = std::string(dir) + "/" + name;
      CdiSpec spec;
      try {
        spec = read_cdi_spec(fs.read(path));
      } catch (const CdiSpecError& e) {
        throw Error(ExitCode::failed, path + ":" + e.what() +
                                           "\n  Container engines refuse this spec too. Regenerate it: sudo "
                                           "wslgpu-setup install containers");
      }
      if (spec.kind != "amd.com/gpu" && spec.kind != "nvidia.com/gpu") continue;
      for (const auto& d : spec.devices)
        if (d.name == "all") out.push_back({path, spec, docker_flags(spec, "all")});
    }
  }
  return out;
}

}  // namespace

int run_containers_flags(const GlobalOptions& g, OutputFormat output) {
  check_root(g.root);
  RootedFileSystem fs(g.root);
  std::vector<FoundSpec> specs = gpu_specs(fs);
  if (specs.empty()) {
    std::cerr << "error: no CDI spec for the GPU in /etc/cdi or /var/run/cdi (amd.com/gpu or nvidia.com/gpu).\n"
                 "  Write one: sudo wslgpu-setup install containers\n";
    return static_cast<int>(ExitCode::failed);
  }
  if (output == OutputFormat::json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& s : specs) {
      nlohmann::json one = {{"spec", s.path}, {"device", s.spec.kind + "=all"}};
      if (s.spec.kind == "nvidia.com/gpu") one["docker_flags"] = {"--gpus all"};
      else one["docker_flags"] = s.flags.flags;
      one["podman_flags"] = {"--device " + s.spec.kind + "=all"};
      all.push_back(one);
    }
    std::cout << all.dump(2) << "\n";
    return 0;
  }
  for (const auto& s : specs) {
    std::cout << s.spec.kind << "=all (" << s.path << ")\n";
    if (s.spec.kind == "nvidia.com/gpu") {
      // The spec's hooks (nvidia-cdi-hook) have no docker flag: NVIDIA's
      // runtime does what they do.
      std::cout << "docker run flags (Docker Desktop, or docker-ce with NVIDIA's runtime):\n  --gpus all\n";
    } else {
      std::cout << "docker run flags:\n";
      for (std::size_t i = 0; i < s.flags.flags.size(); ++i)
        std::cout << "  " << s.flags.flags[i] << (i + 1 < s.flags.flags.size() ? " \\" : "") << "\n";
      if (!s.flags.hooks.empty()) {
        std::cout << "and hooks no docker flag stands for:";
        for (const auto& h : s.flags.hooks) std::cout << " " << h;
        std::cout << "\n";
      }
      if (s.spec.kind == "amd.com/gpu")
        std::cout << "AMD's examples also pass " << kAmdExtras << " (for debuggers and PyTorch's shared memory).\n";
    }
    std::cout << "podman: --device " << s.spec.kind << "=all\n";
  }
  return 0;
}

}  // namespace wslgpu
