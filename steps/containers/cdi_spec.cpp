#include "steps/containers/cdi_spec.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "installer/formats/cdi_spec.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"
#include "steps/commands/command.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu {

namespace {

// World-readable: rootless podman reads the spec as the user.
const FileAttrs kSpecAttrs{0644, 0, 0};
constexpr std::size_t kListed = 8;  // host paths listed by name, then "and N more"
const std::vector<std::string> kDefaultMountOptions = {"ro", "nosuid", "nodev", "bind"};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool looks_json(const std::string& text) {
  auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{';
}

std::string folder_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash + 1);
}

std::string name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// "stale: names P, which no longer exists" for each host path of SPEC that
// is not in the root, the first few by name.
std::vector<std::string> stale_lines(const FileSystem& fs, const CdiSpec& spec, const std::string& path) {
  std::vector<std::string> missing;
  for (const auto& p : cdi_host_paths(spec))
    if (!fs.stat(p)) missing.push_back(p);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < missing.size() && i < kListed; ++i)
    out.push_back("stale: " + path + " names " + missing[i] + ", which no longer exists");
  if (missing.size() > kListed)
    out.push_back("stale: and " + std::to_string(missing.size() - kListed) + " more paths that no longer exist");
  return out;
}

// The host paths in A and not in B, by folder: "DIR/ (a, b, c and 9 more)".
std::vector<std::string> only_in(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::set<std::string> other(b.begin(), b.end());
  std::map<std::string, std::vector<std::string>> by_folder;
  std::vector<std::string> order;
  for (const auto& p : a) {
    if (other.count(p)) continue;
    std::string dir = folder_of(p);
    if (!by_folder.count(dir)) order.push_back(dir);
    by_folder[dir].push_back(name_of(p));
  }
  std::vector<std::string> out;
  for (const auto& dir : order) {
    const auto& names = by_folder[dir];
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < 3; ++i) list += (i ? ", " : "") + names[i];
    if (names.size() > 3) list += " and " + std::to_string(names.size() - 3) + " more";
    out.push_back(dir + " (" + list + ")");
  }
  return out;
}

// What differs between the spec at PATH and the one the program prints.
std::vector<std::string> difference_lines(const CdiSpec& old, const CdiSpec& now, const std::string& path) {
  std::vector<std::string> out;
  if (old.cdi_version != now.cdi_version) out.push_back("cdiVersion " + old.cdi_version + " -> " + now.cdi_version);
  if (old.kind != now.kind) out.push_back("kind " + old.kind + " -> " + now.kind);
  auto old_paths = cdi_host_paths(old), new_paths = cdi_host_paths(now);
  for (const auto& line : only_in(new_paths, old_paths)) out.push_back("now names " + line);
  for (const auto& line : only_in(old_paths, new_paths)) out.push_back("no longer names " + line);
  if (out.empty()) {
    std::string where;
    std::size_t n = 0;
    for (const auto& op : nlohmann::json::diff(old.data, now.data)) {
      if (n++ == 5) {
        where += ", ...";
        break;
      }
      where += (where.empty() ? "" : ", ") + op.value("path", std::string("/"));
    }
    out.push_back("the generated spec differs from " + path + " at " + where);
  }
  return out;
}

// The spec as the file holds it: the program's text as printed, or as JSON
// when the file's name says JSON and the program printed YAML.
std::string file_text(const std::string& printed, bool json_file) {
  if (!json_file || looks_json(printed)) return printed;
  return cdi_spec_to_json(printed).dump(2) + "\n";
}

class CdiSpecStep : public Step {
 public:
  std::string path;
  bool json_file = false;
  // Inline: the spec, and a line for each device node, mount and variable.
  nlohmann::json spec;
  std::vector<std::string> listing;
  // Generated: the program that prints it.
  std::vector<std::string> generate;

