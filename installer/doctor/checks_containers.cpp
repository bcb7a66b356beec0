// Doctor, Containers group: Docker and Podman with the GPU in WSL2. Read
// from files and dpkg's status only (installer/host/container_engines.hpp):
// no daemon is asked, and nothing is pulled or run. The group appears when
// an engine, Docker Desktop's integration or the NVIDIA Container Toolkit is
// there, or when `doctor --image` names an image to inspect
// (checks_container_image.cpp).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/doctor/checks.hpp"
#include "installer/doctor/profile_defaults.hpp"
#include "installer/formats/cdi_spec.hpp"
#include "installer/formats/deb_version.hpp"
#include "installer/formats/json_text.hpp"
#include "installer/host/container_engines.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kContainersGroup = "Containers";
// The release whose notes say "Fix the nvidia-cdi-refresh systemd unit
// conditions to work on WSL2" (github.com/NVIDIA/nvidia-container-toolkit).
constexpr const char* kToolkitWslFixed = "1.19.1";
// NVIDIA's install guide installs these four at one version.
const std::vector<std::string> kToolkitPackages = {"nvidia-container-toolkit", "nvidia-container-toolkit-base",
                                                   "libnvidia-container-tools", "libnvidia-container1"};

// The toolkit's version: nvidia-container-toolkit's, else -base's (a
// CDI-only install); "" when neither is installed.
std::string toolkit_version(const DoctorScan& scan, std::string* package = nullptr) {
  for (const char* name : {"nvidia-container-toolkit", "nvidia-container-toolkit-base"}) {
    if (auto it = scan.installed.find(name); it != scan.installed.end()) {
      if (package) *package = name;
      return it->second;
    }
  }
  return "";
}

// dockerd's configuration file, as containers-cuda's json_file step edits it.
std::string docker_daemon_json(const DoctorScan& scan) {
  return bundled_default("containers-cuda", "docker_daemon_json", scan.host);
}

std::string apt_purge_command(const std::vector<std::string>& packages) {
  std::string cmd = "sudo apt purge";
  for (const auto& p : packages) cmd += " " + p;
  return cmd;
}

// "1.17.8" from "1.17.8-1": what apt's pins and NVIDIA's release notes name.
std::string upstream(const std::string& version) {
  std::string v = version.substr(version.find(':') == std::string::npos ? 0 : version.find(':') + 1);
  return v.substr(0, v.rfind('-'));
}

void check_desktop_and_engine(DoctorScan& scan, const ContainerEngines& e) {
  std::vector<std::string> inside;
  std::vector<std::string> purge;
  if (e.docker_engine) {
    inside.push_back(e.docker_engine->name + " " + e.docker_engine->version);
    purge.push_back(e.docker_engine->name);
    if (e.docker_engine->name == "docker-ce")
      for (const char* extra : {"docker-ce-cli", "containerd.io"})
        if (scan.installed_pkg(extra)) purge.push_back(extra);
  }
  if (e.podman_docker) {
    inside.push_back("podman-docker " + e.podman_docker->version);
    purge.push_back("podman-docker");
  }
  if (!e.docker_desktop && inside.empty()) return;
  if (!e.docker_desktop) {
    scan.add("containers.docker-desktop", kContainersGroup, FindingStatus::ok,
             "Docker inside the distribution (" + join_words(inside) + "), no Docker Desktop integration");
    return;
  }
  if (inside.empty()) {
    scan.add("containers.docker-desktop", kContainersGroup, FindingStatus::ok,
             "Docker Desktop's WSL integration (/usr/bin/docker -> " + e.docker_link +
                 "), no Docker installed inside the distribution");
    return;
  }
  scan.add("containers.docker-desktop", kContainersGroup, FindingStatus::warn,
           "Docker Desktop's WSL integration (/usr/bin/docker -> " + e.docker_link + ") and " + join_words(inside) +
               " installed inside the distribution",
           "Docker's documentation: \"Before installing Docker Desktop, uninstall any version of Docker Engine or the "
           "Docker CLI that was installed directly inside a WSL Linux distribution. Running both can cause "
           "conflicts.\" Which `docker` runs, which daemon it talks to and where the images are depend on PATH and "
           "on which of the two last wrote /usr/bin/docker.",
           "Keep one: either `" + apt_purge_command(purge) +
               "` (Docker Desktop then gives the distribution its docker), or turn the integration off for this "
               "distribution in Docker Desktop (Settings > Resources > WSL integration).");
}

