// apt's own answer to "what would this install do": the output of
// `apt-get -s install ...` (or remove, purge), one line per action:
//
//   Inst rocm-dev (6.4.2.60402-120~24.04 repo.radeon.com [amd64])      new package
//   Inst libfoo [1.0-1] (1.1-1 Debian:12.5/stable [amd64])             upgrade from 1.0-1
//   Inst rocm [7.2.1-1] (6.4.2-1 repo.radeon.com [amd64]) []           downgrade from 7.2.1-1
//   Conf rocm-dev (6.4.2.60402-120~24.04 repo.radeon.com [amd64])      configure
//   Remv libhsakmt1 [5.7.0-1build1]                                    removal
//   Purg libhsakmt1 [5.7.0-1build1]                                    removal with configuration
//
// Resolving with apt itself (rather than walking Depends: ourselves) is what
// makes a plan exact: alternatives, Provides, pins and versioned
// dependencies are apt's job, and a package pulled in three levels deep
// shows up here like any other.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wslgpu {

struct AptAction {
  enum class Kind { install, upgrade, downgrade, configure, remove, purge };
  Kind kind = Kind::install;
  std::string name;          // without the ":arch" qualifier
  std::string architecture;  // "amd64", "all", or "" when apt did not say
  std::string old_version;   // upgrades and removals: the installed version
  std::string version;       // installs, upgrades and configures: the new version
  std::string origin;        // "Debian:12.5/stable", "repo.radeon.com", ...
};

// "install", "upgrade", "downgrade", "configure", "remove", "purge" (the change record's action).
const char* apt_action_name(AptAction::Kind kind);

struct AptTransaction {
  std::vector<AptAction> actions;  // in apt's order; Conf lines included
  // package -> the package that pulled it in, from the lines apt prints with
  // -o Debug::pkgDepCache::AutoInstall=1 ("Installing b as Depends of a").
  std::map<std::string, std::string> pulled_in_by;

  // "a → b → c" for C pulled in by B pulled in by A; just "c" when apt named
  // no reason (C was asked for).
  std::string chain(const std::string& name) const;

  // Everything but the Conf lines: what the change list shows.
  std::vector<AptAction> changes() const;
  bool empty() const { return changes().empty(); }
};

// Parses the output of `apt-get -s ...`. Lines that are not
// actions (the simulation note, "Reading package lists...", the summary)
// are ignored; a malformed action line is ignored too rather than guessed.
AptTransaction parse_apt_simulation(const std::string& output);

// What an install needs, in apt's own figures, from the output of
// `apt-get install --print-uris ...` (apt 2.6):
//   Need to get 0 B/3258 B of archives.                            to fetch / all the .debs (local ones are not fetched)
//   Need to get 2936 MB of archives.                                all of it is fetched
//   After this operation, 12.3 MB of additional disk space will be used.
//   After this operation, 5120 kB disk space will be freed.
//   'https://repo.radeon.com/.../rocm-core_6.4.2_amd64.deb' rocm-core_6.4.2_amd64.deb 700 SHA256:...
// apt rounds its figures to three or four digits (12.3 MB); the URI lines
// give exact sizes, so the bytes to fetch are their sum when apt lists any.
// Files apt already holds in its cache are neither listed nor counted.
struct AptSizes {
  bool known = false;               // apt said how much: the lines above were there
  std::uint64_t fetch_bytes = 0;    // to download into /var/cache/apt/archives
  std::uint64_t archive_bytes = 0;  // every .deb of the transaction, fetched or local
  std::int64_t disk_bytes = 0;      // installed size afterwards minus before; negative when freed
};
AptSizes parse_apt_sizes(const std::string& output);

// One 'URI' FILE SIZE HASH line of --print-uris (`apt-get download
// --print-uris NAME=VERSION` lists each .deb so, with the Packages index's
// size and SHA-256: "SHA256:<hex>"; older indexes may give only MD5Sum:).
struct AptUri {
  std::string uri;
  std::string file;
  std::uint64_t size = 0;
  std::string sha256;  // lowercase hex, "" when the line gives another hash
};
std::vector<AptUri> parse_apt_uris(const std::string& output);

// One of apt's rounded sizes ("3258 B", "12.3 kB", "2,936 MB", "1.2 GB")
// in bytes; nullopt when it is not one.
std::optional<std::uint64_t> parse_apt_size(const std::string& text);

// apt's error lines ("E: Unable to locate package x"), without the "E: ".
std::vector<std::string> apt_error_lines(const std::string& output);

// dpkg's own reasons in OUTPUT, which apt's "E: Sub-process /usr/bin/dpkg
// returned an error code (1)" does not repeat: each "dpkg: error ..." line
// joined with the indented line that follows it ("dpkg: error processing
// archive X (--unpack): cannot copy extracted data for './opt/f' to
// '/opt/f.dpkg-new': failed to write (No space left on device)").
std::vector<std::string> dpkg_error_lines(const std::string& output);

// The exact versions apt could not reconcile, from the "unmet dependencies"
// report of a request for a version that is not the candidate:
//   cuda-toolkit-12-6 : Depends: cuda-nvcc-12-6 (= 12.6.2-1) but 12.6.3-1 is to be installed
// gives {cuda-nvcc-12-6, 12.6.2-1}. apt does not change a dependency's
// version by itself when the request is a downgrade; asking for these too
// is what resolves it.
struct ExactDependency {
  std::string name;
  std::string version;
};
std::vector<ExactDependency> apt_unmet_exact_dependencies(const std::string& output);

}  // namespace wslgpu
