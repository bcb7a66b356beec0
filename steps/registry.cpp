#include "steps/registry.hpp"

#include <algorithm>

#include "steps/check.hpp"
#include "steps/command.hpp"
#include "steps/file.hpp"
#include "steps/profile_env.hpp"
#include "steps/user_groups.hpp"
#include "steps/wslconfig.hpp"

namespace wslgpu {

const std::vector<StepKind>& step_kinds() {
  static const std::vector<StepKind> kinds = {
      {"check", "read-only assertion on a file, device, kernel version or command output", &make_check_step},
      {"command", "an argument list run in the root, for what no step kind covers", &make_command_step},
      {"file", "a file with the given content, mode and owner", &make_file_step},
      {"profile_env", "PATH, LD_LIBRARY_PATH and variables for login shells (profile.d or ~/.bashrc)",
       &make_profile_env_step},
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

namespace {
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string suggest(const std::string& name, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
  for (const auto& k : known) {
    std::size_t d = edit_distance(name, k);
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best;
}

}  // namespace wslgpu