// The daemon.json, read by the json_file step's own rule
// (read_json_object(), installer/formats/json_text.hpp), so that doctor and
// `install containers` never disagree on it; nullopt when it is absent or
// does not read (the latter reported as its own finding).
std::optional<nlohmann::json> read_daemon_json(DoctorScan& scan, const std::string& path, bool& malformed) {
  malformed = false;
  std::optional<std::string> text = scan.read(path);
  if (!text) return std::nullopt;
  const std::string fix = "Correct " + path +
                          " (or move it aside), then `sudo systemctl restart docker`; `sudo dockerd --validate` "
                          "checks the file without starting the daemon.";
  const std::string cause =
      "dockerd reads it at start and refuses to start when it cannot (\"unable to configure "
      "the Docker daemon with file " +
      path + "\"), so every docker command then fails to reach the daemon.";
  auto where = [](const InputError& e) {
    const Diagnostic& d = e.diagnostics().front();
    return "line " + std::to_string(d.pos.line) + ", column " + std::to_string(d.pos.column) + ": " + d.message;
  };
  try {
    nlohmann::json doc = read_json_object(*text, path);
    scan.add("containers.daemon-json", kContainersGroup, FindingStatus::ok, path + " is valid JSON");
    return doc;
  } catch (const StrictJsonError& e) {
    malformed = true;
    scan.add("containers.daemon-json", kContainersGroup, FindingStatus::warn, path + " is not strict JSON: " + where(e),
             "dockerd still starts (it drops a byte-order mark, and of a key given twice it keeps the last), but "
             "`wslgpu-setup install containers` does not edit such a file: which of two keys counts differs "
             "between readers.",
             "Correct " + path + " as the message says, then run `sudo wslgpu-setup install containers` again.");
  } catch (const InputError& e) {
    malformed = true;
    nlohmann::json parsed;
    try {
      parsed = parse_json_text(*text, path);  // JSON, then, but not an object
    } catch (const InputError&) {
      scan.add("containers.daemon-json", kContainersGroup, FindingStatus::fail,
               path + " is not valid JSON: " + where(e), cause, fix);
      return std::nullopt;
    }
    scan.add("containers.daemon-json", kContainersGroup, FindingStatus::fail,
             path + " is JSON but not an object ({...}): it holds " + std::string(parsed.type_name()), cause, fix);
  }
  return std::nullopt;
}

void check_docker_runtime(DoctorScan& scan, const ContainerEngines& e) {
  if (!e.docker_engine) return;
  bool malformed = false;
  const std::string daemon_json = docker_daemon_json(scan);
  std::optional<nlohmann::json> doc = read_daemon_json(scan, daemon_json, malformed);
  if (malformed || toolkit_version(scan).empty()) return;
  const nlohmann::json* nvidia = nullptr;
  if (doc && doc->contains("runtimes") && (*doc)["runtimes"].is_object() && (*doc)["runtimes"].contains("nvidia"))
    nvidia = &(*doc)["runtimes"]["nvidia"];
  if (nvidia) {
    std::string path = nvidia->is_object() && nvidia->contains("path") && (*nvidia)["path"].is_string()
                           ? (*nvidia)["path"].get<std::string>()
                           : "";
    scan.add("containers.docker-nvidia-runtime", kContainersGroup, FindingStatus::ok,
             "Docker knows the nvidia runtime (" + daemon_json + ": runtimes.nvidia" +
                 (path.empty() ? "" : " -> " + path) + ")");
    return;
  }
  scan.add("containers.docker-nvidia-runtime", kContainersGroup, FindingStatus::warn,
           e.docker_engine->name + " and the NVIDIA Container Toolkit are installed, but " +
               (doc ? daemon_json + " has no runtimes.nvidia" : daemon_json + " does not exist"),
           "Docker does not know NVIDIA's runtime: `docker run --runtime=nvidia ...` fails with \"unknown or invalid "
           "runtime name: nvidia\", and CDI devices (NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=all) are not injected. "
           "NVIDIA's install guide configures it after installing the toolkit.",
           "sudo wslgpu-setup install containers, or NVIDIA's `sudo nvidia-ctk runtime configure --runtime=docker` "
           "then `sudo systemctl restart docker`.");
}

