// Sizes and durations for people, written the way apt writes them (powers
// of 1000: "2.9 GB", "700 B"), so that the tool's figures read like the
// ones apt prints next to them.
#pragma once
#include <cstdint>
#include <string>

namespace wslgpu {

// "700 B", "12.3 kB", "2936 kB" is written "2.9 MB", "2.9 GB", "1.2 TB":
// three significant digits at most.
std::string human_size(std::uint64_t bytes);

// "45 s", "2 min 18 s", "1 h 05 min"; "0 s" for less than a second.
std::string human_duration(std::uint64_t seconds);

}  // namespace wslgpu
