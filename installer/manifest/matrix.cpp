#include "installer/manifest/matrix.hpp"

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

}  // namespace

void apply_matrix(const toml::table& root, const std::string& file, const Variables& overrides, Variables& raw,
                  std::map<std::string, SourcePos>& where, std::vector<Diagnostic>& diagnostics) {
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
    const std::string& value = raw[selector];
    if (value.find("${") != std::string::npos) {
      error(where[selector], "variable \"" + selector + "\" selects a [matrix] row, so its value must be plain text, " +
                                 "not built with ${...}; write the value itself");
      continue;
    }
    for (auto&& [row_key, row_node] : *rows) {
      const toml::table* row = row_node.as_table();
      if (!row) {
        error(toml_pos(row_node, file), "the row for " + selector + " = \"" + std::string(row_key.str()) +
                                            "\" must be a table of variables, not " + toml_type_name(row_node));
        continue;
      }
      const bool selected = row_key.str() == value;
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
      }
    }
  }
}

}  // namespace wslgpu
