// Doctor, Windows group: what only Windows knows, asked through interop
// (each call with a timeout): the Windows build (`cmd.exe /c ver`), the WSL
// release (`wsl.exe --version`, which prints UTF-16 unless WSL_UTF8=1, or
// `wslinfo --wsl-version` without interop). Without interop, the finding says
// how to check by hand. The NVIDIA Windows driver's version and the newest
// CUDA it supports come from nvidia-smi inside WSL (the driver's own copy),
// which needs no interop.
#include <regex>
#include <string>

#include "installer/doctor/checks.hpp"
#include "installer/formats/nvidia_smi.hpp"
#include "installer/host/windows_programs.hpp"
#include "installer/system/text.hpp"
#include "steps/windows/windows_interop.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kWindowsGroup = "Windows";
constexpr int kMinBuild = 19041;        // Windows 10 2004: GPU paravirtualisation
constexpr int kWindows11Build = 22000;  // the AMD dxg bridge of ROCm 7.x
constexpr const char* kMinNvidiaDriver = "465.89";

struct Interop {
  std::string cmd_exe;  // target path of cmd.exe, "" when interop is unavailable
  std::string wsl_exe;
  std::string why_not;  // why interop is unavailable
};

// The same rules as the host's Windows GPU facts (installer/host/windows_programs.hpp).
Interop find_interop(const DoctorScan& scan) {
  Interop i;
  WindowsProgram cmd = find_windows_program(scan.fs, "cmd.exe");
  if (cmd.path.empty()) {
    i.why_not = cmd.why_not;
    return i;
  }
  i.cmd_exe = cmd.path;
  i.wsl_exe = cmd.path.substr(0, cmd.path.rfind('/')) + "/wsl.exe";
  return i;
}

// Whether the rocm profile's default release names Windows 11 in its
// rocm_windows column (the librocdxg releases do).
bool default_rocm_needs_windows_11(const DoctorScan& scan) {
  return rocm_matrix_row(scan, "")["rocm_windows"].rfind("Windows 11", 0) == 0;
}

std::string by_hand(const DoctorScan& scan) {
  std::string s =
      "Check by hand, in PowerShell on Windows: `winver` (build 19041 or later), `wsl --version` (the WSL "
      "release)";
  if (scan.nvidia) s += ", and `nvidia-smi` (Driver Version 465.89 or later)";
  return s + ".";
}

void check_build(DoctorScan& scan, const Interop& interop) {
  ProcessResult r = scan.run({interop.cmd_exe, "/c", "ver"});
  if (r.timed_out) {
    scan.add("windows.build", kWindowsGroup, FindingStatus::warn,
             "cmd.exe /c ver did not answer within " + scan.timeout_text(),
             "Windows interop hangs at times; the Windows build stays unknown.",
             "Run `wsl --shutdown` on Windows to reset interop. " + by_hand(scan));
    return;
  }
  std::string full;
  const int build = r.ok() ? windows_build_from_ver(r.out, &full) : 0;
  if (!build) {
    scan.add("windows.build", kWindowsGroup, FindingStatus::warn,
             "cmd.exe /c ver failed (exit " + std::to_string(r.exit_code) + "): the Windows build is unknown", "",
             by_hand(scan));
    return;
  }
  if (build < kMinBuild) {
    scan.add("windows.build", kWindowsGroup, FindingStatus::fail,
             "Windows build " + std::to_string(build) + " is older than " + std::to_string(kMinBuild),
             "GPU compute in WSL2 needs Windows 10 version 2004 (build 19041) or later, or Windows 11.",
             "Update Windows (Settings, Windows Update), then run `wsl --update`.");
  } else if (build < kWindows11Build && !scan.rocm_version.empty() && compare_versions(scan.rocm_version, "7") >= 0) {
    scan.add("windows.build", kWindowsGroup, FindingStatus::fail,
             "Windows build " + std::to_string(build) + " is Windows 10; ROCm 7.x on WSL needs Windows 11",
             "AMD's dxg bridge, which ROCm 7.1 and later use under WSL, is supported on Windows 11 only.",
             "Upgrade to Windows 11, or use ROCm 6.4.2.1: sudo wslgpu-setup install rocm.");
  } else if (build < kWindows11Build && scan.rocm_version.empty() && scan.host.gpu_vendor == "amd" &&
             default_rocm_needs_windows_11(scan)) {
    // Before ROCm is installed: what `install rocm` would install needs Windows 11.
    auto row = rocm_matrix_row(scan, "");
    scan.add("windows.build", kWindowsGroup, FindingStatus::warn,
             "Windows build " + std::to_string(build) + " is Windows 10; ROCm " + row["rocm_version"] +
                 ", which `sudo wslgpu-setup install rocm` installs, needs Windows 11",
             "The rocm profile's release matrix (from AMD's WSL compatibility matrix) says ROCm " +
                 row["rocm_version"] + " needs " + row["rocm_windows"] +
                 "; AMD's staff do not expect Windows 10 to work (github.com/ROCm/ROCm issue 6323).",
             "Upgrade to Windows 11, or install ROCm 6.4.2.1, whose legacy WSL runtime the matrix lists for "
             "Windows 10: sudo wslgpu-setup install rocm --set rocm_version=6.4.2.1");
  } else {
    scan.add("windows.build", kWindowsGroup, FindingStatus::ok,
             "Windows build " + std::to_string(build) + " (" + full + ")");
  }
}

