#include "installer/cli/resolve.hpp"

#include "installer/cli/plan_record.hpp"

#include <unistd.h>

#include <spdlog/spdlog.h>

#include "installer/guards/disk_space.hpp"
#include "installer/guards/guards.hpp"
#include "installer/planner/planner.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "installer/transaction/transaction.hpp"

namespace wslgpu {

Resolved resolve(const GlobalOptions& g, Session& s, ManifestSource source, const Variables& sets, bool changing,
                 const std::map<std::string, std::string>& chosen, bool offline) {
  Manifest manifest = load_manifest(source, sets, s.host, LoadOptions{g.unsupported_distro, chosen});
  // A layer's base as loaded now: what the record keeps, so that undo and
  // resume read the same profile after an upgrade changed the bundled one.
  source.base_display = manifest.base_source;
  source.base_text = manifest.base_text;
  Plan plan = resolve_plan(manifest, source.display, s.fs, s.runner, s.host, offline);
  GuardOptions guard_options{g.not_wsl, changing, ::geteuid() == 0, g.unsupported_distro};
  plan.refusals = guard_environment(s.host, manifest.guards, manifest.vars, s.fs, guard_options);
  plan.warnings = guard_warnings(s.host, manifest.guards, manifest.vars);
  for (auto& refusal : guard_disk_space(plan, s.fs)) plan.refusals.push_back(std::move(refusal));
  return {std::move(source), std::move(manifest), std::move(plan)};
}

std::optional<DefaultsChanged> since_provisioned(const GlobalOptions& g, Session& s, const Resolved& r) {
  std::optional<Transactions::CommittedRun> last;
  try {
    last = Transactions(s.fs, s.runner, s.host, kStateDir).last_committed(r.manifest.name);
  } catch (const TransactionsNeedRoot& e) {
    spdlog::debug("cannot compare with the last install: {}", e.what());
  }
  if (!last) return std::nullopt;
  auto then = provisioned_from(last->summary.id, last->summary.time, last->plan_record);
  if (!then) return std::nullopt;
  // A --set of a variable the profile no longer has cannot be asked again.
  Variables sets;
  for (const auto& [name, value] : then->sets)
    if (r.manifest.vars.count(name)) sets[name] = value;
  // Today's profile on the machine as that run saw it: a venv under another
  // user's home, another [matrix] row after a distribution upgrade, another
  // CUDA build for a newer driver are the machine's changes, not the
  // profile's.
  HostFacts host_then = machine_as_recorded(s.host, last->plan_record);
  // Asked the same way as now (the common case): today's load is that one.
  if (sets == parse_sets(g.sets) && host_then.as_variables() == s.host.as_variables())
    return defaults_changed(r.manifest, r.manifest, r.source, *then);
  try {
    Manifest as_then = load_manifest(r.source, sets, host_then, LoadOptions{g.unsupported_distro, {}});
    return defaults_changed(r.manifest, as_then, r.source, *then);
  } catch (const InputError& e) {
    spdlog::debug("cannot ask the profile as transaction {} did: {}", then->transaction, e.what());
    return std::nullopt;
  } catch (const Refusal& e) {
    // Today's profile may refuse the machine as it was (its release dropped
    // from the supported ones): what the profile changed cannot then be told
    // apart from what the machine changed, and nothing is blamed on it.
    spdlog::debug("today's profile refuses the machine transaction {} ran on: {}", then->transaction, e.what());
    return std::nullopt;
  }
}

}  // namespace wslgpu
