// `wslgpu-setup validate PROFILE...`: loads each profile (a family is its
// members) against this machine's facts and prints ok, every error found,
// or the refusal that kept the steps depending on it from being checked.
#include <iostream>

#include "installer/cli/commands.hpp"
#include "installer/cli/profile_choice.hpp"
#include "installer/cli/session.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

int run_validate(const GlobalOptions& g, const std::vector<std::string>& profiles) {
  Session s(g);
  auto sets = parse_sets(g.sets);
  bool all_ok = true;
  bool refused = false;
  std::vector<std::string> names;  // a family is its members
  for (const auto& p : profiles) {
    if (is_profile_family(p)) {
      names.push_back(p + "-rocm");
      names.push_back(p + "-cuda");
    } else {
      names.push_back(p);
    }
  }
  for (const auto& profile : names) {
    std::string display = profile;
    try {
      ManifestSource source = find_manifest(profile);
      display = source.display;
      Manifest m = load_manifest(source, sets, s.host, LoadOptions{g.unsupported_distro, {}});
      std::cout << source.display << ": ok (" << m.steps.size() << (m.steps.size() == 1 ? " step)" : " steps)") << "\n";
    } catch (const InputError& e) {
      all_ok = false;
      for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    } catch (const Refusal& e) {
      // The profile refuses this machine (a distribution it does not
      // support, an "auto" with no row): not a fault of the manifest, and
      // the steps that depend on it were not checked. Say so and go on.
      refused = true;
      std::cerr << display << ": refused on this machine, so not every step was checked: " << e.what()
                << "\n";
    }
  }
  if (!all_ok) return static_cast<int>(ExitCode::bad_input);
  return refused ? static_cast<int>(ExitCode::refused) : 0;
}

}  // namespace wslgpu