void check_wsl_release(DoctorScan& scan, const Interop& interop) {
  if (interop.cmd_exe.empty() || !scan.exists(interop.wsl_exe)) {
    // Without interop, wslinfo (WSL's own tool inside the distribution) may still know.
    if (!scan.exists("/usr/bin/wslinfo")) return;
    ProcessResult r = scan.run({"/usr/bin/wslinfo", "--wsl-version"});
    if (r.timed_out) {
      scan.add("windows.wsl-version", kWindowsGroup, FindingStatus::warn,
               "wslinfo --wsl-version did not answer within " + scan.timeout_text(),
               "wslinfo is known to hang (it is also what makes AMD's amdgpu-install hang).", by_hand(scan));
      return;
    }
    std::string v = version_after(r.out, "");
    if (r.ok() && !v.empty())
      scan.add("windows.wsl-version", kWindowsGroup, FindingStatus::ok, "WSL " + v + " (wslinfo)");
    return;
  }
  ProcessResult r = scan.run({interop.wsl_exe, "--version"}, {{"WSL_UTF8", "1"}});
  if (r.timed_out) {
    scan.add("windows.wsl-version", kWindowsGroup, FindingStatus::warn,
             "wsl.exe --version did not answer within " + scan.timeout_text(),
             "Windows interop hangs at times; the WSL release stays unknown.",
             "Run `wsl --shutdown` on Windows to reset interop. " + by_hand(scan));
    return;
  }
  std::string text = r.out;
  if (looks_like_utf16(text)) {  // WSL_UTF8 is honoured only by recent releases
    if (auto decoded = utf16_to_utf8(text)) text = *decoded;
  }
  std::string version = version_after(text, "WSL");
  if (!r.ok() || version.empty()) {
    scan.add("windows.wsl-version", kWindowsGroup, FindingStatus::warn,
             "wsl.exe --version is not understood: this is the WSL that ships inside Windows",
             "`wsl --version` exists only in the Microsoft Store release of WSL; the inbox release is older and gets "
             "no GPU fixes.",
             "On Windows: `wsl --update` installs the current release; then `wsl --shutdown`.");
    return;
  }
  std::string kernel = version_after(text, "Kernel");
  scan.add("windows.wsl-version", kWindowsGroup, FindingStatus::ok,
           "WSL " + version + (kernel.empty() ? "" : " (its kernel " + kernel + ")"));
}

// From nvidia-smi inside WSL (the Windows driver's own copy): no interop needed.
void check_nvidia_driver(DoctorScan& scan) {
  if (!scan.nvidia || !scan.nvidia_smi_full) return;  // nvidia.stubs or nvidia.smi already explain why
  const ProcessResult& r = *scan.nvidia_smi_full;
  if (r.timed_out) {
    scan.add("windows.nvidia-driver", kWindowsGroup, FindingStatus::warn,
             "nvidia-smi did not answer within " + scan.timeout_text(), "The Windows driver's version stays unknown.",
             "Check by hand on Windows: `nvidia-smi` (Driver Version 465.89 or later).");
    return;
  }
  NvidiaSmiHeader header = parse_nvidia_smi_header(r.out);
  const std::string& version = header.driver_version;
  const std::string cuda = header.cuda_version.empty() ? "" : ", which supports CUDA up to " + header.cuda_version;
  if (version.empty()) {
    scan.add("windows.nvidia-driver", kWindowsGroup, FindingStatus::warn, "nvidia-smi shows no Driver Version", "",
             "Check by hand on Windows: `nvidia-smi` (Driver Version 465.89 or later).");
  } else if (compare_versions(version, kMinNvidiaDriver) < 0) {
    scan.add("windows.nvidia-driver", kWindowsGroup, FindingStatus::fail,
             "NVIDIA Windows driver " + version + " is older than " + kMinNvidiaDriver,
             std::string("CUDA on WSL needs NVIDIA's Windows driver ") + kMinNvidiaDriver + " or later.",
             "On Windows: install NVIDIA's current driver, then run `wsl --shutdown`.");
  } else if (header.cuda_error) {
    scan.add("windows.nvidia-driver", kWindowsGroup, FindingStatus::warn,
             "NVIDIA Windows driver " + version + ", but nvidia-smi prints CUDA Version: ERR!",
             "The driver cannot say which CUDA it supports: its installation is damaged, and CUDA programs may not "
             "start; the cuda profile's cuda_version = auto then takes its fallback toolkit.",
             "On Windows: reinstall NVIDIA's driver (a clean installation), then run `wsl --shutdown`.");
  } else {
    scan.add("windows.nvidia-driver", kWindowsGroup, FindingStatus::ok,
             "NVIDIA Windows driver " + version + cuda + " (" + kMinNvidiaDriver + " or later)");
  }
}

}  // namespace

void check_windows(DoctorScan& scan) {
  if (scan.host.wsl == "none") return;  // no Windows behind plain Linux
  Interop interop = find_interop(scan);
  if (interop.cmd_exe.empty()) {
    scan.add("windows.interop", kWindowsGroup, FindingStatus::warn, "Windows checks skipped: " + interop.why_not,
             "doctor asks Windows for its build, the WSL release and the GPU driver through interop.", by_hand(scan));
  } else {
    scan.add("windows.interop", kWindowsGroup, FindingStatus::ok, "interop is available (" + interop.cmd_exe + ")");
    check_build(scan, interop);
  }
  check_wsl_release(scan, interop);
  check_nvidia_driver(scan);
}

}  // namespace wslgpu::doctor
