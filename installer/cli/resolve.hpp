// A profile resolved against the machine: the manifest loaded with the
// command's --set values and the host's facts, its plan, and what the
// guards refuse or warn of. `plan`, `install` and `recover --resume` share
// every line of it, up to the first side effect.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "installer/cli/commands.hpp"
#include "installer/cli/session.hpp"
#include "installer/manifest/defaults_changed.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/plan/plan.hpp"

namespace wslgpu {

struct Resolved {
  ManifestSource source;  // with the base layer as loaded now
  Manifest manifest;
  Plan plan;
};

// CHANGING: for install or recover (the guards that only refuse a change).
// CHOSEN: [matrix] rows a transaction recorded (resume), else empty.
// OFFLINE: `plan --offline`, which asks no server (StepContext::offline).
Resolved resolve(const GlobalOptions& g, Session& s, ManifestSource source, const Variables& sets, bool changing,
                 const std::map<std::string, std::string>& chosen = {}, bool offline = false);

// What the profile's defaults changed since the transaction that last
// provisioned the machine with R's profile (installer/manifest/defaults_changed.hpp):
// today's profile is loaded once more with that run's --set values and the
// user and host facts it recorded (machine_as_recorded), so that what
// differs is the profile's doing, not a change of user, distribution, GPU or
// driver. Without root the transactions cannot
// be read: then nothing, as for a machine never provisioned (install, which
// needs root, says it).
std::optional<DefaultsChanged> since_provisioned(const GlobalOptions& g, Session& s, const Resolved& r);

}  // namespace wslgpu
