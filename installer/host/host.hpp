// installer/host/: what the target machine is (kernel, WSL, distribution,
// users and groups). Includes system/ and formats/.
//
// Facts about the target machine, read once and read-only under --root:
// the kernel release (ROOT/proc/sys/kernel/osrelease), /dev/dxg, the WSL
// driver mount (/usr/lib/wsl/lib), the distribution (/etc/os-release), the
// user being provisioned and the Windows profile folder. Manifests test them
// in `when` conditions as host.NAME; plan prints them in its header. The
// NVIDIA driver's facts need nvidia-smi to run, and the Windows GPUs'
// powershell.exe through interop, so each group is probed only when a
// manifest names one of its facts (installer/host/lazy_facts.hpp).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "installer/host/gpu_vendor.hpp"
#include "installer/host/nvidia_driver.hpp"
#include "installer/host/windows_gpus.hpp"
#include "installer/system/filesystem.hpp"

namespace wslgpu {

struct HostFacts {
  std::string root = "/";
  std::string kernel_release;     // "5.15.153.1-microsoft-standard-WSL2", empty when unknown
  std::string wsl;                // "2", "1" or "none"
  bool dxg = false;               // /dev/dxg exists as a character device
  std::uint32_t dxg_mode = 0;     // its permission bits
  bool wsl_lib = false;           // /usr/lib/wsl/lib exists
  std::string gpu_vendor;         // "nvidia", "amd", "intel" or "" (from the driver mount)
  std::string distro;             // os-release ID: "ubuntu", "debian"
  std::string distro_version;     // os-release VERSION_ID: "24.04"
  std::string codename;           // os-release VERSION_CODENAME: "noble"
                                  // (host.distro_folder, "ubuntu2404", is made of distro and distro_version)
  std::string arch;               // dpkg architecture: "amd64"
  std::string user;               // the Linux user to provision ("" when none found)
  std::string user_home;          // that user's home directory
  std::uint32_t user_uid = 0;
  std::uint32_t user_gid = 0;
  std::string user_source;        // how the user was chosen: "--user", "SUDO_USER", "wsl.conf", "passwd"
  std::string windows_home;       // target path of %USERPROFILE%, "" when not found
  // True when windows_home is only the guess of the /mnt/*/Users scan (the
  // wslconfig step asks interop first); false when --windows-home gave it.
  bool windows_home_guessed = false;
  GpuEvidence gpu_evidence;       // what the driver mount shows, for choosing a profile
  // Container engines (installer/host/container_engines.hpp), read from
  // files only: no daemon is asked.
  bool docker_desktop = false;    // Docker Desktop's WSL integration is on for this distribution
  std::string docker_ce;          // the installed docker-ce's version, "" when none
  bool systemd = false;           // systemd runs this distribution (/run/systemd/system)
  // host.nvidia_*: probed on first use; null where nothing may run (tests, doctor).
  std::shared_ptr<const LazyNvidiaDriver> nvidia_driver;
  // host.amd_* and host.windows_gpus: asked of Windows on first use; null
  // where nothing may run.
  std::shared_ptr<const LazyWindowsGpus> windows_gpus;

  // host.NAME values for `when` conditions: every field above by name, and
  // the lazily probed ones (lazy_host_fact_names()) once probed, "" before.
  std::map<std::string, std::string> as_variables() const;
  // These facts with those VARS names (as as_variables() names them) put in
  // their place: the machine a transaction's record describes. A lazily
  // probed fact VARS holds comes back as probed, with that value; the
  // fields VARS lacks, and those as_variables() does not name (uid, gid,
  // how the user was chosen), stay as they are. Kept beside as_variables()
  // so that a new fact is added to both (a unit test reads every one back).
  HostFacts with_variables(const std::map<std::string, std::string>& vars) const;
  // Runs the lazy probes (each at most once); a no-op without them.
  void probe_lazy_facts() const;
  // Runs the probes of the groups with a fact in NAMES (host.NAME), only.
  void probe_lazy_facts(const std::set<std::string>& names) const;
  // The lazily probed facts not probed yet, by name: what a record of this
  // machine must not hold as if a probe had answered "".
  std::vector<std::string> unprobed_lazy_fact_names() const;
};

struct HostOptions {
  std::string user;          // --user, "" for automatic
  std::string windows_home;  // --windows-home, "" for automatic
  std::string sudo_user;     // $SUDO_USER
};

// Reads every fact. Never runs a program and never fails: an unreadable fact
// is left empty, and whoever needs it says so.
HostFacts probe_host(const FileSystem& fs, const std::string& root, const HostOptions& options);

// The KEY=VALUE lines of an os-release file (os-release(5)): comments and
// lines without '=' skipped, one pair of matching quotes taken off a value.
std::map<std::string, std::string> parse_os_release(const std::string& text);

// Compares dotted versions by their numeric parts: "5.15.153.1-microsoft" vs
// "5.10.60.1". Returns <0, 0 or >0. Non-numeric parts compare as text.
int compare_versions(const std::string& a, const std::string& b);

}  // namespace wslgpu
