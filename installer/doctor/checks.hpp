// Internal to doctor: what the check files (installer/doctor/checks_*.cpp,
// one group of findings each) share while diagnose() runs. A DoctorScan
// holds the machine, the findings so far and the facts one check learns and
// a later one needs (whether /dev/dxg is missing, the installed packages,
// the ROCm version, nvidia-smi's output).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "installer/doctor/doctor.hpp"
#include "installer/formats/dpkg_status.hpp"
#include "installer/formats/ini.hpp"
#include "installer/host/container_engines.hpp"

namespace wslgpu::doctor {

struct DoctorScan {
  explicit DoctorScan(const DoctorMachine& m) : machine(m), fs(m.fs), host(m.host) {}

  const DoctorMachine& machine;
  const FileSystem& fs;
  const HostFacts& host;
  std::vector<Finding> findings;

  // Learned along the way.
  bool dxg_missing = false;
  std::map<std::string, std::string> installed;  // dpkg: name -> version
  std::string dpkg_problem;                      // why the status file could not be read, "" when it could
  std::optional<IniDocument> wsl_conf;           // parsed /etc/wsl.conf, when present and valid
  bool nvidia = false;                           // NVIDIA checks apply
  bool amd = false;                              // AMD checks apply
  std::string rocm_version;                      // rocm-core's version, "" when unknown
  // The ROCm Core SDK's package (amdrocm10.0-gfx1100) when one is installed;
  // rocm_version is then that package's version (10.0.0-4).
  std::string rocm_core_package;
  std::optional<ProcessResult> nvidia_smi_full;  // `nvidia-smi` without arguments, when it ran
  std::string cuda_toolkit;                      // nvcc's release ("12.6"), "" when unknown
  std::vector<std::string> rocminfo_gfx;         // the gfx agents rocminfo listed: ROCm reaches the GPU

  void add(std::string id, std::string group, FindingStatus status, std::string seen, std::string cause = "",
           std::string fix = "");

  // The content of a regular file, nullopt when absent or unreadable.
  std::optional<std::string> read(const std::string& path) const;
  bool exists(const std::string& path) const { return fs.stat(path).has_value(); }
  bool is_dir(const std::string& path) const;
  // Entries of DIR whose names start with PREFIX.
  std::vector<std::string> list_prefixed(const std::string& dir, const std::string& prefix) const;

  // Runs ARGV (a target path first) with the machine's timeout and ENV.
  ProcessResult run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {}) const;
  // "12 s" for the timeout, for messages.
  std::string timeout_text() const;

  // " /dev/dxg is missing (see WSL above), which alone explains this." when
  // it is, else "". Appended to the cause of every failing GPU finding.
  std::string dxg_note() const;

  // The files a login shell reads, as target paths: /etc/environment,
  // /etc/profile, /etc/profile.d/*.sh, /etc/bash.bashrc and the user's
  // ~/.profile, ~/.bash_profile and ~/.bashrc, when present.
  std::vector<std::string> login_files() const;
  // The first login file with a line (not a comment) containing NEEDLE; "" when none.
  std::string login_file_with(const std::string& needle) const;

  bool installed_pkg(const std::string& name) const { return installed.count(name) > 0; }
  // The WSL runtime of the legacy releases (up to 7.2) is installed.
  bool legacy_wsl_runtime() const { return installed_pkg("hsa-runtime-rocr4wsl-amdgpu"); }
  // The login file that sets HSA_ENABLE_DXG_DETECTION=1, "" when none does.
  std::string dxg_detection_file() const;
};

// Where the rocm profile installs librocdxg, and where the runtime looks.
inline constexpr const char* kLibrocdxg = "/opt/rocm/lib/librocdxg.so";

// Reads the installed packages (or why they cannot be read) and decides
// which vendor checks apply and the ROCm version. Runs before the checks.
void learn_packages_and_vendors(DoctorScan& scan);
// Patterns of the packages that install a Linux NVIDIA driver.
const std::vector<std::string>& linux_nvidia_driver_patterns();

