#include "installer/cli/plan_record.hpp"

#include <fstream>
#include <map>
#include <set>

#include "installer/plan/plan_output.hpp"
#include "installer/system/error.hpp"
#include "installer/transaction/state_format.hpp"

namespace wslgpu {

namespace {

// HOST's host.NAME facts as the load read them: a lazily probed one only
// once probed, so that a record whose profile never asked nvidia-smi (or
// Windows for its GPUs) does not read back as a probe that said nothing.
nlohmann::json host_facts_of(const HostFacts& host) {
  std::map<std::string, std::string> facts = host.as_variables();
  for (const auto& name : host.unprobed_lazy_fact_names()) facts.erase(name);
  return facts;
}

}  // namespace

nlohmann::json plan_record(const GlobalOptions& g, const ManifestSource& source, const Plan& plan,
                           const HostFacts& host) {
  nlohmann::json chosen = nlohmann::json::object();
  for (const auto& c : plan.choices) chosen[c.variable] = c.value;
  nlohmann::json fingerprints = nlohmann::json::object();
  for (const auto& s : plan.steps) fingerprints[s.id] = {{"action", verdict_name(s.plan.verdict)},
                                                          {"facts", s.plan.fingerprint},
                                                          {"changes", s.plan.changes}};
  return {{"saved_plan_format", kSavedPlanFormat},
          {"state_format", kStateFormat},
          {"tool_version", WSLGPU_VERSION},
          {"root", g.root},
          {"source", source.display},
          {"manifest_text", source.text},
          {"base_source", source.base_display},
          {"base_text", source.base_text},
          {"sets", parse_sets(g.sets)},
          {"user", g.user},
          {"host_user",
           {{"user", host.user}, {"user_home", host.user_home}, {"uid", host.user_uid}, {"gid", host.user_gid}}},
          {"host_facts", host_facts_of(host)},
          {"windows_home", g.windows_home},
          {"not_wsl", g.not_wsl},
          {"unsupported_distro", g.unsupported_distro},
          {"choices", chosen},
          {"fingerprints", fingerprints},
          {"plan", plan_to_json(plan)}};
}

ManifestSource recorded_source(const nlohmann::json& record) {
  return {record.value("source", ""), record.value("manifest_text", ""), false, record.value("base_source", ""),
          record.value("base_text", "")};
}

HostFacts host_as_recorded(const HostFacts& now, const nlohmann::json& record) {
  HostFacts h = now;
  if (!record.contains("host_user") || !record["host_user"].is_object()) return h;  // recorded before it was kept
  const nlohmann::json& u = record["host_user"];
  h.user = u.value("user", h.user);
  h.user_home = u.value("user_home", h.user_home);
  h.user_uid = u.value("uid", h.user_uid);
  h.user_gid = u.value("gid", h.user_gid);
  if (h.user != now.user) h.user_source = "the transaction's record";
  return h;
}

HostFacts machine_as_recorded(const HostFacts& now, const nlohmann::json& record) {
  HostFacts h = host_as_recorded(now, record);
  auto facts = record.find("host_facts");
  if (facts == record.end() || !facts->is_object()) return h;  // recorded before they were kept
  std::map<std::string, std::string> vars;
  for (const auto& [name, value] : facts->items())
    if (value.is_string()) vars[name] = value.get<std::string>();
  return h.with_variables(vars);
}

Manifest manifest_of(const Journal& journal, Session& s) {
  nlohmann::json record = journal.read_plan();
  ManifestSource source = recorded_source(record);
  // The user facts only, not machine_as_recorded(): the undo that reads
  // the profile's values (a venv and its owner) reads the user's; the
  // [matrix] rows "auto" chose come back from the record's choices whatever
  // the machine says now, so the releases undone are those that ran; the
  // other facts the bundled profiles' steps read (an apt source's suite and
  // architecture) went into files the journal backed up, which undo
  // restores as they were, not rebuilt from the fact; and undo acts on the
  // machine as it is now, which today's facts describe (a distribution
  // upgraded since is the one apt runs on).
  return load_manifest(source, record.value("sets", Variables{}), host_as_recorded(s.host, record),
                       LoadOptions{record.value("unsupported_distro", false),
                                   record.value("choices", std::map<std::string, std::string>{})});
}

nlohmann::json read_saved_plan(const std::string& path) {
  nlohmann::json saved;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourcePos{path, 0, 0}, "cannot read the saved plan");
  try {
    saved = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(SourcePos{path, 0, 0}, std::string("not a saved plan: ") + e.what());
  }
  // A plan saved by another version is stale, whatever else it says: the
  // profiles' defaults and the plan's own format may differ (exit 3).
  std::string made_by = saved.value("tool_version", std::string("an unknown version"));
  if (!saved.contains("saved_plan_format") || saved["saved_plan_format"] != kSavedPlanFormat)
    throw Refusal("the saved plan " + path + " is stale: it is of saved-plan format " +
                  (saved.contains("saved_plan_format") ? saved["saved_plan_format"].dump() : std::string("none")) +
                  " (made by wslgpu-setup " + made_by +
                  "), and this is wslgpu-setup " WSLGPU_VERSION ", which reads format " +
                  std::to_string(kSavedPlanFormat) + ". Nothing was changed. Make it again with `plan --out`.");
  if (made_by != WSLGPU_VERSION)
    throw Refusal("the saved plan " + path + " is stale: it was made by wslgpu-setup " + made_by +
                  "; this is " WSLGPU_VERSION
                  ": the profiles' defaults and the plan format may differ. Nothing was changed. Make it again "
                  "with `plan --out`.");
  return saved;
}

