// The status lines apt and dpkg write for a program that drives them, on a
// descriptor of its choosing, and the progress they add up to.
//
// `apt-get -o APT::Status-Fd=N ...` (apt 2.6, captured in
// tests/unit/formats/data/apt-status-*.txt):
//   dlstatus:2:19.4851:Retrieving file 2 of 5                  file 2 is being fetched, 19 % of all bytes
//   pmstatus:dpkg-exec:0.0000:Running dpkg                     dpkg starts (once per dpkg run)
//   pmstatus:rocm-core:14.2857:Unpacking rocm-core (amd64)     percent of dpkg's whole work
//   pmstatus:rocm-core:61.9048:Installed rocm-core (amd64)
//   pmerror:broken-postinst:52.3810:installed broken-postinst package post-installation script subprocess ...
//   pmconffile:..., media-change:...                           (never asked for here: confold, no media)
// `dpkg --status-fd N ...`:
//   processing: install: cuda-keyring                          a stage begins
//   status: cuda-keyring: unpacked                             a package reached a state
// The message is the rest of the line and may hold colons. apt translates
// it; the tool runs programs with LC_ALL=C.UTF-8, so it is English.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "installer/system/progress.hpp"

namespace wslgpu {

struct AptStatusLine {
  enum class Kind { download, package, error, conffile, media_change };
  Kind kind = Kind::package;
  std::string package;   // pmstatus, pmerror: the package, or "dpkg-exec"
  std::size_t file = 0;  // dlstatus: the file being fetched, from 1
  double percent = 0;    // 0 to 100
  std::string message;
};

// One line of apt's status descriptor, without its line break; nullopt for
// anything else (a broken or foreign line is skipped, never guessed at).
std::optional<AptStatusLine> parse_apt_status_line(std::string_view line);

struct DpkgStatusLine {
  enum class Kind { processing, status };
  Kind kind = Kind::status;
  std::string package;
  std::string word;  // processing: the stage (install, upgrade, configure, remove, purge, trigproc); status: the state
};

// One line of dpkg's status descriptor; nullopt for anything else.
std::optional<DpkgStatusLine> parse_dpkg_status_line(std::string_view line);

// Adds up one apt run's status lines into progress events: downloading
// (bytes from apt's percentage of the plan's DOWNLOAD_BYTES, file N of M),
// then unpacking, configuring or removing package N of M (M is PACKAGES,
// what the plan said apt would install or remove, raised when apt does
// more). apt reports each package several times per stage (Preparing,
// Unpacking, Installing); it counts once.
class AptProgress {
 public:
  AptProgress(std::uint64_t download_bytes, std::size_t packages);

  // The event LINE amounts to, or nullopt when it adds nothing (a repeated
  // or broken line, dpkg starting).
  std::optional<ProgressEvent> feed(std::string_view line);

  // What apt reported as pmerror lines, in order: for failure messages.
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::uint64_t download_bytes_;
  std::size_t packages_;
  std::string last_line_;
  ProgressEvent::Phase phase_ = ProgressEvent::Phase::work;
  std::vector<std::string> seen_;  // packages counted in the current phase
  std::vector<std::string> errors_;
};

// The same for one `dpkg --status-fd` run of a single package file.
class DpkgProgress {
 public:
  std::optional<ProgressEvent> feed(std::string_view line);

 private:
  ProgressEvent::Phase phase_ = ProgressEvent::Phase::work;
};

}  // namespace wslgpu
