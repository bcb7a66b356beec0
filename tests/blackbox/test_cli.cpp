// The command line itself: unknown commands and options, --root, list,
// kinds and --version, all from outside the binary.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <toml++/toml.h>

#include "harness.hpp"
#include "support/helpers.hpp"

using namespace wslgpu::blackbox;

TEST_CASE("an unknown subcommand exits 2, names it and suggests the closest") {
  RunResult r = run_tool({"instal", "rocm"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("error: unknown command \"instal\" (did you mean \"install\"?); the commands are validate, plan, ",
                    0) == 0);
  RunResult far = run_tool({"--root", "/", "frobnicate"});
  CHECK(far.exit_code == 2);
  CHECK(far.err.rfind("error: unknown command \"frobnicate\"; the commands are ", 0) == 0);
}

TEST_CASE("no subcommand at all exits 2") {
  RunResult r = run_tool({});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("A subcommand is required") != std::string::npos);
}

TEST_CASE("an unknown option exits 2 and names it") {
  RunResult r = run_tool({"plan", "--bogus", "rocm"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--bogus") != std::string::npos);
  RunResult global = run_tool({"--frob", "list"});
  CHECK(global.exit_code == 2);
  CHECK(global.err.find("--frob") != std::string::npos);
}

TEST_CASE("a value outside an option's choices exits 2") {
  FakeWslRoot root;
  RunResult r = run_tool({"--root", root.path(), "plan", "wslconfig", "--output", "yaml"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("yaml") != std::string::npos);
}

TEST_CASE("plan without a profile exits 2") {
  RunResult r = run_tool({"plan"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("profile") != std::string::npos);
}

TEST_CASE("--help prints the exit statuses and exits 0") {
  RunResult r = run_tool({"--help"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("10  changes pending (plan --detailed-exitcode)") != std::string::npos);
}

TEST_CASE("--version prints the version, the git revision it was built from and the profile data's date") {
  RunResult r = run_tool({"--version"});
  CHECK(r.exit_code == 0);
  const std::string head = "wslgpu-setup " WSLGPU_VERSION " (git ";
  const std::string data = ", profile data of ";
  REQUIRE(r.out.rfind(head, 0) == 0);
  REQUIRE(r.out.size() > head.size() + 2);
  CHECK(r.out.substr(r.out.size() - 2) == ")\n");
  const std::size_t at = r.out.find(data);
  REQUIRE(at != std::string::npos);
  std::string revision = r.out.substr(head.size(), at - head.size());
  std::string date = r.out.substr(at + data.size(), r.out.size() - 2 - at - data.size());
  INFO("revision: ", revision, ", date: ", date);
  CHECK((revision == "unknown" ||
         (revision.size() >= 4 && revision.find_first_not_of("0123456789abcdef") == std::string::npos)));
  // YYYY-MM-DD: the last commit that changed manifests/ (cmake/version.cmake).
  REQUIRE(date.size() == 10);
  CHECK(date.find_first_not_of("0123456789-") == std::string::npos);
  CHECK((date[4] == '-' && date[7] == '-' && date.substr(0, 2) == "20"));
}

TEST_CASE("a relative --root exits 2 and says it must be absolute") {
  RunResult r = run_tool({"--root", "relative/root", "plan", "wslconfig"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: --root: \"relative/root\" must be an absolute path\n");
  RunResult v = run_tool({"--root", "relative/root", "validate", "wslconfig"});
  CHECK(v.exit_code == 2);
  CHECK(v.err == "error: --root: \"relative/root\" must be an absolute path\n");
}

TEST_CASE("a --root that does not exist exits 2 and names it") {
  FakeWslRoot root;
  std::string missing = root.path() + "/no-such-root";
  RunResult r = run_tool({"--root", missing, "plan", "wslconfig"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: --root: \"" + missing + "\" does not exist\n");
}

TEST_CASE("list shows every bundled profile with its description") {
  RunResult r = run_tool({"list"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  std::vector<std::string> expected;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() + "/manifests"))
    if (entry.path().extension() == ".toml") expected.push_back(entry.path().stem().string());
  std::sort(expected.begin(), expected.end());
  // Then the families, sorted: every NAME with both NAME-rocm and NAME-cuda
  // bundled (pytorch is pytorch-rocm or pytorch-cuda, and so on).
  std::vector<std::string> families;
  for (const auto& name : expected) {
    const std::string suffix = "-cuda";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string family = name.substr(0, name.size() - suffix.size());
    if (std::binary_search(expected.begin(), expected.end(), family + "-rocm")) families.push_back(family);
  }
  REQUIRE(families.size() == 5);  // containers, jax, onnxruntime, pytorch, tensorflow
  expected.insert(expected.end(), families.begin(), families.end());
  std::vector<std::string> listed;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    auto space = line.find(' ');
    REQUIRE(space != std::string::npos);
    listed.push_back(line.substr(0, space));
    CHECK(line.find_first_not_of(' ', space) != std::string::npos);  // a description follows
  }
  CHECK(listed == expected);
  CHECK(std::find(listed.begin(), listed.end(), "wslconfig") != listed.end());
  // The names are one column wide, as wide as the longest (onnxruntime-cuda).
  CHECK(wslgpu::testing::contains(r.out, "\npytorch           pytorch-rocm or pytorch-cuda, for the GPU whose Windows driver is mounted\n"));
  CHECK(wslgpu::testing::contains(r.out, "\ncontainers        containers-rocm or containers-cuda, for the GPU whose Windows driver is mounted\n"));
  CHECK(wslgpu::testing::contains(r.out, "\ntensorflow        tensorflow-rocm or tensorflow-cuda, for the GPU whose Windows driver is mounted\n"));
}

TEST_CASE("list --vars prints each bundled profile's variables as NAME=DEFAULT, reading no machine") {
  int profiles = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source_dir() + "/manifests")) {
    if (entry.path().extension() != ".toml") continue;
    ++profiles;
    const std::string name = entry.path().stem().string();
    CAPTURE(name);
    std::string expected;  // the [vars] of the source, sorted by name, strings as they are
    toml::table doc = toml::parse_file(entry.path().string());
    // A refused layer (tensorflow-rocm, …) has no [vars]: it prints nothing.
    const toml::table no_vars;
    const toml::table* vars = doc["vars"].as_table() ? doc["vars"].as_table() : &no_vars;
    for (const auto& [key, value] : *vars) {
      std::ostringstream text;
      if (const auto* s = value.as_string())
        text << s->get();
      else
        value.visit([&](const auto& v) { text << v; });
      expected += std::string(key.str()) + "=" + text.str() + "\n";
    }
    RunResult r = run_tool({"--root", "/no-such-root", "list", "--vars", name});
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out == expected);
  }
  CHECK(profiles >= 3);
  RunResult rocm = run_tool({"list", "--vars", "rocm"});
  CHECK(rocm.out.find("\nrocm_version=") != std::string::npos);
}

TEST_CASE("list --vars reads a manifest file too, numbers and booleans as TOML writes them") {
  wslgpu::testing::TempDir dir;
  dir.write("mine.toml",
            "[manifest]\nname = \"mine\"\nschema_version = 1\n\n[vars]\nb = \"${a}/x\"\na = 600\n"
            "on = false\n\n[[step]]\nid = \"f\"\nkind = \"file\"\npath = \"/etc/x\"\ncontent = \"\"\n");
  RunResult r = run_tool({"list", "--vars", dir.path() + "/mine.toml"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "a=600\nb=${a}/x\non=false\n");

  dir.write("none.toml", "[manifest]\nname = \"none\"\nschema_version = 1\n");
  RunResult none = run_tool({"list", "--vars", dir.path() + "/none.toml"});
  CHECK(none.exit_code == 0);
  CHECK(none.out.empty());
}

TEST_CASE("list --vars of an unknown profile or a broken file exits 2") {
  RunResult r = run_tool({"list", "--vars", "rocn"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("error: rocn: no bundled profile is called \"rocn\" (did you mean \"rocm\"?)", 0) == 0);

  wslgpu::testing::TempDir dir;
  dir.write("bad.toml", "[vars]\nx = \n");
  RunResult bad = run_tool({"list", "--vars", dir.path() + "/bad.toml"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.rfind("error: " + dir.path() + "/bad.toml:2:", 0) == 0);
  CHECK(bad.err.find("lists every error") != std::string::npos);
}

TEST_CASE("kinds lists the step kinds with a summary") {
  RunResult r = run_tool({"kinds"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("file ") != std::string::npos);
  CHECK(r.out.find("check ") != std::string::npos);
  CHECK(r.out.find("a file with the given content, mode and owner\n") != std::string::npos);
}

TEST_CASE("an unknown bundled profile exits 2 and suggests the closest") {
  FakeWslRoot root;
  RunResult r = run_tool({"--root", root.path(), "plan", "wslconfg"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("error: wslconfg: no bundled profile is called \"wslconfg\" (did you mean \"wslconfig\"?)", 0) == 0);
}