GlobalOptions options_of_saved_plan(const nlohmann::json& saved, const GlobalOptions& given) {
  GlobalOptions g = given;
  if (saved.value("root", "") != g.root)
    throw Error(ExitCode::refused, "the saved plan was made for --root " + saved.value("root", "") + ", not " + g.root);
  g.sets.clear();
  // As a missing key read through a mutable saved["sets"]: no --set at all.
  const nlohmann::json sets = saved.contains("sets") ? saved["sets"] : nlohmann::json();
  for (const auto& [k, v] : sets.items()) g.sets.push_back(k + "=" + v.get<std::string>());
  g.user = saved.value("user", "");
  g.windows_home = saved.value("windows_home", "");
  g.not_wsl = saved.value("not_wsl", false);
  g.unsupported_distro = saved.value("unsupported_distro", false);
  return g;
}

std::vector<std::string> plan_drift(const nlohmann::json& saved, const Plan& fresh) {
  std::vector<std::string> out;
  const auto& fp = saved["fingerprints"];
  std::set<std::string> seen;
  for (const auto& s : fresh.steps) {
    seen.insert(s.id);
    if (!fp.contains(s.id)) {
      out.push_back("step \"" + s.id + "\" is not in the saved plan");
      continue;
    }
    const auto& old = fp[s.id];
    if (old.value("action", "") != verdict_name(s.plan.verdict))
      out.push_back("step \"" + s.id + "\" was " + old.value("action", "") + ", now " + verdict_name(s.plan.verdict));
    for (const auto& [fact, value] : s.plan.fingerprint.items()) {
      auto it = old["facts"].find(fact);
      if (it == old["facts"].end() || *it != value)
        out.push_back("step \"" + s.id + "\": " + fact + " was " +
                      (it == old["facts"].end() ? std::string("not probed") : it->dump()) + ", now " + value.dump());
    }
    if (old["changes"] != s.plan.changes && old.value("action", "") == verdict_name(s.plan.verdict))
      out.push_back("step \"" + s.id + "\" would now change something else");
  }
  for (const auto& [id, v] : fp.items())
    if (!seen.count(id)) out.push_back("step \"" + id + "\" of the saved plan is gone");
  return out;
}

}  // namespace wslgpu
