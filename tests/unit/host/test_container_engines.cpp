// installer/host/container_engines.hpp: Docker Desktop's integration told
// by where /usr/bin/docker points, the in-distribution engines by dpkg.
#include <doctest/doctest.h>

#include <filesystem>

#include "installer/host/container_engines.hpp"
#include "installer/host/host.hpp"
#include "installer/plan/overlay_filesystem.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;
using wslgpu::testing::TempDir;

namespace {

constexpr const char* kDesktopDocker = "/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker";

std::string status_of(const std::map<std::string, std::string>& packages) {
  std::string out;
  for (const auto& [name, version] : packages)
    out += "Package: " + name + "\nStatus: install ok installed\nArchitecture: amd64\nVersion: " + version + "\n\n";
  return out;
}

}  // namespace

TEST_CASE("container engines: Desktop's integration is /usr/bin/docker linked into its cli-tools mount") {
  MemoryFileSystem fs;
  fs.add_file(kDesktopDocker, "elf", 0755);
  fs.add_symlink("/usr/bin/docker", kDesktopDocker);
  ContainerEngines e = container_engines_from(fs, {});
  CHECK(e.docker_desktop);
  CHECK(e.docker_link == kDesktopDocker);
  CHECK_FALSE(e.docker_engine);
  CHECK_FALSE(e.in_distribution_docker());
}

TEST_CASE("container engines: Desktop's mount without the link is another distribution's integration") {
  // /mnt/wsl is shared by every distribution.
  MemoryFileSystem fs;
  fs.add_file(kDesktopDocker, "elf", 0755);
  fs.add_file("/usr/bin/docker", "elf", 0755);
  ContainerEngines e = container_engines_from(fs, {{"docker-ce", "5:28.3.2-1~ubuntu.24.04~noble"}});
  CHECK_FALSE(e.docker_desktop);
  CHECK(e.docker_link.empty());
  REQUIRE(e.docker_engine);
  CHECK(e.docker_engine->name == "docker-ce");
  CHECK(e.docker_engine->version == "5:28.3.2-1~ubuntu.24.04~noble");
  CHECK(e.in_distribution_docker());

  SUBCASE("a link elsewhere is not Desktop's either") {
    MemoryFileSystem other;
    other.add_file("/usr/libexec/docker/docker", "elf", 0755);
    other.add_symlink("/usr/bin/docker", "/usr/libexec/docker/docker");
    ContainerEngines o = container_engines_from(other, {});
    CHECK_FALSE(o.docker_desktop);
    CHECK(o.docker_link == "/usr/libexec/docker/docker");
  }
}

TEST_CASE("container engines: docker.io, podman and podman-docker come from dpkg's status, with versions") {
  MemoryFileSystem fs;
  fs.add_file("/var/lib/dpkg/status", status_of({{"docker.io", "27.5.1-0ubuntu3~24.04.2"},
                                                 {"podman", "4.9.3+ds1-1ubuntu0.2"},
                                                 {"podman-docker", "4.9.3+ds1-1ubuntu0.2"}}));
  ContainerEngines e = probe_container_engines(fs);
  REQUIRE(e.docker_engine);
  CHECK(e.docker_engine->name == "docker.io");
  REQUIRE(e.podman);
  CHECK(e.podman->version == "4.9.3+ds1-1ubuntu0.2");
  REQUIRE(e.podman_docker);
  CHECK(e.in_distribution_docker());

  MemoryFileSystem only_podman;
  only_podman.add_file("/var/lib/dpkg/status", status_of({{"podman", "4.9.3+ds1-1ubuntu0.2"}}));
  ContainerEngines p = probe_container_engines(only_podman);
  CHECK(p.podman);
  CHECK_FALSE(p.in_distribution_docker());
}

TEST_CASE("container engines: a real root's link is read under the root, through an overlay too") {
  TempDir root;
  root.write("mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", "elf");
  std::filesystem::create_directories(root.path() + "/usr/bin");
  std::filesystem::create_symlink(kDesktopDocker, root.path() + "/usr/bin/docker");
  RootedFileSystem disk(root.path());
  CHECK(container_engines_from(disk, {}).docker_desktop);
  OverlayFileSystem overlay(disk);
  CHECK(container_engines_from(overlay, {}).docker_desktop);
  CHECK(disk.read_link("/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker") == std::nullopt);
}

TEST_CASE("host facts: host.docker_desktop, host.docker_ce and host.systemd, read from files only") {
  MemoryFileSystem fs;
  fs.add_file("/etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n");
  auto facts = [&] { return probe_host(fs, "/", HostOptions{}).as_variables(); };
  CHECK(facts().at("host.docker_desktop") == "false");
  CHECK(facts().at("host.docker_ce") == "");
  CHECK(facts().at("host.systemd") == "false");

  fs.add_file(kDesktopDocker, "elf", 0755);
  fs.add_symlink("/usr/bin/docker", kDesktopDocker);
  fs.add_dir("/run/systemd/system");
  CHECK(facts().at("host.docker_desktop") == "true");
  CHECK(facts().at("host.systemd") == "true");

  // docker-ce by dpkg's status, read only when dpkg lists its files;
  // Ubuntu's docker.io is not docker-ce.
  fs.add_file("/var/lib/dpkg/status", status_of({{"docker-ce", "5:28.5.1-1~ubuntu.24.04~noble"}}));
  CHECK(facts().at("host.docker_ce") == "");
  fs.add_file("/var/lib/dpkg/info/docker-ce.list", "/usr/bin/dockerd\n");
  CHECK(facts().at("host.docker_ce") == "5:28.5.1-1~ubuntu.24.04~noble");
  fs.add_file("/var/lib/dpkg/status", status_of({{"docker.io", "27.5.1-0ubuntu3"}}));
  CHECK(facts().at("host.docker_ce") == "");
}
