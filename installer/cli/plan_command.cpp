// `wslgpu-setup plan [PROFILE]`: what install would change, changing
// nothing; with --out, the plan saved for `install --plan` (plan_record.hpp).
#include <fstream>
#include <iostream>
#include <optional>

#include <spdlog/spdlog.h>

#include "installer/cli/commands.hpp"
#include "installer/cli/plan_record.hpp"
#include "installer/cli/profile_choice.hpp"
#include "installer/cli/resolve.hpp"
#include "installer/cli/session.hpp"
#include "installer/cli/suggested_commands.hpp"
#include "installer/cli/terminal.hpp"
#include "installer/cli/unfinished_transaction.hpp"
#include "installer/plan/plan_output.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"
#include "installer/transaction/transaction.hpp"

namespace wslgpu {

int run_plan(const GlobalOptions& g, const PlanOptions& options) {
  // Caught so that a plan stopped halfway still removes its scratch folder.
  InterruptScope interrupts(kPlanInterrupted, kPlanInterrupted);
  Session s(g);
  // An unfinished run makes install refuse (exit 5): the plan says so too,
  // and a script asking --detailed-exitcode gets the status install would.
  std::optional<TransactionSummary> unfinished;
  try {
    unfinished = Transactions(s.fs, s.runner, s.host, kStateDir).interrupted();
  } catch (const TransactionsNeedRoot& e) {
    // Without root the transactions cannot be read; install, which needs
    // root, looks again. Any other error (a newer format) stops the plan.
    spdlog::debug("cannot look for an interrupted run: {}", e.what());
  }
  if (unfinished && options.detailed_exitcode) throw Error(ExitCode::needs_recovery, unfinished_text(*unfinished));
  if (unfinished && options.output == OutputFormat::text && g.verbosity >= 0)
    std::cerr << "warning: " << unfinished_text(*unfinished) << "\n  Until then, install refuses (exit 5).\n";
  ProfileChoice choice;
  const std::string profile = profile_to_run(s, "plan", options.profile, choice);
  Resolved r = resolve(g, s, find_manifest(profile), parse_sets(g.sets), false, {}, options.offline);
  r.plan.since = since_provisioned(g, s, r);
  throw_if_interrupted("while planning; nothing was changed");
  if (!options.out_file.empty()) {
    std::ofstream out(options.out_file, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(SourcePos{"--out", 0, 0}, "cannot write \"" + options.out_file + "\"");
    out << plan_record(g, r.source, r.plan, s.host).dump(2) << "\n";
  }
  if (options.output == OutputFormat::json) {
    nlohmann::json doc = plan_to_json(r.plan);
    doc.update(choice_json(choice));
    if (unfinished)
      doc["unfinished_transaction"] = {
          {"id", unfinished->id}, {"status", unfinished->status}, {"message", unfinished_text(*unfinished)}};
    std::cout << doc.dump(2) << "\n";
  } else if (g.verbosity >= 0) {
    if (!choice.profile.empty()) std::cout << choice_line(choice);
    // With --out, the command to run is the one that runs exactly the saved plan.
    std::string apply = options.out_file.empty()
                            ? apply_command(g, profile)
                            : "sudo " + program(g) + " install --plan " + text::shell_word(options.out_file);
    std::cout << render_plan_text(r.plan, TextStyle{g.color, g.verbosity > 0}, apply);
    if (!options.out_file.empty())
      std::cout << "Saved to " << options.out_file
                << ": install --plan runs exactly this plan, and refuses if the machine has changed since.\n";
  }
  // Refused is 3 with or without --detailed-exitcode: install would refuse,
  // and a script must not read a refused plan as a good one.
  if (r.plan.refused()) return static_cast<int>(ExitCode::refused);
  if (options.detailed_exitcode && r.plan.changes_pending()) return static_cast<int>(ExitCode::changes_pending);
  return 0;
}

}  // namespace wslgpu
