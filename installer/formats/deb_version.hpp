// Debian package versions: dpkg's ordering ([epoch:]upstream[-revision],
// '~' sorting before everything, even the end) and the version a manifest
// asks for, written either as a glob over the version or as a Debian
// relation:
//
//   "7.2.1.*"        a glob ('*' any run, '?' one character). Without a ':'
//                    it matches the version without its epoch, so that
//                    "7.2.1.*" finds 1:7.2.1.70201-81 too.
//   ">= 7.2.1~"      a relation as in Depends: <<, <=, =, >=, >> and a
//                    version (no operator is not a relation: it is a glob,
//                    which without wildcards means exactly that version).
#pragma once
#include <optional>
#include <string>

namespace wslgpu {

// <0, 0 or >0 as dpkg --compare-versions orders A and B.
int compare_deb_versions(const std::string& a, const std::string& b);

// Whether TEXT is a version dpkg would accept: an optional numeric epoch
// and ':', an upstream part starting with a digit, an optional '-revision';
// letters, digits and . + ~ - : only.
bool is_deb_version(const std::string& text);

class VersionSpec {
 public:
  // Parses TEXT; nullopt (with ERROR saying why) when it is neither a glob
  // of version characters nor a relation with a valid version.
  static std::optional<VersionSpec> parse(const std::string& text, std::string& error);

  bool matches(const std::string& version) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::string op_;       // "" for a glob, else "<<" "<=" "=" ">=" ">>"
  std::string operand_;  // the glob, or the relation's version
};

}  // namespace wslgpu
