// After an upgrade changed a profile's defaults, `plan` on the machine that
// an earlier version provisioned says which values would change and why
// (the [matrix] row and the source it cites), as text and JSON, and changes
// nothing. install needs root, so these are in the needs-root suite.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "support/release_demo.hpp"

using namespace wslgpu::blackbox;

namespace {

std::vector<std::string> on(const FakeWslRoot& root, std::vector<std::string> rest) {
  std::vector<std::string> out = {"--root", root.path()};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace

TEST_CASE("plan after an upgrade names the defaults that changed since the machine was provisioned, and why" *
          needs_root()) {
  FakeWslRoot root;
  wslgpu::testing::TempDir profiles;
  profiles.write("old/release-demo.toml", wslgpu::testing::release_demo_profile("1.0"));
  profiles.write("new/release-demo.toml", wslgpu::testing::release_demo_profile("2.0"));
  const std::string old_profile = profiles.path() + "/old/release-demo.toml";
  const std::string new_profile = profiles.path() + "/new/release-demo.toml";

  RunResult installed = run_tool(on(root, {"install", old_profile, "--yes", "--output", "json"}));
  REQUIRE(installed.exit_code == 0);
  const std::string id = nlohmann::json::parse(installed.out)["transaction_id"].get<std::string>();

  // The same defaults: nothing to say.
  RunResult same = run_tool(on(root, {"plan", old_profile}));
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("its defaults changed") == std::string::npos);

  auto before = snapshot(root.path());
  RunResult text = run_tool(on(root, {"plan", new_profile}));
  CHECK(text.exit_code == 0);
  INFO(text.out);
  CHECK(text.out.find("Since transaction " + id + " (wslgpu-setup " WSLGPU_VERSION ", ") != std::string::npos);
  CHECK(text.out.find("provisioned this machine with this profile, its defaults changed:") != std::string::npos);
  CHECK(text.out.find("  release   1.0 -> 2.0  (the default at " + new_profile + ":7:11, its row [matrix.release.\"2.0\"])") !=
        std::string::npos);
  CHECK(text.out.find("  repo_dir  r10 -> r20  ([matrix.release.\"2.0\"] at " + new_profile + ":18:12)") !=
        std::string::npos);
  CHECK(text.out.find("[matrix.release.\"2.0\"]: Source: the vendor's 2.0 release notes, which moved the repository.") !=
        std::string::npos);
  CHECK(text.out.find("The steps below make these changes only when install runs") != std::string::npos);
  CHECK(text.out.find("-release 1.0 from r10") != std::string::npos);  // and the step that would make it so
  CHECK(text.out.find("+release 2.0 from r20") != std::string::npos);

  RunResult json = run_tool(on(root, {"plan", new_profile, "--output", "json"}));
  REQUIRE(json.exit_code == 0);
  auto since = nlohmann::json::parse(json.out)["since"];
  CHECK(since["transaction"] == id);
  CHECK(since["tool_version"] == WSLGPU_VERSION);
  REQUIRE(since["changes"].size() == 2);
  CHECK(since["changes"][0] == nlohmann::json{{"variable", "release"}, {"from", "1.0"}, {"to", "2.0"},
                                              {"where", new_profile + ":7:11"}, {"row", "[matrix.release.\"2.0\"]"},
                                              {"in_row", false},
                                              {"source", "Source: the vendor's 2.0 release notes, which moved the repository."}});
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");  // plan changed nothing

  // Asked for with --set now, the old release is what the user wants: no changed default.
  RunResult kept = run_tool(on(root, {"--set", "release=1.0", "plan", new_profile}));
  CHECK(kept.exit_code == 0);
  CHECK(kept.out.find("its defaults changed") == std::string::npos);
}

TEST_CASE("plan on a machine never provisioned with the profile compares with nothing") {
  FakeWslRoot root;
  wslgpu::testing::TempDir profiles;
  profiles.write("release-demo.toml", wslgpu::testing::release_demo_profile("2.0"));
  RunResult json = run_tool(on(root, {"plan", profiles.path() + "/release-demo.toml", "--output", "json"}));
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["since"].is_null());
}
