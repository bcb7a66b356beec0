#include "installer/cli/suggested_commands.hpp"

#include "installer/system/text.hpp"

namespace wslgpu {

std::string program(const GlobalOptions& g) { return g.argv.empty() ? "wslgpu-setup" : text::shell_word(g.argv[0]); }

std::string root_option(const GlobalOptions& g) { return g.root == "/" ? "" : " --root " + text::shell_word(g.root); }

std::string again_with_sudo(const GlobalOptions& g) {
  std::string out = "sudo " + program(g);
  for (std::size_t i = 1; i < g.argv.size(); ++i) out += " " + text::shell_word(g.argv[i]);
  return out;
}

std::string apply_command(const GlobalOptions& g, const std::string& profile_arg) {
  std::string out = "sudo " + program(g) + " install " + text::shell_word(profile_arg);
  auto option = [&](const char* name, const std::string& value) {
    out += std::string(" ") + name + " " + text::shell_word(value);
  };
  if (g.root != "/") option("--root", g.root);
  if (!g.user.empty()) option("--user", g.user);
  if (!g.windows_home.empty()) option("--windows-home", g.windows_home);
  for (const auto& set : g.sets) option("--set", set);
  if (g.not_wsl) out += " --not-wsl";
  if (g.unsupported_distro) out += " --unsupported-distro";
  return out;
}

}  // namespace wslgpu
