// Doctor, AMD group (only when a ROCm or HSA package is installed or
// /opt/rocm exists): no DKMS package, the WSL runtime that the installed
// ROCm release needs (AMD's WSL matrix: 6.1.3 to 6.4.x need
// hsa-runtime-rocr4wsl-amdgpu, 7.0.x has no WSL support, 7.1 and later need
// HSA_ENABLE_DXG_DETECTION=1 for the librocdxg bridge), no conflicting
// distribution runtime, what rocminfo says, and no PyTorch bundling its own
// libhsa-runtime64.so. For the librocdxg releases: librocdxg present and the
// version the rocm profile's release matrix pairs with the installed ROCm
// (read from manifests/rocm.toml, so no pairing is written here), and not
// installed next to the legacy runtime.
#include <regex>
#include <set>
#include <string>

#include "installer/doctor/checks.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/manifest.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kAmdGroup = "AMD";

std::vector<std::string> dkms_packages(const DoctorScan& scan) {
  std::vector<std::string> out;
  for (const auto& [name, version] : scan.installed)
    if (name.find(':') == std::string::npos && (name == "dkms" || name.ends_with("-dkms"))) out.push_back(name);
  return out;
}

// "6.4" from rocm-core's "6.4.2.60402-120~24.04".
std::string major_minor(const std::string& version) {
  static const std::regex mm(R"(^([0-9]+)\.([0-9]+))");
  std::smatch m;
  return std::regex_search(version, m, mm) ? m[1].str() + "." + m[2].str() : "";
}

struct AmdFacts {
  std::string dxg_detection_file;  // where HSA_ENABLE_DXG_DETECTION=1 is set, "" when nowhere
};

void check_dkms(DoctorScan& scan, const std::vector<std::string>& dkms) {
  if (dkms.empty()) {
    if (!scan.dpkg_problem.empty()) {
      scan.add("amd.dkms", kAmdGroup, FindingStatus::warn,
               "cannot tell whether a DKMS package is installed: the dpkg status is unreadable", scan.dpkg_problem,
               "See the dpkg finding under Configuration.");
    } else {
      scan.add("amd.dkms", kAmdGroup, FindingStatus::ok, "no DKMS package is installed");
    }
    return;
  }
  std::string purge = "sudo apt purge";
  for (const auto& p : dkms) purge += " " + p;
  scan.add("amd.dkms", kAmdGroup, FindingStatus::fail, "DKMS packages are installed: " + join_words(dkms, ", "),
           "DKMS builds kernel modules for the running kernel, and WSL2 runs Microsoft's kernel, which has no headers "
           "to build against (\"kernel headers for ...-microsoft-standard-WSL2 cannot be found\"). Under WSL the GPU "
           "comes through /dev/dxg, not a kernel module.",
           purge +
               " (ROCm's user-space packages stay; the rocm profile installs ROCm without DKMS: sudo "
               "wslgpu-setup install rocm)");
}


// The ROCm Core SDK (7.14, 10.x): no WSL runtime package and no variable
// to set (its runtime finds /dev/dxg from 7.13 on); what the rocm profile's
// row says of the release's known problems on WSL comes with it.
void check_core_sdk(DoctorScan& scan) {
  const std::string release = rocm_release(scan.rocm_version);
  const auto row = rocm_matrix_row(scan, release);
  const bool known = row.count("rocm_wsl") && row.at("rocm_wsl") == "core";
  scan.add("amd.wsl-runtime", kAmdGroup, known ? FindingStatus::ok : FindingStatus::warn,
           "the ROCm Core SDK " + release + " (" + scan.rocm_core_package + ")" +
               (known ? "" : ", a release the rocm profile has no row for"),
           known ? "" : "How this release runs on WSL is not known to this version of wslgpu-setup.",
           known ? "" : "sudo wslgpu-setup install rocm (the Core SDK release AMD calls production for WSL)");
  if (scan.legacy_wsl_runtime() || scan.installed_pkg("rocm-core"))
    scan.add("amd.streams", kAmdGroup, FindingStatus::fail,
             "the ROCm Core SDK and a legacy ROCm release are both installed",
             "AMD's 10.0 install page: \"Uninstall ROCm 7.2.4 or older first\"; the legacy release makes /opt/rocm "
             "a link to its own folder, where the Core SDK needs one of its own.",
             "sudo wslgpu-setup install rocm --set rocm_version=" + release +
                 " (removes the legacy release first, in a transaction that rolls back).");
  if (auto it = row.find("rocm_known_issues"); known && it != row.end() && !it->second.empty())
    scan.add("amd.known-issues", kAmdGroup, FindingStatus::warn, "ROCm " + release + " on WSL has known problems",
             it->second + ".", "None to apply here; when one of them is what you see, it is not this machine's fault.");
}

