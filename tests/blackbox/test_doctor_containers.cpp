// `doctor`'s Containers group through the command line, on a fake WSL root
// read by the real file system: Docker Desktop's integration is a real
// symbolic link under the root, docker-ce is in dpkg's status, and
// --image, with no docker or podman in the root, runs nothing and says so.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace wslgpu::blackbox;

// A namespace of its own: the test program is a unity build.
namespace doctor_containers_blackbox {


TEST_CASE(
    "doctor reads Docker Desktop's link and docker-ce under the root, and --image without an engine runs "
    "nothing") {
  FakeWslRoot root;
  root.write("/var/lib/dpkg/status",
             "Package: docker.io\nStatus: install ok installed\nArchitecture: amd64\n"
             "Version: 27.5.1-0ubuntu3~24.04.2\n\n");
  root.write("/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", "elf", 0755);
  std::filesystem::create_directories(root.path() + "/usr/bin");
  std::filesystem::create_symlink("/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", root.path() + "/usr/bin/docker");
  const auto before = snapshot(root.path());

  RunResult r = run_tool({"--root", root.path(), "doctor", "--output", "json"});
  nlohmann::json f = doctor_finding(r, "containers.docker-desktop");
  CHECK(f["group"] == "Containers");
  CHECK(f["status"] == "warn");
  CHECK(f["seen"] ==
        "Docker Desktop's WSL integration (/usr/bin/docker -> /mnt/wsl/docker-desktop/cli-tools/usr/bin/docker) and "
        "docker.io 27.5.1-0ubuntu3~24.04.2 installed inside the distribution");
  CHECK(r.out.find("containers.image-driver-libraries") == std::string::npos);
  CHECK(snapshot_difference(before, snapshot(root.path())).empty());

  // Desktop's docker is a link into a mount the root does not have running:
  // without an engine of the distribution, --image has nothing to ask.
  std::filesystem::remove(root.path() + "/usr/bin/docker");
  root.write("/var/lib/dpkg/status", "");
  const auto without = snapshot(root.path());
  RunResult image = run_tool({"--root", root.path(), "doctor", "--image", "example/app:1", "--output", "json"});
  nlohmann::json i = doctor_finding(image, "containers.image-driver-libraries");
  CHECK(i["status"] == "warn");
  CHECK(i["seen"] == "cannot inspect image example/app:1: neither docker nor podman is installed");
  CHECK(snapshot_difference(without, snapshot(root.path())).empty());
}

}  // namespace doctor_containers_blackbox
