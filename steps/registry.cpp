#include "installer/manifest/step_kind.hpp"

#include <algorithm>

#include "steps/apt/apt_install.hpp"
#include "steps/apt/apt_remove.hpp"
#include "steps/apt/apt_repository.hpp"
#include "steps/apt/apt_update.hpp"
#include "steps/containers/cdi_spec.hpp"
#include "steps/checks/check.hpp"
#include "steps/commands/command.hpp"
#include "steps/apt/deb_install.hpp"
#include "steps/files/download.hpp"
#include "steps/files/file.hpp"
#include "steps/files/json_file.hpp"
#include "steps/files/profile_env.hpp"
#include "steps/python/python_packages.hpp"
#include "steps/python/python_venv.hpp"
#include "steps/accounts/user_groups.hpp"
#include "steps/windows/wslconfig.hpp"

namespace wslgpu {

const std::vector<StepKind>& step_kinds() {
  static const std::vector<StepKind> kinds = {
      {"apt_install", "packages installed with apt, the whole transaction resolved in plan, never a kernel module",
       &make_apt_install_step},
      {"apt_remove", "installed packages removed with apt; undo reinstalls the recorded versions",
       &make_apt_remove_step},
      {"apt_repository", "a deb822 apt source with its checked signing key and an optional pin",
       &make_apt_repository_step},
      {"apt_update", "fresh package lists (apt-get update --error-on=any), skipped while younger than max_age",
       &make_apt_update_step},
      {"cdi_spec",
       "a Container Device Interface spec in /etc/cdi (podman --device vendor.com/gpu=all), written or generated",
       &make_cdi_spec_step},
      {"check", "read-only assertion on a file, device, kernel version or command output", &make_check_step},
      {"command", "an argument list run in the root, for what no step kind covers", &make_command_step},
      {"deb_install", "a .deb installed with dpkg after its contents are inspected (no kernel modules)",
       &make_deb_install_step},
      {"download", "a file fetched over HTTPS and checked against its SHA-256", &make_download_step},
      {"file", "a file with the given content, mode and owner", &make_file_step},
      {"json_file", "keys merged into a JSON file (/etc/docker/daemon.json), keeping the rest as it is written",
       &make_json_file_step},
      {"profile_env", "PATH, LD_LIBRARY_PATH and variables for login shells (profile.d or ~/.bashrc)",
       &make_profile_env_step},
      {"python_packages", "wheels installed with pip into a venv as its owner, by URL (hash-pinned) or from an index",
       &make_python_packages_step},
      {"python_venv", "a Python virtual environment owned by a user, made with the distribution's python3 -m venv",
       &make_python_venv_step},
      {"user_groups", "the provisioned user added to groups such as video and render", &make_user_groups_step},
      {"wslconf", "keys in the distribution's /etc/wsl.conf ([boot] systemd, [user] default, ...)", &make_wslconf_step},
      {"wslconfig", "keys in the Windows-side .wslconfig ([wsl2] memory, processors, swap, ...)", &make_wslconfig_step},
  };
  return kinds;
}

const StepKind* find_step_kind(const std::string& name) {
  for (const auto& k : step_kinds())
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace wslgpu
