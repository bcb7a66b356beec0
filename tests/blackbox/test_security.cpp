// The claims of docs/security.md that are about input someone else controls,
// each tried from outside against a fake WSL root: a link planted where the
// tool writes as root, a value that looks like shell code, a path that
// climbs out of the root, a link in the root that points out of it.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "support/helpers.hpp"

using namespace wslgpu::blackbox;
using wslgpu::testing::contains;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string write_manifest(const FakeWslRoot& root, const std::string& name, const std::string& body) {
  std::string path = root.path() + "/../" + name;
  std::ofstream(path) << body;
  return std::filesystem::weakly_canonical(path).string();
}

}  // namespace

namespace {

// A .wslconfig in alice's Windows profile folder that is a link to the
// root's /etc/shadow: what an unprivileged user can do in that folder.
const std::string kShadow = "root:*:19000:0:99999:7:::\nalice:$y$j9T$secret:19000:0:99999:7:::\n";
void plant_wslconfig_link_to_shadow(const FakeWslRoot& root) {
  root.write("/etc/shadow", kShadow, 0640);
  std::filesystem::create_directories(root.path() + "/mnt/c/Users/alice");
  std::filesystem::create_symlink("/etc/shadow", root.path() + "/mnt/c/Users/alice/.wslconfig");
}

}  // namespace

TEST_CASE("a .wslconfig that is a link to /etc/shadow is refused, and /etc/shadow is left as it was") {
  FakeWslRoot root;
  plant_wslconfig_link_to_shadow(root);
  auto before = snapshot(root.path());

  RunResult plan = run_tool(
      {"--root", root.path(), "--windows-home", "/mnt/c/Users/alice", "plan", "wslconfig", "--detailed-exitcode"});
  INFO(plan.out, plan.err);
  CHECK(plan.exit_code == 3);
  CHECK(contains(plan.out + plan.err, "refused by guard no-writes-through-links: /mnt/c/Users/alice/.wslconfig is a "
                                      "symbolic link to /etc/shadow"));
  CHECK(slurp(root.path() + "/etc/shadow") == kShadow);
  CHECK_MESSAGE(snapshot(root.path()) == before, snapshot_difference(before, snapshot(root.path())));
}

TEST_CASE("install as root refuses a .wslconfig that is a link to /etc/shadow, and /etc/shadow is left as it was" *
          needs_root()) {
  FakeWslRoot root;
  plant_wslconfig_link_to_shadow(root);
  auto before = outside_state_without_times(snapshot(root.path()));

  RunResult install =
      run_tool({"--root", root.path(), "--windows-home", "/mnt/c/Users/alice", "install", "wslconfig", "--yes"});
  INFO(install.out, install.err);
  CHECK(install.exit_code == 3);
  CHECK(contains(install.err, "never reads or writes a file it manages through a symbolic link"));
  CHECK(slurp(root.path() + "/etc/shadow") == kShadow);
  auto after = outside_state_without_times(snapshot(root.path()));
  CHECK_MESSAGE(before == after, snapshot_difference(before, after));
}

// A path that climbs out of the root never reaches RootedFileSystem from a
// manifest: the loader refuses a ".." component first. The confinement
// itself is reached through links in the root, which the tests after this
// one plant.
TEST_CASE("a file step whose path holds .. is refused by the manifest loader with exit 2, and nothing is changed") {
  FakeWslRoot root;
  wslgpu::testing::TempDir tmp;
  std::string m = tmp.path() + "/dotdot.toml";
  std::ofstream(m) << "[manifest]\nname = \"dotdot\"\ndescription = \"a path that climbs\"\nschema_version = 1\n\n"
                      "[[step]]\nid = \"climb\"\nkind = \"file\"\npath = \"/etc/../../../escaped-by-dotdot\"\n"
                      "content = \"x\\n\"\n";
  std::string escaped = std::filesystem::path(root.path()).parent_path().string() + "/escaped-by-dotdot";
  REQUIRE_FALSE(std::filesystem::exists(escaped));
  auto before = outside_state_without_times(snapshot(root.path()));

  RunResult r = run_tool({"--root", root.path(), "install", m, "--yes"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, m + ":9:8: path \"/etc/../../../escaped-by-dotdot\" leaves the target root (it holds a \"..\" "
                            "component)"));
  auto after = outside_state_without_times(snapshot(root.path()));  // install takes its lock first
  CHECK_MESSAGE(before == after, snapshot_difference(before, after));
  CHECK_FALSE(std::filesystem::exists(escaped));
}

