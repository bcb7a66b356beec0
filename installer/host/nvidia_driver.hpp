// The NVIDIA Windows driver as WSL shows it: its version and the newest
// CUDA release it supports, from /usr/lib/wsl/lib/nvidia-smi (the Windows
// driver's own copy, mounted into every distribution). Unlike the other host
// facts these need a program run, so they are probed lazily: only for a
// manifest that names host.nvidia_driver, host.nvidia_cuda or
// host.nvidia_smi, once per command, with a timeout (nvidia-smi hangs when
// the driver cannot reach the GPU). A missing nvidia-smi, a failing one, one
// that prints "CUDA Version: ERR!" or none at all leaves the versions empty
// and says why in host.nvidia_smi, so that a manifest can fall back
// deterministically and tell the user what it saw.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "installer/host/lazy_facts.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/system/process.hpp"

namespace wslgpu {

inline constexpr const char* kWslNvidiaSmi = "/usr/lib/wsl/lib/nvidia-smi";

struct NvidiaDriverFacts {
  std::string driver;  // "591.86" (the KMD version on series 615), "" when unknown
  std::string cuda;    // "13.1", "" when unknown (ERR!, no nvidia-smi, no answer)
  // One phrase for messages: "driver 591.86, CUDA 13.1",
  // "driver 546.80, CUDA Version: ERR!", "/usr/lib/wsl/lib/nvidia-smi is missing",
  // "nvidia-smi did not answer within 10 s", "nvidia-smi failed: Failed to initialize NVML: ...".
  std::string said;
};

// What RESULT (a run of nvidia-smi with no arguments, or -q) says.
// TIMEOUT is only for the message when it timed out.
NvidiaDriverFacts nvidia_driver_from(const ProcessResult& result, std::chrono::milliseconds timeout);

// Runs ROOT/usr/lib/wsl/lib/nvidia-smi inside the root, once, with TIMEOUT.
NvidiaDriverFacts probe_nvidia_driver(const FileSystem& fs, ProcessRunner& runner, std::chrono::milliseconds timeout);

// The facts, probed on first use and then remembered (installer/host/lazy_facts.hpp).
using LazyNvidiaDriver = LazyFacts<NvidiaDriverFacts>;

// host.nvidia_driver, host.nvidia_cuda, host.nvidia_smi: the names of the
// facts nvidia-smi gives.
const std::vector<std::string>& nvidia_fact_names();

}  // namespace wslgpu
