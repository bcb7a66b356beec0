#include "steps/files/profile_env.hpp"

#include <algorithm>
#include <cctype>

#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu {

namespace {

bool valid_profile_env_name(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A control character other than a tab: a line break in a value could forge
// a marker line in ~/.bashrc.
bool has_line_break_or_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7F;
  });
}

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

class ProfileEnvStep : public Step {
 public:
  bool system = true;
  std::vector<std::string> path_append;
  std::vector<std::string> path_prepend;
  std::vector<std::string> ld_library_path;
  std::vector<std::string> library_path;
  std::vector<std::pair<std::string, std::string>> env;

  // "case ..." lines that add DIR to VAR unless it is there already.
  static std::string add_to_list(const std::string& var, const std::string& dir, bool front) {
    std::string q = text::shell_quote(dir);
    std::string pattern = "*" + text::shell_quote(":" + dir + ":") + "*";
    std::string assign = front ? var + "=" + q + "\"${" + var + ":+:${" + var + "}}\""
                               : var + "=\"${" + var + ":+${" + var + "}:}\"" + q;
    return "case \":${" + var + "}:\" in " + pattern + ") ;; *) " + assign + " ;; esac\n";
  }

  std::string body() const {
    std::string out;
    if (!path_prepend.empty() || !path_append.empty()) {
      // Prepend in reverse so that the first listed ends up first.
      for (auto it = path_prepend.rbegin(); it != path_prepend.rend(); ++it) out += add_to_list("PATH", *it, true);
      for (const auto& d : path_append) out += add_to_list("PATH", d, false);
      out += "export PATH\n";
    }
    if (!ld_library_path.empty()) {
      for (auto it = ld_library_path.rbegin(); it != ld_library_path.rend(); ++it)
        out += add_to_list("LD_LIBRARY_PATH", *it, true);
      out += "export LD_LIBRARY_PATH\n";
    }
    if (!library_path.empty()) {
      for (auto it = library_path.rbegin(); it != library_path.rend(); ++it)
        out += add_to_list("LIBRARY_PATH", *it, true);
      out += "export LIBRARY_PATH\n";
    }
    for (const auto& [name, value] : env) out += "export " + name + "=" + text::shell_quote(value) + "\n";
    return out;
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    const std::string& name = ctx.manifest_name;
    if (name.empty() || name.find('/') != std::string::npos || has_line_break_or_control(name)) {
      p.verdict = Verdict::refused;
      p.summary = "the manifest name \"" + name + "\" cannot name a file or a marker";
      return p;
    }
    if (system) {
      std::string path = "/etc/profile.d/wslgpu-" + name + ".sh";
      std::string content = "# Written by wslgpu-setup for the manifest \"" + name +
                            "\"; the next run overwrites changes made here,\n# so edit the manifest instead.\n" +
                            body();
      bool existed = ctx.fs.stat(path).has_value();
      if (!plan_file(ctx.fs, path, content, FileAttrs{0644, 0, 0}, p)) {
        p.summary = path + " is as wanted";
        return p;
      }
      p.summary = (existed ? "update " : "create ") + path;
      return p;
    }

    if (ctx.host.user.empty()) {
      p.verdict = Verdict::refused;
      p.summary = "no user to provision for target = \"user\": pass --user NAME";
      return p;
    }
    if (ctx.host.user_home.empty() || !target_path_problem(ctx.host.user_home).empty()) {
      p.verdict = Verdict::refused;
      p.summary = "user " + ctx.host.user + " has no home folder in /etc/passwd for target = \"user\"";
      return p;
    }
    auto home = ctx.fs.stat(ctx.host.user_home);
    if (!home || home->type != FileType::directory) {
      p.verdict = Verdict::refused;
      p.summary = "the home folder " + ctx.host.user_home + " of " + ctx.host.user + " does not exist";
      return p;
    }
    std::string path = normalize_path(ctx.host.user_home + "/.bashrc");
    auto info = ctx.fs.stat(path);
    if (info && info->type != FileType::regular) {
      p.verdict = Verdict::refused;
      p.summary = path + " exists but is not a regular file";
      return p;
    }
    std::string text = info ? ctx.fs.read(path) : std::string();
    const std::string begin = "# >>> wslgpu-setup " + name + " >>>";
    const std::string end = "# <<< wslgpu-setup " + name + " <<<";
    std::string block = begin + "\n# Managed by wslgpu-setup for the manifest \"" + name +
                        "\"; edit the manifest, not this block.\n" + body() + end + "\n";

    // Find the markers, with the byte offsets of their lines.
    struct Mark {
      std::uint32_t line;
      std::size_t start, stop;  // [start, stop) covers the line and its newline
    };
    std::vector<Mark> begins, ends;
    std::size_t pos = 0;
    std::uint32_t number = 0;
    while (pos < text.size()) {
      auto nl = text.find('\n', pos);
      std::size_t stop = nl == std::string::npos ? text.size() : nl + 1;
      std::string line = rtrim(text.substr(pos, (nl == std::string::npos ? text.size() : nl) - pos));
      ++number;
      if (line == begin) begins.push_back({number, pos, stop});
      if (line == end) ends.push_back({number, pos, stop});
      pos = stop;
    }
    const std::string fix =
        " Remove the stray marker (or the extra block) by hand, then run again. Nothing was changed.";
    if (begins.size() > 1)
      throw InputError(SourcePos{path, begins[1].line, 1},
                       "the marker \"" + begin + "\" appears again (first on line " + std::to_string(begins[0].line) +
                           "), so the managed block is ambiguous." + fix);
    if (ends.size() > 1)
      throw InputError(SourcePos{path, ends[1].line, 1}, "the marker \"" + end + "\" appears again (first on line " +
                                                             std::to_string(ends[0].line) +
                                                             "), so the managed block is ambiguous." + fix);
    if (begins.size() == 1 && ends.empty())
      throw InputError(SourcePos{path, begins[0].line, 1},
                       "the marker \"" + begin + "\" has no closing \"" + end + "\" after it." + fix);
    if (ends.size() == 1 && begins.empty())
      throw InputError(SourcePos{path, ends[0].line, 1},
                       "the marker \"" + end + "\" has no opening \"" + begin + "\" before it." + fix);
    if (begins.size() == 1 && ends[0].line < begins[0].line)
      throw InputError(SourcePos{path, ends[0].line, 1}, "the marker \"" + end +
                                                             "\" comes before its opening marker on line " +
                                                             std::to_string(begins[0].line) + "." + fix);

    std::string wanted;
    bool had_block = begins.size() == 1;
    if (had_block) {
      wanted = text.substr(0, begins[0].start) + block + text.substr(ends[0].stop);
    } else {
      wanted = text;
      if (!wanted.empty() && wanted.back() != '\n') wanted += "\n";
      if (!wanted.empty()) wanted += "\n";
      wanted += block;
    }
    FileAttrs attrs =
        info ? FileAttrs{info->mode, info->uid, info->gid} : FileAttrs{0644, ctx.host.user_uid, ctx.host.user_gid};
    if (!plan_file(ctx.fs, path, wanted, attrs, p)) {
      p.summary = "the managed block in " + path + " is as wanted";
      return p;
    }
    p.summary =
        had_block ? "update the managed block in " + path : (info ? "add a managed block to " : "create ") + path;
    return p;
  }
};

