// doctor's Containers group on fake WSL machines: Docker Desktop's
// integration (a /usr/bin/docker link into its cli-tools mount), docker-ce
// and podman from dpkg's status, /etc/docker/daemon.json, the NVIDIA
// Container Toolkit's packages, and `doctor --image` reading a saved image
// that the fake docker writes, built here with libarchive. Each finding is
// proved where it fires and where it stays quiet.
#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>

#include <map>

#include "findings.hpp"
#include "installer/doctor/doctor.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using wslgpu::testing::contains;
using wslgpu::testing::exited;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::get;
using wslgpu::testing::lookup;
using wslgpu::testing::MemoryFileSystem;

// A namespace of its own (the unit tests are a unity build).
namespace containers_doctor_test {

constexpr const char* kDesktopDocker = "/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker";
constexpr const char* kDockerCe = "5:28.3.2-1~ubuntu.24.04~noble";

// A tar (gzip-compressed when GZIP) holding FILES (path -> content).
std::string tar_of(const std::vector<std::pair<std::string, std::string>>& files, bool gzip = false) {
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (gzip) archive_write_add_filter_gzip(a);
  std::string out(1 << 20, '\0');
  size_t used = 0;
  REQUIRE(archive_write_open_memory(a, out.data(), out.size(), &used) == ARCHIVE_OK);
  for (const auto& [path, content] : files) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, path.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    REQUIRE(archive_write_header(a, e) == ARCHIVE_OK);
    archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  out.resize(used);
  return out;
}

// A WSL2 Ubuntu 24.04 machine with NVIDIA's Windows driver mounted.
struct Machine {
  MemoryFileSystem fs;
  std::map<std::vector<std::string>, ProcessResult> outputs;
  std::map<std::string, std::string> packages;
  FakeProcessRunner runner;
  HostFacts host;
  std::string image;

