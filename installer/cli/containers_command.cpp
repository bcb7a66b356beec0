// `wslgpu-setup containers flags`: what `docker run` needs to give a
// container the GPU, read from the CDI specs `install containers` wrote, for
// the engines that take no CDI device: Docker Desktop's, and a docker-ce
// without CDI. Podman takes `--device KIND=all` itself. Reads only.
//
// A spec that does not read is skipped with a warning naming it (an
// unrelated vendor's broken spec must not hide the GPU's). With Docker
// Desktop's WSL integration on and NVIDIA's driver mounted, no spec is
// needed: Desktop's engine brings NVIDIA's runtime, whose flag is
// `--gpus all` (containers-cuda writes no spec for it). AMD's flags always
// come from the spec, which containers-rocm writes for every engine.
#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "installer/cli/commands.hpp"
#include "installer/formats/cdi_docker_flags.hpp"
#include "installer/formats/cdi_spec.hpp"
#include "installer/host/container_engines.hpp"
#include "installer/host/gpu_vendor.hpp"
#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"

namespace wslgpu {

namespace {

struct FoundSpec {
  std::string path;  // "" for Docker Desktop's NVIDIA runtime, which needs no spec
  std::string kind;
  DockerFlags flags;
};

// AMD's examples pass these as well; none of them is needed to reach the GPU.
constexpr const char* kAmdExtras =
    "--cap-add=SYS_PTRACE --security-opt seccomp=unconfined --ipc=host --shm-size 8G";
// What NVIDIA's runtime takes instead of the spec's edits (its hooks have no
// docker flag: the runtime does what they do).
constexpr const char* kNvidiaRuntimeFlag = "--gpus all";

bool is_gpu_kind(const std::string& kind) { return kind == "amd.com/gpu" || kind == "nvidia.com/gpu"; }

std::string cdi_dirs_text() {
  std::string out;
  for (const auto& d : cdi_spec_dirs()) out += (out.empty() ? "" : " or ") + d;
  return out;
}

// The GPU devices named "all" of the specs that read; a spec that does not
// read is named on standard error and skipped.
std::vector<FoundSpec> gpu_specs(const FileSystem& fs) {
  std::vector<FoundSpec> out;
  for (const auto& f : scan_cdi_specs(fs)) {
    if (!f.spec) {
      std::cerr << "warning: " << f.problem()
                << "\n  Skipped: it does not read as a CDI spec (Podman and Docker refuse it too).\n";
      continue;
    }
    if (!is_gpu_kind(f.spec->kind)) continue;
    for (const auto& d : f.spec->devices)
      if (d.name == "all") out.push_back({f.path, f.spec->kind, docker_flags(*f.spec, "all")});
  }
  bool nvidia = std::any_of(out.begin(), out.end(), [](const FoundSpec& s) { return s.kind == "nvidia.com/gpu"; });
  if (!nvidia && container_engines_from(fs, {}).docker_desktop && !detect_gpu_vendors(fs).nvidia.empty())
    out.push_back({"", "nvidia.com/gpu", DockerFlags{{kNvidiaRuntimeFlag}, {}}});
  return out;
}

}  // namespace

int run_containers_flags(const GlobalOptions& g, OutputFormat output) {
  check_root(g.root);
  RootedFileSystem fs(g.root);
  std::vector<FoundSpec> specs = gpu_specs(fs);
  if (specs.empty()) {
    std::cerr << "error: no CDI spec for the GPU in " << cdi_dirs_text()
              << " (amd.com/gpu or nvidia.com/gpu).\n"
                 "  Write one: sudo wslgpu-setup install containers\n";
    return static_cast<int>(ExitCode::failed);
  }
  if (output == OutputFormat::json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& s : specs) {
      nlohmann::json one = {{"spec", s.path.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.path)},
                            {"device", s.kind + "=all"}};
      if (s.kind == "nvidia.com/gpu")
        one["docker_flags"] = {kNvidiaRuntimeFlag};
      else one["docker_flags"] = s.flags.flags;
      if (!s.path.empty()) one["podman_flags"] = {"--device " + s.kind + "=all"};
      all.push_back(one);
    }
    std::cout << all.dump(2) << "\n";
    return 0;
  }
  for (const auto& s : specs) {
    if (s.path.empty()) {
      std::cout << s.kind << "=all (Docker Desktop's engine, which brings NVIDIA's runtime: no CDI spec needed)\n"
                << "docker run flags (Docker Desktop):\n  " << kNvidiaRuntimeFlag << "\n";
      continue;
    }
    std::cout << s.kind << "=all (" << s.path << ")\n";
    if (s.kind == "nvidia.com/gpu") {
      std::cout << "docker run flags (Docker Desktop, or docker-ce with NVIDIA's runtime):\n  " << kNvidiaRuntimeFlag
                << "\n";
    } else {
      std::cout << "docker run flags:\n";
      for (std::size_t i = 0; i < s.flags.flags.size(); ++i)
        std::cout << "  " << s.flags.flags[i] << (i + 1 < s.flags.flags.size() ? " \\" : "") << "\n";
      if (!s.flags.hooks.empty()) {
        std::cout << "and hooks no docker flag stands for:";
        for (const auto& h : s.flags.hooks) std::cout << " " << h;
        std::cout << "\n";
      }
      if (s.kind == "amd.com/gpu")
        std::cout << "AMD's examples also pass " << kAmdExtras << " (for debuggers and PyTorch's shared memory).\n";
    }
    std::cout << "podman: --device " << s.kind << "=all\n";
  }
  return 0;
}

}  // namespace wslgpu
