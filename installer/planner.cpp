#include "installer/planner.hpp"

#include "installer/guards.hpp"
#include "installer/overlay_filesystem.hpp"

namespace wslgpu {

Plan resolve_plan(const Manifest& manifest, const std::string& source_display, FileSystem& fs, ProcessRunner& runner,
                  const HostFacts& host) {
  Plan plan;
  plan.manifest_name = manifest.name;
  plan.manifest_description = manifest.description;
  plan.source = source_display;
  plan.vars = manifest.vars;
  plan.host = host;

  OverlayFileSystem overlay(fs);
  StepContext ctx{overlay, runner, host, manifest.name};
  auto host_vars = host.as_variables();
  auto lookup = [&](const std::string& name) -> std::optional<std::string> {
    if (auto it = manifest.vars.find(name); it != manifest.vars.end()) return it->second;
    if (auto it = host_vars.find(name); it != host_vars.end()) return it->second;
    return std::nullopt;
  };

  std::size_t index = 0;
  for (const auto& ms : manifest.steps) {
    PlannedStep ps;
    ps.index = ++index;
    ps.id = ms.id;
    ps.kind = ms.kind;
    ps.name = ms.name;
    if (ms.when && !ms.when->evaluate(lookup)) {
      ps.plan.verdict = Verdict::skipped;
      ps.plan.summary = "skipped: " + ms.when->text() + " is false";
    } else {
      ps.plan = ms.step->plan(ctx);
      guard_step(ps, manifest.guards);
      for (const auto& w : ps.plan.writes) {
        if (w.content) overlay.write_atomic(w.path, *w.content, w.attrs);
        else overlay.remove(w.path);
      }
    }
    plan.steps.push_back(std::move(ps));
  }
  return plan;
}

}  // namespace wslgpu
