// Unified diffs of text files, as `plan` shows them for every file a step
// would write: the same format as `diff -u`, so people and tools read it.
#pragma once
#include <string>
#include <vector>

namespace wslgpu {

// Lines of a unified diff from OLD to NEW ("---"/"+++" headers naming PATH,
// "@@" hunks with CONTEXT lines around each change). Empty when equal. A
// missing file is diffed as empty text and named /dev/null.
std::vector<std::string> unified_diff(const std::string& path, const std::string* old_text, const std::string& new_text,
                                      std::size_t context = 3);

}  // namespace wslgpu