  Machine() {
    fs.add_file("/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
    fs.add_char_device("/dev/dxg", 0666);
    fs.add_file("/usr/lib/wsl/lib/libdxcore.so", "elf");
    fs.add_file("/usr/lib/wsl/lib/libcuda.so.1", "elf");
    fs.add_file("/usr/lib/wsl/lib/nvidia-smi", "elf", 0755);
    fs.add_file("/etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n");
  }

  void desktop() {
    fs.add_file(kDesktopDocker, "elf", 0755);
    fs.add_symlink("/usr/bin/docker", kDesktopDocker);
  }
  void docker_ce() {
    packages["docker-ce"] = kDockerCe;
    packages["docker-ce-cli"] = kDockerCe;
    packages["containerd.io"] = "1.7.27-1";
  }
  void toolkit(const std::string& version = "1.19.1-1") {
    for (const char* p : {"nvidia-container-toolkit", "nvidia-container-toolkit-base", "libnvidia-container-tools",
                          "libnvidia-container1"})
      packages[p] = version;
  }

  std::vector<Finding> diagnose() {
    DoctorMachine m = wslgpu::testing::doctor_machine(fs, runner, host, outputs, packages);
    m.image = image;
    return wslgpu::diagnose(m);
  }
};

bool any_in_group(const std::vector<Finding>& findings, const std::string& group) {
  for (const auto& f : findings)
    if (f.group == group) return true;
  return false;
}

TEST_CASE("containers: a machine without engines or the toolkit has no Containers group") {
  Machine m;
  CHECK_FALSE(any_in_group(m.diagnose(), "Containers"));
}

TEST_CASE("containers: Docker Desktop's integration beside docker-ce inside the distribution is a warning") {
  Machine m;
  m.desktop();
  m.docker_ce();
  auto findings = m.diagnose();
  Finding f = get(findings, "containers.docker-desktop");
  CHECK(f.status == FindingStatus::warn);
  CHECK(f.group == "Containers");
  CHECK(f.seen == std::string("Docker Desktop's WSL integration (/usr/bin/docker -> ") + kDesktopDocker +
                      ") and docker-ce " + kDockerCe + " installed inside the distribution");
  CHECK(contains(f.cause, "Running both can cause conflicts."));
  CHECK(contains(f.fix, "`sudo apt purge docker-ce docker-ce-cli containerd.io`"));
  CHECK(contains(f.fix, "Settings > Resources > WSL integration"));

  SUBCASE("podman-docker counts too") {
    Machine p;
    p.desktop();
    p.packages["podman-docker"] = "4.9.3+ds1-1ubuntu0.2";
    Finding pd = get(p.diagnose(), "containers.docker-desktop");
    CHECK(pd.status == FindingStatus::warn);
    CHECK(contains(pd.seen, "podman-docker 4.9.3+ds1-1ubuntu0.2 installed inside"));
    CHECK(contains(pd.fix, "`sudo apt purge podman-docker`"));
  }
}

TEST_CASE("containers: Docker Desktop alone, or docker-ce alone, is fine") {
  Machine desktop;
  desktop.desktop();
  Finding d = get(desktop.diagnose(), "containers.docker-desktop");
  CHECK(d.status == FindingStatus::ok);
  CHECK(contains(d.seen, "no Docker installed inside the distribution"));

  Machine engine;
  engine.docker_ce();
  // Desktop's mount is shared by every distribution: another one's integration.
  engine.fs.add_file(kDesktopDocker, "elf", 0755);
  engine.fs.add_file("/usr/bin/docker", "elf", 0755);
  Finding e = get(engine.diagnose(), "containers.docker-desktop");
  CHECK(e.status == FindingStatus::ok);
  CHECK(e.seen ==
        std::string("Docker inside the distribution (docker-ce ") + kDockerCe + "), no Docker Desktop integration");
}

TEST_CASE("containers: docker-ce with the toolkit and no runtimes.nvidia in daemon.json is a warning") {
  Machine m;
  m.docker_ce();
  m.toolkit();
  SUBCASE("no daemon.json at all") {
    Finding f = get(m.diagnose(), "containers.docker-nvidia-runtime");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen ==
          "docker-ce and the NVIDIA Container Toolkit are installed, but /etc/docker/daemon.json does not "
          "exist");
    CHECK(contains(f.fix, "sudo wslgpu-setup install containers"));
    CHECK(contains(f.fix, "`sudo nvidia-ctk runtime configure --runtime=docker` then `sudo systemctl restart docker`"));
  }
  SUBCASE("a daemon.json with other settings") {
    m.fs.add_file("/etc/docker/daemon.json", "{\"log-driver\": \"json-file\", \"runtimes\": {\"crun\": {}}}\n");
    auto findings = m.diagnose();
    Finding f = get(findings, "containers.docker-nvidia-runtime");
    CHECK(f.status == FindingStatus::warn);
    CHECK(contains(f.seen, "/etc/docker/daemon.json has no runtimes.nvidia"));
    CHECK(get(findings, "containers.daemon-json").status == FindingStatus::ok);
  }
  SUBCASE("configured as nvidia-ctk writes it") {
    m.fs.add_file("/etc/docker/daemon.json",
                  "{\n    \"runtimes\": {\n        \"nvidia\": {\n            \"args\": [],\n            \"path\": "
                  "\"nvidia-container-runtime\"\n        }\n    }\n}\n");
    Finding f = get(m.diagnose(), "containers.docker-nvidia-runtime");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen ==
          "Docker knows the nvidia runtime (/etc/docker/daemon.json: runtimes.nvidia -> "
          "nvidia-container-runtime)");
  }
  SUBCASE("without the toolkit there is nothing to configure") {
    for (const char* p : {"nvidia-container-toolkit", "nvidia-container-toolkit-base", "libnvidia-container-tools",
                          "libnvidia-container1"})
      m.packages.erase(p);
    CHECK(lookup(m.diagnose(), "containers.docker-nvidia-runtime") == nullptr);
  }
}

TEST_CASE("containers: a malformed daemon.json fails with the line and column of the error") {
  Machine m;
  m.docker_ce();
  m.toolkit();
  m.fs.add_file("/etc/docker/daemon.json", "{\n  \"runtimes\": {\n    \"nvidia\" {}\n  }\n}\n");
  auto findings = m.diagnose();
  Finding f = get(findings, "containers.daemon-json");
  CHECK(f.status == FindingStatus::fail);
  // The '{' where ':' belongs is line 3, column 14, in the json_file step's own words.
  CHECK(f.seen ==
        "/etc/docker/daemon.json is not valid JSON: line 3, column 14: expected ':' after the key "
        "\"nvidia\", found '{'");
  CHECK(contains(f.cause, "refuses to start"));
  // The runtime cannot be judged from a file docker cannot read.
  CHECK(lookup(findings, "containers.docker-nvidia-runtime") == nullptr);

  SUBCASE("JSON that is not an object") {
    m.fs.add_file("/etc/docker/daemon.json", "[1, 2]\n");
    Finding g = get(m.diagnose(), "containers.daemon-json");
    CHECK(g.status == FindingStatus::fail);
    CHECK(g.seen == "/etc/docker/daemon.json is JSON but not an object ({...}): it holds array");
  }
}

