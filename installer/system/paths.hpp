// Checks on names that end up in paths or on command lines. Manifests are
// input from outside: nothing from them may reach a command line as an option
// or a path outside the target root.
#pragma once
#include <string>
#include <string_view>

namespace wslgpu {

// Where the tool keeps its state under the target root: journals, the lock,
// the download cache (docs/transactions.md).
inline constexpr const char* kStateDir = "/var/lib/wslgpu-setup";
// Under the state folder: the wheels a Python install downloaded and has
// not installed yet (steps/python/wheel_fetch.hpp), which `history` shows,
// `history --prune` empties and the disk-space refusal names.
inline constexpr const char* kWheelCacheFolder = "cache/wheels";

// A Debian package name (Debian Policy 5.6.1): lowercase letters, digits and
// "+-." , at least two characters, starting with a letter or digit. An
// optional ":arch" suffix and, for apt, "=version" are not accepted here.
bool is_valid_package_name(std::string_view name);

// An absolute target path with no "." or ".." component and no NUL byte.
// Returns an empty string when valid, else the reason.
std::string target_path_problem(std::string_view path);

// "/a//b/" -> "/a/b"
std::string normalize_path(std::string_view path);

// Parent directory of an absolute path ("/" for "/x").
std::string parent_path(std::string_view path);

// Last component of a path.
std::string base_name(std::string_view path);

}  // namespace wslgpu
