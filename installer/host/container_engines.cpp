#include "installer/host/container_engines.hpp"

#include "installer/formats/dpkg_status.hpp"

namespace wslgpu {

namespace {

std::optional<InstalledPackage> package(const std::map<std::string, std::string>& installed, const char* name) {
  auto it = installed.find(name);
  if (it == installed.end()) return std::nullopt;
  return InstalledPackage{it->first, it->second};
}

}  // namespace

ContainerEngines container_engines_from(const FileSystem& fs, const std::map<std::string, std::string>& installed) {
  ContainerEngines out;
  std::optional<std::string> link;
  try {
    link = fs.read_link("/usr/bin/docker");
  } catch (const std::exception&) {
    // An unreadable /usr/bin is not Desktop's integration.
  }
  if (link) {
    out.docker_link = *link;
    out.docker_desktop = link->rfind(kDockerDesktopCliPrefix, 0) == 0;
  }
  out.docker_engine = package(installed, "docker-ce");
  if (!out.docker_engine) out.docker_engine = package(installed, "docker.io");
  out.podman = package(installed, "podman");
  out.podman_docker = package(installed, "podman-docker");
  return out;
}

ContainerEngines probe_container_engines(const FileSystem& fs) {
  return container_engines_from(fs, DpkgStatus::read(fs).installed());
}

}  // namespace wslgpu