// The json_file step and doctor read daemon.json by one rule (read_json_object):
// what dockerd still reads but the step will not edit is a warning here,
// never "valid JSON" while `install containers` refuses it.
TEST_CASE("containers: a daemon.json with a byte-order mark or a key twice is a warning, as install refuses it") {
  Machine m;
  m.docker_ce();
  m.toolkit();
  m.fs.add_file("/etc/docker/daemon.json", "\xEF\xBB\xBF{\"log-driver\": \"json-file\"}\n");
  Finding bom = get(m.diagnose(), "containers.daemon-json");
  CHECK(bom.status == FindingStatus::warn);
  CHECK(bom.seen ==
        "/etc/docker/daemon.json is not strict JSON: line 1, column 1: the file starts with a UTF-8 byte-order mark, "
        "which JSON does not allow (RFC 8259, section 8.1) and Go's encoding/json refuses: save it without one");
  CHECK(contains(bom.cause, "dockerd still starts"));
  CHECK(contains(bom.cause, "does not edit such a file"));

  m.fs.add_file("/etc/docker/daemon.json", "{\n  \"debug\": true,\n  \"debug\": false\n}\n");
  auto findings = m.diagnose();
  Finding twice = get(findings, "containers.daemon-json");
  CHECK(twice.status == FindingStatus::warn);
  CHECK(twice.seen ==
        "/etc/docker/daemon.json is not strict JSON: line 3, column 3: key \"debug\" appears twice in "
        "this object (first at line 2, column 3); JSON readers disagree on which one counts: remove one "
        "of them");
  CHECK(lookup(findings, "containers.docker-nvidia-runtime") == nullptr);
}

TEST_CASE("containers: an empty daemon.json is valid, as dockerd and the json_file step take it") {
  Machine m;
  m.docker_ce();
  m.toolkit();
  m.fs.add_file("/etc/docker/daemon.json", "\n");
  auto findings = m.diagnose();
  CHECK(get(findings, "containers.daemon-json").status == FindingStatus::ok);
  CHECK(get(findings, "containers.docker-nvidia-runtime").status == FindingStatus::warn);
}

TEST_CASE("containers: a toolkit older than 1.19.1 is a warning, 1.19.1 is fine") {
  Machine old;
  old.toolkit("1.17.8-1");
  Finding f = get(old.diagnose(), "containers.toolkit-version");
  CHECK(f.status == FindingStatus::warn);
  CHECK(f.seen == "the NVIDIA Container Toolkit is 1.17.8 (nvidia-container-toolkit 1.17.8-1), older than 1.19.1");
  CHECK(contains(f.cause, "Fix the nvidia-cdi-refresh systemd unit conditions to work on WSL2"));

  Machine base_only;
  base_only.packages["nvidia-container-toolkit-base"] = "1.18.0-1";
  Finding b = get(base_only.diagnose(), "containers.toolkit-version");
  CHECK(b.status == FindingStatus::warn);
  CHECK(contains(b.seen, "(nvidia-container-toolkit-base 1.18.0-1)"));

  Machine current;
  current.toolkit("1.19.1-1");
  Finding c = get(current.diagnose(), "containers.toolkit-version");
  CHECK(c.status == FindingStatus::ok);
  CHECK(c.seen == "the NVIDIA Container Toolkit is 1.19.1 (1.19.1 or later)");
}

TEST_CASE("containers: the toolkit's four packages at different versions are a warning") {
  Machine m;
  m.toolkit("1.19.1-1");
  m.packages["libnvidia-container1"] = "1.17.8-1";
  Finding f = get(m.diagnose(), "containers.toolkit-packages");
  CHECK(f.status == FindingStatus::warn);
  CHECK(contains(f.seen, "libnvidia-container1 1.17.8-1"));
  CHECK(contains(f.seen, "nvidia-container-toolkit 1.19.1-1"));
  CHECK(f.fix ==
        "sudo apt install nvidia-container-toolkit=1.19.1-1 nvidia-container-toolkit-base=1.19.1-1 "
        "libnvidia-container-tools=1.19.1-1 libnvidia-container1=1.19.1-1");

  Machine same;
  same.toolkit("1.19.1-1");
  CHECK(get(same.diagnose(), "containers.toolkit-packages").status == FindingStatus::ok);
}