  Command generator() const {
    Command c;
    c.argv = generate;
    c.timeout = std::chrono::seconds(300);
    return c;
  }

  std::string spec_text() const { return json_file ? spec.dump(2) + "\n" : write_cdi_spec(spec); }

  // The spec at PATH, when there is one that reads; WHY says otherwise.
  static std::optional<CdiSpec> existing_spec(const ExistingFile& file, std::string& why) {
    if (!file.content) return std::nullopt;
    try {
      return read_cdi_spec(*file.content);
    } catch (const CdiSpecError& e) {
      why = e.what();
      return std::nullopt;
    }
  }

  StepPlan plan(StepContext& ctx) const override { return generate.empty() ? plan_inline(ctx) : plan_generated(ctx); }

  StepPlan plan_inline(StepContext& ctx) const {
    StepPlan p;
    ExistingFile now = probe_file(ctx.fs, path);
    std::string why;
    auto old = existing_spec(now, why);
    if (old && old->data == spec) {
      // The same spec, perhaps laid out otherwise: left as it is, but for
      // its mode and owner.
      if (!plan_file(ctx.fs, path, *now.content, kSpecAttrs, p)) {
        p.summary = path + " holds the wanted CDI spec (" + spec["kind"].get<std::string>() + ")";
        return p;
      }
      p.summary = "set the mode and owner of " + path;
      return p;
    }
    plan_file(ctx.fs, path, spec_text(), kSpecAttrs, p);
    p.summary = std::string(now.info ? "update " : "create ") + path + ": CDI spec for " +
                spec["kind"].get<std::string>() + "=" + spec["devices"][0]["name"].get<std::string>();
    std::vector<std::string> head = listing;
    if (!why.empty()) head.push_back(path + " holds no CDI spec that reads (" + why + "); it will be replaced");
    CdiSpec wanted = read_cdi_spec(spec_text());
    for (const auto& host : cdi_host_paths(wanted))
      if (!ctx.fs.stat(host)) head.push_back(host + " is not in the root now (an earlier step may install it)");
    p.details.insert(p.details.begin(), head.begin(), head.end());
    return p;
  }

  StepPlan plan_generated(StepContext& ctx) const {
    StepPlan p;
    Command c = generator();
    const std::string shown = "`" + c.display() + "`";
    ExistingFile now = probe_file(ctx.fs, path);
    std::string why;
    auto old = existing_spec(now, why);
    ProcessResult r = ctx.runner.run(c);
    p.fingerprint["generate:" + c.display()] = r.not_found ? std::string("not found")
                                               : r.ok()    ? "sha256:" + sha256_hex(r.out)
                                                           : std::string("failed");
    if (r.not_found) {
      p.fingerprint["file:" + path] = now.content ? "sha256:" + sha256_hex(*now.content) : std::string("absent");
      p.summary = "generate " + path + " at install with " + shown;
      p.details.push_back(generate.front() + " is not in the root now: an earlier step of this plan must install it");
      if (old) {
        auto stale = stale_lines(ctx.fs, *old, path);
        p.details.insert(p.details.end(), stale.begin(), stale.end());
      } else if (!why.empty()) {
        p.details.push_back(path + " holds no CDI spec that reads (" + why + "); it will be replaced");
      }
      add_write(p, now);
      return p;
    }
    CdiSpec fresh = checked_output(c, r);
    if (old && old->data == fresh.data) {
      if (!plan_file(ctx.fs, path, *now.content, kSpecAttrs, p)) {
        p.summary = path + " is as " + shown + " generates it";
        return p;
      }
      p.summary = "set the mode and owner of " + path;
      return p;
    }
    p.fingerprint["file:" + path] = now.content ? "sha256:" + sha256_hex(*now.content) : std::string("absent");
    p.summary = std::string(now.info ? "regenerate " : "generate ") + path + " with " + shown;
    if (old) {
      auto diff = difference_lines(*old, fresh, path);
      p.details.insert(p.details.end(), diff.begin(), diff.end());
      auto stale = stale_lines(ctx.fs, *old, path);
      p.details.insert(p.details.end(), stale.begin(), stale.end());
    } else if (!why.empty()) {
      p.details.push_back(path + " holds no CDI spec that reads (" + why + "); it will be replaced");
    }
    add_write(p, now);
    return p;
  }