void check_runtime(DoctorScan& scan, const AmdFacts& facts) {
  if (!scan.rocm_core_package.empty()) return check_core_sdk(scan);
  const std::string& v = scan.rocm_version;
  if (v.empty()) {
    scan.add("amd.wsl-runtime", kAmdGroup, FindingStatus::warn, "ROCm's version is unknown: rocm-core is not installed",
             "The WSL runtime ROCm needs depends on its release, which rocm-core records; without it ROCm is not "
             "installed, or only in part.",
             "sudo wslgpu-setup install rocm");
    return;
  }
  const std::string release = rocm_release(v);
  const std::string mm = major_minor(v);
  if (compare_versions(release, "6.1.3") < 0) {
    scan.add("amd.wsl-runtime", kAmdGroup, FindingStatus::fail, "ROCm " + release + " predates WSL support",
             "AMD supports WSL from ROCm 6.1.3 on; older releases have no WSL runtime.",
             "Install a WSL-capable release: sudo wslgpu-setup install rocm (6.4.2.1), or 7.1 or later.");
  } else if (compare_versions(mm, "7.0") < 0) {
    if (scan.installed_pkg("hsa-runtime-rocr4wsl-amdgpu")) {
      scan.add("amd.wsl-runtime", kAmdGroup, FindingStatus::ok,
               "ROCm " + release + " with its WSL runtime (hsa-runtime-rocr4wsl-amdgpu)");
    } else {
      scan.add("amd.wsl-runtime", kAmdGroup, FindingStatus::fail,
               "ROCm " + release + " without its WSL runtime: hsa-runtime-rocr4wsl-amdgpu is not installed",
               "ROCm 6.1.3 to 6.4.x reach the GPU under WSL only through the WSL build of the HSA runtime; the "
               "standard runtime looks for /dev/kfd, which WSL does not have.",
               "sudo apt install hsa-runtime-rocr4wsl-amdgpu (from AMD's amdgpu repository of the same release), or "
               "sudo wslgpu-setup install rocm. \"Unable to locate package\" means this release or this Ubuntu has "
               "no WSL build (plain 6.4.2 has none; 6.4.2.1 has): use 6.4.2.1.");
    }
  } else if (mm == "7.0") {
    scan.add("amd.wsl-runtime", kAmdGroup, FindingStatus::fail, "ROCm " + release + " has no WSL support",
             "ROCm 7.0.x shipped no WSL runtime at all (\"Unable to locate package hsa-runtime-rocr4wsl-amdgpu\").",
             "Replace it with a WSL-capable release: 6.4.2.1 (sudo wslgpu-setup install rocm) or 7.1 or later.");
  } else if (scan.legacy_wsl_runtime() && rocm_matrix_row(scan, release)["rocm_wsl"] == "legacy") {
    // 7.2 is the last legacy release (the rocm profile's matrix): its WSL
    // runtime needs no dxg detection.
    scan.add("amd.wsl-runtime", kAmdGroup, FindingStatus::ok,
             "ROCm " + release + " with its WSL runtime (hsa-runtime-rocr4wsl-amdgpu)");
  } else if (!facts.dxg_detection_file.empty()) {
    scan.add(
        "amd.wsl-runtime", kAmdGroup, FindingStatus::ok,
        "ROCm " + release + " with dxg detection on (HSA_ENABLE_DXG_DETECTION=1 in " + facts.dxg_detection_file + ")");
  } else {
    scan.add("amd.wsl-runtime", kAmdGroup, FindingStatus::fail,
             "ROCm " + release + ", but HSA_ENABLE_DXG_DETECTION=1 is not set",
             "ROCm 7.1 and later reach the GPU under WSL through the librocdxg bridge, which is used only when "
             "HSA_ENABLE_DXG_DETECTION=1; without it rocminfo says \"No WDDM adapters found\" or \"hsa_init "
             "Failed\".",
             "sudo wslgpu-setup install rocm --set rocm_version=" + release +
                 " sets it for every login shell in /etc/profile.d (or add `export HSA_ENABLE_DXG_DETECTION=1` "
                 "there yourself), then open a new shell.");
  }
}

