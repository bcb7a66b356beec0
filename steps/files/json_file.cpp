#include "steps/files/json_file.hpp"

#include <algorithm>
#include <cmath>

#include "installer/formats/json_text.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu {

namespace {

class JsonFileStep : public Step {
 public:
  std::string path;
  nlohmann::json merge = nlohmann::json::object();
  std::uint32_t mode = 0644;

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
    return p;
  }

 private:
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
  return s;
}

}  // namespace wslgpu