  // The file apply writes: backed up by the runner before apply, its
  // SHA-256 taken after (the program's output may change by then).
  void add_write(StepPlan& p, const ExistingFile& now) const {
    p.verdict = Verdict::change;
    p.changes.push_back({{"type", "file"},
                         {"path", path},
                         {"action", now.info ? "update" : "create"},
                         {"source", generator().display()}});
    FileWrite w{path, std::nullopt, kSpecAttrs};
    w.written_by_apply = "";
    p.writes.push_back(w);
  }

  // The program's output read as a CDI spec, else a StepFailure with what
  // it said on standard error.
  static CdiSpec checked_output(const Command& c, const ProcessResult& r) {
    if (!r.ok()) throw StepFailure(process_failure_message(c, r));
    std::string problem;
    if (r.out.find_first_not_of(" \t\r\n") == std::string::npos) {
      problem = "printed nothing";
    } else {
      try {
        return read_cdi_spec(r.out);
      } catch (const CdiSpecError& e) {
        problem = "printed no CDI spec that reads (" + std::string(e.what()) + ")";
      }
    }
    std::string msg = "`" + c.display() + "` " + problem;
    auto lines = text::output_lines(r.err);
    if (lines.empty()) return fail_with(msg + ", and nothing on standard error");
    msg += "; its standard error:";
    for (std::size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i) msg += "\n  " + lines[i];
    return fail_with(msg);
  }
  [[noreturn]] static CdiSpec fail_with(const std::string& msg) { throw StepFailure(msg); }

  nlohmann::json apply(StepContext& ctx, const StepPlan&) override {
    if (generate.empty()) return nlohmann::json::object();  // the runner wrote the file
    Command c = generator();
    ProcessResult r = ctx.runner.run(c);
    checked_output(c, r);
    // A rename over PATH's own entry (write_atomic), as the runner's backup
    // of an apply-written file needs.
    ctx.fs.write_atomic(path, file_text(r.out, json_file), kSpecAttrs);
    return {{"path", path}, {"generated_by", generate}};
  }
  // Undo is the runner's: it restores the file it backed up, or removes it.
};

std::string spec_path_problem(const std::string& path) {
  const auto& dirs = cdi_spec_dirs();
  if (std::none_of(dirs.begin(), dirs.end(), [&](const std::string& d) { return folder_of(path) == d + "/"; })) {
    std::string list;
    for (const auto& d : dirs) list += (list.empty() ? "" : " or ") + d;
    return "path \"" + path + "\" is not in " + list +
           ": podman, containerd and CRI-O read CDI specs only from those "
           "folders (CDI's default spec directories), so a spec elsewhere would never be used";
  }
  if (!is_cdi_spec_name(name_of(path)))
    return "path \"" + path + "\" does not end in .yaml or .json, the only names CDI reads specs from";
  return "";
}

