#include "installer/host/host.hpp"
#include "installer/system/text.hpp"

#include <sys/utsname.h>

#include "installer/host/accounts.hpp"
#include "installer/host/container_engines.hpp"
#include "installer/formats/dpkg_status.hpp"
#include "installer/formats/ini.hpp"
#include "installer/system/paths.hpp"

namespace wslgpu {

namespace {

std::string read_or_empty(const FileSystem& fs, const std::string& path) {
  try {
    auto info = fs.stat(path);
    if (!info || info->type != FileType::regular) return "";
    return fs.read(path);
  } catch (const std::exception&) {
    return "";
  }
}

std::string dpkg_arch_of_machine() {
  utsname u{};
  if (::uname(&u) != 0) return "";
  std::string m = u.machine;
  if (m == "x86_64") return "amd64";
  if (m == "aarch64") return "arm64";
  return m;
}

}  // namespace

std::map<std::string, std::string> parse_os_release(const std::string& text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : text::split_lines(text, text::LineEnd::newline_dropped)) {
    auto eq = line.find('=');
    if (eq == std::string_view::npos || line[0] == '#') continue;
    std::string value = std::string(text::trim(line.substr(eq + 1)));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    out[std::string(text::trim(line.substr(0, eq)))] = value;
  }
  return out;
}

const std::vector<std::string>& lazy_host_fact_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = nvidia_fact_names();
    for (const auto& name : windows_gpu_fact_names()) all.push_back(name);
    return all;
  }();
  return names;
}

std::map<std::string, std::string> HostFacts::as_variables() const {
  const NvidiaDriverFacts* nvidia = nvidia_driver ? nvidia_driver->if_probed() : nullptr;
  static const NvidiaDriverFacts not_probed;
  const NvidiaDriverFacts& n = nvidia ? *nvidia : not_probed;
  // Before the probe every Windows GPU fact is "", host.amd_igpu too: the
  // probe has not said "false".
  const WindowsGpuFacts* gpus = windows_gpus ? windows_gpus->if_probed() : nullptr;
  static const WindowsGpuFacts gpus_not_probed;
  const WindowsGpuFacts& w = gpus ? *gpus : gpus_not_probed;
  // "ubuntu2604": how vendors name this distribution's folder in their
  // repositories (AMD's ROCm Core SDK, NVIDIA's CUDA). Derived from the two
  // facts it is made of, so with_variables() has nothing to restore.
  std::string folder = distro;
  for (char c : distro_version)
    if (c != '.') folder += c;
  return {
      {"host.distro_folder", distro.empty() ? "" : folder},
      {"host.nvidia_driver", n.driver}, {"host.nvidia_cuda", n.cuda}, {"host.nvidia_smi", n.said},
      {"host.amd_gfx", w.amd_gfx}, {"host.amd_gpu", w.amd_gpu}, {"host.amd_windows_driver", w.amd_windows_driver},
      {"host.amd_igpu", gpus ? (w.amd_igpu ? "true" : "false") : ""}, {"host.windows_gpus", w.said},
      {"host.kernel", kernel_release}, {"host.wsl", wsl},
      {"host.dxg", dxg ? "true" : "false"}, {"host.wsl_lib", wsl_lib ? "true" : "false"},
      {"host.gpu_vendor", gpu_vendor}, {"host.distro", distro},
      {"host.distro_version", distro_version}, {"host.codename", codename},
      {"host.arch", arch}, {"host.user", user}, {"host.user_home", user_home},
      {"host.windows_home", windows_home},
      {"host.docker_desktop", docker_desktop ? "true" : "false"}, {"host.docker_ce", docker_ce},
      {"host.systemd", systemd ? "true" : "false"},
  };
}

