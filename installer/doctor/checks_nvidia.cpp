// Doctor, NVIDIA group (only when the driver stubs are mounted or an NVIDIA
// package is installed): the Windows driver's stubs in /usr/lib/wsl/lib, no
// Linux NVIDIA driver inside WSL, the stubs reachable by the dynamic linker,
// no libcuda copies shadowing them (the harmless ldconfig warning), what
// `nvidia-smi -L` and `nvcc --version` say, and whether the toolkit is newer
// than the CUDA the Windows driver supports (the minimum drivers come from
// the bundled cuda profile's [matrix.cuda_version] table, the one matrix).
#include <regex>
#include <string>

#include <toml++/toml.h>

#include "installer/doctor/checks.hpp"
#include "installer/host/nvidia_driver.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/system/text.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kNvidiaGroup = "NVIDIA";
constexpr const char* kStubDir = "/usr/lib/wsl/lib";

std::string purge_command(const std::vector<std::string>& packages) {
  std::string cmd = "sudo apt purge";
  for (const auto& p : packages) cmd += " " + p;
  return cmd;
}

void check_stubs(DoctorScan& scan) {
  std::vector<std::string> missing;
  for (const char* f : {"libcuda.so.1", "nvidia-smi"})
    if (!scan.exists(std::string(kStubDir) + "/" + f)) missing.push_back(f);
  if (missing.empty()) {
    scan.add("nvidia.stubs", kNvidiaGroup, FindingStatus::ok,
             "libcuda.so.1 and nvidia-smi are in /usr/lib/wsl/lib (the Windows driver's stubs)");
    return;
  }
  scan.add("nvidia.stubs", kNvidiaGroup, FindingStatus::fail, "/usr/lib/wsl/lib has no " + join_words(missing),
           "The NVIDIA Windows driver provides them through the WSL driver mount; a driver older than 465.89, or "
           "none, does not." +
               scan.dxg_note(),
           "On Windows: install NVIDIA's current driver (465.89 or later), then run `wsl --shutdown`. Never install a "
           "Linux NVIDIA driver inside WSL.");
}

void check_linux_driver(DoctorScan& scan) {
  auto found = installed_matching(scan, linux_nvidia_driver_patterns());
  if (!found.empty()) {
    scan.add("nvidia.linux-driver", kNvidiaGroup, FindingStatus::fail,
             "a Linux NVIDIA driver is installed inside WSL: " + join_words(found, ", "),
             "A Linux NVIDIA driver shadows the WSL driver stubs in /usr/lib/wsl/lib (\"Failed to initialize NVML: "
             "GPU access blocked by the operating system\"). Inside WSL the Windows driver is the driver.",
             purge_command(found) +
                 " (this also removes `cuda` or `cuda-12-x` metapackages that need the driver; the toolkit alone is "
                 "cuda-toolkit-12-x: sudo wslgpu-setup install cuda)");
  } else if (!scan.dpkg_problem.empty()) {
    scan.add("nvidia.linux-driver", kNvidiaGroup, FindingStatus::warn,
             "cannot tell whether a Linux NVIDIA driver is installed: the dpkg status is unreadable", scan.dpkg_problem,
             "See the dpkg finding under Configuration.");
  } else {
    scan.add("nvidia.linux-driver", kNvidiaGroup, FindingStatus::ok, "no Linux NVIDIA driver package is installed");
  }
}

