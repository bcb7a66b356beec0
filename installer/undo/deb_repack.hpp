// Rebuilding an installed package's .deb from what dpkg has installed, as
// `dpkg-repack` does: the last resort of the undo store (undo_store.hpp,
// KeptFrom::rebuilt) when no apt source or cache holds the version a
// transaction's undo must put back.
//
// The copy is meant to make `dpkg -i` after `dpkg --purge` (or after a
// downgrade) give back the same machine: the same status stanza, the same
// /var/lib/dpkg/info/NAME.* files and every installed file with the same
// mode, owner and content. So the control file is the status stanza's own
// text (dpkg writes its fields in its own order, which reading them back
// keeps), the control files are dpkg's copies of the original ones, and the
// files are taken as they are now. What cannot come back the same:
//   - a conffile the administrator changed is shipped changed, so dpkg then
//     records its hash as the changed content's (a later upgrade sees no
//     local change and would replace it without asking);
//   - a non-conffile that was changed is shipped changed (md5sums, copied as
//     dpkg keeps it, still has the original sums: `dpkg --verify` says so);
//   - conffiles marked obsolete are left out, as dpkg-repack does;
//   - the selection ("hold") is not part of a .deb: undo restores it itself.
#pragma once
#include <cstdint>
#include <string>

#include "installer/system/filesystem.hpp"
#include "installer/system/process.hpp"

namespace wslgpu {

// Whether NAME (ARCH) can be rebuilt from the target under FS: dpkg's status
// has it installed ("install ok installed", or held), its
// /var/lib/dpkg/info/NAME.list (NAME:ARCH.list for a Multi-Arch: same
// package) exists, and every path it lists exists (lstat; for a path another
// package diverted, where dpkg put this package's file). Reads only, through FS.
struct RepackCheck {
  bool possible = false;
  // The first problem, for the user: "/opt/rocm/lib/libfoo.so, listed by
  // dpkg as rocm-core's, is missing". Empty when possible.
  std::string why;
  // What the plan shows for a rebuilt copy: Installed-Size * 1024 (the
  // listed files' sizes when the stanza has no Installed-Size).
  std::uint64_t estimated_bytes = 0;
};
RepackCheck can_repack(const FileSystem& fs, const std::string& name, const std::string& arch);

// Rebuilds the .deb of installed NAME (ARCH) into OUT_TARGET, a path inside
// the target root whose folder exists:
//   - DEBIAN/control: the status stanza's lines, in their order, without the
//     fields that describe the installation rather than the package (Status,
//     Config-Version, Conffiles, Triggers-Pending, Triggers-Awaited);
//   - DEBIAN/conffiles: the stanza's Conffiles without the obsolete ones;
//   - every other control file dpkg keeps in /var/lib/dpkg/info (preinst,
//     postinst, prerm, postrm, config, templates, triggers, shlibs, symbols,
//     md5sums, ...) as it is there, mode included;
//   - every path the .list names with its type, mode, owner, modification
//     time and content as they are now (symbolic links as links; a listed
//     link with listed paths under it, such as /lib on a merged-/usr system,
//     as the folder the package shipped; hard links kept).
// The tree is put together in SCRATCH_TARGET, a folder inside the target
// that this creates (replacing what is there), fills with hard links where
// it can and copies where it cannot, and removes when it returns or throws.
// The files are copied on the machine running the tool (as root), then the
// target's own dpkg-deb builds the .deb chrooted into it (`dpkg-deb --build
// -Zgzip`, Command::in_root). Throws StepFailure naming the package and what
// went wrong (can_repack's why when it is not possible), after removing a
// half-built OUT_TARGET.
void repack_installed(FileSystem& fs, ProcessRunner& runner, const std::string& name, const std::string& arch,
                      const std::string& scratch_target, const std::string& out_target);

}  // namespace wslgpu