HostFacts HostFacts::with_variables(const std::map<std::string, std::string>& vars) const {
  HostFacts h = *this;
  auto text = [&](const char* name, std::string& field) {
    if (auto it = vars.find(name); it != vars.end()) field = it->second;
  };
  auto flag = [&](const char* name, bool& field) {
    if (auto it = vars.find(name); it != vars.end()) field = it->second == "true";
  };
  text("host.kernel", h.kernel_release);
  text("host.wsl", h.wsl);
  flag("host.dxg", h.dxg);
  flag("host.wsl_lib", h.wsl_lib);
  text("host.gpu_vendor", h.gpu_vendor);
  text("host.distro", h.distro);
  text("host.distro_version", h.distro_version);
  text("host.codename", h.codename);
  text("host.arch", h.arch);
  text("host.user", h.user);
  text("host.user_home", h.user_home);
  text("host.windows_home", h.windows_home);
  flag("host.docker_desktop", h.docker_desktop);
  text("host.docker_ce", h.docker_ce);
  flag("host.systemd", h.systemd);
  // A lazily probed group's facts as VARS holds them, answered without
  // running anything: the machine described is not this one, whatever its
  // driver or Windows says now. A group VARS names none of stays as it is.
  auto names_any = [&](const std::vector<std::string>& names) {
    for (const auto& name : names)
      if (vars.count(name)) return true;
    return false;
  };
  if (names_any(nvidia_fact_names())) {
    NvidiaDriverFacts n;
    text("host.nvidia_driver", n.driver);
    text("host.nvidia_cuda", n.cuda);
    text("host.nvidia_smi", n.said);
    auto driver = std::make_shared<LazyNvidiaDriver>([n] { return n; });
    driver->get();
    h.nvidia_driver = std::move(driver);
  }
  if (names_any(windows_gpu_fact_names())) {
    WindowsGpuFacts w;
    w.answer = WindowsGpuAnswer::answered;
    text("host.amd_gfx", w.amd_gfx);
    text("host.amd_gpu", w.amd_gpu);
    text("host.amd_windows_driver", w.amd_windows_driver);
    flag("host.amd_igpu", w.amd_igpu);
    text("host.windows_gpus", w.said);
    auto gpus = std::make_shared<LazyWindowsGpus>([w] { return w; });
    gpus->get();
    h.windows_gpus = std::move(gpus);
  }
  return h;
}

void HostFacts::probe_lazy_facts() const {
  if (nvidia_driver) nvidia_driver->get();
  if (windows_gpus) windows_gpus->get();
}

void HostFacts::probe_lazy_facts(const std::set<std::string>& names) const {
  auto named = [&](const std::vector<std::string>& group) {
    for (const auto& name : group)
      if (names.count(name)) return true;
    return false;
  };
  if (nvidia_driver && named(nvidia_fact_names())) nvidia_driver->get();
  if (windows_gpus && named(windows_gpu_fact_names())) windows_gpus->get();
}

std::vector<std::string> HostFacts::unprobed_lazy_fact_names() const {
  std::vector<std::string> out;
  if (!nvidia_driver || !nvidia_driver->if_probed()) out = nvidia_fact_names();
  if (!windows_gpus || !windows_gpus->if_probed())
    for (const auto& name : windows_gpu_fact_names()) out.push_back(name);
  return out;
}

