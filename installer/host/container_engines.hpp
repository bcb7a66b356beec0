// The container engines a WSL distribution has, read from files only: no
// daemon is asked and no program is run, so that doctor and plan can say
// what is there on a machine where docker hangs or is not started.
//
// Docker Desktop's WSL integration, when it is on for this distribution,
// makes /usr/bin/docker a symbolic link into the Desktop distribution's
// shared mount, /mnt/wsl/docker-desktop/cli-tools/usr/bin/docker (seen in
// github.com/docker/for-win issues 6441 and 14850). /mnt/wsl is shared by
// every distribution, so the mount alone says nothing about this one: the
// link does. An engine installed inside the distribution is a dpkg
// package: Docker's docker-ce, Ubuntu's docker.io, or podman (with
// podman-docker, a `docker` command that runs podman).
#pragma once
#include <map>
#include <optional>
#include <string>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

// Where Docker Desktop's integration points /usr/bin/docker.
inline constexpr const char* kDockerDesktopCliPrefix = "/mnt/wsl/docker-desktop/cli-tools/";

struct InstalledPackage {
  std::string name;     // "docker-ce"
  std::string version;  // dpkg's version: "5:28.3.2-1~ubuntu.24.04~noble"
};

struct ContainerEngines {
  // Docker Desktop's WSL integration is on for this distribution.
  bool docker_desktop = false;
  std::string docker_link;  // what /usr/bin/docker points to, "" when it is not a link
  // Docker Engine installed in the distribution: docker-ce, else docker.io.
  std::optional<InstalledPackage> docker_engine;
  std::optional<InstalledPackage> podman;         // the podman package
  std::optional<InstalledPackage> podman_docker;  // podman-docker

  // An engine, or a `docker` command of one, installed inside the
  // distribution besides Desktop's: what Docker's docs say to uninstall
  // before Desktop's integration is used.
  bool in_distribution_docker() const { return docker_engine || podman_docker; }
};

// What FS and INSTALLED (dpkg's installed packages, name -> version, as
// DpkgStatus::installed() gives them) say.
ContainerEngines container_engines_from(const FileSystem& fs, const std::map<std::string, std::string>& installed);

// The same, reading dpkg's status through FS. Throws what DpkgStatus::read
// throws for an unreadable or malformed status file.
ContainerEngines probe_container_engines(const FileSystem& fs);

}  // namespace wslgpu