void check_dirs(StepKeys& keys, const std::string& key, const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    if (d.empty() || d[0] != '/')
      keys.error(key, "\"" + d + "\" in \"" + key + "\" must be an absolute folder such as \"/opt/rocm/bin\"");
    else if (d.find(':') != std::string::npos)
      keys.error(key, "\"" + d + "\" in \"" + key + "\" must not hold ':', which separates folders in the list");
    else if (has_line_break_or_control(d))
      keys.error(key, "\"" + key + "\" entries must be one line without control characters");
  }
}

}  // namespace

// Where the key NAME (or its value) of the table KEY is, for messages.
SourcePos env_entry_pos(StepKeys& keys, const std::string& key, const std::string& name, bool value) {
  const toml::node* t = keys.node(key);
  if (t && t->is_table()) {
    for (auto&& [k, v] : *t->as_table()) {
      if (k.str() != name) continue;
      return value ? keys.pos_of(v) : toml_pos(k.source(), keys.pos_of(v).file);
    }
  }
  return keys.pos(key);
}

std::shared_ptr<Step> make_profile_env_step(StepKeys& keys) {
  auto s = std::make_shared<ProfileEnvStep>();
  s->system = keys.choice("target", {"system", "user"}, "system") == "system";
  s->path_append = keys.string_list("path_append");
  s->path_prepend = keys.string_list("path_prepend");
  s->ld_library_path = keys.string_list("ld_library_path");
  s->library_path = keys.string_list("library_path");
  check_dirs(keys, "path_append", s->path_append);
  check_dirs(keys, "library_path", s->library_path);
  check_dirs(keys, "path_prepend", s->path_prepend);
  check_dirs(keys, "ld_library_path", s->ld_library_path);
  for (auto& [name, value] : keys.string_table("env")) {
    if (!valid_profile_env_name(name)) {
      keys.error_at(env_entry_pos(keys, "env", name, false),
                    "\"" + name +
                        "\" is not a valid environment variable name (letters, digits and '_', "
                        "not starting with a digit)");
    } else if (name == "PATH" || name == "LD_LIBRARY_PATH" || name == "LIBRARY_PATH") {
      keys.error_at(env_entry_pos(keys, "env", name, false),
                    "set " + name + " through \"" +
                        (name == "PATH"              ? "path_append\" or \"path_prepend"
                         : name == "LIBRARY_PATH"    ? "library_path"
                                                     : "ld_library_path") +
                        "\", which keep what is there, not through \"env\"");
    } else if (has_line_break_or_control(value)) {
      keys.error_at(env_entry_pos(keys, "env", name, true),
                    "the value of " + name + " must be one line without control characters");
    } else {
      s->env.emplace_back(name, value);
    }
  }
  if (s->path_append.empty() && s->path_prepend.empty() && s->ld_library_path.empty() && s->library_path.empty() &&
      s->env.empty() && !keys.has("env"))
    keys.error_at(keys.pos("kind"),
                  "a profile_env step needs at least one of \"path_append\", \"path_prepend\", "
                  "\"ld_library_path\", \"library_path\" and \"env\"");
  return s;
}

}  // namespace wslgpu
