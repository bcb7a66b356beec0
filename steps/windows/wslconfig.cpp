#include "steps/windows/wslconfig.hpp"
#include "installer/system/text.hpp"

#include <algorithm>
#include <cctype>

#include "installer/formats/ini.hpp"
#include "installer/manifest/suggest.hpp"
#include "installer/system/paths.hpp"
#include "steps/files/file_change.hpp"
#include "steps/windows/windows_interop.hpp"
#include "steps/windows/wsl_values.hpp"

namespace wslgpu {

namespace {

enum class ValueType { boolean, count, size, windows_path, text, choice, ipv4, ports };

struct KeySpec {
  const char* name;
  ValueType type;
  std::vector<std::string> choices = {};  // for ValueType::choice, spelled as Microsoft documents them
  // A count of Windows' logical CPUs: unset, WSL gives the VM all of them,
  // and it cannot give more, so a minimum is met when unset and is capped.
  bool windows_cpus = false;
};

struct SectionSpec {
  const char* name;
  std::vector<KeySpec> keys;
};

// Microsoft's wsl-config.md, [wsl2] and [experimental] of .wslconfig.
const std::vector<SectionSpec>& wslconfig_schema() {
  static const std::vector<SectionSpec> schema = {
      {"wsl2",
       {{"kernel", ValueType::windows_path},
        {"kernelModules", ValueType::windows_path},
        {"memory", ValueType::size},
        {"processors", ValueType::count, {}, true},
        {"localhostForwarding", ValueType::boolean},
        {"kernelCommandLine", ValueType::text},
        {"safeMode", ValueType::boolean},
        {"swap", ValueType::size},
        {"swapFile", ValueType::windows_path},
        {"pageReporting", ValueType::boolean},
        {"guiApplications", ValueType::boolean},
        {"debugConsole", ValueType::boolean},
        {"maxCrashDumpCount", ValueType::count},
        {"nestedVirtualization", ValueType::boolean},
        {"vmIdleTimeout", ValueType::count},
        {"dnsProxy", ValueType::boolean},
        {"networkingMode", ValueType::choice, {"none", "nat", "bridged", "mirrored", "virtioproxy"}},
        {"firewall", ValueType::boolean},
        {"dnsTunneling", ValueType::boolean},
        {"autoProxy", ValueType::boolean},
        {"defaultVhdSize", ValueType::size}}},
      {"experimental",
       {{"autoMemoryReclaim", ValueType::choice, {"disabled", "gradual", "dropCache"}},
        {"sparseVhd", ValueType::boolean},
        {"bestEffortDnsParsing", ValueType::boolean},
        {"dnsTunnelingIpAddress", ValueType::ipv4},
        {"initialAutoProxyTimeout", ValueType::count},
        {"ignoredPorts", ValueType::ports},
        {"hostAddressLoopback", ValueType::boolean}}},
  };
  return schema;
}

// Microsoft's wsl-config.md, the sections of /etc/wsl.conf.
const std::vector<SectionSpec>& wslconf_schema() {
  static const std::vector<SectionSpec> schema = {
      {"automount",
       {{"enabled", ValueType::boolean},
        {"mountFsTab", ValueType::boolean},
        {"root", ValueType::text},
        {"options", ValueType::text}}},
      {"network",
       {{"generateHosts", ValueType::boolean},
        {"generateResolvConf", ValueType::boolean},
        {"hostname", ValueType::text}}},
      {"interop", {{"enabled", ValueType::boolean}, {"appendWindowsPath", ValueType::boolean}}},
      {"user", {{"default", ValueType::text}}},
      {"boot", {{"systemd", ValueType::boolean}, {"command", ValueType::text}, {"protectBinfmt", ValueType::boolean}}},
      {"gpu", {{"enabled", ValueType::boolean}}},
      {"time", {{"useWindowsTimezone", ValueType::boolean}}},
  };
  return schema;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
}

bool has_control_character(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; });
}

bool valid_ini_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

// "C:\temp\kernel" or "C:\\temp\\kernel" -> "C:\\temp\\kernel": Microsoft
// documents path values with escaped backslashes.
std::string escape_windows_path(const std::string& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '\\') {
      while (i + 1 < path.size() && path[i + 1] == '\\') ++i;
      out += "\\\\";
    } else {
      out += path[i];
    }
  }
  return out;
}

