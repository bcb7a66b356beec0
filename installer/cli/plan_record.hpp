// The plan record: everything needed to resolve a plan again later. `plan
// --out` writes it as a saved plan, for `install --plan`; each transaction
// keeps it as its plan.json, from which rollback and recover re-create the
// manifest the transaction ran. Also what a saved plan must match before it
// is applied: the same version of this tool, the same root, the same facts.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/cli/commands.hpp"
#include "installer/cli/session.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/plan/plan.hpp"
#include "installer/transaction/journal.hpp"

namespace wslgpu {

// The format of a saved plan; a saved plan of another is stale (exit 3).
constexpr int kSavedPlanFormat = 1;

// The record of PLAN, resolved from SOURCE with G's options on HOST (whose
// user facts and host.NAME facts it keeps: see host_as_recorded and
// machine_as_recorded).
nlohmann::json plan_record(const GlobalOptions& g, const ManifestSource& source, const Plan& plan,
                           const HostFacts& host);

// NOW with the user facts (host.user, host.user_home, uid, gid) that RECORD
// was resolved with, where it has them: what `${host.user}` meant for the
// transaction. Rollback and recover re-create its manifest with them (a
// rollback run through another sudo user must undo the venv of the user it
// was installed for), and `plan` compares today's defaults with them, so
// that a change of user is not blamed on the profile.
HostFacts host_as_recorded(const HostFacts& now, const nlohmann::json& record);

// NOW as the machine RECORD was resolved on: its user facts
// (host_as_recorded) and every host.NAME fact the record kept (its
// "host_facts": the distribution and its version, the GPU vendor, the
// architecture, the container engines, nvidia-smi's answer where the
// profile asked it ...). `plan` asks today's profile about that machine, so
// that a distribution upgrade that selects another [matrix] row, or another
// GPU or driver, is not blamed on the profile. A record made before the
// facts were kept gives the user facts only, the rest today's.
HostFacts machine_as_recorded(const HostFacts& now, const nlohmann::json& record);

// The manifest a saved plan or a transaction recorded (a layer with its base).
ManifestSource recorded_source(const nlohmann::json& record);

// Re-creates the manifest a transaction ran, for its step objects, with the
// user facts it recorded.
Manifest manifest_of(const Journal& journal, Session& s);

// Reads the saved plan at PATH (`install --plan`). Throws InputError (exit 2)
// when it cannot be read or is no JSON, Refusal (exit 3) when another
// version of this tool or another saved-plan format made it.
nlohmann::json read_saved_plan(const std::string& path);

// GIVEN's options as SAVED recorded them (--set, --user, --windows-home,
// --not-wsl, --unsupported-distro), so that install resolves the plan the
// same way; refuses (exit 3) a plan made for another --root.
GlobalOptions options_of_saved_plan(const nlohmann::json& saved, const GlobalOptions& given);

// Compares a freshly resolved plan with a saved one; returns the differences.
std::vector<std::string> plan_drift(const nlohmann::json& saved, const Plan& fresh);

}  // namespace wslgpu