TEST_CASE("containers: no adapters for the toolkit, naming which of WSL1, /dev/dxg and the driver mount") {
  SUBCASE("all present: fine") {
    Machine m;
    m.toolkit();
    CHECK(get(m.diagnose(), "containers.wsl-adapters").status == FindingStatus::ok);
  }
  SUBCASE("no /dev/dxg") {
    Machine m;
    m.toolkit();
    m.fs.remove("/dev/dxg");
    Finding f = get(m.diagnose(), "containers.wsl-adapters");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen ==
          "GPU containers will fail with \"WSL environment detected but no adapters were found\": "
          "/dev/dxg is missing or not the GPU device (see WSL above)");
  }
  SUBCASE("no NVIDIA driver mounted") {
    Machine m;
    m.toolkit();
    m.fs.remove("/usr/lib/wsl/lib/libcuda.so.1");
    Finding f = get(m.diagnose(), "containers.wsl-adapters");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, "NVIDIA's Windows driver is not mounted (/usr/lib/wsl/lib has no libcuda.so.1)"));
    CHECK_FALSE(contains(f.seen, "WSL1"));
  }
  SUBCASE("WSL1") {
    Machine m;
    m.toolkit();
    m.fs.add_file("/proc/sys/kernel/osrelease", "4.4.0-22621-Microsoft\n");
    m.fs.remove("/dev/dxg");
    Finding f = get(m.diagnose(), "containers.wsl-adapters");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, "this distribution runs under WSL1, which cannot share the GPU"));
    CHECK(contains(f.fix, "wsl --set-version"));
  }
  SUBCASE("no toolkit: nothing to say") {
    Machine m;
    m.docker_ce();
    m.fs.remove("/dev/dxg");
    CHECK(lookup(m.diagnose(), "containers.wsl-adapters") == nullptr);
  }
}