void check_core_librocdxg(DoctorScan& scan) {
  const std::string release = rocm_release(scan.rocm_version);
  const auto row = rocm_matrix_row(scan, release);
  const std::string lib = row.count("rocdxg_lib") ? row.at("rocdxg_lib") : kLibrocdxg;
  const bool separate = row.count("rocdxg_version") && !row.at("rocdxg_version").empty();
  if (scan.exists(lib)) {
    scan.add("amd.librocdxg", kAmdGroup, FindingStatus::ok,
             "librocdxg for the ROCm Core SDK " + release + " (" + lib +
                 (separate ? ", ROCm/librocdxg's .deb" : ", shipped with ROCm") + ")");
    return;
  }
  scan.add("amd.librocdxg", kAmdGroup, FindingStatus::fail,
           "the ROCm Core SDK " + release + " without librocdxg: " + lib + " is missing",
           std::string(separate ? "AMD's 10.0 install page installs ROCm/librocdxg's release .deb after ROCm"
                                : "From 10.1 librocdxg ships inside ROCm (AMD's 10.1 release notes)") +
               "; without it the runtime cannot reach the GPU through /dev/dxg." + scan.dxg_note(),
           "sudo wslgpu-setup install rocm --set rocm_version=" + release);
}

void check_librocdxg(DoctorScan& scan) {
  if (!scan.rocm_core_package.empty()) return check_core_librocdxg(scan);
  const std::string lib = kLibrocdxg;
  const bool legacy = scan.legacy_wsl_runtime();
  const bool pkg = scan.installed_pkg("rocdxg-roct");
  const bool has_lib = scan.exists(lib);
  if (legacy && (pkg || has_lib)) {
    scan.add("amd.librocdxg", kAmdGroup, FindingStatus::fail,
             "both the legacy WSL runtime (hsa-runtime-rocr4wsl-amdgpu) and librocdxg (" +
                 std::string(pkg ? "rocdxg-roct" : lib) + ") are installed",
             "They are the two ways ROCm reaches the GPU under WSL, each for its own releases (legacy up to 7.2, "
             "librocdxg from 7.2.1); with both, which one the runtime uses depends on load order.",
             "Keep the one the installed ROCm needs: `sudo wslgpu-setup undo` and install again with "
             "--set rocm_version=RELEASE, or remove the other (`sudo apt remove rocdxg-roct`).");
    return;
  }
  if (legacy || scan.rocm_version.empty()) return;
  const std::string release = rocm_release(scan.rocm_version);
  if (compare_versions(release, "7.1") < 0) return;
  const auto row = rocm_matrix_row(scan, release);
  const std::string expected = row.count("rocdxg_version") ? row.at("rocdxg_version") : "";
  const std::string version = pkg ? rocm_release(scan.installed.at("rocdxg-roct")) : "";
  if (!has_lib) {
    scan.add("amd.librocdxg", kAmdGroup, FindingStatus::fail,
             "ROCm " + release + " without librocdxg: " + lib + " is missing" +
                 (pkg ? " although rocdxg-roct " + version + " is installed" : ""),
             "From ROCm 7.2.1 the standard runtime reaches the GPU under WSL only through librocdxg, which is not "
             "in AMD's apt repositories; without it rocminfo says \"No WDDM adapters found\"." +
                 scan.dxg_note(),
             "sudo wslgpu-setup install rocm --set rocm_version=" + release +
                 " (downloads ROCm/librocdxg's release .deb, checks its SHA-256 and installs it).");
    return;
  }
  if (!expected.empty() && pkg && version != expected) {
    scan.add("amd.librocdxg", kAmdGroup, FindingStatus::warn,
             "librocdxg " + version + " with ROCm " + release + "; the rocm profile pairs " + release +
                 " with librocdxg " + expected,
             "librocdxg must match the runtime it loads into (ROCm/librocdxg's README lists the pairs).",
             "sudo wslgpu-setup install rocm --set rocm_version=" + release + " installs librocdxg " + expected + ".");
    return;
  }
  scan.add("amd.librocdxg", kAmdGroup, FindingStatus::ok,
           "librocdxg" + (version.empty() ? std::string() : " " + version) + " for ROCm " + release + " (" + lib + ")");
}

