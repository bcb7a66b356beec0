// installer/planner/: manifest + machine -> Plan. Includes guards/ and below.
//
// Resolves a manifest against the machine into a Plan, changing nothing.
// `plan` prints the result; `install` runs it: both share every line up to
// here, so what plan shows is what install does.
#pragma once
#include "installer/manifest/manifest.hpp"
#include "installer/plan/plan.hpp"
#include "steps/step.hpp"

namespace wslgpu {

// Probes each step in order through an overlay of FS, so that later steps
// see the files earlier ones would write. `when` conditions are evaluated
// against the manifest's variables and the host facts. OFFLINE: ask no
// server (StepContext::offline).
Plan resolve_plan(const Manifest& manifest, const std::string& source_display, FileSystem& fs, ProcessRunner& runner,
                  const HostFacts& host, bool offline = false);

}  // namespace wslgpu
