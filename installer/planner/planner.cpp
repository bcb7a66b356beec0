#include "installer/planner/planner.hpp"

#include "installer/system/error.hpp"
#include "installer/guards/guards.hpp"
#include "installer/plan/overlay_filesystem.hpp"

namespace wslgpu {

Plan resolve_plan(const Manifest& manifest, const std::string& source_display, FileSystem& fs, ProcessRunner& runner,
                  const HostFacts& host, bool offline) {
  Plan plan;
  plan.manifest_name = manifest.name;
  plan.manifest_description = manifest.description;
  plan.source = source_display;
  plan.vars = manifest.vars;
  plan.choices = manifest.choices;
  plan.host = host;
  plan.offline = offline;

  OverlayFileSystem overlay(fs);
  StepContext ctx{overlay, runner, host, manifest.name};
  ctx.offline = offline;
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
    ctx.manifest_name = step_manifest_name(manifest, ms);
    if (ms.when && !ms.when->evaluate(lookup)) {
      ps.plan.verdict = Verdict::skipped;
      ps.plan.summary = "skipped: " + ms.when->text() + " is false";
    } else {
      bool planned = false;
      try {
        ps.plan = ms.step->plan(ctx);
        planned = true;
        guard_step(ps, manifest.guards);
      } catch (const Refusal& e) {
        // A step that refuses what it found (a link where it would write):
        // refused, in its own words.
        ps.plan = StepPlan{};
        ps.plan.verdict = Verdict::refused;
        std::string msg = e.what();
        ps.plan.summary = msg.substr(0, msg.find('\n'));
        if (msg.find('\n') != std::string::npos) ps.plan.details.push_back(msg.substr(msg.find('\n') + 1));
      } catch (const NeedsRoot& e) {
        ps.plan = StepPlan{};
        ps.plan.verdict = Verdict::refused;
        ps.plan.summary = std::string("cannot be planned without root: ") + e.what();
        ps.plan.details.push_back("Only root may read or write what this step needs to plan: run it again with sudo.");
      } catch (const StepFailure& e) {
        // One step that cannot be planned (no apt in the root, a key that
        // cannot be fetched) must not hide the rest of the plan; install
        // refuses a plan with such a step, before changing anything.
        ps.plan = StepPlan{};
        ps.plan.verdict = Verdict::refused;
        std::string msg = e.what();
        ps.plan.summary = "cannot be planned: " + msg.substr(0, msg.find('\n'));
        if (msg.find('\n') != std::string::npos) ps.plan.details.push_back(msg.substr(msg.find('\n') + 1));
      }
      // A plan made here says what the step is for, which its cause may not.
      if (!planned)
        if (std::string what = ms.step->purpose(); !what.empty()) ps.plan.details.insert(ps.plan.details.begin(), what);
      for (const auto& w : ps.plan.writes) {
        if (w.written_by_apply) continue;  // bytes unknown until apply
        if (w.content) overlay.write_atomic(w.path, *w.content, w.attrs);
        else overlay.remove(w.path);
        if (w.path == "/etc/passwd" || w.path == "/etc/group") ctx.forget_accounts();
      }
    }
    plan.steps.push_back(std::move(ps));
  }
  return plan;
}

}  // namespace wslgpu