// How two values of TYPE compare: WSL reads booleans, words and units
// without regard to case, a value may be written in double quotes, and a
// '#' outside them starts a comment ("6GB  # mine" is 6GB).
std::string comparable(ValueType type, std::string value) {
  value = without_trailing_comment(value);
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
  switch (type) {
    case ValueType::boolean:
    case ValueType::choice:
    case ValueType::size:
      return text::lower(value);
    case ValueType::windows_path:
      return text::lower(escape_windows_path(value));
    default:
      return value;
  }
}

struct Setting {
  std::string section;  // as the manifest spells it (the schema's spelling when known)
  std::string key;
  std::string value;  // as it will be written (with at_least, the minimum)
  ValueType type = ValueType::text;
  bool at_least = false;      // a larger value already in the file is kept
  bool windows_cpus = false;  // KeySpec::windows_cpus
};

// Turns one manifest value into the text written to the file, or sets
// PROBLEM. TEXT is the node's string with ${var} substituted, if a string.
std::string convert(const KeySpec& spec, const toml::node& node, const std::optional<std::string>& text,
                    std::string& problem) {
  auto text_of = [&]() { return text; };
  switch (spec.type) {
    case ValueType::boolean: {
      if (node.is_boolean()) return node.as_boolean()->get() ? "true" : "false";
      if (auto s = text_of(); s && (text::lower(*s) == "true" || text::lower(*s) == "false")) return text::lower(*s);
      problem = "must be true or false";
      return "";
    }
    case ValueType::count: {
      if (node.is_integer() && node.as_integer()->get() >= 0) return std::to_string(node.as_integer()->get());
      if (auto s = text_of(); s && all_digits(*s)) return *s;
      problem = "must be a whole number such as 8";
      return "";
    }
    case ValueType::size: {
      if (node.is_integer() && node.as_integer()->get() >= 0) return std::to_string(node.as_integer()->get());
      if (auto s = text_of()) {
        std::size_t digits = s->find_first_not_of("0123456789");
        std::string number = s->substr(0, digits);
        std::string unit = digits == std::string::npos ? "" : s->substr(digits);
        std::string u = text::lower(unit);
        if (all_digits(number) && (u.empty() || u == "b" || u == "kb" || u == "mb" || u == "gb" || u == "tb")) {
          std::string upper = unit;
          std::transform(upper.begin(), upper.end(), upper.begin(),
                         [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
          return number + upper;
        }
      }
      problem =
          "must be a size such as \"16GB\" or \"512MB\" (a number of bytes, or with the unit B, KB, MB, GB or TB)";
      return "";
    }
    case ValueType::windows_path: {
      auto s = text_of();
      if (s && s->size() >= 3 && std::isalpha(static_cast<unsigned char>((*s)[0])) && (*s)[1] == ':' &&
          ((*s)[2] == '\\' || (*s)[2] == '/') && !has_control_character(*s))
        return escape_windows_path(*s);
      problem = "must be an absolute Windows path such as \"C:\\\\temp\\\\kernel\"";
      return "";
    }
    case ValueType::choice: {
      if (auto s = text_of()) {
        for (const auto& c : spec.choices)
          if (text::lower(c) == text::lower(*s)) return c;
      }
      std::string list;
      for (const auto& c : spec.choices) list += (list.empty() ? "\"" : ", \"") + c + "\"";
      problem = "must be one of " + list;
      return "";
    }
    case ValueType::ipv4: {
      if (auto s = text_of()) {
        int parts = 0;
        bool ok = true;
        std::size_t start = 0;
        while (ok && start <= s->size()) {
          auto dot = s->find('.', start);
          std::string part = s->substr(start, dot == std::string::npos ? std::string::npos : dot - start);
          ok = all_digits(part) && part.size() <= 3 && std::stoi(part) <= 255;
          ++parts;
          if (dot == std::string::npos) break;
          start = dot + 1;
        }
        if (ok && parts == 4) return *s;
      }
      problem = "must be an IPv4 address such as \"10.255.255.254\"";
      return "";
    }
    case ValueType::ports: {
      std::vector<std::string> ports;
      bool ok = true;
      if (node.is_array()) {
        for (const auto& item : *node.as_array()) {
          if (item.is_integer())
            ports.push_back(std::to_string(item.as_integer()->get()));
          else
            ok = false;
        }
      } else if (auto s = text_of()) {
        std::size_t start = 0;
        while (true) {
          auto comma = s->find(',', start);
          ports.push_back(std::string(
              text::trim(s->substr(start, comma == std::string::npos ? std::string::npos : comma - start))));
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      } else {
        ok = false;
      }
      std::string out;
      for (const auto& p : ports) {
        if (!all_digits(p) || std::stol(p) < 1 || std::stol(p) > 65535) ok = false;
        out += (out.empty() ? "" : ",") + p;
      }
      if (ok && !ports.empty()) return out;
      problem = "must be a comma-separated list of ports such as \"3000,9000\" (or an array of integers)";
      return "";
    }
    case ValueType::text: {
      std::string s;
      if (auto t = text_of())
        s = *t;
      else if (node.is_integer())
        s = std::to_string(node.as_integer()->get());
      else if (node.is_boolean())
        s = node.as_boolean()->get() ? "true" : "false";
      else {
        problem = "must be a string, not " + toml_type_name(node);
        return "";
      }
      if (has_control_character(s)) {
        problem = "must be one line of text (no line breaks or control characters)";
        return "";
      }
      return s;
    }
  }
  return "";
}

// A value of TYPE (a size or a count) as a number WSL compares.
std::optional<std::uint64_t> wslconfig_number(ValueType type, const std::string& value) {
  return type == ValueType::size ? wsl_size_bytes(value) : wsl_count(value);
}

// For a setting with at_least: the value to write, or nullopt to leave the
// file as it is, saying why in NOTES when that is not plain ("kept: memory
// 48GB (above 16GB)"). CURRENT holds the key's values in file order. CPUS
// is filled the first time a minimum would raise a count of CPUs, so that
// a plan with nothing to raise asks interop nothing.
std::optional<std::string> raise_to_minimum(StepContext& ctx, const Setting& s, const std::vector<std::string>& current,
                                            std::optional<LogicalCpus>& cpus, std::vector<std::string>& notes) {
  if (current.empty()) {
    if (!s.windows_cpus) return s.value;
    notes.push_back("kept: " + s.key + " unset (WSL's default, all of Windows' logical CPUs, is never fewer than " +
                    s.value + " would give)");
    return std::nullopt;
  }
  // WSL uses the first occurrence of a key and warns about the others.
  const std::string& raw = current.front();
  auto seen = wsl_value(raw);
  auto have = seen ? wslconfig_number(s.type, *seen) : std::nullopt;
  if (!have) {
    notes.push_back("kept: " + s.key + " " + without_trailing_comment(raw) + " (WSL cannot read it as " +
                    (s.type == ValueType::size ? "a size such as 16GB" : "a whole number such as 8") +
                    ", so it is left for you to correct)");
    return std::nullopt;
  }
  auto want = wslconfig_number(s.type, s.value);  // checked when the manifest loaded
  if (*have == *want) return std::nullopt;
  if (*have > *want) {
    notes.push_back("kept: " + s.key + " " + *seen + " (above " + s.value + ")");
    return std::nullopt;
  }
  if (!s.windows_cpus) return s.value;
  if (!cpus) cpus = windows_logical_cpus(ctx);
  if (cpus->count == 0) {
    notes.push_back(s.key + ": " + s.value + " is written unchecked, as " + cpus->description);
    return s.value;
  }
  if (cpus->count >= *want) {
    notes.push_back(s.key + ": " + s.value + " fits: " + cpus->description);
    return s.value;
  }
  if (*have >= cpus->count) {
    notes.push_back("kept: " + s.key + " " + *seen + " (not raised to " + s.value + ": " + cpus->description + ")");
    return std::nullopt;
  }
  notes.push_back(s.key + ": " + std::to_string(cpus->count) + ", not " + s.value + ": " + cpus->description);
  return std::to_string(cpus->count);
}

class IniSettingsStep : public Step {
 public:
  enum class Target { windows_profile, wsl_conf } target = Target::wsl_conf;
  std::vector<Setting> settings;
  bool rewrite_utf16 = false;

  // Where the Windows profile folder is, or "" with the reasons in TRIED:
  // --windows-home; else the folder an earlier install found through
  // interop, which the state directory remembers, while it is still there;
  // else what interop says (FROM_INTEROP is then set, so that an install
  // remembers it); else the one user folder under /mnt/*/Users that the host
  // probe found (a guess: with several Windows accounts, or a profile on
  // another drive, only interop knows). Interop costs a Windows process
  // (100 ms and more); a converged plan asks it nothing.
  static std::string windows_home(StepContext& ctx, std::vector<std::string>& tried, bool& from_interop) {
    if (!ctx.host.windows_home.empty() && !ctx.host.windows_home_guessed) return ctx.host.windows_home;
    std::string remembered = remembered_windows_home(ctx);
    if (!remembered.empty()) return remembered;
    std::string home = windows_home_from_interop(ctx, tried);
    if (!home.empty()) {
      from_interop = true;
      return home;
    }
    if (!ctx.host.windows_home.empty()) return ctx.host.windows_home;
    tried.push_back("no --windows-home was given and no single user folder was found under /mnt/*/Users");
    return "";
  }

  static std::string memory_path(const StepContext& ctx) { return ctx.state_dir + "/windows-home"; }

  // The remembered folder, when it still is a folder /mnt/DRIVE/Users/NAME.
  static std::string remembered_windows_home(StepContext& ctx) {
    const std::string path = memory_path(ctx);
    auto info = ctx.fs.stat(path);
    if (!info || info->type != FileType::regular || info->size > 4096) return "";
    std::string home;
    try {
      home = text::trim(ctx.fs.read(path));
    } catch (const StepFailure&) {
      return "";
    }
    if (home.empty() || !target_path_problem(home).empty() || normalize_path(home) != home) return "";
    // /mnt/c/Users/alice: four parts, the third "Users".
    std::vector<std::string> parts;
    for (std::size_t start = 1; start <= home.size();) {
      auto slash = home.find('/', start);
      parts.push_back(home.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
      start = slash == std::string::npos ? home.size() + 1 : slash + 1;
    }
    if (parts.size() != 4 || parts[0] != "mnt" || parts[2] != "Users" || parts[3].empty()) return "";
    auto dir = ctx.fs.stat(home);
    if (!dir || dir->type != FileType::directory) return "";
    return home;
  }

  // %USERPROFILE% through interop: cmd.exe, then wslpath. "" with the reason in TRIED.
  static std::string windows_home_from_interop(StepContext& ctx, std::vector<std::string>& tried) {
    std::size_t failures = tried.size();
    std::string win = windows_echo(ctx, "%USERPROFILE%", tried);
    if (tried.size() > failures) return "";
    if (win.size() < 3 || win[1] != ':' || win.find('%') != std::string::npos) {
      tried.push_back("`" + windows_cmd_exe(ctx.fs) + " /c echo %USERPROFILE%` printed \"" + win +
                      "\", not a Windows folder");
      return "";
    }
    Command conv;
    conv.argv = {"wslpath", "-u", win};
    conv.timeout = std::chrono::seconds(5);
    ProcessResult w = ctx.runner.run(conv);
    std::string linux_path = std::string(text::trim(w.out));
    if (!w.ok() || linux_path.empty() || linux_path[0] != '/' || !target_path_problem(linux_path).empty()) {
      tried.push_back("`" + conv.display() + "` " +
                      (w.not_found   ? std::string("was not found")
                       : w.timed_out ? std::string("did not answer within 5 s")
                                     : "gave \"" + linux_path + "\""));
      return "";
    }
    auto info = ctx.fs.stat(linux_path);
    if (!info || info->type != FileType::directory) {
      tried.push_back("interop named " + win + " (" + linux_path + "), which is not a folder here");
      return "";
    }
    return normalize_path(linux_path);
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    std::string path = "/etc/wsl.conf";
    if (target == Target::windows_profile) {
      std::vector<std::string> tried;
      bool from_interop = false;
      std::string home = windows_home(ctx, tried, from_interop);
      if (home.empty()) {
        p.verdict = Verdict::refused;
        p.summary =
            "cannot find the Windows profile folder (%USERPROFILE%) for .wslconfig: "
            "pass --windows-home /mnt/c/Users/NAME";
        p.details = tried;
        return p;
      }
      auto folder = ctx.fs.stat(home);
      if (!folder || folder->type != FileType::directory) {
        p.verdict = Verdict::refused;
        p.summary = "the Windows profile folder " + home + " does not exist; check --windows-home";
        return p;
      }
      path = home + "/.wslconfig";
      if (from_interop) p.remember.push_back(FileWrite{memory_path(ctx), home + "\n", FileAttrs{0644, 0, 0}});
    }

    ExistingFile now = probe_file(ctx.fs, path);
    if (now.info && !now.content) {
      p.verdict = Verdict::refused;
      p.summary = path + " exists but is not a regular file; move it away, then run again";
      return p;
    }
    std::string text = now.content.value_or("");
    bool converted = false;
    if (looks_like_utf16(text)) {
      if (!rewrite_utf16) {
        throw StepFailure(path +
                          ":1: the file is saved as UTF-16, which WSL silently ignores, so its settings "
                          "have no effect. Save it as UTF-8 (in Notepad: File > Save as, Encoding UTF-8), or set "
                          "rewrite_utf16 = true in this step to let it be rewritten as UTF-8. Nothing was changed.");
      }
      auto decoded = utf16_to_utf8(text);
      if (!decoded) {
        throw InputError(SourcePos{path, 1, 1},
                         "the file looks like UTF-16 but is not valid UTF-16, so it cannot be "
                         "rewritten safely; fix or remove it by hand. Nothing was changed.");
      }
      text = *decoded;
      converted = true;
    }
    IniDocument doc;
    try {
      doc = IniDocument::parse(text, path);
    } catch (const InputError& e) {
      // Bad input, as a malformed manifest is (exit 2): the plan stops here.
      std::vector<Diagnostic> all = e.diagnostics();
      all.back().message +=
          "\nWSL would misread this file, so it is left as it is: fix it by "
          "hand, then run again. Nothing was changed.";
      throw InputError(std::move(all));
    }
    if (!now.info) doc.use_crlf(target == Target::windows_profile);

    std::vector<std::string> edits;
    std::vector<std::string> notes;
    std::vector<std::string> sections_noted;
    std::optional<LogicalCpus> cpus;
    for (const auto& s : settings) {
      auto current = doc.values(s.section, s.key);
      std::string value = s.value;
      if (s.at_least) {
        auto raised = raise_to_minimum(ctx, s, current, cpus, notes);
        if (!raised) continue;
        value = *raised;
      }
      bool same = !current.empty() && std::all_of(current.begin(), current.end(), [&](const std::string& v) {
        return comparable(s.type, v) == comparable(s.type, value);
      });
      if (same) continue;
      std::string label = "[" + s.section + "] " + s.key;
      std::string from = current.empty() ? std::string("(unset)") : current.back();
      edits.push_back(label + " " + from + " -> " + value);
      p.changes.push_back({{"type", "setting"},
                           {"path", path},
                           {"section", s.section},
                           {"key", s.key},
                           {"from", current.empty() ? nlohmann::json(nullptr) : nlohmann::json(current.back())},
                           {"to", value}});
      if (current.size() > 1)
        notes.push_back("note: " + s.key + " appears " + std::to_string(current.size()) + " times in [" + s.section +
                        "]; every occurrence is set");
      auto headers = doc.section_lines(s.section);
      if (headers.size() > 1 &&
          std::find(sections_noted.begin(), sections_noted.end(), text::lower(s.section)) == sections_noted.end()) {
        sections_noted.push_back(text::lower(s.section));
        std::string lines;
        for (auto l : headers) lines += (lines.empty() ? "" : ", ") + std::to_string(l);
        notes.push_back("note: [" + s.section + "] appears on lines " + lines +
                        "; a key already present is set where it is, a new key goes into the last one");
      }
      doc.set(s.section, s.key, value);
    }

    FileAttrs attrs;
    if (now.info) {
      attrs = FileAttrs{now.info->mode, now.info->uid, now.info->gid};
    } else if (target == Target::windows_profile) {
      attrs = FileAttrs{0644, ctx.host.user_uid, ctx.host.user_gid};
    }
    std::string wanted = doc.str();
    if (!plan_file(ctx.fs, path, wanted, attrs, p)) {
      p.summary = path + " already has " + std::to_string(settings.size()) +
                  (settings.size() == 1 ? " setting" : " settings") + " as wanted";
      p.details.insert(p.details.begin(), notes.begin(), notes.end());
      return p;
    }
    std::string summary = path;
    if (converted) summary += " (rewritten as UTF-8: WSL ignores UTF-16)";
    for (std::size_t i = 0; i < edits.size(); ++i) summary += (i == 0 ? "  " : ", ") + edits[i];
    p.summary = summary;
    p.details.insert(p.details.begin(), notes.begin(), notes.end());
    if (converted) p.details.insert(p.details.begin(), path + " is saved as UTF-16; it will be rewritten as UTF-8");
    p.notices.push_back(target == Target::windows_profile
                            ? path +
                                  " changed: run `wsl --shutdown` from Windows (PowerShell or cmd), then start "
                                  "the distribution again, for the new settings to apply."
                            : path +
                                  " changed: run `wsl --terminate <distro>` (or `wsl --shutdown`) from Windows, "
                                  "then start the distribution again, for the new settings to apply.");
    return p;
  }
};

std::shared_ptr<Step> make_ini_step(StepKeys& keys, IniSettingsStep::Target target,
                                    const std::vector<SectionSpec>& schema, const char* example) {
  auto s = std::make_shared<IniSettingsStep>();
  s->target = target;
  s->rewrite_utf16 = keys.boolean("rewrite_utf16", false);
  bool allow_unknown = keys.boolean("allow_unknown", false);
  std::vector<std::string> section_names;
  for (const auto& sec : schema) section_names.push_back(sec.name);

  const toml::node* settings = keys.node("settings");
  if (!settings) {
    keys.error_at(keys.pos("settings"),
                  std::string("this step needs the key \"settings\", a table of sections such as ") + example);
    return s;
  }
  if (!settings->is_table() || settings->as_table()->empty()) {
    keys.error("settings", std::string("\"settings\" must be a table of sections such as ") + example);
    return s;
  }
  // toml++ keeps tables sorted by key; sort by position to keep file order.
  auto in_file_order = [](const toml::table& t) {
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (auto&& [k, v] : t) entries.emplace_back(&k, &v);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      const auto& pa = a.first->source().begin;
      const auto& pb = b.first->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    return entries;
  };
  for (const auto& [sk, sv] : in_file_order(*settings->as_table())) {
    std::string section(sk->str());
    SourcePos spos = toml_pos(sk->source(), keys.pos_of(*sv).file);
    if (!sv->is_table()) {
      keys.error_at(keys.pos_of(*sv), "\"settings." + section +
                                          "\" must be a table of keys such as { key = \"value\" }, "
                                          "not " +
                                          toml_type_name(*sv));
      continue;
    }
    const SectionSpec* sec = nullptr;
    for (const auto& candidate : schema)
      if (text::lower(candidate.name) == text::lower(section)) sec = &candidate;
    if (!sec && !(allow_unknown && valid_ini_name(section))) {
      std::string hint = suggest(text::lower(section), section_names);
      keys.error_at(spos, allow_unknown
                              ? "section name \"" + section + "\" may hold only letters, digits, '_', '-' and '.'"
                              : "unknown section [" + section + "]" +
                                    (hint.empty() ? "" : " (did you mean [" + hint + "]?)") +
                                    "; set allow_unknown = true to write it anyway");
      continue;
    }
    std::vector<std::string> key_names;
    if (sec)
      for (const auto& k : sec->keys) key_names.push_back(k.name);
    for (const auto& [kk, kv] : in_file_order(*sv->as_table())) {
      std::string key(kk->str());
      SourcePos kpos = keys.pos_of(*kv);
      const KeySpec* spec = nullptr;
      if (sec)
        for (const auto& candidate : sec->keys)
          if (text::lower(candidate.name) == text::lower(key)) spec = &candidate;
      KeySpec loose{"", ValueType::text};
      if (!spec) {
        if (!allow_unknown) {
          std::vector<std::string> lowered;
          for (const auto& n : key_names) lowered.push_back(text::lower(n));
          std::string near = suggest(text::lower(key), lowered);
          std::string hint;
          for (const auto& n : key_names)
            if (!near.empty() && text::lower(n) == near) hint = n;
          keys.error_at(toml_pos(kk->source(), kpos.file),
                        "unknown key \"" + key + "\" in [" + section + "]" +
                            (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                            "; set allow_unknown = true to write it anyway");
          continue;
        }
        if (!valid_ini_name(key)) {
          keys.error_at(toml_pos(kk->source(), kpos.file),
                        "key name \"" + key + "\" may hold only letters, digits, '_', '-' and '.'");
          continue;
        }
        spec = &loose;
      }
      // A value is written as given, or is { at_least = VALUE }: a minimum,
      // which keeps a larger value the user already has.
      const toml::node* value_node = kv;
      std::string what = "[" + section + "] " + key;
      if (kv->is_table()) {
        value_node = nullptr;
        bool bad = false;
        for (const auto& [pk, pv] : in_file_order(*kv->as_table())) {
          if (pk->str() == "at_least") {
            value_node = pv;
            continue;
          }
          std::string hint = suggest(std::string(pk->str()), {"at_least"});
          keys.error_at(toml_pos(pk->source(), kpos.file),
                        "unknown key \"" + std::string(pk->str()) + "\" in the value of " + what +
                            (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                            "; a value is written as it is, or as { at_least = VALUE }");
          bad = true;
        }
        if (bad) continue;
        if (spec->type != ValueType::size && spec->type != ValueType::count) {
          keys.error_at(kpos, what +
                                  " cannot have at_least: it applies to sizes and counts (such as memory and "
                                  "processors); write the value itself");
          continue;
        }
        if (!value_node) {
          keys.error_at(kpos, what + " { } needs at_least, such as { at_least = " +
                                  (spec->type == ValueType::size ? "\"16GB\"" : "8") + " }, or write the value itself");
          continue;
        }
      }
      SourcePos vpos = keys.pos_of(*value_node);
      std::optional<std::string> text;
      if (value_node->is_string()) text = keys.substitute_node(*value_node);
      // A variable that comes out empty (swap = "${swap}" with swap = "")
      // leaves the key as the file has it: a profile can offer a setting
      // without imposing it.
      if (text && text->empty() && !referenced_variables(value_node->as_string()->get()).empty()) continue;
      std::string problem;
      std::string value = convert(*spec, *value_node, text, problem);
      bool at_least = value_node != kv;
      if (problem.empty() && at_least && !wslconfig_number(spec->type, value))
        problem = spec->type == ValueType::size ? "must be a size WSL reads, such as \"16GB\" (a zero is 0 alone)"
                                                : "must be a whole number such as 8";
      if (!problem.empty()) {
        keys.error_at(vpos, what + (at_least ? " at_least " : " ") + problem);
        continue;
      }
      // A minimum given with --set is the user's own choice: written as
      // given, also when lower than what the file has.
      if (at_least && keys.uses_command_line(*value_node)) at_least = false;
      s->settings.push_back(
          {sec ? sec->name : section, *spec->name ? spec->name : key, value, spec->type, at_least, spec->windows_cpus});
    }
  }
  return s;
}

}  // namespace

std::shared_ptr<Step> make_wslconfig_step(StepKeys& keys) {
  return make_ini_step(keys, IniSettingsStep::Target::windows_profile, wslconfig_schema(),
                       "settings.wsl2 = { memory = \"16GB\" }");
}

std::shared_ptr<Step> make_wslconf_step(StepKeys& keys) {
  return make_ini_step(keys, IniSettingsStep::Target::wsl_conf, wslconf_schema(), "settings.boot = { systemd = true }");
}

}  // namespace wslgpu
