#include "steps/files/json_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "installer/formats/json_text.hpp"
#include "steps/commands/command.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu {

namespace {

class JsonFileStep : public Step {
 public:
  std::string path;
  nlohmann::json merge = nlohmann::json::object();
  std::uint32_t mode = 0644;
  // The systemd service that reads the file only when it starts ("docker"),
  // or "": restarted after apply writes the file, and again after a rollback
  // restores it, so that it runs with what the file says. Only when the file
  // changes: a converged rerun restarts nothing.
  std::string restart;

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    ExistingFile now = probe_file(ctx.fs, path);
    if (now.info && !now.content) {
      p.verdict = Verdict::refused;
      p.summary = path + " exists but is not a regular file; move it away, then run again";
      return p;
    }
    JsonMerge merged;
    try {
      merged = merge_json_text(now.content.value_or(""), merge, path);
    } catch (const InputError& e) {
      // Bad input, as a malformed manifest is (exit 2): the plan stops here.
      std::vector<Diagnostic> all = e.diagnostics();
      all.back().message +=
          "\nThe file is left as it is: fix it by hand (or move it away), then run again. "
          "Nothing was changed.";
      throw InputError(std::move(all));
    }
    // An existing file keeps its mode and owner: MODE is for a file this step creates.
    FileAttrs attrs = now.info ? FileAttrs{now.info->mode, now.info->uid, now.info->gid} : FileAttrs{mode, 0, 0};
    std::vector<std::string> said;
    std::string edits;
    for (const auto& c : merged.changes) {
      std::string key = json_key_path(c.key_path);
      said.push_back(c.added ? "add " + key + " = " + c.to.dump()
                             : "change " + key + " from " + c.from.dump() + " to " + c.to.dump());
      edits += (edits.empty() ? "" : ", ") + std::string(c.added ? "add " : "change ") + key;
    }
    if (!plan_file(ctx.fs, path, merged.text, attrs, p)) {
      std::vector<std::string> leaves;
      std::vector<std::string> at;
      leaf_paths(merge, at, leaves);
      std::string list;
      for (const auto& l : leaves) list += (list.empty() ? "" : ", ") + l;
      p.summary = path + " is as wanted";
      p.details.push_back("already set: " + list);
      return p;
    }
    p.summary = (now.info ? "update " : "create ") + path + (edits.empty() ? "" : ": " + edits);
    p.details.insert(p.details.begin(), said.begin(), said.end());
    for (const auto& c : merged.changes) {
      nlohmann::json change = {{"type", "json"},
                               {"path", path},
                               {"key", json_key_path(c.key_path)},
                               {"action", c.added ? "add" : "change"},
                               {"to", c.to}};
      if (!c.added) change["from"] = c.from;
      p.changes.push_back(change);
    }
    if (!restart.empty()) plan_restart(ctx, p);
    return p;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan&) override {
    // The runner has written the file; the service reads it only when it starts.
    if (!restarts_here(ctx)) return nlohmann::json::object();
    run_systemctl(ctx, "restart", restart);
    return {{"restarted", restart}};
  }

  // Journalled before apply: should the restart fail or the run be killed
  // during it, the rollback still restarts the service on the restored file.
  nlohmann::json snapshot(StepContext& ctx) const override {
    if (!restarts_here(ctx)) return nlohmann::json::object();
    return {{"restarted", restart}};
  }

  std::string after_restore(StepContext& ctx, const nlohmann::json& data) override {
    const nlohmann::json& source = data.value("partial", false) && data.contains("pre") ? data["pre"] : data;
    if (!source.is_object() || !source.contains("restarted")) return "";
    std::string unit = source["restarted"].get<std::string>();
    // systemd turned off since the install ([boot] systemd=false): nothing to
    // ask, and the file is back, so the rollback goes on and says so.
    if (!ctx.host.systemd) return unit + " not restarted: systemd does not run this distribution now; restart it yourself";
    // try-restart: a service the user has stopped since stays stopped, and
    // reads the restored file when it next starts.
    run_systemctl(ctx, "try-restart", unit);
    return "restarted " + unit;
  }

 private:
  // Without systemd (WSL's [boot] systemd=false) there is no service
  // manager to ask: the plan says so, and restarting is the user's.
  bool restarts_here(const StepContext& ctx) const { return !restart.empty() && ctx.host.systemd; }

  static void run_systemctl(StepContext& ctx, const std::string& verb, const std::string& unit) {
    Command c;
    c.argv = {"systemctl", verb, unit};
    c.timeout = std::chrono::seconds(120);
    ProcessResult r = ctx.runner.run(c);
    if (!r.ok()) throw StepFailure(process_failure_message(c, r));
  }

