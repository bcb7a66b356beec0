// Which installed package owns a file, read from dpkg's own database as text
// (ROOT/var/lib/dpkg/info/PACKAGE.list and PACKAGE.conffiles), never by
// running dpkg -S: a plan must work on a root folder and cost nothing.
//
// Whether the file is a conffile matters as much as who owns it: dpkg keeps
// a conffile the administrator deleted deleted on upgrade (it counts the
// deletion as a local change; only --force-confmiss puts it back, see
// dpkg(1)), but puts any other file of the package back on the next upgrade
// or reinstall.
#pragma once
#include <optional>
#include <string>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

struct DpkgOwner {
  std::string package;    // without ":ARCH"
  bool conffile = false;  // listed in PACKAGE.conffiles
};

// The package whose conffiles include PATH, or nullopt. Cheap: only the few
// packages with conffiles have a .conffiles file, each a few lines long.
std::optional<DpkgOwner> find_conffile_owner(const FileSystem& fs, const std::string& path);

// The package that installed PATH: its conffiles first, then every
// PACKAGE.list. The lists hold every file of every package (megabytes on a
// full system), so this is for paths a plan is about to change, not for the
// converged path. nullopt when no package has the file.
std::optional<DpkgOwner> find_dpkg_owner(const FileSystem& fs, const std::string& path);

}  // namespace wslgpu