HostFacts probe_host(const FileSystem& fs, const std::string& root, const HostOptions& options) {
  HostFacts h;
  h.root = root;
  h.kernel_release = text::trim(read_or_empty(fs, "/proc/sys/kernel/osrelease"));
  if (auto dxg = fs.stat("/dev/dxg"); dxg && dxg->type == FileType::char_device) {
    h.dxg = true;
    h.dxg_mode = dxg->mode;
  }
  auto lib = fs.stat("/usr/lib/wsl/lib");
  h.wsl_lib = lib && lib->type == FileType::directory;
  // WSL2 kernels are Microsoft's builds ("...-microsoft-standard-WSL2");
  // WSL1 has no Linux kernel and reports "4.4.0-19041-Microsoft".
  const std::string& k = h.kernel_release;
  if (k.find("WSL2") != std::string::npos || k.find("microsoft-standard") != std::string::npos) h.wsl = "2";
  else if (k.find("Microsoft") != std::string::npos) h.wsl = "1";
  else h.wsl = "none";

  // One reading of the driver mount for host.gpu_vendor and for choosing a
  // profile (installer/host/gpu_vendor.hpp).
  h.gpu_evidence = detect_gpu_vendors(fs);
  const GpuEvidence& gpu = h.gpu_evidence;
  h.gpu_vendor = !gpu.nvidia.empty() ? "nvidia" : !gpu.amd.empty() ? "amd" : !gpu.intel.empty() ? "intel" : "";

  auto os = parse_os_release(read_or_empty(fs, "/etc/os-release"));
  h.distro = os["ID"];
  h.distro_version = os["VERSION_ID"];
  h.codename = os["VERSION_CODENAME"];
  h.arch = dpkg_arch_of_machine();

  // dpkg's status only when dpkg lists docker-ce's files: reading the whole
  // status on every command would cost every plan for a fact few use.
  std::map<std::string, std::string> installed;
  if (fs.stat("/var/lib/dpkg/info/docker-ce.list")) {
    try {
      installed = DpkgStatus::read(fs).installed();
    } catch (const std::exception&) {
    }
  }
  ContainerEngines engines = container_engines_from(fs, installed);
  h.docker_desktop = engines.docker_desktop;
  if (engines.docker_engine && engines.docker_engine->name == "docker-ce") h.docker_ce = engines.docker_engine->version;
  if (auto run = fs.stat("/run/systemd/system"); run && run->type == FileType::directory) h.systemd = true;

  auto users = parse_passwd_file(read_or_empty(fs, "/etc/passwd"));
  auto pick = [&](const std::string& name, const char* source) {
    for (const auto& u : users) {
      if (u.name == name) {
        h.user = u.name;
        h.user_home = u.home;
        h.user_uid = u.uid;
        h.user_gid = u.gid;
        h.user_source = source;
        return true;
      }
    }
    return false;
  };
  if (!options.user.empty()) {
    if (!pick(options.user, "--user")) {
      h.user = options.user;  // not in passwd: steps that need it will say so
      h.user_source = "--user";
    }
  } else if (!options.sudo_user.empty() && options.sudo_user != "root" && pick(options.sudo_user, "SUDO_USER")) {
  } else {
    std::string wsl_conf = read_or_empty(fs, "/etc/wsl.conf");
    bool found = false;
    if (!wsl_conf.empty()) {
      try {
        IniDocument conf = IniDocument::parse(wsl_conf, "/etc/wsl.conf");
        if (auto def = conf.get("user", "default")) found = pick(*def, "wsl.conf");
      } catch (const std::exception&) {
      }
    }
    if (!found) {
      for (const auto& u : users) {
        if (u.uid >= 1000 && u.uid < 60000) {
          pick(u.name, "passwd");
          break;
        }
      }
    }
  }

  if (!options.windows_home.empty()) {
    h.windows_home = normalize_path(options.windows_home);
  } else {
    // The one user folder under /mnt/<drive>/Users that is not a Windows
    // built-in is probably the profile folder. Only a guess: the wslconfig
    // step asks interop first (which runs programs, so the probe does not).
    std::vector<std::string> candidates;
    for (const auto& drive : fs.list("/mnt")) {
      std::string users_dir = "/mnt/" + drive + "/Users";
      for (const auto& name : fs.list(users_dir)) {
        if (name == "Public" || name == "Default" || name == "Default User" || name == "All Users" ||
            name == "desktop.ini")
          continue;
        auto info = fs.stat(users_dir + "/" + name);
        if (info && info->type == FileType::directory) candidates.push_back(users_dir + "/" + name);
      }
    }
    if (candidates.size() == 1) {
      h.windows_home = candidates.front();
      h.windows_home_guessed = true;
    }
  }
  return h;
}

int compare_versions(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() || j < b.size()) {
    // Compare one numeric or textual part of each.
    if (i < a.size() && j < b.size() && is_digit(a[i]) && is_digit(b[j])) {
      std::size_t si = i, sj = j;
      while (i < a.size() && is_digit(a[i])) ++i;
      while (j < b.size() && is_digit(b[j])) ++j;
      std::string na = a.substr(si, i - si), nb = b.substr(sj, j - sj);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size() ? -1 : 1;
      if (int c = na.compare(nb); c != 0) return c < 0 ? -1 : 1;
      continue;
    }
    // One ran out: a suffix on the other ("-microsoft-standard-WSL2") is
    // not part of its version, more parts (".1") are.
    if (i >= a.size()) return (b[j] == '.' || is_digit(b[j])) ? -1 : 0;
    if (j >= b.size()) return (a[i] == '.' || is_digit(a[i])) ? 1 : 0;
    // Separators: a '.' continues the version; anything else ends it.
    bool end_a = !is_digit(a[i]) && a[i] != '.';
    bool end_b = !is_digit(b[j]) && b[j] != '.';
    if (end_a && end_b) return 0;
    if (end_a) return -1;
    if (end_b) return 1;
    if (a[i] == '.' && b[j] == '.') {
      ++i;
      ++j;
      continue;
    }
    return a[i] == '.' ? 1 : -1;
  }
  return 0;
}

}  // namespace wslgpu
