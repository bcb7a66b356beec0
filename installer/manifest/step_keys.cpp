#include "installer/manifest/step_keys.hpp"

#include <algorithm>

#include "installer/manifest/suggest.hpp"
#include "installer/system/paths.hpp"

namespace wslgpu {

std::string toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date or time";
    default: return "nothing";
  }
}

// A node parsed from another file than FILE (the profile a layer requires,
// installer/manifest/compose.hpp) names its own.
SourcePos toml_pos(const toml::source_region& region, const std::string& file) {
  return SourcePos{region.path && !region.path->empty() ? *region.path : file, region.begin.line, region.begin.column};
}

SourcePos toml_pos(const toml::node& node, const std::string& file) { return toml_pos(node.source(), file); }

StepKeys::StepKeys(const toml::table& table, std::string file, std::string kind, const Variables& vars,
                   std::vector<Diagnostic>& diagnostics, std::set<std::string> from_command_line)
    : table_(table),
      file_(std::move(file)),
      kind_(std::move(kind)),
      vars_(vars),
      diagnostics_(diagnostics),
      from_command_line_(std::move(from_command_line)) {}

const toml::node* StepKeys::get(const std::string& key) {
  used_.insert(key);
  return table_.get(key);
}

SourcePos StepKeys::pos(const std::string& key) const {
  if (const toml::node* n = table_.get(key)) return toml_pos(*n, file_);
  return toml_pos(table_, file_);
}

void StepKeys::error(const std::string& key, const std::string& message) { error_at(pos(key), message); }

void StepKeys::error_at(const SourcePos& p, const std::string& message) { diagnostics_.push_back({p, message}); }

std::string StepKeys::expect_string(const std::string& key, const toml::node& node) {
  if (!node.is_string()) {
    error(key, "\"" + key + "\" must be a string, not " + toml_type_name(node));
    return "";
  }
  return substitute(node.as_string()->get(), vars_, toml_pos(node, file_), diagnostics_);
}

std::string StepKeys::substitute_node(const toml::node& string_node) {
  if (!string_node.is_string()) return "";
  return substitute(string_node.as_string()->get(), vars_, toml_pos(string_node, file_), diagnostics_);
}

bool StepKeys::uses_command_line(const toml::node& string_node) const {
  if (!string_node.is_string()) return false;
  for (const auto& name : referenced_variables(string_node.as_string()->get()))
    if (from_command_line_.count(name)) return true;
  return false;
}

std::string StepKeys::required_string(const std::string& key) {
  const toml::node* n = get(key);
  if (!n) {
    error_at(toml_pos(table_, file_), "step kind \"" + kind_ + "\" needs the key \"" + key + "\"");
    return "";
  }
  return expect_string(key, *n);
}

std::optional<std::string> StepKeys::optional_string(const std::string& key) {
  const toml::node* n = get(key);
  if (!n) return std::nullopt;
  return expect_string(key, *n);
}

std::string StepKeys::string_or(const std::string& key, const std::string& fallback) {
  return optional_string(key).value_or(fallback);
}

bool StepKeys::boolean(const std::string& key, bool fallback) {
  const toml::node* n = get(key);
  if (!n) return fallback;
  if (!n->is_boolean()) {
    error(key, "\"" + key + "\" must be true or false, not " + toml_type_name(*n));
    return fallback;
  }
  return n->as_boolean()->get();
}

std::int64_t StepKeys::integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) {
  const toml::node* n = get(key);
  if (!n) return fallback;
  if (!n->is_integer()) {
    error(key, "\"" + key + "\" must be an integer, not " + toml_type_name(*n));
    return fallback;
  }
  std::int64_t v = n->as_integer()->get();
  if (v < min || v > max) {
    error(key, "\"" + key + "\" must be between " + std::to_string(min) + " and " + std::to_string(max) +
                   ", not " + std::to_string(v));
    return fallback;
  }
  return v;
}

std::vector<std::string> StepKeys::string_list(const std::string& key) {
  std::vector<std::string> out;
  const toml::node* n = get(key);
  if (!n) return out;
  if (!n->is_array()) {
    error(key, "\"" + key + "\" must be an array of strings, not " + toml_type_name(*n));
    return out;
  }
  for (const toml::node& item : *n->as_array()) {
    if (!item.is_string()) {
      error_at(toml_pos(item, file_), "\"" + key + "\" must hold only strings, not " + toml_type_name(item));
      continue;
    }
    out.push_back(substitute(item.as_string()->get(), vars_, toml_pos(item, file_), diagnostics_));
  }
  return out;
}

std::vector<std::string> StepKeys::required_string_list(const std::string& key) {
  if (!table_.contains(key)) {
    used_.insert(key);
    error_at(toml_pos(table_, file_), "step kind \"" + kind_ + "\" needs the key \"" + key + "\"");
    return {};
  }
  auto out = string_list(key);
  if (out.empty() && table_.get(key)->is_array()) error(key, "\"" + key + "\" must not be empty");
  return out;
}

