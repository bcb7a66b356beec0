// check with path and type: what each type means when PATH is a symbolic
// link. Type "symlink" looks at the link itself; every other type at the file
// the link points to, as before.
#include <doctest/doctest.h>

#include <filesystem>

#include "installer/plan/overlay_filesystem.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

// What a check on PATH of TYPE says in plan (on FS) and whether its apply,
// during install, lets the run go on.
struct Verdicts {
  std::string plan_detail;
  bool apply_holds = false;
};

Verdicts check(FileSystem& fs, const std::string& path, const std::string& type) {
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "t"};
  auto step = build_ok("kind = \"check\"\npath = \"" + path + "\"\ntype = \"" + type + "\"\n");
  Verdicts v;
  StepPlan p = step->plan(ctx);
  REQUIRE(p.verdict == Verdict::verify);
  v.plan_detail = p.details.at(0);
  try {
    step->apply(ctx, p);
    v.apply_holds = true;
  } catch (const StepFailure&) {
    v.apply_holds = false;
  }
  return v;
}

}  // namespace

TEST_CASE("a check of type symlink holds on a link, a dangling one too, and fails on a regular file") {
  TempDir root;
  root.write("opt/rocm-6.4/lib/librocdxg.so", "ELF");
  std::filesystem::create_symlink("/opt/rocm-6.4", root.path() + "/opt/rocm");
  std::filesystem::create_symlink("/opt/nothing-here", root.path() + "/opt/dangling");
  RootedFileSystem fs(root.path());

  Verdicts link = check(fs, "/opt/rocm", "symlink");
  CHECK(link.plan_detail == "holds (with the changes above)");
  CHECK(link.apply_holds);
  CHECK(check(fs, "/opt/dangling", "symlink").apply_holds);

  Verdicts file = check(fs, "/opt/rocm-6.4/lib/librocdxg.so", "symlink");
  CHECK(file.plan_detail == "would fail: /opt/rocm-6.4/lib/librocdxg.so is a file, not a symlink");
  CHECK_FALSE(file.apply_holds);
  CHECK(check(fs, "/opt/missing", "symlink").plan_detail == "would fail: /opt/missing does not exist");
  // A link in the middle of the path is resolved as always: the last
  // component, a regular file, is what is judged.
  CHECK(check(fs, "/opt/rocm/lib/librocdxg.so", "symlink").plan_detail ==
        "would fail: /opt/rocm/lib/librocdxg.so is a file, not a symlink");
}

TEST_CASE("the other types judge the file a link points to, as they always have") {
  TempDir root;
  root.write("etc/real.conf", "x\n");
  std::filesystem::create_symlink("real.conf", root.path() + "/etc/linked.conf");
  std::filesystem::create_symlink("/etc", root.path() + "/etc-link");
  std::filesystem::create_symlink("/nowhere", root.path() + "/dangling");
  RootedFileSystem fs(root.path());
  Verdicts file = check(fs, "/etc/linked.conf", "file");
  CHECK(file.plan_detail == "holds (with the changes above)");
  CHECK(file.apply_holds);
  CHECK(check(fs, "/etc-link", "directory").apply_holds);
  CHECK(check(fs, "/etc/linked.conf", "any").apply_holds);
  CHECK(check(fs, "/dangling", "any").plan_detail == "would fail: /dangling does not exist");
}

TEST_CASE("a check of type symlink sees a link in the in-memory fake and through the plan's overlay") {
  MemoryFileSystem base;
  base.add_file("/usr/lib/wsl/lib/libcuda.so.1.1", "ELF");
  base.add_symlink("/usr/lib/wsl/lib/libcuda.so.1", "libcuda.so.1.1");
  CHECK(check(base, "/usr/lib/wsl/lib/libcuda.so.1", "symlink").apply_holds);
  CHECK(check(base, "/usr/lib/wsl/lib/libcuda.so.1", "file").apply_holds);
  CHECK_FALSE(check(base, "/usr/lib/wsl/lib/libcuda.so.1.1", "symlink").apply_holds);

  OverlayFileSystem overlay(base);
  CHECK(check(overlay, "/usr/lib/wsl/lib/libcuda.so.1", "symlink").apply_holds);
  // A file an earlier step of the plan writes there replaces the link.
  overlay.write_atomic("/usr/lib/wsl/lib/libcuda.so.1", "copy", FileAttrs{});
  CHECK(check(overlay, "/usr/lib/wsl/lib/libcuda.so.1", "symlink").plan_detail ==
        "would fail: /usr/lib/wsl/lib/libcuda.so.1 is a file, not a symlink");
}