void check_toolkit_versions(DoctorScan& scan) {
  std::string package;
  std::string version = toolkit_version(scan, &package);
  if (version.empty()) return;
  if (compare_deb_versions(version, kToolkitWslFixed) < 0) {
    scan.add("containers.toolkit-version", kContainersGroup, FindingStatus::warn,
             "the NVIDIA Container Toolkit is " + upstream(version) + " (" + package + " " + version +
                 "), older than " + kToolkitWslFixed,
             std::string("Its release notes for ") + kToolkitWslFixed +
                 ": \"Fix the nvidia-cdi-refresh systemd unit conditions to work on WSL2\". Before it the unit "
                 "that writes the CDI spec (/var/run/cdi/nvidia.yaml) does not run on WSL2, so `podman run "
                 "--device nvidia.com/gpu=all` and Docker's CDI mode find no nvidia.com/gpu device.",
             "sudo wslgpu-setup install containers, or upgrade the four toolkit packages together: `sudo apt install "
             "nvidia-container-toolkit nvidia-container-toolkit-base libnvidia-container-tools "
             "libnvidia-container1` from NVIDIA's repository.");
  } else {
    scan.add("containers.toolkit-version", kContainersGroup, FindingStatus::ok,
             "the NVIDIA Container Toolkit is " + upstream(version) + " (" + kToolkitWslFixed + " or later)");
  }

  std::vector<std::string> listed;
  std::set<std::string> versions;
  for (const auto& name : kToolkitPackages) {
    auto it = scan.installed.find(name);
    if (it == scan.installed.end()) continue;
    listed.push_back(name + " " + it->second);
    versions.insert(it->second);
  }
  if (versions.size() <= 1) {
    scan.add("containers.toolkit-packages", kContainersGroup, FindingStatus::ok,
             "the toolkit's packages are at one version (" + join_words(listed, ", ") + ")");
    return;
  }
  std::string newest = *versions.begin();
  for (const auto& v : versions)
    if (compare_deb_versions(v, newest) > 0) newest = v;
  std::string pin = "sudo apt install";
  for (const auto& name : kToolkitPackages) pin += " " + name + "=" + newest;
  scan.add("containers.toolkit-packages", kContainersGroup, FindingStatus::warn,
           "the toolkit's packages are at different versions: " + join_words(listed, ", "),
           "NVIDIA's install guide installs nvidia-container-toolkit, nvidia-container-toolkit-base, "
           "libnvidia-container-tools and libnvidia-container1 at one version; the runtime, its hook and "
           "nvidia-container-cli are released together, and mixed ones are untested together.",
           pin);
}

