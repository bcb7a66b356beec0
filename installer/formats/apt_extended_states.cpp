#include "installer/formats/apt_extended_states.hpp"

#include "installer/formats/deb822.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

AptExtendedStates AptExtendedStates::parse(const std::string& text, const std::string& file) {
  AptExtendedStates s;
  for (const auto& stanza : parse_deb822(text, file)) {
    auto name = stanza.get("Package");
    if (!name || stanza.get_or("Auto-Installed", "0") != "1") continue;
    s.auto_.insert(*name);
    if (auto arch = stanza.get("Architecture")) s.auto_.insert(*name + ":" + *arch);
  }
  return s;
}

AptExtendedStates AptExtendedStates::read(const FileSystem& fs) {
  const std::string path = "/var/lib/apt/extended_states";
  auto info = fs.stat(path);
  if (!info) return AptExtendedStates{};
  try {
    return parse(fs.read(path), path);
  } catch (const InputError& e) {
    throw StepFailure(std::string("apt's record of automatically installed packages is damaged: ") + e.what() +
                      "\nRun `sudo apt-get check` to see what apt makes of it.");
  }
}

bool AptExtendedStates::is_auto(const std::string& name) const { return auto_.count(name) > 0; }

}  // namespace wslgpu
