// Doctor, JAX group: what the JAX probe of checks_frameworks.cpp printed
// means (jax.cuda-backend), and CUDA libraries a login file puts on
// LD_LIBRARY_PATH before the plugin's own (jax.ld-library-path).
#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "installer/doctor/checks_frameworks.hpp"
#include "installer/host/nvidia_driver.hpp"
#include "installer/system/text.hpp"

namespace wslgpu::doctor::frameworks {
namespace {

// The CUDA major of the installed plugin ("12" for jax-cuda12-plugin or
// jax-cuda12-pjrt; an older jaxlib's "+cuda12" build), "" for none.
std::string jax_cuda_major(const Venv& v) {
  static const std::regex plugin(R"(^jax-cuda([0-9]+)-(plugin|pjrt)$)");
  static const std::regex local(R"(\+cuda([0-9]+))");
  std::smatch m;
  for (const auto& d : v.dists)
    if (std::regex_match(d.key, m, plugin)) return m[1].str();
  if (const InstalledDist* jaxlib = v.dist("jaxlib"); jaxlib && std::regex_search(jaxlib->version, m, local))
    return m[1].str();
  return "";
}

// JAX's driver floors (jax-ml/jax docs/installation.md: "the driver version
// must be >= 525 for CUDA 12 on Linux, and >= 580 for CUDA 13 on Linux"),
// the same as the cuda profile's [matrix.cuda_version], which is read first.
std::string jax_driver_floor(const std::string& major) {
  std::string floor = min_cuda_driver_for_major(major);
  if (!floor.empty()) return floor;
  if (major == "12") return "525";
  if (major == "13") return "580";
  return "";
}

void jax_cuda_backend(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p) {
  const std::string version = v.dist("jax") ? v.dist("jax")->version : v.dist("jaxlib")->version;
  const std::string devices = line_from(p.out, "[");
  for (const char* gpu : {"CudaDevice(", "cuda(id=", "gpu(id=", "GpuDevice("}) {
    if (p.out.find(gpu) != std::string::npos) {
      scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::ok, "JAX " + version + " runs on CUDA: " + devices);
      return;
    }
  }
  if (p.out.find("CpuDevice(") == std::string::npos) {
    probe_gave_nothing(scan, fw, v, p, "`import jax`");
    return;
  }
  const std::string seen = "JAX " + version + " runs on the CPU: jax.devices() is " + devices;
  const std::string major = jax_cuda_major(v);
  std::string failed = line_from(p.all, "CUDA backend failed to initialize: ");
  if (failed.empty()) failed = line_from(p.all, "Unable to initialize backend 'cuda': ");
  const std::string said = failed.empty() ? "" : " JAX says \"" + failed + "\".";
  const std::string reinstall = as_owner(v) + " --upgrade \"jax[cuda" + (major.empty() ? "12" : major) +
                                "]\" (as the venv's owner), or " + install_fix(fw) + ".";
  if (major.empty()) {
    scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail,
             seen + "; no CUDA plugin (jax-cuda12-plugin) is installed",
             "JAX says \"An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
             "Falling back to cpu.\": `pip install jax` alone installs the CPU build (jax-ml/jax "
             "docs/installation.md: `pip install --upgrade \"jax[cuda12]\"`)." +
                 scan.dxg_note(),
             reinstall);
    return;
  }
  // Under WSL the driver is the Windows one, which nvidia-smi reports.
  NvidiaDriverFacts driver;
  if (scan.nvidia_smi_full) driver = nvidia_driver_from(*scan.nvidia_smi_full, scan.machine.command_timeout);
  const std::string floor = jax_driver_floor(major);
  const bool too_old = (!floor.empty() && !driver.driver.empty() && compare_versions(driver.driver, floor) < 0) ||
                       (!driver.cuda.empty() && compare_versions(driver.cuda, major) < 0) ||
                       failed.find("insufficient") != std::string::npos;
  if (too_old) {
    scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail,
             seen + "; its CUDA " + major + " plugin needs NVIDIA's driver " + floor + " or later, and Windows has " +
                 (driver.driver.empty() ? std::string("an older one") : driver.driver) +
                 (driver.cuda.empty() ? "" : " (CUDA " + driver.cuda + ")"),
             "JAX (jax-ml/jax docs/installation.md): \"the driver version must be >= 525 for CUDA 12 on Linux, and "
             ">= 580 for CUDA 13 on Linux\"; under WSL the driver is NVIDIA's Windows driver." +
                 said + scan.dxg_note(),
             "On Windows, update NVIDIA's driver to " + floor + " or later, then run `wsl --shutdown`" +
                 (major == "12" ? std::string(".")
                                : "; or use the CUDA 12 plugin, which runs on 525 and later: " + install_fix(fw) +
                                      " (jax[cuda12])."));
    return;
  }
  static const std::regex older(R"(Found (\S+) version ([0-9]+), but JAX was built against version ([0-9]+))");
  static const std::regex unloadable(R"(Unable to load (\S+)\. Is it installed\?)");
  std::smatch m;
  if (std::regex_search(failed, m, older)) {
    scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail,
             seen + "; its " + m[1].str() + " is older than jaxlib's",
             "JAX's CUDA plugin found " + m[1].str() + " " + m[2].str() + ", older than the " + m[3].str() +
                 " it was built against, and fell back to the CPU." + said +
                 " The venv's nvidia-* wheels do not match jaxlib, or an older copy is found first (a folder in "
                 "/etc/ld.so.conf.d holding CUDA libraries).",
             reinstall);
    return;
  }
  if (std::regex_search(failed, m, unloadable)) {
    scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail, seen + "; it cannot load " + m[1].str(),
             "JAX's CUDA plugin could not load " + m[1].str() + ", which the nvidia-* wheels of jax[cuda" + major +
                 "] install, and fell back to the CPU." + said + scan.dxg_note(),
             reinstall);
    return;
  }
  scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail, seen,
           "JAX fell back to the CPU." + (said.empty() ? " " + last_words(p.all) : said) + scan.dxg_note(),
           "Run `TF_CPP_MIN_LOG_LEVEL=0 JAX_PLATFORMS=cuda " + v.choice.python +
               " -c \"import jax; print(jax.devices())\"`, which fails with the reason; " + reinstall);
}

