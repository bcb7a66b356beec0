#include "installer/commands.hpp"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <toml++/toml.h>

#include "installer/bundled_manifests.hpp"
#include "installer/error.hpp"
#include "installer/filesystem.hpp"
#include "installer/host.hpp"
#include "installer/manifest.hpp"
#include "installer/plan_output.hpp"
#include "installer/planner.hpp"
#include "installer/process.hpp"
#include "steps/registry.hpp"

namespace wslgpu {

namespace {

HostFacts probe(const GlobalOptions& g, const FileSystem& fs) {
  HostOptions options;
  options.user = g.user;
  options.windows_home = g.windows_home;
  if (const char* sudo_user = std::getenv("SUDO_USER")) options.sudo_user = sudo_user;
  return probe_host(fs, g.root, options);
}

void check_root(const std::string& root) {
  if (root.empty() || root.front() != '/')
    throw InputError(SourcePos{"--root", 0, 0}, "\"" + root + "\" must be an absolute path");
  if (::access(root.c_str(), F_OK) != 0)
    throw InputError(SourcePos{"--root", 0, 0}, "\"" + root + "\" does not exist");
}

}  // namespace

std::map<std::string, std::string> parse_sets(const std::vector<std::string>& sets) {
  std::map<std::string, std::string> out;
  for (const auto& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(SourcePos{"--set", 0, 0}, "\"" + s + "\" must be written as NAME=VALUE");
    out[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return out;
}

int run_validate(const GlobalOptions& g, const std::vector<std::string>& profiles) {
  check_root(g.root);
  RootedFileSystem fs(g.root);
  HostFacts host = probe(g, fs);
  auto sets = parse_sets(g.sets);
  bool all_ok = true;
  for (const auto& profile : profiles) {
    try {
      ManifestSource source = find_manifest(profile);
      Manifest m = load_manifest(source, sets, host);
      std::cout << source.display << ": ok (" << m.steps.size() << (m.steps.size() == 1 ? " step)" : " steps)") << "\n";
    } catch (const InputError& e) {
      all_ok = false;
      for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    }
  }
  return all_ok ? 0 : static_cast<int>(ExitCode::bad_input);
}

int run_plan(const GlobalOptions& g, const PlanOptions& options) {
  check_root(g.root);
  RootedFileSystem fs(g.root);
  RealProcessRunner runner(g.root);
  HostFacts host = probe(g, fs);
  ManifestSource source = find_manifest(options.profile);
  Manifest manifest = load_manifest(source, parse_sets(g.sets), host);
  Plan plan = resolve_plan(manifest, source.display, fs, runner, host);
  if (options.output == OutputFormat::json) {
    std::cout << plan_to_json(plan).dump(2) << "\n";
  } else {
    std::cout << render_plan_text(plan, TextStyle{g.color, g.verbosity > 0}, options.profile);
  }
  if (options.detailed_exitcode && plan.changes_pending()) return static_cast<int>(ExitCode::changes_pending);
  return 0;
}

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
  return 0;
}

int run_kinds(const GlobalOptions&) {
  std::size_t width = 0;
  for (const auto& k : step_kinds()) width = std::max(width, k.name.size());
  for (const auto& k : step_kinds()) std::cout << k.name << std::string(width - k.name.size() + 2, ' ') << k.summary << "\n";
  return 0;
}

}  // namespace wslgpu