  void plan_restart(const StepContext& ctx, StepPlan& p) const {
    if (!ctx.host.systemd) {
      p.details.push_back(restart + " is not restarted: systemd does not run this distribution. " + restart +
                          " reads " + path + " when it starts: restart it yourself (sudo service " + restart +
                          " restart)");
      return;
    }
    p.details.push_back("then restart " + restart + " (`systemctl restart " + restart + "`), which reads " + path +
                        " only when it starts; a rollback restarts it again once the file is back");
    p.changes.push_back({{"type", "service"}, {"unit", restart}, {"action", "restart"}});
  }

  // The key paths of V's values that are not objects with members, for
  // "already set: runtimes.nvidia.args, runtimes.nvidia.path".
  static void leaf_paths(const nlohmann::json& v, std::vector<std::string>& at, std::vector<std::string>& out) {
    for (const auto& [key, item] : v.items()) {
      at.push_back(key);
      if (item.is_object() && !item.empty())
        leaf_paths(item, at, out);
      else
        out.push_back(json_key_path(at));
      at.pop_back();
    }
  }
};

// NODE, a value of the manifest's merge table, as JSON; problems go to KEYS
// with the value's FILE:LINE:COLUMN.
nlohmann::json json_of(StepKeys& keys, const toml::node& node, const std::string& where) {
  switch (node.type()) {
    case toml::node_type::table: {
      // In file order, so that problems are reported top to bottom (JSON
      // objects are sorted by key either way, as nvidia-ctk writes them).
      std::vector<std::pair<const toml::key*, const toml::node*>> entries;
      for (auto&& [k, v] : *node.as_table()) entries.emplace_back(&k, &v);
      std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        const auto& pa = a.first->source().begin;
        const auto& pb = b.first->source().begin;
        return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
      });
      nlohmann::json out = nlohmann::json::object();
      for (const auto& [k, v] : entries) {
        std::string key(k->str());
        out[key] = json_of(keys, *v, where + "." + json_key_path({key}));
      }
      return out;
    }
    case toml::node_type::array: {
      nlohmann::json out = nlohmann::json::array();
      std::size_t i = 0;
      for (const toml::node& item : *node.as_array())
        out.push_back(json_of(keys, item, where + "[" + std::to_string(i++) + "]"));
      return out;
    }
    case toml::node_type::string:
      return keys.substitute_node(node);
    case toml::node_type::integer:
      return node.as_integer()->get();
    case toml::node_type::floating_point: {
      double d = node.as_floating_point()->get();
      if (std::isfinite(d)) return d;
      keys.error_at(keys.pos_of(node), "\"" + where + "\" is " + (std::isnan(d) ? "nan" : "an infinity") +
                                           ", which JSON cannot hold: write a number");
      return nullptr;
    }
    case toml::node_type::boolean:
      return node.as_boolean()->get();
    default:
      keys.error_at(keys.pos_of(node), "\"" + where + "\" is " + toml_type_name(node) +
                                           ", which JSON has no form for: write it as a string");
      return nullptr;
  }
}

// A unit name as systemd.unit(5) allows it, minus what could be read as an
// option of systemctl.
bool valid_unit_name(const std::string& name) {
  if (name.empty() || name.size() > 255 || name[0] == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '_' || c == '.' || c == '@' || c == '-';
  });
}

}  // namespace

std::shared_ptr<Step> make_json_file_step(StepKeys& keys) {
  auto s = std::make_shared<JsonFileStep>();
  s->path = keys.required_path("path");
  const char* example = "merge.runtimes.nvidia = { path = \"nvidia-container-runtime\", args = [] }";
  const toml::node* merge = keys.node("merge");
  if (!merge) {
    keys.error_at(
        keys.pos("merge"),
        std::string("step kind \"json_file\" needs the key \"merge\", a table of the keys to set, such as ") + example);
  } else if (!merge->is_table() || merge->as_table()->empty()) {
    keys.error("merge", std::string("\"merge\" must be a table of the keys to set, such as ") + example + ", not " +
                            (merge->is_table() ? std::string("an empty table") : toml_type_name(*merge)));
  } else {
    s->merge = json_of(keys, *merge, "merge");
    // A --set value may be any bytes; JSON text must be UTF-8, and nlohmann
    // would throw when the plan writes it.
    try {
      (void)s->merge.dump();
    } catch (const nlohmann::json::type_error&) {
      keys.error("merge", "a string in \"merge\" is not valid UTF-8 (a --set value?); JSON text must be UTF-8");
    }
  }
  s->mode = keys.mode("mode").value_or(0644);
  if (auto unit = keys.optional_string("restart")) {
    if (!valid_unit_name(*unit))
      keys.error("restart",
                 "\"restart\" must name a systemd service, such as \"docker\" (letters, digits and \":_.@-\", not "
                 "starting with '-'), not \"" +
                     *unit + "\"");
    else
      s->restart = *unit;
  }
  return s;
}

}  // namespace wslgpu