void check_adapters(DoctorScan& scan) {
  if (toolkit_version(scan).empty()) return;
  if (scan.host.wsl != "1" && scan.host.wsl != "2") return;  // not WSL: nvidia-container-cli's other paths
  std::vector<std::string> why;
  if (scan.host.wsl == "1") why.push_back("this distribution runs under WSL1, which cannot share the GPU");
  if (scan.dxg_missing) why.push_back("/dev/dxg is missing or not the GPU device (see WSL above)");
  if (!scan.exists("/usr/lib/wsl/lib/libcuda.so.1"))
    why.push_back("NVIDIA's Windows driver is not mounted (/usr/lib/wsl/lib has no libcuda.so.1)");
  if (why.empty()) {
    scan.add("containers.wsl-adapters", kContainersGroup, FindingStatus::ok,
             "the toolkit can find the GPU: WSL2, /dev/dxg and NVIDIA's driver in /usr/lib/wsl/lib");
    return;
  }
  scan.add("containers.wsl-adapters", kContainersGroup, FindingStatus::fail,
           "GPU containers will fail with \"WSL environment detected but no adapters were found\": " +
               join_words(why, "; and "),
           "nvidia-container-cli looks for the GPU through /dev/dxg and the Windows driver's libraries in "
           "/usr/lib/wsl/lib (NVIDIA/nvidia-container-toolkit issues 155 and 157).",
           scan.host.wsl == "1"
               ? "On Windows: `wsl --set-version <distribution> 2`, then run the container again."
               : "On Windows: install or update NVIDIA's driver, then `wsl --update` and `wsl --shutdown`. Nothing "
                 "inside Linux can create /dev/dxg or the driver mount.");
}

// Every CDI spec of CDI's folders (cdi_spec_dirs()): unreadable ones fail
// (engines refuse them too), and one naming a host file that is gone fails:
// after a Windows driver update NVIDIA's driver store folder has another
// name, and a spec written before names the old one ("no such file or
// directory" at run).
void check_cdi_specs(DoctorScan& scan) {
  for (const auto& file : scan_cdi_specs(scan.fs)) {
    const std::string& path = file.path;
    const std::string id = "containers.cdi-spec:" + path;
    if (!file.spec) {
      scan.add(id, kContainersGroup, FindingStatus::fail,
               path + " cannot be read as a CDI spec: " +
                   (file.error->line() ? std::string(file.error->what()) : file.error->message()),
               "Podman and Docker refuse every device of a spec they cannot read.",
               "Regenerate it: sudo wslgpu-setup install containers (or remove it).");
      continue;
    }
    const CdiSpec& spec = *file.spec;
    std::vector<std::string> gone;
    for (const auto& p : cdi_host_paths(spec))
      if (!scan.fs.lstat(p)) gone.push_back(p);
    if (gone.empty()) {
      scan.add(id, kContainersGroup, FindingStatus::ok, path + " (" + spec.kind + "): every file it names is there");
      continue;
    }
    bool driver_store = std::any_of(gone.begin(), gone.end(),
                                    [](const std::string& p) { return p.rfind("/usr/lib/wsl/drivers/", 0) == 0; });
    scan.add(id, kContainersGroup, FindingStatus::fail,
             path + " (" + spec.kind + ") names " + std::to_string(gone.size()) + " file" +
                 (gone.size() == 1 ? "" : "s") + " that no longer exist" + (gone.size() == 1 ? "s" : "") + ": " +
                 join_words(gone, ", "),
             driver_store ? "The Windows driver was updated: WSL mounts the new driver store under another "
                            "folder of /usr/lib/wsl/drivers, and the spec still names the old one."
                          : "The files were removed or moved after the spec was written.",
             "Regenerate the spec: sudo wslgpu-setup install containers (it regenerates a spec whose files "
             "changed); or NVIDIA's own: sudo nvidia-ctk cdi generate --mode=wsl --output=" +
                 path);
  }
}

}  // namespace

void check_containers(DoctorScan& scan) {
  ContainerEngines e = container_engines_from(scan.fs, scan.installed);
  bool toolkit = !toolkit_version(scan).empty();
  if (e.docker_desktop || e.docker_engine || e.podman || e.podman_docker || toolkit) {
    check_desktop_and_engine(scan, e);
    check_docker_runtime(scan, e);
    check_toolkit_versions(scan);
    check_adapters(scan);
  }
  check_cdi_specs(scan);
  check_container_image(scan, e);
}

}  // namespace wslgpu::doctor