std::vector<std::pair<std::string, std::string>> StepKeys::string_table(const std::string& key) {
  std::vector<std::pair<std::string, std::string>> out;
  const toml::node* n = get(key);
  if (!n) return out;
  if (!n->is_table()) {
    error(key, "\"" + key + "\" must be a table of strings, not " + toml_type_name(*n));
    return out;
  }
  // toml++ keeps tables sorted by key; sort by position to keep file order.
  std::vector<std::pair<const toml::key*, const toml::node*>> entries;
  for (auto&& [k, v] : *n->as_table()) entries.emplace_back(&k, &v);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto& pa = a.first->source().begin;
    const auto& pb = b.first->source().begin;
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  for (const auto& [k, v] : entries) {
    if (!v->is_string()) {
      error_at(toml_pos(*v, file_),
               "\"" + key + "." + std::string(k->str()) + "\" must be a string, not " + toml_type_name(*v));
      continue;
    }
    // Keys are substituted too: a package named by a variable
    // (versions = { "${rocm_package}" = "7.2.2.*" }) gets its version.
    out.emplace_back(substitute(std::string(k->str()), vars_, toml_pos(k->source(), file_), diagnostics_),
                     substitute(v->as_string()->get(), vars_, toml_pos(*v, file_), diagnostics_));
  }
  return out;
}

std::optional<std::string> StepKeys::optional_path(const std::string& key) {
  auto p = optional_string(key);
  if (!p) return std::nullopt;
  std::string problem = target_path_problem(*p);
  if (!problem.empty()) {
    error(key, "path \"" + *p + "\" " + problem);
    return std::nullopt;
  }
  return normalize_path(*p);
}

std::string StepKeys::required_path(const std::string& key) {
  if (!table_.contains(key)) {
    used_.insert(key);
    error_at(toml_pos(table_, file_), "step kind \"" + kind_ + "\" needs the key \"" + key + "\"");
    return "";
  }
  return optional_path(key).value_or("");
}

std::vector<std::string> StepKeys::packages(const std::string& key) {
  std::vector<std::string> out;
  const toml::node* n = table_.get(key);
  auto names = required_string_list(key);
  std::size_t i = 0;
  for (const auto& name : names) {
    SourcePos p = pos(key);
    if (n && n->is_array() && i < n->as_array()->size()) p = toml_pos(*n->as_array()->get(i), file_);
    ++i;
    if (!is_valid_package_name(name)) {
      error_at(p, "\"" + name + "\" is not a valid Debian package name (lowercase letters, digits, "
                                "'+', '-' and '.', starting with a letter or digit)");
      continue;
    }
    out.push_back(name);
  }
  return out;
}

std::optional<std::vector<std::string>> StepKeys::argv(const std::string& key) {
  if (!table_.contains(key)) {
    used_.insert(key);
    return std::nullopt;
  }
  const toml::node* n = table_.get(key);
  if (!n->is_array()) {
    used_.insert(key);
    error(key, "\"" + key + "\" must be an argument list such as [\"rocminfo\"], not " + toml_type_name(*n) +
                   " (commands never run through a shell)");
    return std::nullopt;
  }
  auto out = string_list(key);
  if (out.empty()) {
    error(key, "\"" + key + "\" must name a program");
    return std::nullopt;
  }
  return out;
}

std::optional<std::uint32_t> StepKeys::mode(const std::string& key) {
  if (const toml::node* n = table_.get(key); n && !n->is_string()) {
    used_.insert(key);
    error(key, "\"" + key + "\" must be an octal mode written as a string, such as \"0644\", not " + toml_type_name(*n) +
                   (n->is_integer() ? " (TOML reads 644 as a decimal number)" : ""));
    return std::nullopt;
  }
  auto s = optional_string(key);
  if (!s) return std::nullopt;
  if (s->empty() || s->size() > 4 || s->find_first_not_of("01234567") != std::string::npos) {
    error(key, "\"" + key + "\" must be an octal mode of up to four digits 0 to 7, such as \"0644\", not \"" + *s + "\"");
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(std::stoul(*s, nullptr, 8));
}

std::string StepKeys::choice(const std::string& key, const std::vector<std::string>& choices,
                             const std::string& fallback) {
  auto s = optional_string(key);
  if (!s) return fallback;
  for (const auto& c : choices)
    if (c == *s) return *s;
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i)
    list += std::string(i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + "\"" + choices[i] + "\"";
  error(key, "\"" + key + "\" must be " + list + ", not \"" + *s + "\"");
  return fallback;
}

void StepKeys::finish() {
  // Report in file order so that messages read top to bottom.
  std::vector<std::pair<toml::source_position, std::string>> unknown;
  for (auto&& [k, v] : table_) {
    std::string name(k.str());
    if (!used_.count(name)) unknown.emplace_back(k.source().begin, name);
  }
  std::sort(unknown.begin(), unknown.end(), [](const auto& a, const auto& b) {
    return a.first.line != b.first.line ? a.first.line < b.first.line : a.first.column < b.first.column;
  });
  // The keys the kind asked for are the ones it knows: suggest the closest.
  std::vector<std::string> known(used_.begin(), used_.end());
  for (const auto& [p, name] : unknown) {
    std::string hint = suggest(name, known);
    diagnostics_.push_back({SourcePos{file_, p.line, p.column}, "unknown key \"" + name + "\" in a step of kind \"" +
                                                                    kind_ + "\"" +
                                                                    (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)")});
  }
}

}  // namespace wslgpu