namespace {

// An empty folder next to the fake root (the same parent folder) holding one
// file: where a write that escaped the root through a link would land.
struct NextToRoot {
  wslgpu::testing::TempDir dir;
  explicit NextToRoot(const FakeWslRoot& root) {
    REQUIRE(std::filesystem::path(dir.path()).parent_path() == std::filesystem::path(root.path()).parent_path());
    dir.write("sentinel", "outside the root\n");
  }
  std::string name() const { return std::filesystem::path(dir.path()).filename().string(); }
};

// Installs, as root, one file step writing "inside\n" at PATH.
RunResult install_file_step(const FakeWslRoot& root, const std::string& path) {
  wslgpu::testing::TempDir tmp;
  std::string m = tmp.path() + "/through-link.toml";
  std::ofstream(m) << "[manifest]\nname = \"through-link\"\ndescription = \"a write through a link\"\n"
                      "schema_version = 1\n\n[[step]]\nid = \"through\"\nkind = \"file\"\npath = \""
                   << path << "\"\ncontent = \"inside\\n\"\n";
  return run_tool({"--root", root.path(), "install", m, "--yes"});
}

}  // namespace

TEST_CASE("a file step through a link in the root to ../../.. writes inside the root, and nothing outside changes" *
          needs_root()) {
  FakeWslRoot root;
  NextToRoot outside(root);
  // From <root>/srv/data, ../../.. is the root's parent folder on the host;
  // confined to the root, as after chroot, it is the root itself.
  std::filesystem::create_directories(root.path() + "/srv/data");
  std::filesystem::create_symlink("../../..", root.path() + "/srv/data/up");
  auto outside_before = snapshot(outside.dir.path());

  RunResult r = install_file_step(root, "/srv/data/up/" + outside.name() + "/written");
  INFO(r.out, r.err);
  CHECK(r.exit_code == 0);
  CHECK(slurp(root.path() + "/" + outside.name() + "/written") == "inside\n");
  CHECK(std::filesystem::read_symlink(root.path() + "/srv/data/up") == "../../..");
  auto outside_after = snapshot(outside.dir.path());
  CHECK_MESSAGE(outside_before == outside_after, snapshot_difference(outside_before, outside_after));
}

TEST_CASE(
    "a file step through a link in the root to an absolute path writes inside the root, and nothing outside "
    "changes" *
    needs_root()) {
  FakeWslRoot root;
  NextToRoot outside(root);
  // The link names the folder next to the root by its host path; confined,
  // that path restarts at the root, where the same folders exist.
  std::filesystem::create_directories(root.path() + "/srv");
  std::filesystem::create_directories(root.path() + outside.dir.path());
  std::filesystem::create_symlink(outside.dir.path(), root.path() + "/srv/elsewhere");
  auto outside_before = snapshot(outside.dir.path());

  RunResult r = install_file_step(root, "/srv/elsewhere/written");
  INFO(r.out, r.err);
  CHECK(r.exit_code == 0);
  CHECK(slurp(root.path() + outside.dir.path() + "/written") == "inside\n");
  auto outside_after = snapshot(outside.dir.path());
  CHECK_MESSAGE(outside_before == outside_after, snapshot_difference(outside_before, outside_after));
}

namespace {
std::string env_manifest(const std::string& toml_value) {
  return "[manifest]\nname = \"hostile-env\"\ndescription = \"hostile values\"\nschema_version = 1\n\n[[step]]\n"
         "id = \"env\"\nkind = \"profile_env\"\ntarget = \"system\"\nenv = { HOSTILE = \"" +
         toml_value + "\" }\n";
}
}  // namespace

TEST_CASE("profile_env values with $(...), backquotes and quotes stay text for a login shell" * needs_root()) {
  FakeWslRoot root;
  const std::string marker = root.path() + "/pwned";
  // A TOML basic string: \" is a quote.
  const std::string value = "$(touch " + marker + ")`touch " + marker + "`'; touch " + marker + "; '\\\"";
  std::string m = write_manifest(root, "env.toml", env_manifest(value));

  RunResult r = run_tool({"--root", root.path(), "install", m, "--yes"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == 0);
  std::string script = root.path() + "/etc/profile.d/wslgpu-hostile-env.sh";
  REQUIRE(std::filesystem::exists(script));
  // Source it as a login shell would, and print what it exported.
  std::string out = root.path() + "/seen";
  std::string cmd = "sh -c '. \"$1\"; printf %s \"$HOSTILE\" > \"$2\"' sh " + script + " " + out;
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK_FALSE(std::filesystem::exists(marker));
  CHECK(slurp(out) == "$(touch " + marker + ")`touch " + marker + "`'; touch " + marker + "; '\"");
  std::filesystem::remove(m);
}

TEST_CASE("a profile_env value with a newline is refused where the manifest says it, and nothing is written") {
  FakeWslRoot root;
  std::string m = write_manifest(root, "env-newline.toml", env_manifest("1\\nexport EVIL=1"));
  auto before = snapshot(root.path());
  RunResult r = run_tool({"--root", root.path(), "plan", m});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, m + ":10:19: the value of HOSTILE must be one line without control characters"));
  CHECK(snapshot(root.path()) == before);
  std::filesystem::remove(m);
}
