// A malformed file that a step would edit is the user's input, as a
// malformed manifest is: plan and install stop with FILE:LINE:COLUMN, exit 2,
// and nothing changes (json_file's daemon.json: test_json_file.cpp). Each
// kind that edits part of a file and keeps the rest is here; a kind that
// replaces a whole file it owns (cdi_spec, apt_repository's own .sources)
// backs up and replaces a broken one, as the plan says.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "harness.hpp"

using namespace wslgpu::blackbox;

// A namespace of its own: the test program is a unity build.
namespace malformed_files_blackbox {

TEST_CASE("plan wslconfig on a .wslconfig WSL would misread is bad input: exit 2 at FILE:LINE:COLUMN, unchanged") {
  FakeWslRoot root;
  root.write("/mnt/c/Users/alice/.wslconfig", "memory=4GB\r\n[wsl2]\r\nprocessors=2\r\n");
  auto before = snapshot(root.path());
  RunResult r = run_tool({"--root", root.path(), "--windows-home", "/mnt/c/Users/alice", "plan", "wslconfig"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "error: /mnt/c/Users/alice/.wslconfig:1:1: key \"memory\" is outside any section; WSL ignores it: put it "
        "under a [section] header\nWSL would misread this file, so it is left as it is: fix it by hand, then run "
        "again. Nothing was changed.\n");
  CHECK(r.out.empty());
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");
}

TEST_CASE("plan of a profile_env step on a .bashrc with its marker twice is bad input: exit 2 at FILE:LINE:COLUMN") {
  FakeWslRoot root;
  root.write("/home/alice/.bashrc",
             "# >>> wslgpu-setup env-test >>>\nexport A=1\n# <<< wslgpu-setup env-test <<<\n"
             "# >>> wslgpu-setup env-test >>>\n");
  const std::string m = root.path() + "/../env-test.toml";
  std::ofstream(m) << "[manifest]\nname = \"env-test\"\ndescription = \"a user's environment\"\nschema_version = 1\n\n"
                      "[[step]]\nid = \"env\"\nkind = \"profile_env\"\ntarget = \"user\"\nenv = { A = \"1\" }\n";
  auto before = snapshot(root.path());
  RunResult r = run_tool({"--root", root.path(), "--user", "alice", "plan", m});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "error: /home/alice/.bashrc:4:1: the marker \"# >>> wslgpu-setup env-test >>>\" appears again (first on line "
        "1), so the managed block is ambiguous. Remove the stray marker (or the extra block) by hand, then run again. "
        "Nothing was changed.\n");
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");
  std::filesystem::remove(m);
}

}  // namespace malformed_files_blackbox
