#include "installer/host/windows_programs.hpp"

#include <optional>

#include "installer/formats/ini.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

// /etc/wsl.conf parsed, or nullopt when absent, unreadable or not an INI
// file WSL could read (doctor reports those; here they count as absent, as
// WSL then uses its defaults).
std::optional<IniDocument> wsl_conf(const FileSystem& fs) {
  try {
    auto info = fs.stat("/etc/wsl.conf");
    if (!info || info->type != FileType::regular) return std::nullopt;
    return IniDocument::parse(fs.read("/etc/wsl.conf"), "/etc/wsl.conf");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

WindowsProgram find_windows_program(const FileSystem& fs, const std::string& program) {
  WindowsProgram found;
  const auto conf = wsl_conf(fs);
  if (conf) {
    if (auto enabled = conf->get("interop", "enabled"); enabled && text::lower(*enabled) == "false") {
      found.why_not = "interop is turned off in /etc/wsl.conf";
      return found;
    }
  }
  if (!fs.stat("/proc/sys/fs/binfmt_misc/WSLInterop") && !fs.stat("/proc/sys/fs/binfmt_misc/WSLInterop-late")) {
    found.why_not = "no WSLInterop entry in /proc/sys/fs/binfmt_misc, so Windows programs cannot run";
    return found;
  }
  std::string mount_root = "/mnt";
  if (conf) {
    if (auto root = conf->get("automount", "root"); root && !root->empty()) {
      mount_root = *root;
      while (mount_root.size() > 1 && mount_root.back() == '/') mount_root.pop_back();
    }
  }
  std::vector<std::string> drives;
  try {
    drives = fs.list(mount_root);
  } catch (const std::exception&) {
  }
  for (const auto& drive : drives) {
    const std::string candidate = mount_root + "/" + drive + "/Windows/System32/" + program;
    if (fs.stat(candidate)) {
      found.path = candidate;
      return found;
    }
  }
  const auto slash = program.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : "/" + program.substr(0, slash);
  found.why_not = program.substr(slash == std::string::npos ? 0 : slash + 1) + " was not found under " + mount_root +
                  "/<drive>/Windows/System32" + folder;
  found.only_not_on_a_drive = true;
  return found;
}

}  // namespace wslgpu
