// ${var} substitution in manifest strings. Variables come from [vars], from
// --set overrides and from host facts (${host.codename}, ${host.user}).
// "$${" writes a literal "${".
#pragma once
#include <map>
#include <string>
#include <vector>

#include "installer/system/error.hpp"

namespace wslgpu {

using Variables = std::map<std::string, std::string>;

// Returns TEXT with every ${name} replaced. An undefined name, or a "${"
// without its "}", adds a diagnostic at POS (moved to the offending column
// when columns_match_source allows) and leaves that reference as written.
std::string substitute(const std::string& text, const Variables& vars, const SourcePos& pos,
                       std::vector<Diagnostic>& diagnostics);

// Whether the first OFFSET characters of a parsed TOML string were surely
// written as they are (no line break, tab, quote or backslash, which the
// source would have escaped), so that character OFFSET sits OFFSET + 1
// columns after the opening quote. Used to point messages at the column of
// the offending part of a string rather than at its start.
bool columns_match_source(const std::string& text, std::size_t offset);

// The names TEXT refers to with ${name}, in order, as substitute() reads
// them ("$${" is no reference). Lets a step ask whether a value came from a
// variable, and from which.
std::vector<std::string> referenced_variables(const std::string& text);

}  // namespace wslgpu
