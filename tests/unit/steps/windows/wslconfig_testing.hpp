// The wslconfig and wslconf tests' machine: a MemoryFileSystem with alice's
// Windows home (/mnt/c/Users/alice) and a scripted runner for interop, and a
// step planned on it; and the smallest wslconfig step, memory = 16GB.
#pragma once
#include <string>

#include "unit/steps/system_step_testing.hpp"

namespace wslgpu::testing {

inline const std::string kWslconfigPath = "/mnt/c/Users/alice/.wslconfig";

struct WslconfigMachine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  WslconfigMachine() {
    host.user = "alice";
    host.user_uid = 1000;
    host.user_gid = 1000;
    host.windows_home = "/mnt/c/Users/alice";
    fs.add_dir("/mnt/c/Users/alice", 0777);
  }
  StepPlan plan(const Step& step) {
    StepContext ctx{fs, runner, host, "rocm"};
    return step.plan(ctx);
  }
};

inline const char* const kWslconfigMemoryStep = R"(
kind = "wslconfig"
settings.wsl2 = { memory = "16GB" }
)";

}  // namespace wslgpu::testing
