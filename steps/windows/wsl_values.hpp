// What WSL makes of a value in .wslconfig, following its own reader
// (microsoft/WSL: src/shared/configfile/configfile.cpp for the line,
// ParseMemorySize in src/shared/inc/stringshared.h for sizes), so that a
// value the user wrote is compared as WSL will use it: "32GB   # mine" is
// 32 GB, "64G" is 64 GB, and "16 GB" is not a size at all (WSL ignores it).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace wslgpu {

// RAW (the text after '=' on a line) without a '#' comment that starts
// outside double quotes, and without the spaces around: what WSL reads.
std::string without_trailing_comment(const std::string& raw);

// The value WSL sees in RAW: no trailing comment, double quotes removed,
// the escapes \\ \" \t \n \b replaced. nullopt for a quote left open or
// another escape, which make WSL skip the line.
std::optional<std::string> wsl_value(const std::string& raw);

// Bytes in a size: digits, then nothing (bytes) or a unit B, K, KB, M, MB,
// G, GB, T or TB, binary (1KB = 1024 bytes). Units are read in any case, as
// Microsoft's wsl-config.md writes them in words (WSL's current reader wants
// capitals; a lowercase one is kept here as the user wrote it, never
// rewritten). Zero is "0" alone, as WSL reads it. nullopt for anything else
// or a size beyond 2^64 bytes.
std::optional<std::uint64_t> wsl_size_bytes(const std::string& value);

// A count as WSL reads an integer (strtol with base 0: "8", "0x10", "010"
// for octal 8), when it is between 0 and 2^31 - 1; nullopt otherwise.
std::optional<std::uint64_t> wsl_count(const std::string& value);

}  // namespace wslgpu
