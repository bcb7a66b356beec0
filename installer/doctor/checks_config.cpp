// Doctor, Configuration group: the Windows-side .wslconfig (found, UTF-8,
// keys WSL can read, memory), the memory and disk the distribution really
// has, the user's video/render groups (informational under WSL), the toolkit
// on PATH, and an interrupted dpkg.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "installer/doctor/checks.hpp"
#include "installer/host/accounts.hpp"
#include "installer/system/text.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kConfigGroup = "Configuration";
constexpr std::uint64_t kGiB = 1024ull * 1024 * 1024;
constexpr const char* kMemoryFix =
    "sudo wslgpu-setup install wslconfig --set memory=16GB, then run `wsl --shutdown` on Windows.";
constexpr const char* kMemoryCause =
    "GPU compute processes crash or are killed when the WSL virtual machine runs out of memory; the source "
    "documents ask for at least 8GB, and 16GB for machine learning.";

// Bytes in a .wslconfig size ("16GB", "512MB", "8589934592"), binary units as WSL reads them.
std::optional<std::uint64_t> parse_size(const std::string& text) {
  std::string t = text::lower(text::trim(text));
  std::size_t digits = t.find_first_not_of("0123456789.");
  std::string number = t.substr(0, digits);
  std::string unit = digits == std::string::npos ? "" : std::string(text::trim(t.substr(digits)));
  if (number.empty() || number.find_first_of("0123456789") == std::string::npos) return std::nullopt;
  double value = 0;
  try {
    value = std::stod(number);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  double scale = 1;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "kb" || unit == "k")
    scale = 1024.0;
  else if (unit == "mb" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "gb" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "tb" || unit == "t")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(value * scale));
}

void check_memory_setting(DoctorScan& scan, const IniDocument& doc, const std::string& path) {
  auto memory = doc.get("wsl2", "memory");
  if (!memory) {
    for (const auto& section : doc.sections()) {
      if (section == "wsl2" || !doc.get(section, "memory")) continue;
      scan.add(
          "config.wslconfig-memory", kConfigGroup, FindingStatus::warn,
          path + ":" + std::to_string(doc.line_of(section, "memory")) + ": memory is under [" + section +
              "], not [wsl2]",
          "WSL reads memory only from the [wsl2] section, so this setting is not in force.",
          "Move the line under [wsl2], then run `wsl --shutdown` on Windows (or: " + std::string(kMemoryFix) + ")");
      return;
    }
    scan.add("config.wslconfig-memory", kConfigGroup, FindingStatus::ok,
             "memory is not set in .wslconfig: WSL gives the distribution half of Windows' memory");
    return;
  }
  auto bytes = parse_size(*memory);
  const std::string where = path + ":" + std::to_string(doc.line_of("wsl2", "memory"));
  if (!bytes) {
    scan.add("config.wslconfig-memory", kConfigGroup, FindingStatus::warn,
             where + ": memory=" + *memory + " is not a size WSL understands",
             "WSL expects a size such as 16GB or 8192MB and ignores anything else.", kMemoryFix);
  } else if (*bytes < 8 * kGiB) {
    scan.add("config.wslconfig-memory", kConfigGroup, FindingStatus::warn,
             where + ": memory=" + *memory + " is below 8GB", kMemoryCause, kMemoryFix);
  } else if (*bytes < 16 * kGiB) {
    scan.add("config.wslconfig-memory", kConfigGroup, FindingStatus::ok,
             "memory=" + *memory + " in .wslconfig (16GB is advised for machine learning)");
  } else {
    scan.add("config.wslconfig-memory", kConfigGroup, FindingStatus::ok, "memory=" + *memory + " in .wslconfig");
  }
}

