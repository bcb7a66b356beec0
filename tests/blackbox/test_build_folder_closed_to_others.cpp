// The runs as a normal user (RunOptions::as_uid) pass wherever the build
// lies: here the binary and the manifest lie in a folder only root may
// enter, as in a clone under /root or in a `mktemp -d` folder (mode 0700),
// and the privilege-dropping runs still reach what they run.
#include <doctest/doctest.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "harness.hpp"
#include "support/build_paths.hpp"

using namespace wslgpu::blackbox;

namespace {

// Whether uid UID may execute PATH (asked in a child that becomes UID).
bool user_may_execute(int uid, const std::string& path) {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const auto id = static_cast<uid_t>(uid);
    if (::setgroups(0, nullptr) != 0 || ::setgid(id) != 0 || ::setuid(id) != 0) ::_exit(2);
    ::_exit(::access(path.c_str(), X_OK) == 0 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) != 2);
  return WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("a run as a normal user works when the build lies in a folder only root may enter" * needs_root()) {
  wslgpu::testing::TempDir closed;  // mkdtemp makes it 0700
  const std::filesystem::path build = std::filesystem::path(closed.path()) / "build";
  std::filesystem::create_directory(build);
  const std::filesystem::path built(wslgpu::testing::kToolBinary);
  for (const char* name : {"wslgpu-setup", "wslgpu-setup-fetch"})
    std::filesystem::copy_file(built.parent_path() / name, build / name);
  const std::string binary = (build / "wslgpu-setup").string();
  const std::string manifest = closed.path() + "/install.toml";
  std::filesystem::copy_file(source_dir() + "/tests/blackbox/manifests/install.toml", manifest);
  REQUIRE_FALSE(user_may_execute(kUnprivilegedUid, binary));  // what failed with "could not run"

  FakeWslRoot root;
  REQUIRE(::chmod(root.path().c_str(), 0755) == 0);  // as / is
  RunResult plan = run_tool_copy(binary, {"--root", root.path(), "plan", reachable_by_anyone(manifest)},
                                 RunOptions{"", {}, kUnprivilegedUid});
  INFO(plan.out, plan.err);
  CHECK(plan.exit_code == 0);
  CHECK(plan.out.find("Plan: 2 changes, 0 already done, 1 check. Nothing has been changed.\n") != std::string::npos);
  // The commands it suggests name the binary as it was given.
  RunResult install = run_tool_copy(binary, {"--root", root.path(), "install", reachable_by_anyone(manifest), "--yes"},
                                    RunOptions{"", {}, kUnprivilegedUid});
  CHECK(install.exit_code == 3);
  CHECK(install.err.find("Run it again with sudo: sudo " + binary + " --root " + root.path() + " install") !=
        std::string::npos);
}