TEST_CASE("containers: --image names the layer of an image that ships libnvidia-ml.so.1 or libcuda.so.1") {
  Machine m;
  m.docker_ce();
  m.image = "example/app:1";
  // docker image save's layout: manifest.json and one tar per layer (the
  // OCI layout of Docker 25 and later: blobs/sha256/..., gzip allowed).
  std::string base = tar_of({{"usr/bin/app", "elf"}, {"etc/hostname", "x\n"}});
  std::string bad = tar_of({{"./usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "elf"}}, true);
  std::string saved = tar_of({{"manifest.json", "[{\"Layers\": []}]"},
                              {"blobs/sha256/1111", base},
                              {"blobs/sha256/2222", bad},
                              {"blobs/sha256/3333", "{\"config\": true}"}});
  m.outputs[{"/usr/bin/docker", "image", "save", "example/app:1"}] = exited(0, "", saved);
  Finding f = get(m.diagnose(), "containers.image-driver-libraries");
  CHECK(f.status == FindingStatus::fail);
  CHECK(f.seen ==
        "image example/app:1 ships driver libraries of its own: usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 "
        "in layer blobs/sha256/2222");
  CHECK(contains(f.cause, "file exists"));
  // Read, never run: the only docker call was the save.
  REQUIRE(m.runner.calls.size() >= 1);
  for (const auto& c : m.runner.calls)
    if (c.argv.at(0) == "/usr/bin/docker")
      CHECK(c.argv == std::vector<std::string>{"/usr/bin/docker", "image", "save", "example/app:1"});

  SUBCASE("an image without them is fine, and says how many layers were read") {
    m.outputs[{"/usr/bin/docker", "image", "save", "example/app:1"}] =
        exited(0, "", tar_of({{"manifest.json", "[]"}, {"abc/layer.tar", base}}));
    Finding ok = get(m.diagnose(), "containers.image-driver-libraries");
    CHECK(ok.status == FindingStatus::ok);
    CHECK(ok.seen == "image example/app:1 has no libnvidia-ml.so.1 or libcuda.so.1 of its own (1 layer read)");
  }
  SUBCASE("podman's save, with libcuda.so.1 in the RHEL layout") {
    Machine p;
    p.packages["podman"] = "4.9.3+ds1-1ubuntu0.2";
    p.image = "rhel-app";
    p.outputs[{"/usr/bin/podman", "image", "save", "rhel-app"}] =
        exited(0, "", tar_of({{"abc/layer.tar", tar_of({{"usr/lib64/libcuda.so.1", "elf"}})}}));
    Finding pf = get(p.diagnose(), "containers.image-driver-libraries");
    CHECK(pf.status == FindingStatus::fail);
    CHECK(contains(pf.seen, "usr/lib64/libcuda.so.1 in layer abc/layer.tar"));
  }
  SUBCASE("an image that is not local is reported, not pulled") {
    m.outputs[{"/usr/bin/docker", "image", "save", "example/app:1"}] =
        exited(1, "Error response from daemon: reference does not exist\n");
    Finding w = get(m.diagnose(), "containers.image-driver-libraries");
    CHECK(w.status == FindingStatus::warn);
    CHECK(w.seen ==
          "cannot inspect image example/app:1: `docker image save example/app:1` failed: Error response "
          "from daemon: reference does not exist");
  }
}

TEST_CASE("containers: without --image no image is read") {
  Machine m;
  m.docker_ce();
  auto findings = m.diagnose();
  CHECK(lookup(findings, "containers.image-driver-libraries") == nullptr);
  for (const auto& c : m.runner.calls) CHECK(c.argv.at(0) != "/usr/bin/docker");
}

TEST_CASE("containers: a CDI spec naming a driver store folder that is gone fails, naming the files and the fix") {
  Machine m;
  const std::string old_store = "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_1111111111111111";
  const std::string spec = "cdiVersion: 0.3.0\nkind: nvidia.com/gpu\ndevices:\n- name: all\n  containerEdits:\n"
                           "    deviceNodes:\n    - path: /dev/dxg\ncontainerEdits:\n  mounts:\n"
                           "  - hostPath: /usr/lib/wsl/lib/libdxcore.so\n    containerPath: /usr/lib/wsl/lib/libdxcore.so\n"
                           "  - hostPath: " + old_store + "/libcuda.so.1.1\n    containerPath: " + old_store +
                           "/libcuda.so.1.1\n";
  m.fs.add_file("/etc/cdi/nvidia.yaml", spec);
  m.fs.add_file(old_store + "/libcuda.so.1.1", "elf");
  CHECK(get(m.diagnose(), "containers.cdi-spec:/etc/cdi/nvidia.yaml").status == FindingStatus::ok);

  // A Windows driver update: the store has another folder now.
  m.fs.remove(old_store + "/libcuda.so.1.1");
  m.fs.add_file("/usr/lib/wsl/drivers/nv_dispi.inf_amd64_2222222222222222/libcuda.so.1.1", "elf");
  Finding f = get(m.diagnose(), "containers.cdi-spec:/etc/cdi/nvidia.yaml");
  CHECK(f.status == FindingStatus::fail);
  CHECK(f.seen == "/etc/cdi/nvidia.yaml (nvidia.com/gpu) names 1 file that no longer exists: " + old_store +
                      "/libcuda.so.1.1");
  CHECK(contains(f.cause, "The Windows driver was updated"));
  CHECK(contains(f.fix, "sudo wslgpu-setup install containers"));
  CHECK(contains(f.fix, "nvidia-ctk cdi generate --mode=wsl --output=/etc/cdi/nvidia.yaml"));
}

TEST_CASE("containers: a CDI spec that does not parse fails; other files in /etc/cdi are not specs") {
  Machine m;
  m.fs.add_file("/var/run/cdi/amd-wsl.yaml", "kind: [\n");
  m.fs.add_file("/etc/cdi/README", "not a spec");
  auto findings = m.diagnose();
  Finding f = get(findings, "containers.cdi-spec:/var/run/cdi/amd-wsl.yaml");
  CHECK(f.status == FindingStatus::fail);
  CHECK(contains(f.seen, "cannot be read as a CDI spec"));
  CHECK_FALSE(lookup(findings, "containers.cdi-spec:/etc/cdi/README"));
}

}  // namespace containers_doctor_test
