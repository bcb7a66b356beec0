// Which installed packages apt installed only as dependencies:
// ROOT/var/lib/apt/extended_states, deb822 stanzas of Package,
// Architecture and "Auto-Installed: 1". A package not listed there (or
// listed with 0) was asked for, by a person or a tool, and autoremove never
// takes it. Read as text, like dpkg's status: knowing what a request
// replaces costs no apt run.
#pragma once
#include <set>
#include <string>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

class AptExtendedStates {
 public:
  // Parses the text of the file; FILE names it in errors (InputError).
  static AptExtendedStates parse(const std::string& text, const std::string& file = "/var/lib/apt/extended_states");
  // Reads ROOT/var/lib/apt/extended_states; a missing file marks nothing
  // automatic (apt has not written it yet); an unreadable one throws StepFailure.
  static AptExtendedStates read(const FileSystem& fs);

  // Whether NAME (or NAME:ARCH) is marked automatically installed.
  bool is_auto(const std::string& name) const;
  const std::set<std::string>& auto_installed() const { return auto_; }

 private:
  std::set<std::string> auto_;  // plain names, and name:arch for each entry
};

}  // namespace wslgpu
