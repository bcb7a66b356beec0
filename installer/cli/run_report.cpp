#include "installer/cli/run_report.hpp"

#include <iostream>

#include "installer/cli/suggested_commands.hpp"
#include "installer/system/interrupt.hpp"

namespace wslgpu {

std::string refusal_text(const Plan& plan) {
  std::string out;
  for (const auto& r : plan.refusals) out += "error: " + r + "\n";
  for (const auto& s : plan.steps) {
    if (s.plan.verdict != Verdict::refused) continue;
    out += "error: step " + std::to_string(s.index) + " \"" + s.id + "\": " + s.plan.summary + "\n";
    for (const auto& d : s.plan.details) out += "  " + d + "\n";
  }
  // A refusal about a release the user did not name says which one was chosen.
  for (const auto& c : plan.choices)
    if (c.how == "auto" || c.how == "fallback")
      out += "Chose " + c.variable + "=" + c.value + " (" + c.how + ")" + (c.why.empty() ? "" : ": " + c.why) + "\n";
  return out + "Nothing was changed (exit 3).\n";
}

nlohmann::json result_json(const RunResult& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps)
    steps.push_back({{"id", s.id}, {"kind", s.kind}, {"changed", s.changed}, {"failed", s.failed}, {"msg", s.msg},
                     {"diff", s.diff}});
  nlohmann::json doc = {{"changed", r.changed},   {"failed", r.failed}, {"rc", r.rc},
                        {"transaction_id", r.transaction_id},
                        {"steps", steps},         {"undone", r.undone}, {"notices", r.notices}, {"error", r.error}};
  if (!r.undo_error.empty()) doc["undo_error"] = r.undo_error;
  if (r.interrupted) doc["interrupted"] = signal_name(r.interrupted);
  return doc;
}

int finish_run(const GlobalOptions& g, const ChangeOptions& o, const RunResult& r, const std::string& verb,
               const nlohmann::json& extra) {
  if (o.output == OutputFormat::json) {
    nlohmann::json doc = result_json(r);
    doc.update(extra);
    std::cout << doc.dump(2) << "\n";
    return r.rc;
  }
  if (g.verbosity < 0) {
    if (!r.undo_error.empty())
      std::cerr << "error: " << r.error << "; then the rollback stopped: " << r.undo_error
                << " (half undone: recover --rollback; exit " << r.rc << ")\n";
    else if (r.failed)
      std::cerr << "error: " << r.error << " (rolled back; exit " << r.rc << ")\n";
    return r.rc;
  }
  if (!r.undo_error.empty()) {
    // The step that failed first, then the undo that failed: the user needs both.
    if (!r.error.empty()) std::cerr << "error: " << r.error << "\n";
    std::cerr << "error: then the rollback stopped: " << r.undo_error << "\n";
    std::cout << "Transaction " << r.transaction_id << " is half undone: " << r.undone.size()
              << (r.undone.size() == 1 ? " step was" : " steps were") << " undone, the rest is still applied (exit "
              << r.rc << ").\n"
              << "Fix the cause above, then finish the rollback: sudo " << program(g) << " recover --rollback"
              << root_option(g) << "\n"
              << "The journal: sudo " << program(g) << " history " << r.transaction_id << root_option(g) << "\n";
    return r.rc;
  }
  if (r.interrupted) {
    std::string undone;
    for (const auto& id : r.undone) undone += (undone.empty() ? "" : ", ") + id;
    std::cerr << "error: " << r.error << "\n";
    std::cout << "Transaction " << r.transaction_id << " was interrupted (" << signal_name(r.interrupted)
              << "): the step in progress was let finish, then " << r.undone.size()
              << (r.undone.size() == 1 ? " step was" : " steps were") << " undone" << (undone.empty() ? "" : " (" + undone + ")")
              << "; the machine is as it was (exit " << r.rc << ").\n";
    return r.rc;
  }
  for (const auto& n : r.notices) std::cout << "note: " << n << "\n";
  if (r.failed) {
    std::cerr << "error: " << r.error << "\n";
    std::cout << "Transaction " << r.transaction_id << " rolled back " << r.undone.size()
              << (r.undone.size() == 1 ? " step" : " steps") << "; the machine is as it was (exit " << r.rc << ").\n"
              << "What it did and undid: sudo " << program(g) << " history " << r.transaction_id << root_option(g)
              << (g.log_file.empty() ? "; for every command's output, run again with --log-file FILE" : "") << "\n";
  } else {
    std::cout << "Transaction " << r.transaction_id << " " << verb << ".\n";
  }
  return r.rc;
}

}  // namespace wslgpu
