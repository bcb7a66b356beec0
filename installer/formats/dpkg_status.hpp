// What dpkg says is on the target: ROOT/var/lib/dpkg/status, read as text
// (never by running dpkg, so a plan for a root folder costs nothing and
// works without the root's own tools). A package counts as installed only
// with "Status: install ok installed"; one that is unpacked, half-configured
// or only has its configuration files left is "present" but not installed,
// which is what undo needs to know to clean up after a failed postinst.
//
// dpkg journals every status change in ROOT/var/lib/dpkg/updates/ (files
// named by number) and folds them into the status file when it finishes;
// entries left there mean a dpkg run was interrupted, and apt refuses to
// work until `dpkg --configure -a` has run, so we refuse first and say so.
#pragma once
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

struct DpkgPackage {
  std::string name;
  std::string version;
  std::string architecture;
  std::string want;    // "install", "hold", "deinstall", "purge", "unknown"
  std::string flag;    // "ok" or "reinstreq"
  std::string status;  // "installed", "unpacked", "half-configured", "config-files", "not-installed", ...

  bool installed() const { return flag == "ok" && status == "installed" && (want == "install" || want == "hold"); }
  // Anything dpkg would have to purge: every state but not-installed.
  bool present() const { return status != "not-installed" && !status.empty(); }
};

class DpkgStatus {
 public:
  // Parses the text of a status file. FILE names it in errors (InputError
  // with FILE:LINE for a malformed stanza).
  static DpkgStatus parse(const std::string& text, const std::string& file = "/var/lib/dpkg/status");
  // Reads ROOT/var/lib/dpkg/status through FS. A missing file is an empty
  // database (a root without dpkg); an unreadable one throws StepFailure.
  static DpkgStatus read(const FileSystem& fs);

  // The entry for NAME (or "NAME:ARCH" for a foreign architecture), or nullptr.
  const DpkgPackage* find(const std::string& name) const;
  bool is_installed(const std::string& name) const;
  // name -> version of every installed package. Multi-arch packages
  // installed for more than one architecture appear once per architecture
  // as "name:arch", and once as plain "name" for the first one seen.
  std::map<std::string, std::string> installed() const;
  // name -> version of every present package (see DpkgPackage::present).
  std::map<std::string, std::string> present() const;
  const std::vector<DpkgPackage>& packages() const { return packages_; }

 private:
  std::vector<DpkgPackage> packages_;
  std::map<std::string, std::size_t> index_;
};

// The journal entries in ROOT/var/lib/dpkg/updates/ (numbered files) that
// dpkg has not folded into the status file yet. Empty when all is well.
std::vector<std::string> pending_dpkg_updates(const FileSystem& fs);

// dpkg is ready for us: first waits up to LOCK_WAIT while another package
// manager (apt-get, dpkg, unattended-upgrades) holds dpkg's lock, as apt's
// own DPkg::Lock::Timeout would, and throws StepFailure naming the holder
// when it still does; a dpkg that is working leaves entries in updates/ that
// are not a sign of an interrupted one. Then throws StepFailure with the
// `dpkg --configure -a` advice when pending_dpkg_updates() is not empty.
void require_no_pending_dpkg_updates(const FileSystem& fs, std::chrono::seconds lock_wait = std::chrono::seconds(0));

}  // namespace wslgpu
