// `wslgpu-setup install [PROFILE | --plan FILE]`: resolves the plan as
// `plan` does, refuses what a guard or undo cannot allow, runs only the checks
// on a converged machine, and otherwise applies the plan as one transaction.
#include <iostream>

#include "installer/cli/commands.hpp"
#include "installer/cli/plan_record.hpp"
#include "installer/cli/profile_choice.hpp"
#include "installer/cli/resolve.hpp"
#include "installer/cli/run_report.hpp"
#include "installer/cli/session.hpp"
#include "installer/cli/suggested_commands.hpp"
#include "installer/cli/terminal.hpp"
#include "installer/cli/unfinished_transaction.hpp"
#include "installer/plan/plan_output.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/paths.hpp"
#include "installer/transaction/lock.hpp"
#include "installer/transaction/transaction.hpp"

namespace wslgpu {

namespace {

// A converged install: the plan's checks run, and nothing else does.
RunResult run_checks(Session& s, const Resolved& r) {
  bool has_checks = r.plan.count(Verdict::verify) > 0;
  RunResult result;
  if (has_checks) {
    StepContext ctx{s.fs, s.runner, s.host, r.manifest.name, kStateDir};
    for (const auto& ps : r.plan.steps) {
      if (ps.plan.verdict != Verdict::verify) continue;
      for (const auto& ms : r.manifest.steps) {
        if (ms.id != ps.id) continue;
        StepReport rep{ps.id, ps.kind, false, false, "ok: " + ps.plan.summary, ""};
        ctx.manifest_name = step_manifest_name(r.manifest, ms);
        try {
          auto w = ms.step->apply(ctx, ps.plan);
          if (w.contains("warning")) rep.msg = w["warning"].get<std::string>();
        } catch (const StepFailure& e) {
          rep.failed = true;
          rep.msg = e.what();
          result.failed = true;
          result.rc = static_cast<int>(ExitCode::failed);
          // The check's own message starts "check failed: "; say it once.
          std::string why = e.what();
          if (why.rfind("check failed: ", 0) == 0) why.erase(0, std::string("check failed: ").size());
          result.error = "check \"" + ps.id + "\" failed: " + why;
        }
        result.steps.push_back(rep);
      }
    }
  }
  return result;
}

}  // namespace

int run_install(const GlobalOptions& given, const InstallOptions& options) {
  refuse_unless_root(given, "install");
  InterruptScope interrupts(kChangeInterrupted, kChangeAgain);
  GlobalOptions g = given;
  nlohmann::json saved;
  ManifestSource source;
  if (!options.saved_plan.empty()) {
    saved = read_saved_plan(options.saved_plan);
    g = options_of_saved_plan(saved, given);
    source = recorded_source(saved);
  }
  Session s(g);
  ProfileChoice choice;
  if (options.saved_plan.empty()) {
    source = find_manifest(profile_to_run(s, "install", options.profile, choice));
  }
  const ChangeOptions& o = options.change;
  if (!choice.profile.empty() && o.output == OutputFormat::text && g.verbosity >= 0) std::cout << choice_line(choice);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  RunLock lock = lock_state(s, tx, options.change);
  refuse_if_interrupted(tx);

  Resolved r = resolve(g, s, source, parse_sets(g.sets), true);
  r.plan.since = since_provisioned(g, s, r);  // the plan install shows says it too
  throw_if_interrupted("while planning; nothing was changed");
  if (!saved.is_null()) {
    auto drift = plan_drift(saved, r.plan);
    if (!drift.empty()) {
      std::string msg = "the machine no longer matches the saved plan " + options.saved_plan + ":";
      for (const auto& d : drift) msg += "\n  " + d;
      throw Error(ExitCode::refused, msg + "\nNothing was changed. Make a new plan with `plan --out`.");
    }
  }
  if (r.plan.refused()) {
    if (o.output == OutputFormat::json) {
      nlohmann::json doc{{"changed", false}, {"failed", true}, {"rc", 3}, {"transaction_id", ""},
                         {"refusals", plan_to_json(r.plan)["refusals"]}, {"steps", plan_to_json(r.plan)["steps"]}};
      doc.update(choice_json(choice));
      std::cout << doc.dump(2) << "\n";
    } else {
      std::cerr << refusal_text(r.plan);
    }
    return static_cast<int>(ExitCode::refused);
  }
  // Undo must be able to put back every package version the plan changes,
  // or the person running it must have said it need not.
  if (r.plan.changes_pending() && !r.plan.undo_gaps().empty() && !o.allow_partial_undo) {
    std::string why = undo_store_text(r.plan);
    std::string msg = "undo could not put back every package this plan changes, so nothing was changed:\n" + why +
                      "Make a copy available (bring back the source of the old versions, or keep apt's cache), or "
                      "run again with --allow-partial-undo to accept a rollback that leaves those packages as the "
                      "install leaves them.";
    if (o.output == OutputFormat::json) {
      nlohmann::json doc{{"changed", false}, {"failed", true}, {"rc", 3}, {"transaction_id", ""},
                         {"error", msg}, {"undo_store", undo_store_json(r.plan)}};
      doc.update(choice_json(choice));
      std::cout << doc.dump(2) << "\n";
      return static_cast<int>(ExitCode::refused);
    }
    throw Refusal(msg);
  }
  if (!r.plan.changes_pending()) {
    // Converged: run the checks, write nothing, record no transaction.
    RunResult result = run_checks(s, r);
    if (!result.failed) keep_remembered(s.fs, r.plan);
    throw_if_interrupted("while running the checks; nothing was changed");
    if (o.output == OutputFormat::json) {
      nlohmann::json doc = result_json(result);
      doc.update(choice_json(choice));
      std::cout << doc.dump(2) << "\n";
    } else if (g.verbosity >= 0) {
      for (const auto& rep : result.steps) std::cout << "  " << rep.id << ": " << rep.msg << "\n";
      if (result.failed) {
        std::cerr << "error: " << result.error << "\n";
        std::cout << "The machine already has every change of " << r.manifest.name
                  << ", but a check failed; nothing was changed (exit " << result.rc << "). `" << program(g)
                  << " doctor" << root_option(g) << "` explains most failures.\n";
      } else {
        std::cout << "Nothing to do: the machine already matches " << r.manifest.name << ".\n";
      }
    }
    return result.rc;
  }
  if (o.output == OutputFormat::text && g.verbosity >= 0)
    std::cout << render_plan_text(r.plan, TextStyle{g.color, g.verbosity > 0}, "") << "\n";
  if (interactive(o) && !confirm("Apply these changes?")) {
    throw_if_interrupted("at the question; nothing was changed");
    std::cout << "Nothing was changed.\n";
    return 0;
  }
  throw_if_interrupted("before the first step; nothing was changed");
  lock.record_holder(g.command_line);
  tx.set_allow_partial_undo(o.allow_partial_undo);
  RunResult result = tx.run(r.manifest, r.plan, plan_record(g, r.source, r.plan, s.host),
                            text_callbacks(g, o.output == OutputFormat::text));
  if (result.rc == 0) keep_remembered(s.fs, r.plan);
  nlohmann::json extra = choice_json(choice);
  extra["undo_store"] = undo_store_json(r.plan);
  return finish_run(g, o, result, "committed", extra);
}

}  // namespace wslgpu
