// installer/guards/: the refusals no manifest can lift. Includes steps/ and
// below.
//
// Guards: what must never happen inside WSL, refused whatever a manifest
// says. A manifest may add packages to refuse ([guards] refuse_packages); it
// can never remove a built-in refusal.
//
//   no-kernel-modules  *-dkms, dkms, linux-headers-*, linux-modules-extra-*:
//                      WSL2 runs Microsoft's kernel, which has no headers to
//                      build modules against.
//   no-linux-nvidia-driver  cuda, cuda-<version>, cuda-drivers*, nvidia-driver-*,
//                      nvidia-dkms-*, nvidia-kernel-*, nvidia-utils-*,
//                      libnvidia-compute-*: a Linux driver shadows the WSL
//                      libcuda.so stubs ("GPU access blocked by the operating system").
//   environment        WSL2 (unless --not-wsl), kernel minimum, [gpu] enabled
//                      in /etc/wsl.conf, root for commands that change things,
//                      and the distributions the vendor publishes for
//                      ([guards.supported], unless --unsupported-distro).
//   no-writes-through-links  a file the tool manages is never read or
//                      written through a symbolic link (root would write
//                      wherever the link's maker chose): enforced where every
//                      file write is planned, probe_file in
//                      steps/file_change.cpp, and again by
//                      RootedFileSystem::write_atomic when writing.
//
// Package guards read the resolved transaction each step puts in
// StepPlan::changes, so a package pulled in as a dependency is refused too.
#pragma once
#include <string>
#include <vector>

#include "installer/formats/glob.hpp"
#include "installer/host/host.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/plan/plan.hpp"

namespace wslgpu {

struct GuardOptions {
  bool not_wsl = false;        // --not-wsl: image builders and tests
  bool needs_root = false;     // the command changes the machine
  bool is_root = true;         // geteuid() == 0
  bool unsupported_distro = false;  // --unsupported-distro: [guards.supported] does not refuse
};

// The built-in rule a package name breaks, with its reason and advice, or
// an empty rule when none does. EXTRA are the manifest's own patterns.
struct PackageRefusal {
  std::string rule;     // "no-kernel-modules"
  std::string package;  // the name that matched
  std::string why;      // a sentence
  std::string instead;  // what to do instead
};
std::optional<PackageRefusal> refused_package(const std::string& name, const std::vector<std::string>& extra);

// Marks STEP refused when its changes install a refused package or run a
// refused command; the summary names the rule, and details say why and what
// to do instead.
void guard_step(PlannedStep& step, const Guards& guards);

// Refusals about the machine itself (not WSL2, old kernel, GPU disabled,
// not root). Each is a full message.
// MANIFEST_VARS feed the manifest's own refuse_if conditions.
std::vector<std::string> guard_environment(const HostFacts& host, const Guards& guards, const Variables& manifest_vars,
                                           const FileSystem& fs, const GuardOptions& options);

// The manifest's warn_if reasons whose conditions hold: nothing is refused,
// and the plan says each one before anything is done.
std::vector<std::string> guard_warnings(const HostFacts& host, const Guards& guards, const Variables& manifest_vars);

}  // namespace wslgpu
