// Host facts that cost a program run (nvidia-smi, powershell.exe through
// interop) are probed lazily: only for a manifest that names one of them,
// once per command, and then remembered. Each group of such facts (the
// NVIDIA driver's, installer/host/nvidia_driver.hpp; the Windows GPUs',
// installer/host/windows_gpus.hpp) is probed on its own, so that a profile
// naming host.nvidia_driver never starts PowerShell.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace wslgpu {

// FACTS, probed on first use and then remembered. Copies of HostFacts
// share one, so a plan and its manifest see the same answer.
template <typename Facts>
class LazyFacts {
 public:
  explicit LazyFacts(std::function<Facts()> probe) : probe_(std::move(probe)) {}
  const Facts& get() const {
    if (!facts_) facts_ = probe_();
    return *facts_;
  }
  // The facts when get() has run, else nullptr: never probes.
  const Facts* if_probed() const { return facts_ ? &*facts_ : nullptr; }

 private:
  std::function<Facts()> probe_;
  mutable std::optional<Facts> facts_;
};

// The host.NAME of every lazily probed fact, all groups together.
const std::vector<std::string>& lazy_host_fact_names();

}  // namespace wslgpu
