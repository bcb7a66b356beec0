// Which profile a command runs when none is named, or a family is: the one
// the mounted Windows driver asks for (installer/host/gpu_vendor.hpp), and
// how the command says it chose.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "installer/cli/session.hpp"
#include "installer/host/gpu_vendor.hpp"

namespace wslgpu {

// Whether NAME is a family of bundled layers rather than a profile: no
// bundled NAME, but NAME-rocm and NAME-cuda (docs/manifest.md, "Layers").
bool is_profile_family(const std::string& name);

// The profile COMMAND ("plan", "install") names in GIVEN, or chooses from the
// GPU (none given, or a family); CHOICE says how it was chosen. Both vendors
// or neither is for the user to decide (exit 2).
std::string profile_to_run(const Session& s, const std::string& command, const std::string& given,
                           ProfileChoice& choice);

// "Profile rocm, chosen because ...": the line a chosen profile is shown with.
std::string choice_line(const ProfileChoice& c);

// {"profile_choice": {...}} when the profile was chosen, else {}.
nlohmann::json choice_json(const ProfileChoice& c);

}  // namespace wslgpu
