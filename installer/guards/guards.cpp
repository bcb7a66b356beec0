#include "installer/guards/guards.hpp"

#include "installer/formats/ini.hpp"

namespace wslgpu {

namespace {

bool is_cuda_version_metapackage(const std::string& name) {
  // cuda-12-6, cuda-11-8: the versioned "cuda" metapackages, which pull in
  // the Linux driver; cuda-toolkit-12-6 and cuda-nvcc-12-6 do not.
  if (name.rfind("cuda-", 0) != 0) return false;
  std::string rest = name.substr(5);
  return !rest.empty() && rest.find_first_not_of("0123456789-") == std::string::npos;
}

}  // namespace

std::optional<PackageRefusal> refused_package(const std::string& name, const std::vector<std::string>& extra) {
  static const char* kernel_why =
      "DKMS and kernel packages build or ship Linux kernel modules, and WSL2 runs Microsoft's kernel, "
      "which has no headers to build against.";
  static const char* kernel_instead =
      "Install the toolkit without kernel modules: rocm-dev or rocm with hsa-runtime-rocr4wsl-amdgpu (the rocm profile), "
      "never rocm-dkms or amdgpu-dkms.";
  for (const char* p : {"*-dkms", "dkms", "linux-headers-*", "linux-modules-extra-*", "linux-image-*"})
    if (glob_match(p, name)) return PackageRefusal{"no-kernel-modules", name, kernel_why, kernel_instead};

  static const char* nvidia_why =
      "A Linux NVIDIA driver inside WSL2 shadows the WSL driver stubs in /usr/lib/wsl/lib "
      "(\"GPU access blocked by the operating system\"); the Windows driver is the only driver.";
  static const char* nvidia_instead =
      "Install cuda-toolkit-12-x only, from NVIDIA's wsl-ubuntu repository (the cuda profile); never cuda, cuda-12-x, "
      "cuda-drivers or nvidia-driver-*.";
  bool nvidia = name == "cuda" || is_cuda_version_metapackage(name);
  // libcuda1*: Debian's name for the Linux driver's libcuda.so.1 (Ubuntu's is
  // libnvidia-compute-*), which the distribution's nvidia-cuda-toolkit pulls in.
  for (const char* p : {"cuda-drivers*", "nvidia-driver-*", "nvidia-dkms-*", "nvidia-kernel-*", "nvidia-utils-*",
                        "libnvidia-compute-*", "libcuda1*", "xserver-xorg-video-nvidia*", "nvidia-driver"})
    nvidia = nvidia || glob_match(p, name);
  if (nvidia) return PackageRefusal{"no-linux-nvidia-driver", name, nvidia_why, nvidia_instead};

  for (const auto& p : extra)
    if (glob_match(p, name))
      return PackageRefusal{"manifest-refuse-packages", name, "the manifest's [guards] refuse_packages lists " + p + ".",
                            "Remove it from the step, or change the manifest's guards."};
  return std::nullopt;
}

void guard_step(PlannedStep& step, const Guards& guards) {
  if (step.plan.verdict == Verdict::refused) return;  // the step refused itself, with its own reason
  for (const auto& c : step.plan.changes) {
    std::string type = c.value("type", "");
    if (type == "package") {
      std::string action = c.value("action", "");
      if (action != "install" && action != "upgrade" && action != "downgrade") continue;
      auto refusal = refused_package(c.value("name", ""), guards.refuse_packages);
      if (!refusal) continue;
      step.plan.verdict = Verdict::refused;
      std::string via;
      if (c.contains("via") && c["via"].is_string()) via = c["via"].get<std::string>();
      step.plan.summary = "refused by guard " + refusal->rule + ": would install " + refusal->package +
                          (c.contains("version") ? " " + c.value("version", "") : std::string()) +
                          (via.empty() ? "" : ", pulled in by " + via);
      step.plan.details.insert(step.plan.details.begin(), {refusal->why, refusal->instead});
      return;
    }
    if (type == "command" && c.contains("argv") && c["argv"].is_array()) {
      std::vector<std::string> argv;
      for (const auto& a : c["argv"])
        if (a.is_string()) argv.push_back(a.get<std::string>());
      if (argv.empty()) continue;
      std::string prog = argv[0].substr(argv[0].rfind('/') == std::string::npos ? 0 : argv[0].rfind('/') + 1);
      if (prog != "amdgpu-install") continue;
      bool no_dkms = false, dkms_usecase = false;
      for (std::size_t i = 1; i < argv.size(); ++i) {
        if (argv[i] == "--no-dkms") no_dkms = true;
        std::string usecase;
        if (argv[i].rfind("--usecase=", 0) == 0) usecase = argv[i].substr(10);
        else if (argv[i] == "--usecase" && i + 1 < argv.size()) usecase = argv[i + 1];
        if (usecase.find("dkms") != std::string::npos) dkms_usecase = true;
      }
      if (no_dkms && !dkms_usecase) continue;
      step.plan.verdict = Verdict::refused;
      step.plan.summary = std::string("refused by guard no-kernel-modules: amdgpu-install ") +
                          (dkms_usecase ? "with a dkms use case" : "without --no-dkms");
      step.plan.details.insert(step.plan.details.begin(),
                               {"amdgpu-install builds the amdgpu kernel module unless told not to, and WSL2 runs "
                                "Microsoft's kernel, which has no headers to build against.",
                                "Run it as: amdgpu-install -y --usecase=wsl,rocm --no-dkms"});
      return;
    }
  }
}

std::vector<std::string> guard_warnings(const HostFacts& host, const Guards& guards, const Variables& manifest_vars) {
  std::vector<std::string> out;
  auto vars = host.as_variables();
  for (const auto& [k, v] : manifest_vars) vars[k] = v;
  auto lookup = [&](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  for (const auto& w : guards.warn_if)
    if (w.when->evaluate(lookup)) out.push_back(w.reason);
  return out;
}

std::vector<std::string> guard_environment(const HostFacts& host, const Guards& guards, const Variables& manifest_vars,
                                           const FileSystem& fs, const GuardOptions& options) {
  std::vector<std::string> out;
  if (options.needs_root && !options.is_root)
    out.push_back("refused by guard root: this command changes the machine and must run as root.\n"
                  "  Run it again with sudo.");
  if (guards.require_wsl2 && !options.not_wsl) {
    if (host.wsl == "1") {
      out.push_back("refused by guard wsl2: this distribution runs under WSL1 (kernel " + host.kernel_release +
                    "), which has no GPU support.\n  Convert it from Windows: wsl --set-version <distro> 2");
    } else if (host.wsl != "2") {
      out.push_back("refused by guard wsl2: this is not WSL2 (kernel \"" + host.kernel_release +
                    "\"): these profiles configure GPU access through WSL2's /dev/dxg.\n"
                    "  To build an image for WSL elsewhere, pass --not-wsl (the package guards stay on).");
    }
  }
  if (!guards.min_kernel.empty() && !host.kernel_release.empty() && !options.not_wsl &&
      compare_versions(host.kernel_release, guards.min_kernel) < 0) {
    out.push_back("refused by guard kernel: the WSL kernel is " + host.kernel_release + ", older than " +
                  guards.min_kernel + ", the minimum for GPU access.\n"
                  "  Update it from Windows: wsl --update, then wsl --shutdown.");
  }
  if (guards.require_dxg && !host.dxg && !options.not_wsl) {
    out.push_back("refused by guard dxg: /dev/dxg is missing, so the GPU is not shared with this distribution.\n"
                  "  On Windows: update the GPU driver, then run wsl --update and wsl --shutdown.");
  }
  if (guards.supported && !options.unsupported_distro) {
    std::string why = unsupported_system(host, *guards.supported, manifest_vars);
    if (!why.empty()) out.push_back(why);
  }
  for (const auto& r : guards.refuse_if) {
    auto vars = host.as_variables();
    for (const auto& [k, v] : manifest_vars) vars[k] = v;
    auto lookup = [&](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    if (r.when->evaluate(lookup)) out.push_back("refused by the manifest (" + r.when->text() + "): " + r.reason);
  }
  try {
    auto info = fs.stat("/etc/wsl.conf");
    if (info && info->type == FileType::regular) {
      IniDocument conf = IniDocument::parse(fs.read("/etc/wsl.conf"), "/etc/wsl.conf");
      auto gpu = conf.get("gpu", "enabled");
      if (gpu && ini_says_false(*gpu)) {
        out.push_back("refused by guard gpu-enabled: /etc/wsl.conf line " +
                      std::to_string(conf.line_of("gpu", "enabled")) +
                      " sets [gpu] enabled = false, so WSL hides the GPU from this distribution.\n"
                      "  Set it to true (or remove it), then run wsl --shutdown from Windows.");
      }
    }
  } catch (const InputError&) {
    // A malformed wsl.conf is doctor's business; WSL reads what it can.
  }
  return out;
}

}  // namespace wslgpu
