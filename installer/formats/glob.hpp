// Shell-style name patterns, as the manifests write package names and
// versions: '*' matches any run of characters (also none), '?' exactly one,
// everything else itself; the whole text must match. No brackets and no
// escapes: package names and versions have no use for them.
#pragma once
#include <string>

namespace wslgpu {

bool glob_match(const std::string& pattern, const std::string& text);

}  // namespace wslgpu
