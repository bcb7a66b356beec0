// `wslgpu-setup validate PROFILE...`: loads each profile (a family is its
// members) against this machine's facts and prints ok or every error found.
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
    try {
      ManifestSource source = find_manifest(profile);
      Manifest m = load_manifest(source, sets, s.host, LoadOptions{g.unsupported_distro, {}});
      std::cout << source.display << ": ok (" << m.steps.size() << (m.steps.size() == 1 ? " step)" : " steps)") << "\n";
    } catch (const InputError& e) {
      all_ok = false;
      for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    }
  }
  return all_ok ? 0 : static_cast<int>(ExitCode::bad_input);
}

}  // namespace wslgpu