// The check groups, in the order diagnose() runs them.
void check_wsl(DoctorScan& scan);
void check_nvidia(DoctorScan& scan);
void check_amd(DoctorScan& scan);
// Part of AMD: what Windows says of the AMD GPU (installer/host/
// windows_gpus.hpp), before or beside ROCm: its gfx target and whether AMD
// lists it for WSL, an integrated AMD GPU beside it, and the Adrenalin
// floor of the ROCm release. Where AMD applies or the AMD driver is
// mounted; after check_amd (what rocminfo found).
void check_amd_windows(DoctorScan& scan);
// The release `install rocm` would put on this machine: the installed
// one's, else the rocm profile's default ("" when neither is known).
std::string rocm_release_in_view(const DoctorScan& scan);
void check_configuration(DoctorScan& scan);
// Part of Configuration: the signing keys the configured apt sources use.
void check_apt_keys(DoctorScan& scan);
void check_windows(DoctorScan& scan);
// The PyTorch group: the venv of `install pytorch` or `doctor --python`.
void check_pytorch(DoctorScan& scan);
// The TensorFlow, JAX and ONNX Runtime groups, where the NVIDIA checks
// apply: each framework's venv (of its `install`, its default, or
// `doctor --python`), probed by running the venv's Python; after
// check_nvidia (nvidia-smi's output).
void check_frameworks(DoctorScan& scan);
// The Containers group: Docker Desktop and in-distribution engines, Docker's
// nvidia runtime, the NVIDIA Container Toolkit; after check_wsl (/dev/dxg).
void check_containers(DoctorScan& scan);
// Part of Containers: the image of `doctor --image`, when given.
void check_container_image(DoctorScan& scan, const ContainerEngines& engines);

// A venv the PyTorch or framework checks read, and how it was chosen.
struct VenvChoice {
  std::string venv;                // target path, "" when none was found
  std::string python;              // VENV/bin/python, or --python as given
  std::string how;                 // "--python", "recorded by `install pytorch-rocm` (transaction ID)", "the default"
  std::string note;                // why the recorded one could not be used, "" when nothing to say
  bool recorded_or_given = false;  // a missing venv is then a problem, not "none"
};
// The venv of `doctor --python`; else the `venv` of the newest committed
// transaction of one of PROFILES, as its plan.json recorded it (rolled-back
// and interrupted runs do not count); else the first of DEFAULTS that is a
// folder; else none (venv ""). NOTE says why the history could not be read.
VenvChoice choose_venv(const DoctorScan& scan, const std::vector<std::string>& profiles,
                       const std::vector<std::string>& defaults);
// The venv's site-packages from its files, else as its Python names them
// (a Python outside a venv's layout); empty, with PROBLEM saying why, when
// neither tells.
std::vector<std::string> find_site_packages(DoctorScan& scan, const VenvChoice& c, std::string& problem);
// Runs PYTHON -I -c CODE: as the WSL user when doctor runs as root (never
// as root), with the machine's timeout. Without a user to run it as, the
// result has exit code -1 and says so in err.
ProcessResult run_python(const DoctorScan& scan, const std::string& python, const std::string& code);
// The active lines of TEXT joined with "; ", for one-line messages.
std::string lines_joined(const std::string& text);

// Helpers shared by the check files.
// Lines of TEXT that are not blank and not comments ('#').
std::vector<std::string> active_lines(const std::string& text);
// The first "A.B[.C...]" in TEXT after the first match of PREFIX ("" when none).
std::string version_after(const std::string& text, const std::string& prefix);
// "7.8 GB" (binary units, as WSL counts them).
std::string size_text(std::uint64_t bytes);
// Installed package names matching any of PATTERNS ("name" exact, "prefix*").
std::vector<std::string> installed_matching(const DoctorScan& scan, const std::vector<std::string>& patterns);
// The upstream release from rocm-core's version: "6.4.2" from "6.4.2.60402-120~24.04".
std::string rocm_release(const std::string& version);
// The variables the bundled rocm profile's [matrix.rocm_version] row gives
// RELEASE (rocm_wsl, rocm_dxg_env, rocdxg_version, ...), so that no pairing
// is written twice; empty when the profile cannot be read for this machine.
// RELEASE "" gives the profile's default release's (rocm_version names it).
std::map<std::string, std::string> rocm_matrix_row(const DoctorScan& scan, const std::string& release);
// The oldest Windows driver that runs CUDA MAJOR ("13") programs, from the
// bundled cuda profile's [matrix.cuda_version] rows; "" when it has no such release.
std::string min_cuda_driver_for_major(const std::string& major);
// "a, b and c"
std::string join_words(const std::vector<std::string>& words, const std::string& last = " and ");

}  // namespace wslgpu::doctor
