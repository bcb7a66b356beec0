// `wslgpu-setup validate` from outside: the broken-manifest corpus, good
// manifests, --set, and the bundled profiles.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness.hpp"

using namespace wslgpu::blackbox;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> broken_cases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() + "/tests/broken"))
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Runs from the source folder, as a person in a checkout would, so that the
// paths in messages read tests/broken/NAME.toml.
RunResult in_source_dir(const std::vector<std::string>& args) { return run_tool(args, RunOptions{source_dir(), {}}); }

}  // namespace

TEST_CASE("validate exits 2 on every broken manifest and prints exactly its expected text") {
  FakeWslRoot root;
  auto names = broken_cases();
  CHECK(names.size() >= 32);
  for (const auto& name : names) {
    SUBCASE(name.c_str()) {
      RunResult r = in_source_dir({"--root", root.path(), "validate", "tests/broken/" + name + ".toml"});
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());
      CHECK(r.err == read_text(source_dir() + "/tests/broken/" + name + ".expected"));
    }
  }
}

TEST_CASE("validate of a good manifest prints ok on standard output and exits 0") {
  FakeWslRoot root;
  RunResult r = in_source_dir({"--root", root.path(), "validate", "tests/blackbox/manifests/good.toml"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "tests/blackbox/manifests/good.toml: ok (5 steps)\n");
  CHECK(r.err.empty());
}

TEST_CASE("validate reports every file it is given and fails when one is broken") {
  FakeWslRoot root;
  RunResult r = in_source_dir({"--root", root.path(), "validate", "tests/blackbox/manifests/good.toml",
                               "tests/broken/duplicate_step_id.toml", "tests/blackbox/manifests/converged.toml"});
  CHECK(r.exit_code == 2);
  CHECK(r.out ==
        "tests/blackbox/manifests/good.toml: ok (5 steps)\n"
        "tests/blackbox/manifests/converged.toml: ok (4 steps)\n");
  CHECK(r.err == read_text(source_dir() + "/tests/broken/duplicate_step_id.expected"));
}

TEST_CASE("--set of a variable the manifest does not have exits 2 and names the closest one") {
  FakeWslRoot root;
  RunResult r = in_source_dir(
      {"--root", root.path(), "--set", "greting=hello", "validate", "tests/blackbox/manifests/good.toml"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "--set greting: the manifest has no variable \"greting\" (did you mean \"greeting\"?)\n");
}

TEST_CASE("--set of a variable the manifest has is accepted") {
  FakeWslRoot root;
  RunResult r = in_source_dir(
      {"--root", root.path(), "--set", "greeting=hello", "validate", "tests/blackbox/manifests/good.toml"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
}

TEST_CASE("--set without NAME=VALUE exits 2") {
  FakeWslRoot root;
  RunResult r =
      in_source_dir({"--root", root.path(), "--set", "greeting", "validate", "tests/blackbox/manifests/good.toml"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: --set: \"greeting\" must be written as NAME=VALUE\n");
}

TEST_CASE("validate of a manifest path that does not exist exits 2 and names it") {
  FakeWslRoot root;
  RunResult r = in_source_dir({"--root", root.path(), "validate", "tests/blackbox/manifests/missing.toml"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "tests/blackbox/manifests/missing.toml: cannot read the manifest: no such file, or not readable\n");
}

TEST_CASE("every bundled profile that list shows validates") {
  FakeWslRoot root;
  RunResult list = run_tool({"list"});
  REQUIRE(list.exit_code == 0);
  std::istringstream lines(list.out);
  std::string line;
  int profiles = 0;
  while (std::getline(lines, line)) {
    std::string name = line.substr(0, line.find(' '));
    ++profiles;
    RunResult r = run_tool({"--root", root.path(), "validate", name});
    INFO("profile ", name, ": ", r.err);
    CHECK(r.exit_code == 0);
    // A family ("pytorch") validates each of its members (pytorch-rocm, ...).
    CHECK((r.out.rfind("manifests/" + name + ".toml: ok (", 0) == 0 ||
           r.out.rfind("manifests/" + name + "-rocm.toml: ok (", 0) == 0));
  }
  CHECK(profiles > 0);
}

TEST_CASE("validate on a machine a profile refuses says so for that profile, checks the next, and exits 3") {
  // Debian 12 with --unsupported-distro: pytorch-cuda's "auto" finds no
  // Python row, so the steps built from it cannot be checked here. Before,
  // they were reported as errors of the profile ("auto" is not a Python
  // version), exit 2.
  FakeWslRoot root;
  root.write("/etc/os-release", "NAME=\"Debian GNU/Linux\"\nID=debian\nVERSION_ID=\"12\"\nVERSION_CODENAME=bookworm\n");
  RunResult r = run_tool({"--root", root.path(), "--unsupported-distro", "validate", "pytorch-cuda", "wslconfig"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);
  CHECK(contains(r.err, "manifests/pytorch-cuda.toml: refused on this machine, so not every step was checked: "
                        "torch_python = \"auto\" found no row of [matrix.torch_python]"));
  CHECK_FALSE(contains(r.err, "is not a Python version"));
  CHECK(contains(r.out, "manifests/wslconfig.toml: ok ("));
}
