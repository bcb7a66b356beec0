#include "installer/manifest/matrix.hpp"

#include <algorithm>
#include <set>

#include "installer/manifest/condition.hpp"
#include "installer/manifest/step_keys.hpp"
#include "installer/manifest/suggest.hpp"

namespace wslgpu {

namespace {

std::vector<std::string> names_of(const Variables& vars) {
  std::vector<std::string> out;
  for (const auto& [k, v] : vars) out.push_back(k);
  return out;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  std::string hint = suggest(name, known);
  return hint.empty() ? "" : " (did you mean \"" + hint + "\"?)";
}

std::string scalar_text(const toml::node& n) {
  if (n.is_string()) return n.as_string()->get();
  if (n.is_integer()) return std::to_string(n.as_integer()->get());
  if (n.is_boolean()) return n.as_boolean()->get() ? "true" : "false";
  return "";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The keys of a selector's table that say how "auto" chooses; the others are rows.
const std::vector<std::string>& auto_keys() {
  static const std::vector<std::string> keys = {"auto", "auto_why", "fallback", "fallback_why"};
  return keys;
}

struct Row {
  std::string value;
  const toml::table* columns;
};

// SELECTOR = "auto": the value of the row the table's `auto` condition
// chooses on MACHINE (or the recorded one), recorded in CHOSEN; "" when it
// chooses none (CHOSEN says why, or a diagnostic does).
std::string choose_row(const std::string& selector, const toml::table& table, const std::vector<Row>& rows,
                       const std::string& file, const Variables& raw, const Variables& overrides,
                       const MatrixMachine& machine, MatrixChoices& chosen, std::vector<Diagnostic>& diagnostics) {
  auto error = [&](const SourcePos& pos, const std::string& message) { diagnostics.push_back({pos, message}); };
  const std::string where_table = "[matrix." + selector + "]";
  std::vector<std::string> values;
  for (const auto& r : rows) values.push_back(r.value);
  auto has_row = [&](const std::string& v) { return std::find(values.begin(), values.end(), v) != values.end(); };
  std::string texts[3];  // auto, auto_why, fallback_why
  const char* text_keys[3] = {"auto", "auto_why", "fallback_why"};
  for (int i = 0; i < 3; ++i) {
    const toml::node* n = table.get(text_keys[i]);
    if (!n) continue;
    if (n->is_string()) texts[i] = n->as_string()->get();
    else error(toml_pos(*n, file), std::string("\"") + text_keys[i] + "\" in " + where_table + " must be a string, not " + toml_type_name(*n));
  }
  std::string fallback;
  if (const toml::node* f = table.get("fallback")) {
    if (!f->is_string() || !has_row(f->as_string()->get()))
      error(toml_pos(*f, file), "\"fallback\" must name a row of " + where_table + " (it has: " + join(values) + ")");
    else
      fallback = f->as_string()->get();
  }
  const toml::node* auto_node = table.get("auto");
  std::string message;
  std::size_t column = 0;
  auto condition = Condition::parse(texts[0], message, column);
  SourcePos auto_pos = toml_pos(*auto_node, file);
  if (!condition) {
    if (columns_match_source(texts[0], column)) auto_pos.column += static_cast<std::uint32_t>(column + 1);
    error(auto_pos, "bad condition: " + message);
    return "";
  }
  // It may name the selector, the rows' columns and host facts: what is
  // known before the variables are resolved.
  std::set<std::string> names;
  condition->names(names);
  for (const auto& name : names) {
    if (name == selector || raw.count(name) || machine.host.count(name)) continue;
    error(auto_pos, "condition refers to \"" + name + "\", which is neither a variable nor a host fact");
    return "";
  }

  VariableChoice choice{selector, "", "", ""};
  SourcePos why_pos = auto_pos;
  if (auto recorded = machine.recorded.find(selector); recorded != machine.recorded.end()) {
    if (!has_row(recorded->second)) {
      error(auto_pos, where_table + " has no row \"" + recorded->second +
                          "\", which the transaction recorded; the manifest has changed since");
      return "";
    }
    choice.value = recorded->second;
    choice.how = "recorded";
  } else {
    for (const auto& r : rows) {
      auto lookup = [&](const std::string& name) -> std::optional<std::string> {
        if (name == selector) return r.value;
        // A column given with --set keeps the user's value in the row that
        // is taken (apply_matrix), so the condition sees that value too.
        if (auto it = raw.find(name); it != raw.end() && overrides.count(name)) return it->second;
        if (const toml::node* c = r.columns->get(name)) return scalar_text(*c);
        if (auto it = raw.find(name); it != raw.end()) return it->second;
        if (auto it = machine.host.find(name); it != machine.host.end()) return it->second;
        return std::nullopt;
      };
      if (condition->evaluate(lookup)) {
        choice.value = r.value;
        choice.how = "auto";
        choice.why = texts[1];
        if (const toml::node* n = table.get("auto_why")) why_pos = toml_pos(*n, file);
        break;
      }
    }
    if (choice.value.empty() && !fallback.empty()) {
      choice.value = fallback;
      choice.how = "fallback";
      choice.why = texts[2];
      if (const toml::node* n = table.get("fallback_why")) why_pos = toml_pos(*n, file);
    }
    if (choice.value.empty()) {
      if (chosen.refusal.empty())
        chosen.refusal = selector + " = \"auto\" found no row of " + where_table + " for this machine (" +
                         condition->text() + " holds for none) and the table has no fallback.\n  Choose one with "
                         "--set " + selector + "=VALUE (" + join(values) + ").";
      // The selector, and the columns no row gave a value to.
      chosen.unresolved.insert(selector);
      for (const auto& r : rows)
        for (auto&& [column_name, value] : *r.columns) chosen.unresolved.insert(std::string(column_name.str()));
      return "";
    }
  }
  chosen.choices.push_back(choice);
  chosen.why_pos.push_back(why_pos);
  return choice.value;
}

}  // namespace

void apply_matrix(const toml::table& root, const std::string& file, const Variables& overrides, Variables& raw,
                  std::map<std::string, SourcePos>& where, std::vector<Diagnostic>& diagnostics,
                  const MatrixMachine& machine, MatrixChoices* chosen) {
  const toml::node* node = root.get("matrix");
  if (!node) return;
  auto error = [&](const SourcePos& pos, const std::string& message) { diagnostics.push_back({pos, message}); };
  const toml::table* matrix = node->as_table();
  if (!matrix) {
    error(toml_pos(*node, file),
          "\"matrix\" must be a table of [matrix.VARIABLE.\"VALUE\"] rows, not " + toml_type_name(*node));
    return;
  }
  const std::vector<std::string> declared = names_of(raw);
  for (auto&& [sel_key, sel_node] : *matrix) {
    const std::string selector(sel_key.str());
    const SourcePos sel_pos = toml_pos(sel_key.source(), file);
    if (!raw.count(selector)) {
      error(sel_pos, "[matrix." + selector + "] names no variable of [vars]" + did_you_mean(selector, declared) +
                         "; declare the variable whose value selects the row");
      continue;
    }
    const toml::table* rows = sel_node.as_table();
    if (!rows) {
      error(toml_pos(sel_node, file), "[matrix." + selector + "] must hold one table per value of " + selector +
                                          ", not " + toml_type_name(sel_node));
      continue;
    }
    if (raw[selector].find("${") != std::string::npos) {
      error(where[selector], "variable \"" + selector + "\" selects a [matrix] row, so its value must be plain text, " +
                                 "not built with ${...}; write the value itself");
      continue;
    }
    // The rows, in file order ("auto" tries them in that order).
    std::vector<Row> ordered;
    std::vector<std::pair<toml::source_position, Row>> found;
    for (auto&& [row_key, row_node] : *rows) {
      const std::string key(row_key.str());
      if (std::find(auto_keys().begin(), auto_keys().end(), key) != auto_keys().end() && !row_node.is_table()) continue;
      if (const toml::table* row = row_node.as_table()) found.push_back({row_key.source().begin, Row{key, row}});
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return a.first.line != b.first.line ? a.first.line < b.first.line : a.first.column < b.first.column;
    });
    for (auto& f : found) ordered.push_back(f.second);
    if (rows->get("auto")) {
      MatrixChoices ignored;
      MatrixChoices& out = chosen ? *chosen : ignored;
      if (raw[selector] == "auto") {
        // No row chosen: the defaults stay, and the rows are still checked.
        std::string value = choose_row(selector, *rows, ordered, file, raw, overrides, machine, out, diagnostics);
        if (!value.empty()) raw[selector] = value;
      } else {
        out.choices.push_back({selector, raw[selector], overrides.count(selector) ? "set" : "default", ""});
        out.why_pos.push_back(where[selector]);
      }
    } else {
      for (const auto& key : auto_keys())
        if (key != "auto" && rows->get(key) && !rows->get(key)->is_table())
          error(toml_pos(*rows->get(key), file),
                "\"" + key + "\" in [matrix." + selector + "] belongs to an \"auto\" condition, which this table "
                "does not have");
    }
    const std::string& value = raw[selector];
    for (auto&& [row_key, row_node] : *rows) {
      const std::string key(row_key.str());
      if (std::find(auto_keys().begin(), auto_keys().end(), key) != auto_keys().end() && !row_node.is_table()) continue;
      const toml::table* row = row_node.as_table();
      if (!row) {
        error(toml_pos(row_node, file), "the row for " + selector + " = \"" + key +
                                            "\" must be a table of variables, not " + toml_type_name(row_node));
        continue;
      }
      const bool selected = row_key.str() == value;
      const MatrixRowRef ref{"[matrix." + selector + ".\"" + key + "\"]", toml_pos(row_key.source(), file), false};
      if (selected && chosen) chosen->rows[selector] = ref;
      for (auto&& [col_key, col_node] : *row) {
        const std::string column(col_key.str());
        const SourcePos col_pos = toml_pos(col_key.source(), file);
        if (column == selector) {
          error(col_pos, "a row cannot set its own selector \"" + selector + "\"; remove this key");
          continue;
        }
        if (!raw.count(column)) {
          error(col_pos, "matrix column \"" + column + "\" is not a variable" + did_you_mean(column, declared) +
                             "; declare it in [vars] with the value for a release without a row");
          continue;
        }
        if (!col_node.is_string() && !col_node.is_integer() && !col_node.is_boolean()) {
          error(
              toml_pos(col_node, file),
              "matrix column \"" + column + "\" must be a string, integer or boolean, not " + toml_type_name(col_node));
          continue;
        }
        if (!selected || overrides.count(column)) continue;
        raw[column] = scalar_text(col_node);
        where[column] = toml_pos(col_node, file);
        if (chosen) chosen->rows[column] = MatrixRowRef{ref.header, ref.pos, true};
      }
    }
  }
}

}  // namespace wslgpu
