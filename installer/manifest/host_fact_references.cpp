#include "installer/manifest/host_fact_references.hpp"

#include "installer/host/lazy_facts.hpp"
#include "installer/manifest/step_keys.hpp"

namespace wslgpu {

namespace {

// Adds to NAMED each lazily probed fact TEXT names.
void add_lazy_facts_named(const std::string& text, std::set<std::string>& named) {
  for (const auto& name : lazy_host_fact_names())
    if (text.find(name) != std::string::npos) named.insert(name);
}

// Whether PRED holds for any string of NODE (keys are names, never
// references), at any depth.
template <typename Pred>
bool any_string(const toml::node& node, const Pred& pred) {
  if (const toml::table* t = node.as_table()) {
    for (const auto& [k, v] : *t)
      if (any_string(v, pred)) return true;
    return false;
  }
  if (const toml::array* a = node.as_array()) {
    for (const toml::node& v : *a)
      if (any_string(v, pred)) return true;
    return false;
  }
  if (const auto* str = node.as_string()) return pred(str->get());
  return false;
}

}  // namespace

std::set<std::string> lazy_facts_mentioned(const toml::table& root, const Variables& overrides) {
  std::set<std::string> named;
  for (const auto& [k, v] : overrides) add_lazy_facts_named(v, named);
  // any_string stops at the first string the predicate holds for: never, to see them all.
  any_string(root, [&](const std::string& text) {
    add_lazy_facts_named(text, named);
    return false;
  });
  return named;
}

void empty_host_facts(const toml::node& node, const Variables& host_vars, const std::string& file,
                      std::vector<std::pair<std::string, SourcePos>>& out) {
  if (const toml::table* t = node.as_table()) {
    for (const auto& [k, v] : *t) empty_host_facts(v, host_vars, file, out);
  } else if (const toml::array* a = node.as_array()) {
    for (const toml::node& v : *a) empty_host_facts(v, host_vars, file, out);
  } else if (const auto* str = node.as_string()) {
    const std::string& text = str->get();
    for (std::size_t i = text.find("${host."); i != std::string::npos; i = text.find("${host.", i + 2)) {
      if (i > 0 && text[i - 1] == '$') continue;  // "$${" is a literal
      auto close = text.find('}', i);
      if (close == std::string::npos) break;
      std::string name = text.substr(i + 2, close - i - 2);
      auto it = host_vars.find(name);
      if (it != host_vars.end() && it->second.empty()) {
        SourcePos p = toml_pos(node, file);
        if (p.column > 0 && columns_match_source(text, i)) p.column += static_cast<std::uint32_t>(i + 1);
        out.push_back({name, p});
      }
    }
  }
}

bool references_any(const toml::node& node, const std::set<std::string>& names) {
  return any_string(node, [&](const std::string& text) {
    for (const auto& name : referenced_variables(text))
      if (names.count(name)) return true;
    return false;
  });
}

}  // namespace wslgpu
