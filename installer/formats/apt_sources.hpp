// apt's sources as apt reads them: /etc/apt/sources.list and the files of
// /etc/apt/sources.list.d/, one-line style (*.list) and deb822 style
// (*.sources), read as text through a FileSystem (never by running apt, so a
// plan costs nothing and works on a root folder). sources.list(5) is the
// reference for both formats and for which file names apt reads.
//
// The reader exists so that a step can see the sources other installers left
// behind (amdgpu-install's rocm.list, NVIDIA's cuda-keyring list): apt
// refuses to read any source at all ("Conflicting values set for option
// Signed-By") when two entries name the same URI and suite with different
// keys, so a step that adds a repository must find those entries first and
// either reuse or replace them. Replacing them must leave every other line of
// their files byte for byte as it was: remove_apt_source_entries() does that.
//
// One entry per one-line source line, one per deb822 stanza (which may list
// several types, URIs and suites). Commented-out lines are not entries; a
// stanza with "Enabled: no" is an entry that is not enabled. Lines apt would
// reject are reported as problems with FILE:LINE:COLUMN, not thrown: a broken
// unrelated file must not stop a step from looking at the rest.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"

namespace wslgpu {

enum class AptSourcesFormat { one_line, deb822 };

// An option as written: one-line "arch+=amd64,i386" is {"arch", "+=",
// {"amd64", "i386"}}; deb822 "Architectures-Add: amd64 i386" is
// {"Architectures-Add", "", {"amd64", "i386"}}.
struct AptSourceOption {
  std::string name;
  std::string op;  // "=", "+=", "-=" (one-line); "" (deb822)
  std::vector<std::string> values;
};

struct AptSourceEntry {
  std::string file;  // target path of the file it is in
  AptSourcesFormat format = AptSourcesFormat::one_line;
  std::size_t index = 0;         // position among the file's entries
  std::uint32_t first_line = 0;  // 1-based, inclusive: the line, or the stanza's first and last field lines
  std::uint32_t last_line = 0;
  std::vector<std::string> types;  // "deb", "deb-src"
  std::vector<std::string> uris;   // as written
  std::vector<std::string> suites;
  std::vector<std::string> components;
  bool enabled = true;  // false only for deb822 "Enabled: no"

  // arch / Architectures: empty when not set, which means apt's default
  // architectures (APT::Architectures). The += and -= forms (deb822
  // Architectures-Add / -Remove) modify that default.
  std::vector<std::string> architectures;
  std::vector<std::string> architectures_add;
  std::vector<std::string> architectures_remove;
  // signed-by / Signed-By: keyring paths and key fingerprints, in order.
  std::vector<std::string> signed_by;
  // A deb822 Signed-By that holds the key itself: the armoured block, with
  // the " ." continuation lines turned back into empty lines.
  std::string signed_by_key;
  std::string trusted;                   // "yes", "no" or "" (not set)
  std::vector<AptSourceOption> options;  // every option, as written

  // "/etc/apt/sources.list.d/rocm.list:3" or "...sources:5-11".
  std::string where() const;
  bool has_type(const std::string& type) const;
  // Whether the entry names URI (compared with normalize_apt_uri).
  bool has_uri(const std::string& uri) const;
  bool has_suite(const std::string& suite) const;
};

struct AptSourcesFile {
  std::string path;
  AptSourcesFormat format = AptSourcesFormat::one_line;
  std::string text;  // the file's bytes, as read
  std::vector<AptSourceEntry> entries;
  // Why apt would reject a line, at PATH:LINE:COLUMN (a one-line entry's
  // first character; a deb822 stanza's first field, or the bad line).
  std::vector<Diagnostic> problems;
};

// Parses TEXT as the file PATH (its format follows from its name: *.sources
// is deb822, anything else one-line).
AptSourcesFile parse_apt_sources(const std::string& path, const std::string& text);

// Whether apt reads a file of this name in sources.list.d: the name ends in
// .list or .sources and holds only letters, digits, '_', '-', '.' (and ':',
// which apt's own check also lets through), and does not start with '.'
// (sources.list(5), "SOURCES.LIST.D"). So rocm.list.save, rocm.list.dpkg-old
// and rocm.list~ are not read, and a source in them cannot conflict.
bool apt_reads_source_file_name(const std::string& name);

// Every sources file apt reads on the target, in apt's order: sources.list
// first, then sources.list.d/ in sorted name order. Files that are not
// regular files are skipped, as apt skips them. Throws StepFailure when a
// file exists but cannot be read.
std::vector<AptSourcesFile> read_apt_sources(const FileSystem& fs);

// The text of FILE without the entries at INDEXES (AptSourceEntry::index):
// one-line entries lose their line; deb822 entries lose their stanza (its
// block of lines, comments in it included) and the blank lines that
// separated it from the next. Every other line stays byte for byte as it
// was. nullopt when no entry would be left (only comments or blank lines):
// the file is then to be removed rather than left empty.
std::optional<std::string> remove_apt_source_entries(const AptSourcesFile& file,
                                                     const std::vector<std::size_t>& indexes);

// The same text, also when no entry is left in it (for sources.list itself,
// which stays with its comments: other tools expect it to exist).
std::string apt_sources_without(const AptSourcesFile& file, const std::vector<std::size_t>& indexes);

// A URI as apt compares it: without its trailing slashes
// ("https://x/repo/" and "https://x/repo" are the same source).
std::string normalize_apt_uri(const std::string& uri);

}  // namespace wslgpu
