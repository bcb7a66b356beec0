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

// Whether TEXT can be shown as lines of a diff: valid UTF-8 without NUL or
// other control characters than tab, line feed, carriage return and form
// feed. A binary file (a dearmoured key, /etc/apt/keyrings/NAME.gpg) is not:
// its bytes would garble a terminal and cannot go into the plan's JSON,
// which is UTF-8.
bool is_diffable_text(const std::string& text);

// What a plan shows for a file that is not diffable text: its size and
// SHA-256, before and after ("binary file /etc/apt/keyrings/rocm.gpg: 1226
// bytes, sha256 3f2a...; was absent").
std::vector<std::string> binary_change_lines(const std::string& path, const std::string* old_content,
                                             const std::string& new_content);

}  // namespace wslgpu