// One entry of "mounts": { host = ..., container = ..., options = [...] }.
std::optional<nlohmann::json> read_mount(StepKeys& keys, const toml::node& item) {
  if (!item.is_table()) {
    keys.error_at(
        keys.pos_of(item),
        "each of \"mounts\" is an inline table { host = \"...\", container = \"...\" }, not " + toml_type_name(item));
    return std::nullopt;
  }
  const toml::table& t = *item.as_table();
  nlohmann::json m = nlohmann::json::object();
  bool ok = true;
  for (auto&& [k, v] : t) {
    std::string key(k.str());
    if (key != "host" && key != "container" && key != "options") {
      keys.error_at(toml_pos(k.source(), keys.pos_of(item).file),
                    "a mount has no key \"" + key + "\" (it has host, container and options)");
      ok = false;
    }
  }
  for (const char* key : {"host", "container"}) {
    const toml::node* v = t.get(key);
    if (!v) {
      keys.error_at(keys.pos_of(item), std::string("a mount needs \"") + key + "\", an absolute path");
      ok = false;
      continue;
    }
    if (!v->is_string()) {
      keys.error_at(keys.pos_of(*v),
                    std::string("a mount's \"") + key + "\" must be a string, not " + toml_type_name(*v));
      ok = false;
      continue;
    }
    std::string value = keys.substitute_node(*v);
    if (std::string why = target_path_problem(value); !why.empty()) {
      keys.error_at(keys.pos_of(*v), "path \"" + value + "\" " + why);
      ok = false;
      continue;
    }
    m[std::string(key) == "host" ? "hostPath" : "containerPath"] = normalize_path(value);
  }
  std::vector<std::string> options = kDefaultMountOptions;
  if (const toml::node* o = t.get("options")) {
    options.clear();
    if (!o->is_array()) {
      keys.error_at(keys.pos_of(*o), "a mount's \"options\" must be an array of strings, not " + toml_type_name(*o));
      ok = false;
    } else {
      for (const toml::node& opt : *o->as_array()) {
        if (!opt.is_string()) {
          keys.error_at(keys.pos_of(opt), "a mount's \"options\" must hold only strings, not " + toml_type_name(opt));
          ok = false;
        } else {
          options.push_back(keys.substitute_node(opt));
        }
      }
    }
  }
  m["options"] = options;
  if (!ok) return std::nullopt;
  return m;
}

