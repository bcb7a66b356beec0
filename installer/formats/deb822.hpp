// Debian control-file syntax (deb822): stanzas of "Field: value" lines
// separated by blank lines, a value continued on lines that start with a
// space or a tab. It is the format of apt's .sources files, of
// /var/lib/dpkg/status and of a .deb's control file, so one parser serves
// all three. Field names compare case-insensitively, as apt and dpkg do.
//
// A continued value keeps its lines as written, minus the one leading space
// or tab of each continuation line, so that parse() then format() gives the
// text back field for field (comments are dropped: .sources files we write
// carry none). A " ." continuation line stays ".", which is what apt expects
// inside an inline Signed-By key.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wslgpu {

struct Deb822Field {
  std::string name;
  std::string value;  // first line trimmed; continuation lines joined with '\n'
};

class Deb822Stanza {
 public:
  // The value of NAME, or nullopt when the stanza has no such field.
  std::optional<std::string> get(std::string_view name) const;
  std::string get_or(std::string_view name, const std::string& fallback) const;
  // Replaces the value of NAME in place, or appends the field.
  void set(const std::string& name, const std::string& value);
  // Removes NAME. Returns whether it was there.
  bool erase(std::string_view name);
  bool empty() const { return fields_.empty(); }
  const std::vector<Deb822Field>& fields() const { return fields_; }
  std::uint32_t line = 0;  // 1-based line of the stanza's first field (0 when built in code)

 private:
  std::vector<Deb822Field> fields_;
};

// Parses TEXT. FILE names it in errors. Throws InputError (FILE:LINE) for a
// line that is neither a field, a continuation, a comment nor blank, and for
// a continuation line before any field.
std::vector<Deb822Stanza> parse_deb822(std::string_view text, const std::string& file);

// The stanzas as text, separated by one blank line, ending with a newline.
std::string format_deb822(const std::vector<Deb822Stanza>& stanzas);

// A whitespace-separated field value ("amd64 arm64") as a list.
std::vector<std::string> split_words(std::string_view value);

}  // namespace wslgpu
