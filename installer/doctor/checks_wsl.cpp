// Doctor, WSL group: is this WSL2, is its kernel new enough, is the GPU
// shared (/dev/dxg and the driver mount /usr/lib/wsl/lib), and does
// /etc/wsl.conf keep GPU sharing and interop on. /dev/dxg comes first among
// the GPU facts because its absence explains every later GPU failure.
#include <string>

#include "installer/doctor/checks.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kWslGroup = "WSL";
constexpr const char* kMinKernel = "5.10.60.1";        // the source documents' minimum
constexpr const char* kNvidiaMinKernel = "5.10.16.3";  // NVIDIA's CUDA on WSL guide
const char* const kDriverFix =
    "On Windows: install or update the GPU driver (NVIDIA 465.89 or later, or AMD Adrenalin with WSL support), "
    "then run `wsl --update` and `wsl --shutdown`. Nothing inside Linux can create it.";

// "5.15.153.1" from "5.15.153.1-microsoft-standard-WSL2".
std::string kernel_number(const std::string& release) { return release.substr(0, release.find('-')); }

// "crw-rw-rw-" for a character device with MODE.
std::string mode_text(std::uint32_t mode) {
  std::string s = "c";
  const char* rwx = "rwx";
  for (int i = 8; i >= 0; --i) s += (mode & (1u << i)) ? rwx[(8 - i) % 3] : '-';
  return s;
}

void check_version(DoctorScan& scan) {
  const std::string& k = scan.host.kernel_release;
  if (k.empty()) {
    scan.add("wsl.version", kWslGroup, FindingStatus::warn,
             "cannot tell whether this is WSL: /proc/sys/kernel/osrelease is missing or unreadable",
             "The kernel release names a WSL2 kernel (\"...-microsoft-standard-WSL2\"); without it nothing below "
             "can be trusted.",
             "Check by hand: `uname -r` should end in -microsoft-standard-WSL2; on Windows, `wsl -l -v` shows the "
             "version of each distribution.");
  } else if (scan.host.wsl == "2") {
    scan.add("wsl.version", kWslGroup, FindingStatus::ok, "WSL2 (kernel " + k + ")");
  } else if (scan.host.wsl == "1") {
    scan.add("wsl.version", kWslGroup, FindingStatus::fail, "this distribution runs under WSL1 (kernel " + k + ")",
             "WSL1 translates Linux calls without a virtual machine and cannot share the GPU: GPU compute needs "
             "WSL2.",
             "On Windows: `wsl --set-version <distribution> 2` (`wsl -l -v` lists the distributions and their "
             "versions).");
  } else {
    scan.add("wsl.version", kWslGroup, FindingStatus::fail, "not WSL: kernel " + k,
             "This is not Microsoft's WSL2 kernel, so this is plain Linux or a container: there is no /dev/dxg and "
             "no WSL driver mount.",
             "Run wslgpu-setup inside a WSL2 distribution. On native Linux, use the vendor's native driver "
             "instructions instead; these profiles are for WSL2.");
  }
}

void check_kernel(DoctorScan& scan) {
  if (scan.host.wsl != "2") return;  // WSL1 and plain Linux kernels say nothing about GPU paravirtualisation
  const std::string k = kernel_number(scan.host.kernel_release);
  const std::string fix =
      "On Windows: `wsl --update`, then `wsl --shutdown`. The WSL kernel is Microsoft's; apt cannot update it.";
  if (compare_versions(k, kMinKernel) >= 0) {
    scan.add("wsl.kernel", kWslGroup, FindingStatus::ok, "kernel " + k + " (minimum " + kMinKernel + ")");
  } else if (scan.nvidia && compare_versions(k, kNvidiaMinKernel) >= 0) {
    scan.add("wsl.kernel", kWslGroup, FindingStatus::warn, "kernel " + k + " is older than " + kMinKernel,
             std::string("NVIDIA's minimum (") + kNvidiaMinKernel + ") is met, but the source documents ask for " +
                 kMinKernel + " for GPU paravirtualisation.",
             fix);
  } else {
    scan.add("wsl.kernel", kWslGroup, FindingStatus::fail, "kernel " + k + " is older than the minimum " + kMinKernel,
             std::string("GPU paravirtualisation (/dev/dxg) needs kernel ") + kMinKernel +
                 " or later (NVIDIA: " + kNvidiaMinKernel + " or later).",
             fix);
  }
}

