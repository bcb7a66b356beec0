// What doctor takes from the bundled profiles rather than writing it a
// second time: a [vars] default as the profile gives it, with the machine's
// ${host.*} facts put in (the pytorch profiles' venv, the containers
// profiles' daemon.json). Read from the profile's text alone: no [matrix],
// no --set, no steps; doctor diagnoses what the profile installs by default.
#pragma once
#include <string>

#include "installer/host/host.hpp"

namespace wslgpu::doctor {

// [vars] VAR of the bundled PROFILE with HOST's facts substituted. Throws
// std::logic_error when the profile has no such variable, or it names
// another variable: a bundled profile that lost it is the build's fault,
// and the tests catch it.
std::string bundled_default(const std::string& profile, const std::string& var, const HostFacts& host);

}  // namespace wslgpu::doctor
