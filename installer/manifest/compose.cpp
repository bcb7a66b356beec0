#include "installer/manifest/compose.hpp"

#include <utility>

#include "installer/manifest/step_keys.hpp"

namespace wslgpu {
namespace {

std::string where_defined(const toml::node& n) {
  const auto& r = n.source();
  std::string file = r.path ? *r.path : std::string("the required profile");
  return file + ":" + std::to_string(r.begin.line);
}

// Moves every key of FROM into INTO; a key both hold is an error at FROM's
// key, named by WHAT ("variable", "guard") in BASE_NAME.
void move_new_keys(toml::table& into, toml::table& from, const std::string& what, const std::string& base_name,
                   std::vector<Diagnostic>& diagnostics) {
  for (auto&& [k, v] : from) {
    if (const toml::node* had = into.get(k.str())) {
      diagnostics.push_back({toml_pos(k.source(), ""), what + " \"" + std::string(k.str()) +
                                                           "\" is already defined by the required profile " +
                                                           base_name + " (" + where_defined(*had) +
                                                           "); a layer adds to it, and cannot change it" +
                                                           (what == "variable" ? ": give another value with --set"
                                                                               : std::string())});
      continue;
    }
    into.insert(k, std::move(v));
  }
}

// [matrix.SELECTOR."VALUE"] rows: a selector or row only the layer has is
// moved whole; a row both have gets the layer's columns.
void merge_matrix(toml::table& into, toml::table& from, const std::string& base_name,
                  std::vector<Diagnostic>& diagnostics) {
  for (auto&& [selector, node] : from) {
    toml::table* mine = into.get_as<toml::table>(selector.str());
    toml::table* theirs = node.as_table();
    if (!mine || !theirs) {
      if (const toml::node* had = into.get(selector.str()))
        diagnostics.push_back({toml_pos(selector.source(), ""), "matrix table \"" + std::string(selector.str()) +
                                                                    "\" is already defined by the required profile " +
                                                                    base_name + " (" + where_defined(*had) +
                                                                    "); a layer adds to it, and cannot change it"});
      else
        into.insert(selector, std::move(node));
      continue;
    }
    for (auto&& [row, row_node] : *theirs) {
      toml::table* base_row = mine->get_as<toml::table>(row.str());
      toml::table* layer_row = row_node.as_table();
      if (base_row && layer_row) {
        move_new_keys(*base_row, *layer_row, "matrix column", base_name, diagnostics);
      } else if (mine->get(row.str())) {
        diagnostics.push_back({toml_pos(row.source(), ""), "matrix key \"" + std::string(row.str()) + "\" of [matrix." +
                                                               std::string(selector.str()) +
                                                               "] is already defined by the required profile " +
                                                               base_name + "; a layer may add columns to its rows only"});
      } else {
        mine->insert(row, std::move(row_node));
      }
    }
  }
}

// [guards]: lists (refuse_packages, refuse_if, warn_if) grow; any other
// guard both define is an error.
void merge_guards(toml::table& into, toml::table& from, const std::string& base_name,
                  std::vector<Diagnostic>& diagnostics) {
  toml::table rest;
  for (auto&& [k, v] : from) {
    toml::array* mine = into.get_as<toml::array>(k.str());
    toml::array* theirs = v.as_array();
    bool list = k.str() == "refuse_packages" || k.str() == "refuse_if" || k.str() == "warn_if";
    if (list && mine && theirs) {
      for (auto& item : *theirs) mine->push_back(std::move(item));
    } else {
      rest.insert(k, std::move(v));
    }
  }
  move_new_keys(into, rest, "guard", base_name, diagnostics);
}

}  // namespace

void compose_layer(toml::table& base, toml::table& layer, const std::string& base_name,
                   std::vector<Diagnostic>& diagnostics) {
  for (auto&& [k, v] : layer) {
    const std::string key(k.str());
    toml::table* into = base.get_as<toml::table>(key);
    toml::table* from = v.as_table();
    if (key == "manifest" || !base.get(key)) {
      base.insert_or_assign(k, std::move(v));
    } else if (key == "step" && v.is_array() && base[key].is_array()) {
      toml::array& steps = *base.get_as<toml::array>(key);
      for (auto& s : *v.as_array()) steps.push_back(std::move(s));
    } else if (into && from && key == "vars") {
      move_new_keys(*into, *from, "variable", base_name, diagnostics);
    } else if (into && from && key == "matrix") {
      merge_matrix(*into, *from, base_name, diagnostics);
    } else if (into && from && key == "guards") {
      merge_guards(*into, *from, base_name, diagnostics);
    } else {
      // A type the loader will report in the layer's own words.
      base.insert_or_assign(k, std::move(v));
    }
  }
}

}  // namespace wslgpu