void check_distro_runtime(DoctorScan& scan) {
  auto found = installed_matching(scan, {"libhsa-runtime64-1", "libhsakmt1", "libamdhip64-7"});
  if (found.empty()) {
    scan.add("amd.distro-hsa", kAmdGroup, FindingStatus::ok,
             "no distribution ROCm runtime (libhsa-runtime64-1, libhsakmt1, libamdhip64-7) is installed");
    return;
  }
  scan.add("amd.distro-hsa", kAmdGroup, FindingStatus::fail,
           "the distribution's ROCm runtime is installed: " + join_words(found, ", "),
           "Ubuntu's own ROCm (5.7 on 24.04, 7.1 on 26.04) sits on the default linker path, where programs find it "
           "before /opt/rocm's: 5.7's HSA runtime cannot reach the GPU under WSL, and 26.04's libamdhip64.so.7 "
           "has the Core SDK's soname, so a program asking for it by soname loads Ubuntu's.",
           "sudo apt remove " + join_words(found, " ") +
               " (the rocm profile does this: sudo wslgpu-setup install rocm)");
}

// HSA_OVERRIDE_GFX_VERSION makes the runtime treat the GPU as another
// target, a native-Linux workaround for GPUs ROCm does not list. Under WSL
// the runtime takes the target from the Windows driver through librocdxg,
// and a field report of ROCm 10.0 on WSL (an RX 9070 XT) needed none; an
// override that names another target runs kernels built for that one.
void check_gfx_override(DoctorScan& scan) {
  static const std::regex setting(R"(\bHSA_OVERRIDE_GFX_VERSION\s*=\s*['"]?([0-9.]+))");
  for (const auto& file : scan.login_files()) {
    for (const auto& line : active_lines(*scan.read(file))) {
      std::smatch m;
      if (!std::regex_search(line, m, setting)) continue;
      scan.add("amd.gfx-override", kAmdGroup, FindingStatus::warn,
               "HSA_OVERRIDE_GFX_VERSION=" + m[1].str() + " is set in " + file,
               "It makes ROCm treat the GPU as another target, a workaround for GPUs ROCm does not list on native "
               "Linux. Under WSL the runtime takes the target from the Windows driver through librocdxg, and an "
               "override that names another target runs kernels that were not built for this GPU (\"invalid device "
               "function\", a device the runtime rejects).",
               "Remove the line from " + file + ", open a new shell and run `rocminfo`; if the GPU is not in AMD's "
               "list for WSL, no override makes it supported.");
      return;
    }
  }
}

