#include "installer/manifest/supported_systems.hpp"

#include <algorithm>
#include <map>

namespace wslgpu {

namespace {

// "ubuntu" -> "Ubuntu": os-release IDs are lowercase, people write names.
std::string display_name(const std::string& id) {
  static const std::map<std::string, std::string> names = {{"ubuntu", "Ubuntu"},
                                                           {"debian", "Debian"},
                                                           {"fedora", "Fedora"},
                                                           {"opensuse-leap", "openSUSE Leap"},
                                                           {"opensuse-tumbleweed", "openSUSE Tumbleweed"},
                                                           {"almalinux", "AlmaLinux"},
                                                           {"kali", "Kali"},
                                                           {"arch", "Arch Linux"},
                                                           {"ol", "Oracle Linux"}};
  auto it = names.find(id);
  return it != names.end() ? it->second : id;
}

std::string and_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

std::string describe_host(const HostFacts& h) {
  if (h.distro.empty()) return "a distribution that /etc/os-release does not name (no ID)";
  std::string out = display_name(h.distro);
  out += h.distro_version.empty() ? " (no VERSION_ID in /etc/os-release)" : " " + h.distro_version;
  if (!h.codename.empty()) out += " (" + h.codename + ")";
  return out;
}

}  // namespace

std::string unsupported_system(const HostFacts& host, const SupportedSystems& supported, const Variables& vars) {
  Variables scope = host.as_variables();
  for (const auto& [k, v] : vars) scope[k] = v;
  auto lookup = [&](const std::string& name) -> std::optional<std::string> {
    auto it = scope.find(name);
    return it == scope.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  // What applies for these variables, by distribution in manifest order.
  std::vector<std::pair<std::string, std::vector<std::string>>> applying;
  for (const auto& s : supported.systems) {
    if (s.when && !s.when->evaluate(lookup)) continue;
    if (s.distro == host.distro &&
        std::find(s.versions.begin(), s.versions.end(), host.distro_version) != s.versions.end())
      return "";
    auto it = std::find_if(applying.begin(), applying.end(), [&](const auto& a) { return a.first == s.distro; });
    if (it == applying.end()) applying.push_back({s.distro, {}}), it = applying.end() - 1;
    for (const auto& v : s.versions)
      if (std::find(it->second.begin(), it->second.end(), v) == it->second.end()) it->second.push_back(v);
  }
  std::vector<std::string> where;
  for (const auto& [distro, versions] : applying) where.push_back(display_name(distro) + " " + and_list(versions));
  std::string message = "this machine runs " + describe_host(host) + ", but " + supported.publisher;
  message += where.empty() ? " on no distribution for these settings." : " only on " + and_list(where) + ".";
  if (!supported.advice.empty()) message += " " + supported.advice;
  return message + " (--unsupported-distro plans and installs anyway, at your own risk.)";
}

std::string host_fact_origin(const std::string& name) {
  static const std::map<std::string, std::string> origins = {
      {"host.codename", "VERSION_CODENAME in /etc/os-release"},
      {"host.distro", "ID in /etc/os-release"},
      {"host.distro_version", "VERSION_ID in /etc/os-release"},
      {"host.kernel", "/proc/sys/kernel/osrelease"},
      {"host.gpu_vendor", "the Windows driver mounted under /usr/lib/wsl"},
      {"host.user", "--user, SUDO_USER, [user] default in /etc/wsl.conf, or the first user with uid 1000 or more"},
      {"host.user_home", "the user's entry in /etc/passwd"},
      {"host.windows_home", "--windows-home, interop or the one folder under /mnt/*/Users"},
      {"host.arch", "the machine's architecture"},
  };
  auto it = origins.find(name);
  return it != origins.end() ? it->second : "the machine";
}

}  // namespace wslgpu
