// The corpus in tests/broken: every NAME.toml there is a manifest with
// something wrong, and NAME.expected holds, exactly, the diagnostics
// `wslgpu-setup validate tests/broken/NAME.toml` prints. Adding a case is
// adding two files; this test finds them at run time.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "installer/system/error.hpp"
#include "installer/host/host.hpp"
#include "support/fakes.hpp"
#include "installer/manifest/manifest.hpp"
#include "support/build_paths.hpp"

using namespace wslgpu;

namespace {

const std::string kSourceDir = wslgpu::testing::kSourceDir;

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> broken_cases() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDir + "/tests/broken"))
    if (entry.path().extension() == ".toml") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// Runs the test from the source folder, so that manifest paths (and so the
// messages) read "tests/broken/NAME.toml" as they do for a person there.
class InSourceDir {
 public:
  InSourceDir() : previous_(std::filesystem::current_path()) { std::filesystem::current_path(kSourceDir); }
  ~InSourceDir() { std::filesystem::current_path(previous_); }

 private:
  std::filesystem::path previous_;
};

// The host the corpus is validated against: what `validate` would see on a
// WSL2 Ubuntu 24.04 machine (host facts only matter for ${host.*} names).
// What load_manifest reports for NAME, one diagnostic per line, or "" when it loads.
std::string diagnostics_for(const std::string& name) {
  InSourceDir here;
  try {
    load_manifest(find_manifest("tests/broken/" + name + ".toml"), {}, wslgpu::testing::fake_wsl_host());
  } catch (const InputError& e) {
    std::string out;
    for (const auto& d : e.diagnostics()) out += d.str() + "\n";
    return out;
  }
  return "";
}

}  // namespace

TEST_CASE("the broken-manifest corpus holds at least 32 cases, each with its expected output") {
  auto names = broken_cases();
  CHECK(names.size() >= 32);
  for (const auto& name : names) {
    INFO("case: ", name);
    CHECK(std::filesystem::exists(kSourceDir + "/tests/broken/" + name + ".expected"));
  }
}

TEST_CASE("every broken manifest is reported exactly as its .expected file says") {
  for (const auto& name : broken_cases()) {
    SUBCASE(name.c_str()) {
      std::string expected = read_text(kSourceDir + "/tests/broken/" + name + ".expected");
      std::string actual = diagnostics_for(name);
      CHECK_MESSAGE(!actual.empty(), name, ".toml loaded without an error");
      CHECK(actual == expected);
    }
  }
}

TEST_CASE("a manifest path that does not exist is reported with the path") {
  try {
    find_manifest("tests/broken/no-such-file.toml");
    FAIL("find_manifest accepted a missing file");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "tests/broken/no-such-file.toml: cannot read the manifest: no such file, or not readable");
  }
}