void check_rocminfo(DoctorScan& scan, const AmdFacts& facts) {
  std::string rocminfo;
  std::vector<std::string> candidates = {"/opt/rocm/bin/rocminfo"};
  // The Core SDK's own prefix (/opt/rocm/core-10.0/bin), for when the
  // /opt/rocm links are not there.
  for (const auto& core : scan.list_prefixed("/opt/rocm", "core-")) candidates.push_back("/opt/rocm/" + core + "/bin/rocminfo");
  candidates.push_back("/usr/bin/rocminfo");
  for (const auto& p : candidates)
    if (rocminfo.empty() && scan.exists(p)) rocminfo = p;
  if (rocminfo.empty()) {
    scan.add("amd.rocminfo", kAmdGroup, FindingStatus::warn, "rocminfo not found",
             "rocminfo is how ROCm reports the GPUs it can use; without it ROCm is not installed, or only in part.",
             "sudo wslgpu-setup install rocm");
    return;
  }
  std::map<std::string, std::string> env;
  if (!facts.dxg_detection_file.empty()) env["HSA_ENABLE_DXG_DETECTION"] = "1";  // as a login shell would have it
  ProcessResult r = scan.run({rocminfo}, env);
  const std::string output = r.out + "\n" + r.err;
  const bool rocm7 = !scan.rocm_version.empty() && compare_versions(major_minor(scan.rocm_version), "7.1") >= 0;
  const bool core = !scan.rocm_core_package.empty();
  const std::string bridge_cause =
      core ? "The ROCm Core SDK's runtime found no GPU through librocdxg: librocdxg is missing (amd.librocdxg "
             "above), the Windows driver is older than the release needs, or this GPU is not in AMD's list for WSL."
      : rocm7
          ? (facts.dxg_detection_file.empty()
                 ? "ROCm 7.1 and later find the GPU through the librocdxg bridge only when HSA_ENABLE_DXG_DETECTION=1, "
                   "and it is not set."
                 : "The librocdxg bridge found no GPU: the bridge is missing, or the Windows driver has no WSL "
                   "support for this GPU.")
          : "The WSL runtime found no GPU through /dev/dxg: the Windows driver has no WSL support for this GPU, or "
            "the runtime is not the WSL one.";
  const std::string bridge_fix =
      core ? "On Windows, update the Adrenalin driver to the release's floor (`wslgpu-setup doctor` names it under "
             "amd.adrenalin) and run `wsl --shutdown`."
      : rocm7 ? "Set `export HSA_ENABLE_DXG_DETECTION=1` in ~/.bashrc and open a new shell; on Windows, update the "
              "Adrenalin driver and run `wsl --shutdown`."
            : "On Windows, update the Adrenalin driver (with WSL support) and run `wsl --shutdown`; check the WSL "
              "runtime finding above.";
  if (r.timed_out) {
    scan.add("amd.rocminfo", kAmdGroup, FindingStatus::fail, "rocminfo did not answer within " + scan.timeout_text(),
             "rocminfo hangs when the runtime waits on a GPU it cannot reach." + scan.dxg_note(),
             "On Windows: run `wsl --shutdown`, update the Adrenalin driver, and try again.");
    return;
  }
  if (output.find("HSA_STATUS_ERROR_OUT_OF_RESOURCES") != std::string::npos) {
    scan.add("amd.rocminfo", kAmdGroup, FindingStatus::fail, "rocminfo: HSA_STATUS_ERROR_OUT_OF_RESOURCES",
             "ROCm detected WSL but could not use the GPU: this ROCm release, this GPU or this distribution is not "
             "in AMD's WSL support matrix." +
                 scan.dxg_note(),
             "Check AMD's WSL support matrix for the GPU and the Adrenalin driver, update the driver on Windows, and "
             "use a supported release: sudo wslgpu-setup install rocm (6.4.2.1).");
    return;
  }
  if (output.find("No WDDM adapters found") != std::string::npos) {
    scan.add("amd.rocminfo", kAmdGroup, FindingStatus::fail, "rocminfo: No WDDM adapters found",
             bridge_cause + scan.dxg_note(), bridge_fix);
    return;
  }
  if (output.find("hsa_init Failed") != std::string::npos) {
    scan.add("amd.rocminfo", kAmdGroup, FindingStatus::fail, "rocminfo: hsa_init Failed",
             "The HSA runtime could not start. " + bridge_cause + scan.dxg_note(), bridge_fix);
    return;
  }
  static const std::regex gfx(R"(\bgfx[0-9a-f]+\b)");
  std::set<std::string> agents;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), gfx); it != std::sregex_iterator(); ++it)
    agents.insert(it->str());
  if (!agents.empty()) {
    scan.rocminfo_gfx.assign(agents.begin(), agents.end());
    scan.add("amd.rocminfo", kAmdGroup, FindingStatus::ok,
             "rocminfo lists " + join_words(std::vector<std::string>(agents.begin(), agents.end())));
    return;
  }
  scan.add("amd.rocminfo", kAmdGroup, FindingStatus::fail,
           r.ok() ? "rocminfo lists no GPU agent" : "rocminfo failed (exit " + std::to_string(r.exit_code) + ")",
           "ROCm sees no GPU: the Windows driver has no WSL support for this GPU, or the runtime is not the WSL "
           "one." +
               scan.dxg_note(),
           "On Windows, update the Adrenalin driver and run `wsl --shutdown`; check the WSL runtime finding above.");
}

