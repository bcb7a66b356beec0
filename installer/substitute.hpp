// ${var} substitution in manifest strings. Variables come from [vars], from
// --set overrides and from host facts (${host.codename}, ${host.user}).
// "$${" writes a literal "${".
#pragma once
#include <map>
#include <string>
#include <vector>

#include "installer/error.hpp"

namespace wslgpu {

using Variables = std::map<std::string, std::string>;

// Returns TEXT with every ${name} replaced. An undefined name, or a "${"
// without its "}", adds a diagnostic at POS (moved to the offending column
// when the string sits on one line) and leaves that reference as written.
std::string substitute(const std::string& text, const Variables& vars, const SourcePos& pos,
                       std::vector<Diagnostic>& diagnostics);

}  // namespace wslgpu