// The folders a login file puts on LD_LIBRARY_PATH that hold CUDA
// libraries (not /usr/lib/wsl/lib, the Windows driver's), as "FOLDER (FILE)".
std::vector<std::string> cuda_folders_on_ld_library_path(const DoctorScan& scan) {
  static const std::regex setting(R"(\bLD_LIBRARY_PATH\s*=\s*(\S+))");
  std::vector<std::string> found;
  for (const auto& file : scan.login_files()) {
    for (const auto& line : active_lines(*scan.read(file))) {
      std::smatch m;
      if (!std::regex_search(line, m, setting)) continue;
      std::string value;
      for (char ch : m[1].str())
        if (ch != '"' && ch != '\'' && ch != ';') value += ch;
      std::size_t start = 0;
      while (start <= value.size()) {
        std::size_t end = value.find(':', start);
        if (end == std::string::npos) end = value.size();
        std::string part = value.substr(start, end - start);
        start = end + 1;
        std::string folder = part.substr(0, part.find('$'));  // "${LD_LIBRARY_PATH:+:..." and "$VAR" are not folders
        while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
        if (folder.empty() || folder.front() != '/' || folder == "/usr/lib/wsl/lib") continue;
        bool cuda = false;
        for (const auto& name : scan.list_prefixed(folder, "lib")) {
          for (const char* prefix : {"libcu", "libnccl", "libnvrtc", "libnvJitLink"})
            cuda = cuda || (name.rfind(prefix, 0) == 0 && name.rfind("libcuda.", 0) != 0);
        }
        const std::string entry = folder + " (" + file + ")";
        if (cuda && std::find(found.begin(), found.end(), entry) == found.end()) found.push_back(entry);
      }
    }
  }
  return found;
}

void jax_ld_library_path(DoctorScan& scan) {
  const std::vector<std::string> folders = cuda_folders_on_ld_library_path(scan);
  if (folders.empty()) {
    scan.add("jax.ld-library-path", kJaxGroup, FindingStatus::ok,
             "no login file puts CUDA libraries other than the driver's /usr/lib/wsl/lib on LD_LIBRARY_PATH");
    return;
  }
  scan.add("jax.ld-library-path", kJaxGroup, FindingStatus::warn,
           "a login file puts CUDA libraries on LD_LIBRARY_PATH: " + join_words(folders, ", "),
           "JAX (jax-ml/jax docs/installation.md): \"Make sure that LD_LIBRARY_PATH is not set, since "
           "LD_LIBRARY_PATH can override the NVIDIA CUDA libraries\": in a login shell JAX loads these instead of "
           "the venv's nvidia wheels, and falls back to the CPU when they are older (\"CUDA backend failed to "
           "initialize: Found ... version\"). doctor's probe runs without LD_LIBRARY_PATH, so it cannot see this.",
           "Take these folders off LD_LIBRARY_PATH in the file named (keep /usr/lib/wsl/lib, the Windows driver's "
           "folder), then open a new shell.");
}

}  // namespace

void classify_jax(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p) {
  jax_cuda_backend(scan, fw, v, p);
  jax_ld_library_path(scan);
}

}  // namespace wslgpu::doctor::frameworks
