// How a command reports the end of a run: a refused plan, a run's result
// as JSON, and, for people, what the transaction did and what to type next
// when it failed, was interrupted or could not be fully undone.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "installer/cli/commands.hpp"
#include "installer/plan/plan.hpp"
#include "installer/transaction/transaction.hpp"

namespace wslgpu {

// The "error: ..." lines of a refused PLAN (guards, then refused steps),
// the releases it chose itself, and "Nothing was changed (exit 3).".
std::string refusal_text(const Plan& plan);

// R as the JSON result of install, rollback and recover.
nlohmann::json result_json(const RunResult& r);

// Prints R (JSON, or text as G's verbosity says); VERB is what a run that
// succeeded did ("committed", "rolled back"). EXTRA: fields added to the
// JSON result (install's profile_choice). Returns R's exit status.
int finish_run(const GlobalOptions& g, const ChangeOptions& o, const RunResult& r, const std::string& verb,
               const nlohmann::json& extra = nlohmann::json::object());

}  // namespace wslgpu