void check_wslconfig(DoctorScan& scan) {
  if (scan.host.windows_home.empty()) {
    scan.add("config.wslconfig", kConfigGroup, FindingStatus::warn,
             "the Windows profile folder was not found, so .wslconfig was not checked",
             "doctor looks for %USERPROFILE%\\.wslconfig in the one user folder under /mnt/<drive>/Users.",
             "Name it: wslgpu-setup --windows-home /mnt/c/Users/<you> doctor");
    return;
  }
  const std::string path = scan.host.windows_home + "/.wslconfig";
  auto text = scan.read(path);
  if (!text) {
    scan.add("config.wslconfig", kConfigGroup, FindingStatus::ok,
             "no " + path + ": WSL's defaults are in force (half of Windows' memory)");
    return;
  }
  if (looks_like_utf16(*text)) {
    scan.add("config.wslconfig", kConfigGroup, FindingStatus::warn, path + " is UTF-16; WSL ignores it",
             "WSL silently ignores a .wslconfig saved as UTF-16, so none of its settings are in force.",
             "Save it as UTF-8 (Notepad: File, Save as, Encoding UTF-8), then run `wsl --shutdown` on Windows.");
    return;
  }
  try {
    IniDocument doc = IniDocument::parse(*text, path);
    scan.add("config.wslconfig", kConfigGroup, FindingStatus::ok, path + " is valid UTF-8");
    check_memory_setting(scan, doc, path);
  } catch (const InputError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) all += (all.empty() ? "" : "\n") + d.str();
    scan.add("config.wslconfig", kConfigGroup, FindingStatus::warn, path + " has lines WSL ignores",
             all + "\nWSL silently skips such lines, so those settings are not in force.",
             "Put each key on its own line under its [section] header ([wsl2], then memory=16GB on the next line), "
             "then run `wsl --shutdown` on Windows.");
  }
}

void check_memory(DoctorScan& scan) {
  auto meminfo = scan.read("/proc/meminfo");
  std::optional<std::uint64_t> total;
  if (meminfo) {
    std::string key;
    std::uint64_t kb = 0;
    for (std::string_view v : text::split_lines(*meminfo, text::LineEnd::newline_dropped)) {
      std::istringstream fields{std::string(v)};
      if (fields >> key >> kb && key == "MemTotal:") total = kb * 1024;
    }
  }
  if (!total) {
    scan.add("config.memory", kConfigGroup, FindingStatus::warn,
             "the distribution's memory is unknown: /proc/meminfo has no MemTotal",
             "doctor compares the memory WSL gives the distribution with the 8GB the source documents ask for.",
             "Check by hand: `free -g`.");
  } else if (*total < 8 * kGiB - kGiB / 2) {  // memory=8GB shows as a little under 8 GB
    scan.add("config.memory", kConfigGroup, FindingStatus::warn,
             "the distribution has " + size_text(*total) + " of memory, below 8GB", kMemoryCause, kMemoryFix);
  } else {
    scan.add("config.memory", kConfigGroup, FindingStatus::ok,
             "the distribution has " + size_text(*total) + " of memory");
  }
}

void check_disk(DoctorScan& scan) {
  std::optional<std::uint64_t> free_bytes;
  if (scan.machine.free_disk_bytes) free_bytes = scan.machine.free_disk_bytes();
  const std::string fix =
      "Free space (`sudo apt clean`, old files), or grow the distribution's virtual disk from Windows (Microsoft's "
      "WSL documentation: \"How to manage WSL disk space\").";
  const std::string cause =
      "ROCm and the CUDA toolkit take several GB to download and more to unpack; apt stops midway without space.";
  if (!free_bytes) {
    scan.add("config.disk", kConfigGroup, FindingStatus::warn, "free disk space is unknown", "",
             "Check by hand: `df -h /`.");
  } else if (*free_bytes < 2 * kGiB) {
    scan.add("config.disk", kConfigGroup, FindingStatus::fail, size_text(*free_bytes) + " of disk free", cause, fix);
  } else if (*free_bytes < 20 * kGiB) {
    scan.add("config.disk", kConfigGroup, FindingStatus::warn, size_text(*free_bytes) + " of disk free, below 20 GB",
             cause, fix);
  } else {
    scan.add("config.disk", kConfigGroup, FindingStatus::ok, size_text(*free_bytes) + " of disk free");
  }
}

