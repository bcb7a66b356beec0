// What a .deb holds, read with libarchive before anything is installed, so
// that `plan` can show a package's name, version, dependencies and files and
// a guard can refuse one that ships kernel modules. A .deb is an `ar`
// archive of three members: debian-binary ("2.0"), control.tar[.gz|.xz|.zst]
// (the control file and maintainer scripts) and data.tar[.gz|.xz|.zst|.bz2]
// (the files). The data member is streamed, never unpacked to disk.
#pragma once
#include <string>
#include <vector>

namespace wslgpu {

struct DebInfo {
  std::string name;          // Package:
  std::string version;       // Version:
  std::string architecture;  // Architecture:
  std::string depends;       // Depends: as written
  std::string pre_depends;   // Pre-Depends: as written
  std::vector<std::string> files;  // absolute paths of everything but directories ("/usr/bin/x")
  std::vector<std::string> directories;

  // Every package named in Depends and Pre-Depends (alternatives included),
  // without version constraints or architecture qualifiers.
  std::vector<std::string> dependency_names() const;
};

// Reads the .deb at HOST_PATH (a path on the machine running the tool).
// Throws StepFailure naming the file when it is not a readable .deb.
DebInfo read_deb(const std::string& host_path);

// Package names in a Depends-style field: "a (>= 1) | b, c:any [amd64]" -> a, b, c.
std::vector<std::string> parse_dependency_names(const std::string& field);

// Why DEB must not be installed under WSL (it ships a kernel module, a DKMS
// source tree or depends on a *-dkms package), or "" when it may be.
std::string kernel_module_problem(const DebInfo& deb);

// True for package names that build or ship kernel modules: dkms, *-dkms,
// linux-headers-*, linux-modules-extra-*.
bool is_kernel_module_package(const std::string& name);

}  // namespace wslgpu
