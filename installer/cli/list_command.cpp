// The listings that read no machine: `list` (the bundled profiles and
// families), `list --vars PROFILE` (what --set may change) and `kinds` (the
// step kinds, from the registry in steps/registry.cpp).
#include <algorithm>
#include <iostream>
#include <set>

#include <toml++/toml.h>

#include "installer/cli/commands.hpp"
#include "installer/cli/profile_choice.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/formats/toml_input.hpp"
#include "installer/manifest/step_kind.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

int run_list(const GlobalOptions&) {
  std::size_t width = 0;
  for (const auto& m : bundled_manifests()) width = std::max(width, m.name.size());
  for (const auto& m : bundled_manifests()) {
    std::string description;
    try {
      auto t = toml::parse(m.content, std::string(m.path));
      description = t["manifest"]["description"].value_or(std::string());
    } catch (const std::exception&) {
      description = "(does not parse: run `wslgpu-setup validate " + std::string(m.name) + "`)";
    }
    std::cout << std::string(m.name) << std::string(width - m.name.size() + 2, ' ') << description << "\n";
  }
  // Families: "pytorch" names pytorch-rocm or pytorch-cuda, by the GPU.
  std::set<std::string> families;
  for (const auto& m : bundled_manifests()) {
    std::string name(m.name);
    if (auto dash = name.rfind('-'); dash != std::string::npos && is_profile_family(name.substr(0, dash)))
      families.insert(name.substr(0, dash));
  }
  for (const auto& f : families)
    std::cout << f << std::string(width > f.size() ? width - f.size() + 2 : 2, ' ') << f << "-rocm or " << f
              << "-cuda, for the GPU whose Windows driver is mounted\n";
  return 0;
}

int run_list_vars(const std::string& profile_or_file) {
  ManifestSource source = find_manifest(profile_or_file);
  toml::table doc;
  try {
    doc = parse_toml(source.text, source.display);
  } catch (const toml::parse_error& e) {
    throw InputError(
        SourcePos{source.display, e.source().begin.line, e.source().begin.column},
        std::string(e.description()) + " (`wslgpu-setup validate " + profile_or_file + "` lists every error)");
  }
  if (const auto* vars = doc["vars"].as_table()) {
    for (const auto& [name, value] : *vars) {
      std::cout << name.str() << "=";
      if (const auto* text = value.as_string()) {
        std::cout << text->get();
      } else {  // a number or a boolean, as TOML writes it (validate rejects the rest)
        value.visit([](const auto& v) { std::cout << v; });
      }
      std::cout << "\n";
    }
  }
  return 0;
}

int run_kinds(const GlobalOptions&) {
  std::size_t width = 0;
  for (const auto& k : step_kinds()) width = std::max(width, k.name.size());
  for (const auto& k : step_kinds()) std::cout << k.name << std::string(width - k.name.size() + 2, ' ') << k.summary << "\n";
  return 0;
}

}  // namespace wslgpu
