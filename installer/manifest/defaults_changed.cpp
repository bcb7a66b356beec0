#include "installer/manifest/defaults_changed.hpp"

#include <vector>

#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

std::vector<std::string> profile_text_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (auto line : text::split_lines(text, text::LineEnd::newline_dropped)) lines.emplace_back(line);
  return lines;
}

std::string trim_blank(const std::string& s) {
  auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// The text of FILE as this load read it: the profile, or the base a layer
// requires. nullptr for --set and anything else.
const std::string* text_of(const Manifest& m, const ManifestSource& source, const std::string& file) {
  if (file == source.display) return &source.text;
  if (!m.base_source.empty() && file == m.base_source) return &m.base_text;
  return nullptr;
}

std::string comment_above(const std::vector<std::string>& lines, std::uint32_t header_line) {
  if (header_line < 2 || header_line > lines.size()) return "";
  std::size_t end = header_line - 1;  // index of the header
  std::size_t begin = end;
  while (begin > 0 && trim_blank(lines[begin - 1]).rfind('#', 0) == 0) --begin;
  for (std::size_t i = begin; i < end; ++i)
    if (trim_blank(lines[i]).rfind("# Source:", 0) == 0) {
      begin = i;
      break;
    }
  std::string out;
  for (std::size_t i = begin; i < end; ++i) {
    std::string t = trim_blank(lines[i]).substr(1);
    t = trim_blank(t);
    if (t.empty()) continue;
    out += (out.empty() ? "" : " ") + t;
  }
  return out;
}

}  // namespace

std::optional<Provisioned> provisioned_from(const std::string& id, const std::string& time,
                                            const nlohmann::json& record) {
  if (!record.is_object()) return std::nullopt;
  auto plan = record.find("plan");
  if (plan == record.end() || !plan->is_object()) return std::nullopt;
  auto vars = plan->find("vars");
  if (vars == plan->end() || !vars->is_object() || vars->empty()) return std::nullopt;
  Provisioned p{id, time, record.value("tool_version", ""), {}, {}};
  for (const auto& [name, value] : vars->items())
    if (value.is_string()) p.vars[name] = value.get<std::string>();
  if (auto sets = record.find("sets"); sets != record.end() && sets->is_object())
    for (const auto& [name, value] : sets->items())
      if (value.is_string()) p.sets[name] = value.get<std::string>();
  return p;
}

std::string source_comment_above(const std::string& text, std::uint32_t header_line) {
  return comment_above(profile_text_lines(text), header_line);
}

DefaultsChanged defaults_changed(const Manifest& now, const Manifest& as_then, const ManifestSource& source,
                                 const Provisioned& then) {
  DefaultsChanged out{then.transaction, then.time, then.tool_version, {}};
  for (const auto& [name, value] : as_then.vars) {
    auto was = then.vars.find(name);
    if (was == then.vars.end() || was->second == value) continue;  // the profile gives what it gave then
    // Only what this plan applies: not a value given with --set now (or
    // built from one), nor one that a --set now moved elsewhere.
    if (now.from_command_line.count(name)) continue;
    if (auto it = now.vars.find(name); it == now.vars.end() || it->second != value) continue;
    DefaultChange c;
    c.variable = name;
    c.from = was->second;
    c.to = value;
    if (auto w = as_then.var_where.find(name); w != as_then.var_where.end()) c.where = w->second.str();
    if (auto row = as_then.var_rows.find(name); row != as_then.var_rows.end()) {
      c.row = row->second.header;
      c.in_row = row->second.column;
      // toml++ keeps no comments: the row's source is read from the text.
      if (const std::string* text = text_of(as_then, source, row->second.pos.file))
        c.source = comment_above(profile_text_lines(*text), row->second.pos.line);
    }
    out.changes.push_back(std::move(c));
  }
  return out;
}

}  // namespace wslgpu