void check_torch(DoctorScan& scan) {
  std::vector<std::string> lib_dirs;
  for (const auto& py : scan.list_prefixed("/usr/lib", "python3")) {
    lib_dirs.push_back("/usr/lib/" + py + "/site-packages/torch/lib");
    lib_dirs.push_back("/usr/lib/" + py + "/dist-packages/torch/lib");
  }
  for (const auto& py : scan.list_prefixed("/usr/local/lib", "python3")) {
    lib_dirs.push_back("/usr/local/lib/" + py + "/dist-packages/torch/lib");
    lib_dirs.push_back("/usr/local/lib/" + py + "/site-packages/torch/lib");
  }
  if (!scan.host.user_home.empty()) {
    const std::string local = scan.host.user_home + "/.local/lib";
    for (const auto& py : scan.list_prefixed(local, "python3"))
      lib_dirs.push_back(local + "/" + py + "/site-packages/torch/lib");
  }
  std::vector<std::string> torch_dirs, bundled;
  for (const auto& dir : lib_dirs) {
    if (!scan.is_dir(dir)) continue;
    torch_dirs.push_back(dir);
    for (const auto& name : scan.list_prefixed(dir, "libhsa-runtime64.so")) bundled.push_back(dir + "/" + name);
  }
  if (bundled.empty()) {
    scan.add("amd.torch-hsa", kAmdGroup, FindingStatus::ok,
             torch_dirs.empty() ? "no PyTorch install bundles its own libhsa-runtime64.so"
                                : "PyTorch (" + join_words(torch_dirs, ", ") + ") bundles no libhsa-runtime64.so");
    return;
  }
  std::set<std::string> dirs;
  for (const auto& f : bundled) dirs.insert(f.substr(0, f.rfind('/')));
  std::string rm;
  for (const auto& d : dirs) rm += (rm.empty() ? "rm " : " ") + d + "/libhsa-runtime64.so*";
  scan.add("amd.torch-hsa", kAmdGroup, FindingStatus::fail,
           "PyTorch bundles its own HSA runtime: " + join_words(bundled, ", "),
           "rocminfo can work while PyTorch sees no GPU: the libhsa-runtime64.so in torch/lib is loaded instead of "
           "the WSL runtime, and it cannot reach the GPU under WSL.",
           rm + " (AMD's WSL instructions; sudo for a system-wide install), with AMD's own PyTorch wheels.");
}

}  // namespace

std::string rocm_release(const std::string& version) {
  static const std::regex rel(R"(^([0-9]+\.[0-9]+(\.[0-9]+)?))");
  std::smatch m;
  return std::regex_search(version, m, rel) ? m[1].str() : version;
}

namespace {
// RELEASE "" for the profile's default release.
std::map<std::string, std::string> matrix_row_named(const DoctorScan& scan, const std::string& release) {
  for (const auto& bundled : bundled_manifests()) {
    if (bundled.name != "rocm") continue;
    HostFacts host = scan.host;
    // The columns do not depend on the machine; a root without os-release
    // must not stop the lookup.
    if (host.codename.empty()) host.codename = "noble";
    try {
      Variables sets;
      if (!release.empty()) sets["rocm_version"] = release;
      Manifest m = load_manifest(ManifestSource{std::string(bundled.path), std::string(bundled.content), true}, sets,
                                 host, LoadOptions{true, {}});
      return m.vars;
    } catch (const std::exception&) {
      return {};
    }
  }
  return {};
}
}  // namespace

std::map<std::string, std::string> rocm_matrix_row(const DoctorScan& scan, const std::string& release) {
  auto row = matrix_row_named(scan, release);
  // rocm-core says 7.2.0 for the release the matrix (and AMD) name 7.2.
  if ((row["rocm_wsl"].empty() || row["rocm_wsl"] == "unlisted") && release.size() > 2 && release.compare(release.size() - 2, 2, ".0") == 0)
    row = matrix_row_named(scan, release.substr(0, release.size() - 2));
  return row;
}

std::string DoctorScan::dxg_detection_file() const {
  static const std::regex setting(R"(HSA_ENABLE_DXG_DETECTION=['"]?1['"]?)");
  for (const auto& file : login_files()) {
    for (const auto& line : active_lines(*read(file)))
      if (std::regex_search(line, setting)) return file;
  }
  return "";
}

void check_amd(DoctorScan& scan) {
  auto dkms = dkms_packages(scan);
  bool non_nvidia_dkms = false;
  for (const auto& d : dkms)
    if (d.rfind("nvidia-", 0) != 0) non_nvidia_dkms = true;
  if (!scan.amd) {
    // A DKMS package is a WSL problem whatever the vendor; NVIDIA's own are reported as a Linux driver.
    if (non_nvidia_dkms) check_dkms(scan, dkms);
    return;
  }
  AmdFacts facts;
  facts.dxg_detection_file = scan.dxg_detection_file();
  check_dkms(scan, dkms);
  check_runtime(scan, facts);
  check_librocdxg(scan);
  check_distro_runtime(scan);
  check_rocminfo(scan, facts);
  check_gfx_override(scan);
  check_torch(scan);
}

}  // namespace wslgpu::doctor
