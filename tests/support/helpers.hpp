// Small helpers that many test files use, once (the test programs are unity
// builds, so a file-local copy would also clash with the next file's).
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "installer/system/process.hpp"

namespace wslgpu::testing {

// Whether TEXT contains PART.
inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A command run on the host itself (not in a target root), with a timeout
// that stops a hung test.
inline Command host_command(std::vector<std::string> argv) {
  Command cmd;
  cmd.argv = std::move(argv);
  cmd.in_root = false;
  cmd.timeout = std::chrono::seconds(20);
  return cmd;
}

}  // namespace wslgpu::testing