void check_dxg(DoctorScan& scan) {
  auto info = scan.fs.stat("/dev/dxg");
  if (!info) {
    scan.dxg_missing = true;
    const std::string why = scan.host.wsl == "2"   ? "the Windows GPU driver has no WSL support, or WSL is too old"
                            : scan.host.wsl == "1" ? "this is WSL1 (see above), which cannot share the GPU"
                                                   : "this is not WSL2 (see above)";
    scan.add("wsl.dxg", kWslGroup, FindingStatus::fail, "/dev/dxg is missing",
             "The GPU is not shared with this distribution: " + why +
                 ". Everything below that needs the GPU will fail until this is fixed.",
             kDriverFix);
  } else if (info->type != FileType::char_device) {
    scan.dxg_missing = true;
    scan.add("wsl.dxg", kWslGroup, FindingStatus::fail, "/dev/dxg exists but is not a character device",
             "Something put an ordinary file or folder where WSL's GPU device belongs, so the GPU is not reachable. "
             "Everything below that needs the GPU will fail until this is fixed.",
             "Remove it (`sudo rm -r /dev/dxg`) and restart the distribution (`wsl --shutdown` on Windows). If the "
             "device does not come back: " +
                 std::string(kDriverFix));
  } else if ((info->mode & 0666) != 0666) {
    scan.add("wsl.dxg", kWslGroup, FindingStatus::fail, "/dev/dxg is " + mode_text(info->mode) + ", not crw-rw-rw-",
             "WSL creates /dev/dxg readable and writable by everyone; with this mode, GPU programs run by other "
             "users than root cannot open it.",
             "Find what changes it (`grep -rs dxg /etc/udev /etc/tmpfiles.d /etc/wsl.conf`), remove that, and "
             "restart the distribution (`wsl --shutdown` on Windows).");
  } else {
    scan.add("wsl.dxg", kWslGroup, FindingStatus::ok, "/dev/dxg is a character device, " + mode_text(info->mode));
  }
}

void check_wsl_lib(DoctorScan& scan) {
  const std::string fix =
      "Check that /etc/wsl.conf does not turn the GPU off ([gpu] enabled=false); on Windows, update the GPU driver, "
      "then run `wsl --update` and `wsl --shutdown`.";
  if (!scan.is_dir("/usr/lib/wsl/lib")) {
    scan.add("wsl.lib", kWslGroup, FindingStatus::fail, "/usr/lib/wsl/lib is missing",
             "WSL mounts the Windows GPU driver's Linux libraries there; without them no GPU API can work." +
                 scan.dxg_note(),
             fix);
  } else if (!scan.exists("/usr/lib/wsl/lib/libdxcore.so")) {
    scan.add("wsl.lib", kWslGroup, FindingStatus::fail, "/usr/lib/wsl/lib has no libdxcore.so",
             "libdxcore.so connects Linux programs to /dev/dxg; the driver mount is empty or incomplete, so the "
             "Windows driver did not expose WSL support." +
                 scan.dxg_note(),
             fix);
  } else {
    scan.add("wsl.lib", kWslGroup, FindingStatus::ok, "/usr/lib/wsl/lib holds libdxcore.so");
  }
}

void check_wsl_conf(DoctorScan& scan) {
  auto text = scan.read("/etc/wsl.conf");
  if (!text) {
    scan.add("wsl.conf", kWslGroup, FindingStatus::ok,
             "/etc/wsl.conf is absent: GPU sharing and interop are on "
             "(WSL's defaults)");
    return;
  }
  try {
    scan.wsl_conf = IniDocument::parse(*text, "/etc/wsl.conf");
  } catch (const InputError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) all += (all.empty() ? "" : "\n") + d.str();
    scan.add("wsl.conf", kWslGroup, FindingStatus::warn, "/etc/wsl.conf cannot be read as WSL reads it",
             all + "\nWSL skips what it cannot read, so settings in this file may not be in force.",
             "Correct the lines named above, then restart the distribution (`wsl --shutdown` on Windows).");
    return;
  }
  scan.add("wsl.conf", kWslGroup, FindingStatus::ok, "/etc/wsl.conf is valid");

  auto gpu = scan.wsl_conf->get("gpu", "enabled");
  if (gpu && ini_says_false(*gpu)) {
    scan.add("wsl.conf-gpu", kWslGroup, FindingStatus::fail,
             "/etc/wsl.conf turns GPU sharing off ([gpu] enabled=" + *gpu + ", line " +
                 std::to_string(scan.wsl_conf->line_of("gpu", "enabled")) + ")",
             "With GPU sharing off, WSL gives this distribution neither /dev/dxg nor /usr/lib/wsl/lib.",
             "Set enabled=true under [gpu] in /etc/wsl.conf (or remove the line), then run `wsl --shutdown` on "
             "Windows.");
  } else {
    scan.add("wsl.conf-gpu", kWslGroup, FindingStatus::ok,
             gpu ? "GPU sharing is on ([gpu] enabled=" + *gpu + ")" : "GPU sharing is on (WSL's default)");
  }

  auto interop = scan.wsl_conf->get("interop", "enabled");
  if (interop && ini_says_false(*interop)) {
    scan.add("wsl.conf-interop", kWslGroup, FindingStatus::warn,
             "/etc/wsl.conf turns interop off ([interop] enabled=" + *interop + ", line " +
                 std::to_string(scan.wsl_conf->line_of("interop", "enabled")) + ")",
             "Windows programs (cmd.exe, wsl.exe) cannot run from Linux, so the Windows checks below are skipped.",
             "Set enabled=true under [interop] in /etc/wsl.conf, then run `wsl --shutdown` on Windows; or check the "
             "Windows side by hand (see Windows below).");
  } else {
    scan.add("wsl.conf-interop", kWslGroup, FindingStatus::ok,
             interop ? "interop is on ([interop] enabled=" + *interop + ")" : "interop is on (WSL's default)");
  }
}

}  // namespace

void check_wsl(DoctorScan& scan) {
  check_version(scan);
  check_kernel(scan);
  check_dxg(scan);
  check_wsl_lib(scan);
  check_wsl_conf(scan);
}

}  // namespace wslgpu::doctor