void check_linker_path(DoctorScan& scan) {
  std::vector<std::string> conf_files = {"/etc/ld.so.conf"};
  for (const auto& name : scan.list_prefixed("/etc/ld.so.conf.d", ""))
    if (name.size() > 5 && name.substr(name.size() - 5) == ".conf") conf_files.push_back("/etc/ld.so.conf.d/" + name);
  for (const auto& file : conf_files) {
    auto text = scan.read(file);
    if (!text) continue;
    for (const auto& line : active_lines(*text)) {
      if (text::trim(line) == kStubDir || text::trim(line) == std::string(kStubDir) + "/") {
        scan.add("nvidia.linker-path", kNvidiaGroup, FindingStatus::ok,
                 "/usr/lib/wsl/lib is on the dynamic linker's path (" + file + ")");
        return;
      }
    }
  }
  for (const auto& file : scan.login_files()) {
    for (const auto& line : active_lines(*scan.read(file))) {
      if (line.find("LD_LIBRARY_PATH") != std::string::npos && line.find(kStubDir) != std::string::npos) {
        scan.add("nvidia.linker-path", kNvidiaGroup, FindingStatus::ok,
                 "/usr/lib/wsl/lib is on LD_LIBRARY_PATH for login shells (" + file + ")");
        return;
      }
    }
  }
  scan.add("nvidia.linker-path", kNvidiaGroup, FindingStatus::fail,
           "/usr/lib/wsl/lib is not on the dynamic linker's path",
           "Programs fail with \"libcuda.so: cannot open shared object file\": the driver stub is there, but the "
           "linker does not look in that folder. WSL normally lists it in /etc/ld.so.conf.d/ld.wsl.conf.",
           "echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf && sudo ldconfig (or `sudo wslgpu-setup "
           "install cuda`, which puts it on LD_LIBRARY_PATH for login shells).");
}

