#include "installer/cli/profile_choice.hpp"

#include "installer/manifest/bundled_manifests.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

// FAMILY ("pytorch"): a family of bundled layers, one per GPU profile
// (pytorch-rocm, pytorch-cuda), of which the one for that GPU is chosen.
ProfileChoice pick_profile(const Session& s, const std::string& command, const std::string& family = "") {
  ProfileChoice c = choose_profile(s.host.gpu_evidence);
  const std::string prefix = family.empty() ? "" : family + "-";
  if (c.profile.empty())
    throw Error(ExitCode::bad_input, "cannot choose a profile: " + c.why + ".\nName the one you want:\n  sudo wslgpu-setup " +
                                         command + " " + prefix + "cuda    # NVIDIA\n  sudo wslgpu-setup " + command +
                                         " " + prefix + "rocm    # AMD");
  c.profile = prefix + c.profile;
  return c;
}

}  // namespace

bool is_profile_family(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  bool self = false, rocm = false, cuda = false;
  for (const auto& m : bundled_manifests()) {
    self = self || m.name == name;
    rocm = rocm || m.name == name + "-rocm";
    cuda = cuda || m.name == name + "-cuda";
  }
  return !self && rocm && cuda;
}

std::string profile_to_run(const Session& s, const std::string& command, const std::string& given,
                           ProfileChoice& choice) {
  if (given.empty()) choice = pick_profile(s, command);
  else if (is_profile_family(given)) choice = pick_profile(s, command, given);
  else return given;
  return choice.profile;
}

std::string choice_line(const ProfileChoice& c) {
  return "Profile " + c.profile + ", chosen because " + c.why + ".\n";
}

nlohmann::json choice_json(const ProfileChoice& c) {
  if (c.profile.empty()) return nlohmann::json::object();
  return {{"profile_choice", {{"profile", c.profile}, {"why", c.why}}}};
}

}  // namespace wslgpu
