// What a newer wslgpu-setup's defaults would change on a machine that an
// earlier transaction provisioned: the profile's variables as that
// transaction recorded them (its plan.json) against the same profile now,
// each difference with the default or [matrix] row now in force and the
// "# Source:" comment that row cites. A value given with --set (then or
// now) is what the user asked for, not a changed default, and is left out.
// `plan` shows it above the steps, so
// that after `apt upgrade` brought new release data a person sees why the
// plan switches ROCm from 7.2.1 to 7.2.2 before install does it.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "installer/manifest/manifest.hpp"
#include "installer/plan/plan.hpp"

namespace wslgpu {

// What a transaction recorded of the run that provisioned the machine.
struct Provisioned {
  std::string transaction;   // its id
  std::string time;          // when it began
  std::string tool_version;  // the wslgpu-setup that ran it
  Variables vars;            // the profile's variables as resolved then
  Variables sets;            // what was given with --set then
};

// PROVISIONED from a transaction's plan.json (RECORD); nullopt when the
// record holds no variables (a state format 1 journal or a plan of a profile
// without [vars]).
std::optional<Provisioned> provisioned_from(const std::string& id, const std::string& time,
                                            const nlohmann::json& record);

// What the profile's data changed since THEN: AS_THEN is today's profile
// loaded with THEN's --set values (the run that provisioned the machine,
// asked again), so that each of its values that differs from THEN's comes
// from the profile itself (a new default, a changed [matrix] row). Only
// those that NOW (today's profile with today's --set values, the plan
// being shown) applies are listed, each with where its value is written.
DefaultsChanged defaults_changed(const Manifest& now, const Manifest& as_then, const ManifestSource& source,
                                 const Provisioned& then);

// The comment block just above line HEADER_LINE (1-based) of TEXT, from its
// line starting "# Source:" (or the whole block when none does), joined
// into one line without the "# " marks. "" when there is no comment there.
std::string source_comment_above(const std::string& text, std::uint32_t header_line);

}  // namespace wslgpu
