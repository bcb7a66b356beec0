// For which distributions and releases a vendor publishes what a profile
// installs, as the profile's data ([guards.supported]); elsewhere plan and
// install refuse before any change, naming what was found, what is
// supported and what to do.
//
//   [guards.supported]
//   publisher = "AMD publishes ROCm ${rocm_version} for WSL"
//   advice = "From Windows, install a supported distribution: wsl --install -d Ubuntu-24.04"
//   systems = [
//     { distro = "ubuntu", versions = ["22.04", "24.04"], when = "rocm_version >= '6.2.3'" },
//     { distro = "ubuntu", versions = ["22.04"], when = "rocm_version < '6.2.3'" },
//   ]
//
// An entry without `when` always applies; the entries whose `when` holds
// for the manifest's variables say what is supported.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "installer/host/host.hpp"
#include "installer/manifest/condition.hpp"
#include "installer/manifest/substitute.hpp"

namespace wslgpu {

struct SupportedSystem {
  std::string distro;                     // os-release ID: "ubuntu"
  std::vector<std::string> versions;      // os-release VERSION_ID: "24.04"
  std::shared_ptr<const Condition> when;  // null: always
};

struct SupportedSystems {
  std::string publisher;  // "AMD publishes ROCm 6.4.2.1 for WSL" (substituted)
  std::string advice;     // what to do instead
  std::vector<SupportedSystem> systems;
};

// The refusal for HOST, or "" when HOST is one of SUPPORTED's systems for
// VARS (the manifest's variables; host.* are added here).
std::string unsupported_system(const HostFacts& host, const SupportedSystems& supported, const Variables& vars);

// Where a host.* fact comes from, for messages about an empty one:
// "host.codename" -> "VERSION_CODENAME in /etc/os-release".
std::string host_fact_origin(const std::string& name);

}  // namespace wslgpu
