// An apt_repository step's pin (/etc/apt/preferences.d/NAME.pref, "Pin:
// release o=PIN_ORIGIN"), and the general pins of the same origin that it
// replaces: apt takes the highest priority of every general pin that
// matches, so a leftover one (AMD's repo-radeon-pin-600) would override it.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "steps/apt/apt_repository_spec.hpp"
#include "steps/step.hpp"

namespace wslgpu::apt_repo {

// The preferences.d files, other than REPO's own and other apt_repository
// steps', that hold only general pins of REPO's origin: (path, content).
// None without pin_origin.
std::vector<std::pair<std::string, std::string>> same_origin_pins(const AptRepositorySpec& repo, StepContext& ctx);

// Plans removing the same_origin_pins that REPO's pin replaces (when it takes
// over another source of the repository), with a diff; a plain file of a
// package stays, since dpkg would put it back.
void plan_replaced_pins(const AptRepositorySpec& repo, StepContext& ctx, StepPlan& p);

// The content of REPO's NAME.pref.
std::string wanted_pin(const AptRepositorySpec& repo);

}  // namespace wslgpu::apt_repo
