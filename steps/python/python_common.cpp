#include "steps/python/python_common.hpp"

#include <cctype>

#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "steps/commands/command.hpp"

namespace wslgpu {

namespace {

// As useradd accepts: letters, digits, '_', '.', '-', not starting with '-'
// or '.', at most 32 characters (so it cannot be read as an option).
bool valid_owner_name(const std::string& name) {
  if (name.empty() || name.size() > 32 || name[0] == '-' || name[0] == '.') return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

}  // namespace

std::string read_venv_owner(StepKeys& keys) {
  std::string owner = keys.required_string("owner");
  const toml::node* n = keys.has("owner") ? keys.node("owner") : nullptr;
  if (!n || !n->is_string()) return owner;  // required_string has said what is wrong
  // Empty is the machine's doing, not the manifest's: "${host.user}" on a
  // root without a WSL user yet (a distribution installed with --no-launch
  // and provisioned as root). The plan refuses it (find_venv_owner), exit 3,
  // saying to create the user or name one; the load would blame the profile.
  if (owner.empty()) return owner;
  if (!valid_owner_name(owner))
    keys.error("owner", "\"" + owner +
                            "\" is not a valid user name (letters, digits, '_', '.' and '-', not starting "
                            "with '-' or '.')");
  else if (owner == "root")
    keys.error("owner",
               "a virtual environment must belong to the user who works in it, not root: root's venv is one "
               "the user cannot pip install into; name the WSL user (for example \"${host.user}\")");
  return owner;
}

std::optional<UserEntry> find_venv_owner(const Accounts& accounts, const std::string& owner, std::string& why) {
  if (owner.empty()) {
    why = "no user to own the virtual environment: this root has no WSL user yet (none chosen by --user, "
          "SUDO_USER, [user] default in /etc/wsl.conf, or a UID from 1000 in /etc/passwd). Start the "
          "distribution once so that WSL creates its user, or create one, then run again; or name the "
          "user with --user NAME";
    return std::nullopt;
  }
  auto u = accounts.user(owner);
  if (!u) {
    why = "user " + owner +
          " does not exist in the root's /etc/passwd: create the user first (WSL creates it at the "
          "distribution's first start), or set owner to an existing user";
    return std::nullopt;
  }
  if (u->uid == 0) {
    why = "user " + owner + " has uid 0: a virtual environment must belong to a regular user, not root";
    return std::nullopt;
  }
  return u;
}

Command as_user(const UserEntry& user, std::vector<std::string> argv, std::chrono::seconds timeout) {
  Command c;
  c.argv = {"runuser", "-u", user.name, "--"};
  c.argv.insert(c.argv.end(), argv.begin(), argv.end());
  c.env["HOME"] = user.home.empty() ? "/" : user.home;
  c.timeout = timeout;
  return c;
}

void make_dirs_as(StepContext& ctx, const UserEntry& user, const std::vector<std::string>& dirs) {
  constexpr std::size_t per_command = 200;  // far below ARG_MAX, however long the paths
  for (std::size_t i = 0; i < dirs.size(); i += per_command) {
    std::vector<std::string> argv = {"mkdir", "-p", "--"};
    for (std::size_t j = i; j < dirs.size() && j < i + per_command; ++j) argv.push_back(dirs[j]);
    Command c = as_user(user, argv, std::chrono::seconds(120));
    ProcessResult r = ctx.runner.run(c);
    if (!r.ok()) throw StepFailure(process_failure_message(c, r));
  }
}

std::vector<std::string> missing_parents(const FileSystem& fs, const std::string& path) {
  std::vector<std::string> out;
  for (std::string p = parent_path(normalize_path(path)); p != "/" && !fs.lstat(p); p = parent_path(p))
    out.insert(out.begin(), p);
  return out;
}

std::string user_name_of(const FileSystem& fs, std::uint32_t uid) {
  for (const auto& u : parse_passwd_file(fs.stat("/etc/passwd") ? fs.read("/etc/passwd") : ""))
    if (u.uid == uid) return u.name;
  return "uid " + std::to_string(uid);
}

std::string python_release(const std::string& version) {
  auto dot = version.find('.');
  auto second = dot == std::string::npos ? std::string::npos : version.find('.', dot + 1);
  return version.substr(0, second);
}

std::string venv_interpreter_gone(const FileSystem& fs, const PyvenvCfg& cfg) {
  if (cfg.home.empty() || cfg.version.empty()) return "";
  const std::string interpreter = normalize_path(cfg.home) + "/python" + python_release(cfg.version);
  return fs.stat(interpreter) ? "" : interpreter;
}

std::string unused_path(const FileSystem& fs, const std::string& base) {
  std::string path = base;
  for (int n = 2; fs.lstat(path); ++n) path = base + "-" + std::to_string(n);
  return path;
}

}  // namespace wslgpu
