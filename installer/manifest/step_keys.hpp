// Reads the kind-specific keys of one [[step]] table with full checking. Each
// getter records the key as known, substitutes ${var} in strings, and on a
// missing key, a wrong type or a bad value adds a diagnostic at the value's
// FILE:LINE:COLUMN instead of throwing, so `validate` can report every error
// in one run. finish() reports the keys no getter asked for.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "installer/system/error.hpp"
#include "installer/manifest/substitute.hpp"

namespace wslgpu {

SourcePos toml_pos(const toml::node& node, const std::string& file);

class StepKeys {
 public:
  // FROM_COMMAND_LINE names the variables whose value the user gave with
  // --set (directly or through another variable); see uses_command_line().
  StepKeys(const toml::table& table, std::string file, std::string kind, const Variables& vars,
           std::vector<Diagnostic>& diagnostics, std::set<std::string> from_command_line = {});

  // Keys every step has; the loader reads them, step kinds never do.
  void mark_common(const std::string& key) { used_.insert(key); }

  bool has(const std::string& key) const { return table_.contains(key); }

  std::string required_string(const std::string& key);
  std::optional<std::string> optional_string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& fallback);
  bool boolean(const std::string& key, bool fallback);
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max);
  std::vector<std::string> string_list(const std::string& key);
  // A required non-empty list of strings.
  std::vector<std::string> required_string_list(const std::string& key);
  // A table of string values (for example env = { A = "1" }), in file order;
  // keys and values are both ${...} substituted.
  std::vector<std::pair<std::string, std::string>> string_table(const std::string& key);

  // An absolute target path that stays inside the root.
  std::string required_path(const std::string& key);
  std::optional<std::string> optional_path(const std::string& key);
  // Non-empty list of valid Debian package names.
  std::vector<std::string> packages(const std::string& key);
  // A command as an argument list: a non-empty array of strings.
  std::optional<std::vector<std::string>> argv(const std::string& key);
  // A file mode written as a string of octal digits ("0644").
  std::optional<std::uint32_t> mode(const std::string& key);
  // One of CHOICES.
  std::string choice(const std::string& key, const std::vector<std::string>& choices, const std::string& fallback);

  // The raw value of KEY, recorded as known; nullptr when absent. For kinds
  // whose keys hold nested tables (wslconfig's settings). Strings found in it
  // go through substitute_node() so that ${var} works there too.
  const toml::node* node(const std::string& key) { return get(key); }
  std::string substitute_node(const toml::node& string_node);
  // Whether a string value uses a variable set with --set: the user's own
  // word for that value, which a kind may honour over its defaults' rules.
  bool uses_command_line(const toml::node& string_node) const;
  SourcePos pos_of(const toml::node& n) const { return toml_pos(n, file_); }

  // Where KEY's value is (or the table, when KEY is absent).
  SourcePos pos(const std::string& key) const;
  void error(const std::string& key, const std::string& message);
  void error_at(const SourcePos& pos, const std::string& message);

  // Reports every key that no getter read. Call once, last.
  void finish();

 private:
  const toml::node* get(const std::string& key);
  std::string expect_string(const std::string& key, const toml::node& node);

  const toml::table& table_;
  std::string file_;
  std::string kind_;
  const Variables& vars_;
  std::vector<Diagnostic>& diagnostics_;
  std::set<std::string> from_command_line_;
  std::set<std::string> used_;
};

// "a string", "an integer", ... for messages.
std::string toml_type_name(const toml::node& node);

// Where a node is, as FILE:LINE:COLUMN.
SourcePos toml_pos(const toml::node& node, const std::string& file);
SourcePos toml_pos(const toml::source_region& region, const std::string& file);

}  // namespace wslgpu
