// [guards] of a manifest: the packages it refuses, the kernel and WSL it
// needs, its own refuse_if and warn_if conditions, and [guards.supported],
// the systems its publisher supports (supported_systems.hpp). Read by the
// Loader (manifest_loader.hpp) after [vars], whose values they may use.
#include <string>
#include <vector>

#include "installer/manifest/manifest_loader.hpp"
#include "installer/manifest/step_keys.hpp"
#include "installer/manifest/substitute.hpp"
#include "installer/manifest/supported_systems.hpp"

namespace wslgpu::manifest_loading {

namespace {

bool is_os_release_word(const std::string& w) {
  return !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
}

}  // namespace

void Loader::read_guards(const toml::table& root) {
  const toml::table* t = table_at(root, "guards", false);
  if (!t) return;
  const std::string& file = source_.display;
  check_keys(*t, {"refuse_packages", "min_kernel", "require_wsl2", "require_dxg", "refuse_if", "warn_if", "supported"},
             "[guards]");
  read_refuse_if(*t, "refuse_if", manifest_.guards.refuse_if);
  read_refuse_if(*t, "warn_if", manifest_.guards.warn_if);
  read_supported(*t);
  if (const toml::node* n = t->get("refuse_packages")) {
    if (!n->is_array()) {
      error(toml_pos(*n, file), "\"refuse_packages\" must be an array of package names or patterns, not " +
                                    toml_type_name(*n));
    } else {
      for (const toml::node& item : *n->as_array()) {
        if (!item.is_string()) {
          error(toml_pos(item, file), "\"refuse_packages\" must hold only strings, not " + toml_type_name(item));
          continue;
        }
        std::string pattern = item.as_string()->get();
        if (pattern.empty() || pattern.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789+-.*?") != std::string::npos) {
          error(toml_pos(item, file), "\"" + pattern + "\" is not a package name or pattern: use only lowercase "
                                      "letters, digits, '+', '-', '.' and the wildcards '*' and '?'");
          continue;
        }
        if (pattern.front() == '-' || pattern.front() == '+' || pattern.front() == '.') {
          error(toml_pos(item, file), "\"" + pattern + "\" is not a package name or pattern: it must start with a "
                                      "lowercase letter, a digit or a wildcard");
          continue;
        }
        manifest_.guards.refuse_packages.push_back(pattern);
      }
    }
  }
  if (const toml::node* n = t->get("min_kernel")) {
    if (n->is_string()) manifest_.guards.min_kernel = n->as_string()->get();
    else error(toml_pos(*n, file), "\"min_kernel\" must be a string such as \"5.10.60.1\", not " + toml_type_name(*n));
  }
  for (const char* key : {"require_wsl2", "require_dxg"}) {
    if (const toml::node* n = t->get(key)) {
      if (!n->is_boolean()) {
        error(toml_pos(*n, file), std::string("\"") + key + "\" must be true or false, not " + toml_type_name(*n));
        continue;
      }
      if (std::string(key) == "require_wsl2" && !n->as_boolean()->get()) {
        // Built-in refusals only grow: the person running the tool may
        // say --not-wsl, a manifest may not.
        error(toml_pos(*n, file), "a manifest cannot turn off the WSL2 guard; image builders and tests pass "
                                  "--not-wsl on the command line instead");
        continue;
      }
      (std::string(key) == "require_wsl2" ? manifest_.guards.require_wsl2 : manifest_.guards.require_dxg) =
          n->as_boolean()->get();
    }
  }
}


// refuse_if = [{ when = "rocm_version >= '7.0' && rocm_version < '7.1'", reason = "..." }]
// KEY (refuse_if or warn_if) = [{ when = "...", reason = "..." }] into OUT.
void Loader::read_refuse_if(const toml::table& guards, const std::string& key, std::vector<ConditionalRefusal>& out) {
  const std::string& file = source_.display;
  const toml::node* n = guards.get(key);
  if (!n) return;
  if (!n->is_array()) {
    error(toml_pos(*n, file), "\"" + key + "\" must be an array of { when = \"...\", reason = \"...\" } tables, not " +
                                  toml_type_name(*n));
    return;
  }
  for (const toml::node& item : *n->as_array()) {
    const toml::table* t = item.as_table();
    if (!t || !t->get("when") || !t->get("reason") || !(*t)["when"].is_string() || !(*t)["reason"].is_string()) {
      error(toml_pos(item, file), "each \"" + key + "\" entry must be { when = \"CONDITION\", reason = \"TEXT\" }");
      continue;
    }
    check_keys(*t, {"when", "reason"}, "a " + key + " entry");
    ManifestStep holder;
    read_when(*t->get("when"), holder);
    if (!holder.when) continue;
    Variables scope = host_.as_variables();
    for (const auto& [k, v] : manifest_.vars) scope[k] = v;
    std::string reason = substitute((*t)["reason"].as_string()->get(), scope, toml_pos(*t->get("reason"), file), diagnostics_);
    out.push_back({holder.when, reason});
  }
}


// [guards.supported]: publisher, advice, systems = [{ distro, versions, when }]
void Loader::read_supported(const toml::table& guards) {
  const std::string& file = source_.display;
  const toml::node* n = guards.get("supported");
  if (!n) return;
  const toml::table* t = n->as_table();
  if (!t) {
    error(toml_pos(*n, file), "\"supported\" must be a table ([guards.supported]), not " + toml_type_name(*n));
    return;
  }
  const std::size_t errors_before = diagnostics_.size();
  check_keys(*t, {"publisher", "advice", "systems"}, "[guards.supported]");
  Variables scope = host_.as_variables();
  for (const auto& [k, v] : manifest_.vars) scope[k] = v;
  SupportedSystems supported;
  for (const char* key : {"publisher", "advice"}) {
    const toml::node* v = t->get(key);
    if (!v) {
      if (std::string(key) == "publisher")
        error(toml_pos(*t, file), "[guards.supported] needs \"publisher\", such as \"AMD publishes ROCm for WSL\"");
      continue;
    }
    if (!v->is_string()) {
      error(toml_pos(*v, file), std::string("\"") + key + "\" must be a string, not " + toml_type_name(*v));
      continue;
    }
    (std::string(key) == "publisher" ? supported.publisher : supported.advice) =
        substitute(v->as_string()->get(), scope, toml_pos(*v, file), diagnostics_);
  }
  const toml::node* systems = t->get("systems");
  if (!systems || !systems->is_array() || systems->as_array()->empty()) {
    error(toml_pos(systems ? *systems : static_cast<const toml::node&>(*t), file),
          "[guards.supported] needs \"systems\", a non-empty array of { distro = \"ubuntu\", versions = "
          "[\"24.04\"] } tables");
    return;
  }
  for (const toml::node& item : *systems->as_array()) {
    const toml::table* e = item.as_table();
    if (!e) {
      error(toml_pos(item, file), "each \"systems\" entry must be { distro = \"...\", versions = [\"...\"] }");
      continue;
    }
    check_keys(*e, {"distro", "versions", "when"}, "a systems entry");
    SupportedSystem sys;
    const toml::node* distro = e->get("distro");
    if (!distro || !distro->is_string() || !is_os_release_word(distro->as_string()->get())) {
      error(toml_pos(distro ? *distro : item, file),
            "\"distro\" must be an os-release ID in lowercase, such as \"ubuntu\"");
      continue;
    }
    sys.distro = distro->as_string()->get();
    const toml::node* versions = e->get("versions");
    const toml::array* list = versions ? versions->as_array() : nullptr;
    if (!list || list->empty()) {
      error(toml_pos(versions ? *versions : item, file),
            "\"versions\" must be a non-empty array of os-release VERSION_IDs, such as [\"22.04\", \"24.04\"]");
      continue;
    }
    bool ok = true;
    for (const toml::node& v : *list) {
      if (!v.is_string() || !is_os_release_word(v.as_string()->get())) {
        error(toml_pos(v, file), "each version must be an os-release VERSION_ID written as a string, such as \"24.04\"");
        ok = false;
        continue;
      }
      sys.versions.push_back(v.as_string()->get());
    }
    if (!ok) continue;
    if (const toml::node* when = e->get("when")) {
      ManifestStep holder;
      read_when(*when, holder);
      if (!holder.when) continue;
      sys.when = holder.when;
    }
    supported.systems.push_back(std::move(sys));
  }
  // Half a table would refuse machines it means to allow.
  if (diagnostics_.size() == errors_before) manifest_.guards.supported = std::move(supported);
}

}  // namespace wslgpu::manifest_loading