void check_libcuda_copies(DoctorScan& scan) {
  const std::string harmless =
      "ldconfig's warning \"/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\" is harmless: the Windows driver "
      "mounts plain files in a read-only folder, where ldconfig cannot make its links.";
  std::vector<std::string> copies;
  for (const char* dir :
       {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib"}) {
    for (const auto& name : scan.list_prefixed(dir, "libcuda.so")) copies.push_back(std::string(dir) + "/" + name);
  }
  if (copies.empty()) {
    scan.add("nvidia.ldconfig", kNvidiaGroup, FindingStatus::ok,
             "no libcuda copies outside /usr/lib/wsl/lib; ldconfig's \"libcuda.so.1 is not a symbolic link\" "
             "warning is harmless",
             harmless);
    return;
  }
  scan.add("nvidia.ldconfig", kNvidiaGroup, FindingStatus::warn,
           "libcuda outside /usr/lib/wsl/lib: " + join_words(copies, ", "),
           harmless +
               " Copying or linking libcuda elsewhere to silence it shadows the stub, and breaks as soon as "
               "the Windows driver is updated.",
           "Find the owner (`dpkg -S " + copies.front() +
               "`): purge the package that owns them, or remove the copies made by hand, then run `sudo ldconfig`. "
               "The warning itself needs no fix.");
}

void check_nvidia_smi(DoctorScan& scan) {
  const std::string smi = std::string(kStubDir) + "/nvidia-smi";
  if (!scan.exists(smi)) return;  // nvidia.stubs says so
  ProcessResult r = scan.run({smi, "-L"});
  std::string output = r.out + r.err;
  static const std::regex gpu_line(R"(GPU [0-9]+:)");
  if (r.timed_out) {
    scan.add("nvidia.smi", kNvidiaGroup, FindingStatus::fail,
             "nvidia-smi -L did not answer within " + scan.timeout_text(),
             "nvidia-smi hangs when the Windows driver cannot reach the GPU." + scan.dxg_note(),
             "On Windows: run `wsl --shutdown`, update the NVIDIA driver, and try again.");
    return;
  }
  if (output.find("GPU access blocked by the operating system") != std::string::npos) {
    auto found = installed_matching(scan, linux_nvidia_driver_patterns());
    scan.add("nvidia.smi", kNvidiaGroup, FindingStatus::fail,
             "nvidia-smi: Failed to initialize NVML: GPU access blocked by the operating system",
             "A Linux NVIDIA driver inside WSL (nvidia-driver-*, nvidia-utils-*, libnvidia-compute-*) replaces the "
             "WSL stubs.",
             found.empty() ? "No Linux driver package is installed: look for a driver installed from NVIDIA's .run "
                             "file (`ls /usr/lib/x86_64-linux-gnu/libnvidia-ml.so*`), remove it, then run `wsl "
                             "--shutdown` on Windows."
                           : purge_command(found) + ", then run `wsl --shutdown` on Windows.");
    return;
  }
  if (r.ok() && std::regex_search(r.out, gpu_line)) {
    std::size_t gpus = 0;
    std::string first;
    for (std::string_view v : text::split_lines(r.out, text::LineEnd::newline_dropped)) {
      std::string line(v);
      if (std::regex_search(line, gpu_line)) {
        if (gpus++ == 0) first = text::trim(line.substr(0, line.find(" (UUID")));
      }
    }
    scan.add("nvidia.smi", kNvidiaGroup, FindingStatus::ok,
             "nvidia-smi -L: " + first + (gpus > 1 ? " (and " + std::to_string(gpus - 1) + " more)" : ""));
    scan.nvidia_smi_full = scan.run({smi});
    return;
  }
  std::string what = r.ok() ? "nvidia-smi -L lists no GPU"
                            : "nvidia-smi -L failed (exit " + std::to_string(r.exit_code) + ")" +
                                  (text::first_line(output).empty() ? "" : ": " + text::first_line(output));
  scan.add("nvidia.smi", kNvidiaGroup, FindingStatus::fail, what,
           "The NVIDIA Windows driver is not reachable from WSL: it is older than 465.89, not installed, or the GPU "
           "is disabled in Windows." +
               scan.dxg_note(),
           "On Windows: update the NVIDIA driver, then run `wsl --shutdown`.");
}

void check_nvcc(DoctorScan& scan) {
  std::string nvcc;
  if (scan.exists("/usr/local/cuda/bin/nvcc")) {
    nvcc = "/usr/local/cuda/bin/nvcc";
  } else {
    for (const auto& d : scan.list_prefixed("/usr/local", "cuda-"))
      if (scan.exists("/usr/local/" + d + "/bin/nvcc")) nvcc = "/usr/local/" + d + "/bin/nvcc";
    if (nvcc.empty() && scan.exists("/usr/bin/nvcc")) nvcc = "/usr/bin/nvcc";
  }
  if (nvcc.empty()) {
    scan.add("nvidia.nvcc", kNvidiaGroup, FindingStatus::warn, "nvcc not found: the CUDA toolkit is not installed",
             "Running CUDA programs needs only the Windows driver (PyTorch, TensorFlow, JAX and ONNX Runtime bring "
             "their CUDA runtime as wheels); building CUDA code needs the toolkit.",
             "sudo wslgpu-setup install cuda (NVIDIA's toolkit from its wsl-ubuntu repository); where this machine's apt "
             "refuses NVIDIA's key (sqv, Ubuntu 26.04), NVIDIA's pip package in a venv: pip install \"cuda-toolkit[nvcc]\".");
    return;
  }
  ProcessResult r = scan.run({nvcc, "--version"});
  if (r.timed_out) {
    scan.add("nvidia.nvcc", kNvidiaGroup, FindingStatus::fail,
             nvcc + " --version did not answer within " + scan.timeout_text(),
             "nvcc does not need the GPU; a hang means the installation or the disk is in trouble.",
             "Reinstall the toolkit: sudo wslgpu-setup install cuda.");
    return;
  }
  static const std::regex release(R"(release ([0-9]+\.[0-9]+))");
  std::smatch m;
  if (!r.ok() || !std::regex_search(r.out, m, release)) {
    scan.add("nvidia.nvcc", kNvidiaGroup, FindingStatus::fail,
             nvcc + " --version failed (exit " + std::to_string(r.exit_code) + ")" +
                 (text::first_line(r.out + r.err).empty() ? "" : ": " + text::first_line(r.out + r.err)),
             "The CUDA toolkit is damaged or incomplete.", "Reinstall the toolkit: sudo wslgpu-setup install cuda.");
    return;
  }
  if (nvcc == "/usr/bin/nvcc" && scan.installed_pkg("nvidia-cuda-toolkit")) {
    scan.add("nvidia.nvcc", kNvidiaGroup, FindingStatus::warn,
             "nvcc " + m[1].str() + " is the distribution's nvidia-cuda-toolkit",
             "NVIDIA's WSL guide installs cuda-toolkit-12-x from its wsl-ubuntu repository; the distribution's "
             "toolkit is older and not built for WSL.",
             "sudo apt remove nvidia-cuda-toolkit, then sudo wslgpu-setup install cuda.");
    return;
  }
  scan.cuda_toolkit = m[1].str();
  scan.add("nvidia.nvcc", kNvidiaGroup, FindingStatus::ok, "nvcc " + m[1].str() + " (" + nvcc + ")");
}

void check_toolkit_against_driver(DoctorScan& scan) {
  if (scan.cuda_toolkit.empty() || !scan.nvidia_smi_full) return;  // nvidia.nvcc or nvidia.smi explain why
  NvidiaDriverFacts driver = nvidia_driver_from(*scan.nvidia_smi_full, scan.machine.command_timeout);
  if (driver.cuda.empty()) return;  // windows.nvidia-driver says why the CUDA version is unknown
  const std::string& toolkit = scan.cuda_toolkit;
  const std::string major = toolkit.substr(0, toolkit.find('.'));
  if (compare_versions(toolkit, driver.cuda) <= 0) {
    scan.add(
        "nvidia.cuda-driver", kNvidiaGroup, FindingStatus::ok,
        "the CUDA " + toolkit + " toolkit is not newer than the CUDA " + driver.cuda + " the Windows driver supports");
    return;
  }
  const std::string minimum = min_cuda_driver_for_major(major);
  const std::string fix_toolkit =
      "or install the toolkit this driver supports: sudo wslgpu-setup install cuda (cuda_version=auto chooses it).";
  bool runs = !minimum.empty() && !driver.driver.empty() && compare_versions(driver.driver, minimum) >= 0;
  if (runs) {
    scan.add("nvidia.cuda-driver", kNvidiaGroup, FindingStatus::warn,
             "the CUDA " + toolkit + " toolkit is newer than the CUDA " + driver.cuda + " NVIDIA's Windows driver " +
                 driver.driver + " supports",
             "It runs under minor-version compatibility (driver " + minimum + " or later for CUDA " + major +
                 ".x), with limits: PTX it compiles cannot be JIT-compiled by this driver (\"the provided PTX was "
                 "compiled with an unsupported toolchain\"), and newer runtime calls fail.",
             "On Windows, update NVIDIA's driver, then run `wsl --shutdown`; " + fix_toolkit);
    return;
  }
  scan.add("nvidia.cuda-driver", kNvidiaGroup, FindingStatus::fail,
           "the CUDA " + toolkit + " toolkit needs a newer Windows driver than " +
               (driver.driver.empty() ? std::string("this one") : driver.driver) + " (it supports CUDA " + driver.cuda +
               ")",
           "CUDA " + major + ".x programs need NVIDIA's driver " +
               (minimum.empty() ? std::string("for CUDA ") + major : minimum + " or later") +
               " on Windows (minor-version compatibility); with this driver they fail to start.",
           "On Windows, install NVIDIA's driver " +
               (minimum.empty() ? std::string("for CUDA ") + toolkit : minimum + " or later") +
               ", then run `wsl --shutdown`; " + fix_toolkit);
}

}  // namespace

std::string min_cuda_driver_for_major(const std::string& major) {
  for (const auto& m : bundled_manifests()) {
    if (m.name != "cuda") continue;
    try {
      toml::table t = toml::parse(m.content, std::string(m.path));
      const toml::table* rows = t["matrix"]["cuda_version"].as_table();
      if (!rows) return "";
      std::string lowest;
      for (const auto& [version, row] : *rows) {
        const toml::table* r = row.as_table();
        if (!r) continue;  // auto, fallback and their texts
        std::string v(version.str());
        std::string driver = (*r)["cuda_min_driver"].value_or(std::string());
        if (v.substr(0, v.find('.')) != major || driver.empty()) continue;
        if (lowest.empty() || compare_versions(driver, lowest) < 0) lowest = driver;
      }
      return lowest;
    } catch (const std::exception&) {
      return "";
    }
  }
  return "";
}

void check_nvidia(DoctorScan& scan) {
  if (!scan.nvidia) return;
  check_stubs(scan);
  check_linux_driver(scan);
  check_linker_path(scan);
  check_libcuda_copies(scan);
  check_nvidia_smi(scan);
  check_nvcc(scan);
  check_toolkit_against_driver(scan);
}

}  // namespace wslgpu::doctor
