// "Did you mean ...?" for names in manifests and on the command line: step
// kinds, keys, variables, sections.
#pragma once
#include <string>
#include <vector>

namespace wslgpu {

// The known name closest to NAME when it is a likely typo, else "".
std::string suggest(const std::string& name, const std::vector<std::string>& known);

}  // namespace wslgpu
