// Doctor, AMD group, what Windows says of the AMD GPU (asked through
// interop with powershell.exe, installer/host/windows_gpus.hpp, at most
// 10 s): a preflight that works before ROCm is installed, when only the AMD
// driver's folders are mounted, and beside it once it is.
//   amd.windows-gpu  the GPU ROCm would use, its gfx target (AMD's GPU
//                    specifications) and whether AMD lists it for WSL.
//   amd.igpu         an integrated AMD GPU beside a discrete one: AMD's
//                    staff, github.com/ROCm/ROCm issue 6323, "Presence of
//                    an iGPU is known to cause problems with GPU detection".
//   amd.adrenalin    the Adrenalin floor of the ROCm release in view (the
//                    rocm profile's release matrix). Windows reports the
//                    driver's own version (32.0.21041.1000), not the
//                    Adrenalin release, and AMD publishes no rule between
//                    them, so the floor is never said to be met from the
//                    version: only rocminfo finding the GPU is evidence.
// Without interop nothing runs here (windows.interop says why).
#include <algorithm>
#include <chrono>
#include <regex>
#include <string>

#include "installer/doctor/checks.hpp"
#include "installer/host/amd_gpu_targets.hpp"
#include "installer/host/windows_gpus.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kAmdWindowsGroup = "AMD";
// As the host's probe: unsloth's `_wsl_amd_gpu_name` waits 10 s for the same query.
constexpr std::chrono::milliseconds kWindowsGpuTimeout = std::chrono::seconds(10);

const char* const kByHand =
    "In PowerShell on Windows: Get-CimInstance Win32_VideoController | Select-Object Name, DriverVersion";

void check_gpu(DoctorScan& scan, const WindowsGpuFacts& w) {
  if (w.answer != WindowsGpuAnswer::answered) {
    scan.add("amd.windows-gpu", kAmdWindowsGroup, FindingStatus::warn,
             "the GPU could not be read from Windows: " + w.said,
             "doctor asks Windows for the GPU's model, which tells its gfx target before ROCm runs; interop hangs at "
             "times.",
             std::string("Run `wsl --shutdown` on Windows to reset interop, or look by hand. ") + kByHand);
    return;
  }
  if (w.amd_gpu.empty()) {
    scan.add(
        "amd.windows-gpu", kAmdWindowsGroup, FindingStatus::warn, w.said,
        "ROCm under WSL reaches only a GPU Windows runs with AMD's driver; Windows reports none." + scan.dxg_note(),
        "On Windows, check that the AMD GPU is enabled and AMD's Adrenalin driver is installed for it, then run "
        "`wsl --shutdown`.");
    return;
  }
  const AmdGpuTarget* row = amd_gpu_target(w.amd_gpu);
  const std::string driver = w.amd_windows_driver.empty() ? "" : " (Windows driver " + w.amd_windows_driver + ")";
  if (!row) {
    scan.add("amd.windows-gpu", kAmdWindowsGroup, FindingStatus::warn,
             w.amd_gpu + driver + ": its gfx target is not in this tool's table of AMD's GPUs",
             "The table holds the models AMD's GPU specifications give a ROCm target for; a model it lacks is "
             "probably not supported by ROCm, and a profile that installs per-target packages takes the all-target "
             "ones.",
             "Check that AMD's WSL compatibility matrix lists this GPU; once ROCm runs, `rocminfo` names its gfx "
             "target.");
    return;
  }
  if (!row->wsl) {
    scan.add("amd.windows-gpu", kAmdWindowsGroup, FindingStatus::warn,
             w.amd_gpu + " (" + row->gfx + ")" + driver + " is not on AMD's list of GPUs for WSL",
             "AMD supports ROCm under WSL on the GPUs its WSL compatibility matrix lists; on another, rocminfo may "
             "find no GPU or fail with HSA_STATUS_ERROR_OUT_OF_RESOURCES.",
             "Use a GPU AMD lists for WSL, or ROCm on native Linux for this one.");
    return;
  }
  scan.add("amd.windows-gpu", kAmdWindowsGroup, FindingStatus::ok,
           w.amd_gpu + ", " + row->gfx + ", on AMD's list of GPUs for WSL" + driver);
}

void check_igpu(DoctorScan& scan, const WindowsGpuFacts& w) {
  if (!w.amd_igpu) return;
  scan.add("amd.igpu", kAmdWindowsGroup, FindingStatus::warn,
           "an integrated AMD GPU (" + w.amd_igpu_name + ") is enabled beside " + w.amd_gpu,
           "AMD's staff (github.com/ROCm/ROCm issue 6323): \"Presence of an iGPU is known to cause problems with GPU "
           "detection\".",
           "Disable the integrated GPU in the BIOS, as AMD's ROCm prerequisites say (\"Disable integrated graphics "
           "(IGP)\"), then run `wsl --shutdown`.");
}

void check_adrenalin(DoctorScan& scan, const WindowsGpuFacts& w) {
  if (w.amd_gpu.empty()) return;
  const std::string release = rocm_release_in_view(scan);
  auto row = release.empty() ? std::map<std::string, std::string>{} : rocm_matrix_row(scan, release);
  // The floor as the release matrix names it: its rocm_adrenalin_min column,
  // else the Adrenalin release its rocm_windows text names.
  std::string min = row["rocm_adrenalin_min"];
  static const std::regex named(R"(Adrenalin ([0-9]+(\.[0-9]+)+))");
  std::smatch m;
  if (min.empty() && std::regex_search(row["rocm_windows"], m, named)) min = m[1].str();
  const std::string floor = min.empty() ? "" : "Adrenalin " + min + " or later";
  const std::string version = w.amd_windows_driver.empty() ? std::string("version not reported") : w.amd_windows_driver;
  if (!scan.rocm_version.empty() && !scan.rocminfo_gfx.empty()) {
    scan.add("amd.adrenalin", kAmdWindowsGroup, FindingStatus::ok,
             "Windows driver " + version + " runs ROCm " + release + ": rocminfo lists " +
                 join_words(scan.rocminfo_gfx) + (floor.empty() ? "" : " (the release needs " + floor + ")"));
    return;
  }
  if (floor.empty()) return;  // nothing to check against, and amd.windows-gpu shows the version
  scan.add("amd.adrenalin", kAmdWindowsGroup, FindingStatus::warn,
           "Windows driver " + version + ": whether it is " + floor + ", which ROCm " + release +
               " needs, cannot be told from it",
           "Windows reports the driver's own version, not the Adrenalin release AMD's requirements name, and AMD "
           "publishes no rule from one to the other; ROCm finding the GPU would show the driver suffices.",
           "On Windows, check the installed Adrenalin release (AMD Software: Adrenalin Edition shows it) and update "
           "it if it is older, then run `wsl --shutdown`.");
}

}  // namespace

std::string rocm_release_in_view(const DoctorScan& scan) {
  if (!scan.rocm_version.empty()) return rocm_release(scan.rocm_version);
  return rocm_matrix_row(scan, "")["rocm_version"];
}

void check_amd_windows(DoctorScan& scan) {
  if (scan.host.wsl == "none") return;
  if (!scan.amd && scan.host.gpu_vendor != "amd") return;
  const auto timeout = std::min(scan.machine.command_timeout, kWindowsGpuTimeout);
  const WindowsGpuFacts w = probe_windows_gpus(scan.fs, scan.machine.runner, timeout);
  if (w.answer == WindowsGpuAnswer::interop_off) return;
  check_gpu(scan, w);
  check_igpu(scan, w);
  check_adrenalin(scan, w);
}

}  // namespace wslgpu::doctor
