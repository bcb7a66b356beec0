// installer/formats/: readers and writers of the file formats others write
// (INI, deb822, dpkg status, apt output, .deb, SHA-256, diffs). Includes only
// system/.
//
// A line-preserving INI document, the format of Windows' %USERPROFILE%\.wslconfig
// and of /etc/wsl.conf. Editing keeps everything it does not touch byte for
// byte: comments, order, other keys and sections, the UTF-8 byte-order mark
// and the line endings (.wslconfig is usually written with CRLF by Windows
// editors). WSL silently ignores a file saved as UTF-16 and a key written on
// its section's line, so parse() reports both instead of guessing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "installer/system/error.hpp"

namespace wslgpu {

class IniDocument {
 public:
  // Parses TEXT; FILE names it in diagnostics. Throws InputError (with file
  // and line) for UTF-16 text, a key outside any section, a line that is
  // neither a comment, a section nor key=value, and a section header with
  // text after it ("[wsl2] memory=8GB").
  static IniDocument parse(const std::string& text, const std::string& file);

  // The value of KEY in SECTION (the last one when repeated); section and key
  // names compare case-insensitively, as WSL does.
  std::optional<std::string> get(const std::string& section, const std::string& key) const;

  // Every value of KEY in SECTION, in file order (a key may be repeated, and
  // a section may appear more than once).
  std::vector<std::string> values(const std::string& section, const std::string& key) const;

  // Sets KEY in SECTION: replaces the value in place on every line that
  // holds the key (keeping the text around it, so that a repeated key cannot
  // keep an old value whichever occurrence WSL reads), else appends a line
  // after the last non-blank line of the section's last block, else appends
  // a new section at the end (after a blank line).
  void set(const std::string& section, const std::string& key, const std::string& value);

  // Removes every KEY line in SECTION. Returns whether something was removed.
  bool erase(const std::string& section, const std::string& key);

  // Section names in order of first appearance, and the keys of one.
  std::vector<std::string> sections() const;
  std::vector<std::string> keys(const std::string& section) const;

  // 1-based line of KEY in SECTION (the last one), 0 when absent.
  std::uint32_t line_of(const std::string& section, const std::string& key) const;

  // 1-based lines of every [SECTION] header (more than one when repeated).
  std::vector<std::uint32_t> section_lines(const std::string& section) const;

  // Line endings used when the document was empty or is new.
  void use_crlf(bool crlf) { crlf_ = crlf; }

  // The document as text, with its original BOM and line endings.
  std::string str() const;

  bool crlf() const { return crlf_; }

 private:
  struct Line {
    enum class Kind { other, section, key } kind = Kind::other;
    std::string text;     // without the line ending
    std::string section;  // the section this line belongs to (lowercase)
    std::string name;     // section or key name as written
    std::string value;    // the key's value, trimmed
    // Its own line end, kept so that a file with mixed line ends (a CRLF
    // file edited with a Unix editor) comes back byte for byte: a '\r'
    // before the "\n" (or before the end of the file), and the "\n" itself
    // (only the last line of a file may lack one).
    bool cr = false;
    bool lf = true;
  };
  std::vector<Line> lines_;
  bool bom_ = false;
  bool crlf_ = false;
  bool final_newline_ = true;
};

// Whether an INI value turns a switch off as WSL reads booleans
// ("false" in any case, or "0"), for guards and doctor alike.
bool ini_says_false(const std::string& value);

// True when TEXT looks like UTF-16 (a UTF-16 BOM, or NUL bytes in what should be text).
bool looks_like_utf16(const std::string& text);

// TEXT decoded from UTF-16 (little- or big-endian, by its BOM, else by where
// the NUL bytes fall) to UTF-8 without a BOM; nullopt when it is not valid
// UTF-16 (odd length, a lone surrogate).
std::optional<std::string> utf16_to_utf8(const std::string& text);

}  // namespace wslgpu