void check_groups(DoctorScan& scan) {
  if (scan.host.user.empty()) return;
  std::vector<std::string> in, out;
  try {
    Accounts accounts(scan.fs);
    for (const char* name : {"video", "render"}) {
      auto g = accounts.group(name);
      bool member = g && (std::find(g->members.begin(), g->members.end(), scan.host.user) != g->members.end() ||
                          (scan.host.user_gid != 0 && g->gid == scan.host.user_gid));
      (member ? in : out).push_back(name);
    }
  } catch (const std::exception& e) {
    scan.add("config.groups", kConfigGroup, FindingStatus::warn, "the groups of " + scan.host.user + " cannot be read",
             e.what(), "Check by hand: `id " + scan.host.user + "`.");
    return;
  }
  const std::string& user = scan.host.user;
  if (out.empty()) {
    scan.add("config.groups", kConfigGroup, FindingStatus::ok, user + " is in video and render");
    return;
  }
  if (scan.host.wsl == "2" || !scan.exists("/dev/kfd")) {
    scan.add(
        "config.groups", kConfigGroup, FindingStatus::ok,
        user + " is not in " + join_words(out) +
            (scan.host.wsl == "2" ? ": not needed under WSL (there is no /dev/kfd)" : ": not needed without /dev/kfd"),
        "On native Linux the video and render groups open /dev/kfd and /dev/dri; under WSL the GPU is "
        "/dev/dxg, which every user can open.");
    return;
  }
  scan.add("config.groups", kConfigGroup, FindingStatus::warn, user + " is not in " + join_words(out),
           "This machine has /dev/kfd (native Linux): ROCm fails with permission errors for users outside video and "
           "render.",
           "sudo usermod -aG video,render " + user + " (-aG, never -G), then log out and in again.");
}

void check_path(DoctorScan& scan) {
  std::vector<std::pair<std::string, std::string>> bins;  // folder, profile that adds it
  if (scan.amd && scan.is_dir("/opt/rocm/bin")) bins.push_back({"/opt/rocm/bin", "rocm"});
  if (scan.nvidia && scan.is_dir("/usr/local/cuda/bin")) bins.push_back({"/usr/local/cuda/bin", "cuda"});
  if (bins.empty()) return;
  std::vector<std::string> found, missing;
  std::string fix;
  for (const auto& [dir, profile] : bins) {
    std::string file = scan.login_file_with(dir);
    if (!file.empty()) {
      found.push_back(dir + " (" + file + ")");
    } else {
      missing.push_back(dir);
      fix += (fix.empty() ? "" : "; ") + std::string("sudo wslgpu-setup install ") + profile +
             " (or add `export PATH=\"$PATH:" + dir + "\"` to ~/.bashrc)";
    }
  }
  if (missing.empty()) {
    scan.add("config.path", kConfigGroup, FindingStatus::ok, "PATH includes " + join_words(found));
    return;
  }
  scan.add("config.path", kConfigGroup, FindingStatus::warn,
           join_words(missing) + (missing.size() == 1 ? " is" : " are") + " not on PATH for login shells",
           "The toolkit's commands (rocminfo, hipcc, nvcc) are then found only by their full path.",
           fix + ", then open a new shell.");
}

void check_dpkg(DoctorScan& scan) {
  if (!scan.dpkg_problem.empty()) {
    scan.add("config.dpkg", kConfigGroup, FindingStatus::fail, "the dpkg status database cannot be read",
             scan.dpkg_problem + "\napt and dpkg cannot work with a damaged status database.",
             "Restore the newest backup that dpkg accepts: sudo cp /var/backups/dpkg.status.0 /var/lib/dpkg/status");
    return;
  }
  auto pending = pending_dpkg_updates(scan.fs);
  if (!pending.empty()) {
    scan.add("config.dpkg", kConfigGroup, FindingStatus::fail,
             "an earlier dpkg run was interrupted: /var/lib/dpkg/updates/ holds " + std::to_string(pending.size()) +
                 (pending.size() == 1 ? " unfinished entry" : " unfinished entries"),
             "apt refuses to install or remove anything until dpkg has finished the interrupted run.",
             "sudo dpkg --configure -a");
    return;
  }
  std::size_t count = 0;
  for (const auto& [name, version] : scan.installed)
    if (name.find(':') == std::string::npos) ++count;
  scan.add("config.dpkg", kConfigGroup, FindingStatus::ok,
           "dpkg is consistent (" + std::to_string(count) + " packages installed)");
}

}  // namespace

void check_configuration(DoctorScan& scan) {
  if (scan.host.wsl != "none") check_wslconfig(scan);  // no Windows behind plain Linux
  check_memory(scan);
  check_disk(scan);
  check_groups(scan);
  check_path(scan);
  check_dpkg(scan);
  check_apt_keys(scan);
}

}  // namespace wslgpu::doctor