bool cdi_env_name_ok(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void read_inline(StepKeys& keys, CdiSpecStep& s) {
  std::string kind = keys.required_string("cdi_kind");
  if (keys.has("cdi_kind"))
    if (std::string why = cdi_kind_problem(kind); !why.empty()) keys.error("cdi_kind", why);
  std::string device = keys.string_or("device", "all");
  if (std::string why = cdi_device_name_problem(device); !why.empty()) keys.error("device", why);

  nlohmann::json device_edits = nlohmann::json::object();
  nlohmann::json common = nlohmann::json::object();
  nlohmann::json nodes = nlohmann::json::array();
  const toml::node* node_list = keys.node("device_nodes");
  std::size_t i = 0;
  for (const auto& n : keys.string_list("device_nodes")) {
    SourcePos at = node_list && node_list->is_array() && i < node_list->as_array()->size()
                       ? keys.pos_of(*node_list->as_array()->get(i))
                       : keys.pos("device_nodes");
    ++i;
    if (std::string why = target_path_problem(n); !why.empty()) {
      keys.error_at(at, "path \"" + n + "\" " + why);
      continue;
    }
    nodes.push_back({{"path", normalize_path(n)}});
    s.listing.push_back("device node " + normalize_path(n));
  }
  if (!nodes.empty()) device_edits["deviceNodes"] = nodes;

  nlohmann::json mounts = nlohmann::json::array();
  if (const toml::node* list = keys.node("mounts")) {
    if (!list->is_array()) {
      keys.error("mounts", "\"mounts\" must be an array of inline tables, not " + toml_type_name(*list));
    } else {
      for (const toml::node& item : *list->as_array())
        if (auto m = read_mount(keys, item)) {
          mounts.push_back(*m);
          std::string opts;
          for (const auto& o : (*m)["options"]) opts += (opts.empty() ? "" : ",") + o.get<std::string>();
          s.listing.push_back("mount " + (*m)["hostPath"].get<std::string>() + " at " +
                              (*m)["containerPath"].get<std::string>() + " (" + opts + ")");
        }
    }
  }
  if (!mounts.empty()) common["mounts"] = mounts;

  nlohmann::json env = nlohmann::json::array();
  const toml::node* env_list = keys.node("env");
  i = 0;
  for (const auto& e : keys.string_list("env")) {
    SourcePos at = env_list && env_list->is_array() && i < env_list->as_array()->size()
                       ? keys.pos_of(*env_list->as_array()->get(i))
                       : keys.pos("env");
    ++i;
    auto eq = e.find('=');
    if (eq == std::string::npos || !cdi_env_name_ok(e.substr(0, eq))) {
      keys.error_at(at, "\"" + e +
                            "\" is not NAME=VALUE with a valid variable name (letters, digits and '_', "
                            "not starting with a digit)");
      continue;
    }
    env.push_back(e);
    s.listing.push_back("environment " + e);
  }
  if (!env.empty()) common["env"] = env;

  auto given = [&](const char* key) {
    const toml::node* n = keys.node(key);
    return n && !(n->is_array() && n->as_array()->empty());
  };
  if (!given("device_nodes") && !given("mounts") && !given("env"))
    keys.error_at(keys.pos("cdi_kind"),
                  "a CDI device with no \"device_nodes\", \"mounts\" or \"env\" gives a container nothing: "
                  "give at least one (for WSL, device_nodes = [\"/dev/dxg\"])");

  // Device nodes go with the device, mounts and variables with every device
  // of the kind, as NVIDIA's own WSL spec has them.
  s.spec = {{"cdiVersion", ""}, {"kind", kind}, {"devices", {{{"name", device}, {"containerEdits", device_edits}}}}};
  if (!common.empty()) s.spec["containerEdits"] = common;
  std::string minimum = cdi_minimum_version(s.spec);
  std::string version = keys.string_or("cdi_version", minimum);
  const auto& known = cdi_known_versions();
  auto at = std::find(known.begin(), known.end(), version);
  if (at == known.end()) {
    std::string list;
    for (const auto& v : known) list += (list.empty() ? "" : ", ") + v;
    keys.error("cdi_version", "\"" + version + "\" is not a CDI spec version loaders take (" + list + ")");
  } else if (at < std::find(known.begin(), known.end(), minimum)) {
    keys.error("cdi_version", "this spec needs cdi_version " + minimum + " or later for the features it uses (" +
                                  version + " is older; CDI's loader refuses such a spec)");
  }
  s.spec["cdiVersion"] = version;
}

}  // namespace

std::shared_ptr<Step> make_cdi_spec_step(StepKeys& keys) {
  auto s = std::make_shared<CdiSpecStep>();
  s->path = keys.required_path("path");
  if (!s->path.empty())
    if (std::string why = spec_path_problem(s->path); !why.empty()) keys.error("path", why);
  s->json_file = ends_with(s->path, ".json");
  static const std::vector<std::string> inline_keys = {"cdi_kind", "device", "device_nodes",
                                                       "mounts",   "env",    "cdi_version"};
  bool has_inline = std::any_of(inline_keys.begin(), inline_keys.end(), [&](const auto& k) { return keys.has(k); });
  if (keys.has("generate")) {
    s->generate = keys.argv("generate").value_or(std::vector<std::string>{});
    for (const auto& k : inline_keys)
      if (keys.has(k)) {
        keys.error(k, "\"" + k +
                          "\" cannot go with \"generate\": the spec is either the program's output or "
                          "written from these keys; drop one of them");
        keys.node(k);
      }
    return s;
  }
  if (!has_inline) {
    keys.error_at(keys.pos("path"),
                  "step kind \"cdi_spec\" needs either \"generate\" (a program that prints the spec, such as "
                  "[\"nvidia-ctk\", \"cdi\", \"generate\", \"--mode=wsl\"]) or \"cdi_kind\" and the spec's "
                  "device_nodes, mounts and env");
    return s;
  }
  read_inline(keys, *s);
  return s;
}

}  // namespace wslgpu
