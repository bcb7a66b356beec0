// What a newer version's defaults change on a machine that an earlier
// transaction provisioned (installer/manifest/defaults_changed.hpp): each
// variable that differs from the recorded run, where its value now comes
// from, the [matrix] row behind it and that row's "# Source:" comment.
#include <doctest/doctest.h>

#include "installer/manifest/defaults_changed.hpp"
#include "installer/manifest/manifest.hpp"
#include "support/fakes.hpp"
#include "support/release_demo.hpp"

using namespace wslgpu;

namespace {

std::string release_profile(const std::string& default_release) {
  return wslgpu::testing::release_demo_profile(default_release);
}

struct Loaded {
  ManifestSource source;
  Manifest manifest;
};

Loaded load_demo(const std::string& text, const Variables& sets = {}) {
  ManifestSource source{"demo.toml", text, false};
  Manifest m = load_manifest(source, sets, wslgpu::testing::fake_wsl_host());
  return {source, m};
}

// What a transaction of the 0.1.0 profile recorded in its plan.json.
nlohmann::json recorded_plan(const Variables& vars, const Variables& sets = {}) {
  return {{"tool_version", "0.1.0"}, {"sets", sets}, {"plan", {{"vars", vars}}}};
}

Provisioned provisioned(const nlohmann::json& record) {
  auto p = provisioned_from("20261201-100000-0001", "2026-12-01T10:00:00Z", record);
  REQUIRE(p.has_value());
  return *p;
}

}  // namespace

// defaults_changed as `plan` calls it: today's profile NOW_TEXT with
// NOW_SETS (the plan shown) and asked again with THEN_SETS, against what
// the run with THEN_SETS recorded of THEN_TEXT.
DefaultsChanged changed(const std::string& then_text, const Variables& then_sets, const std::string& now_text,
                        const Variables& now_sets = {}) {
  Loaded then = load_demo(then_text, then_sets);
  Loaded now = load_demo(now_text, now_sets);
  Loaded as_then = load_demo(now_text, then_sets);
  return defaults_changed(now.manifest, as_then.manifest, now.source,
                          provisioned(recorded_plan(then.manifest.vars, then_sets)));
}

TEST_CASE("a new default release shows as a change, with its row and the source the row cites") {
  DefaultsChanged d = changed(release_profile("1.0"), {}, release_profile("2.0"));
  CHECK(d.transaction == "20261201-100000-0001");
  CHECK(d.tool_version == "0.1.0");
  REQUIRE(d.changes.size() == 2);  // release and the column its row gives; channel did not change

  const DefaultChange& release = d.changes[0];
  CHECK(release.variable == "release");
  CHECK(release.from == "1.0");
  CHECK(release.to == "2.0");
  CHECK(release.where == "demo.toml:7:11");  // the [vars] default
  CHECK_FALSE(release.in_row);
  CHECK(release.row == "[matrix.release.\"2.0\"]");
  CHECK(release.source == "Source: the vendor's 2.0 release notes, which moved the repository.");

  const DefaultChange& repo = d.changes[1];
  CHECK(repo.variable == "repo_dir");
  CHECK(repo.from == "r10");
  CHECK(repo.to == "r20");
  CHECK(repo.where == "demo.toml:18:12");  // the row's value
  CHECK(repo.in_row);
  CHECK(repo.row == "[matrix.release.\"2.0\"]");
  CHECK(repo.source == release.source);
}

TEST_CASE("a row whose data changed shows, also under a release given with --set both times") {
  std::string moved = release_profile("1.0");
  moved.replace(moved.find("repo_dir = \"r20\""), 16, "repo_dir = \"r21\"");
  DefaultsChanged d = changed(release_profile("1.0"), {{"release", "2.0"}}, moved, {{"release", "2.0"}});
  REQUIRE(d.changes.size() == 1);
  CHECK(d.changes[0].variable == "repo_dir");
  CHECK(d.changes[0].from == "r20");
  CHECK(d.changes[0].to == "r21");
  CHECK(d.changes[0].in_row);
}

TEST_CASE("the same profile as the recorded run changes nothing, whatever is given with --set now") {
  CHECK(changed(release_profile("2.0"), {}, release_profile("2.0")).changes.empty());
  // A release asked for now, and the columns of its row, are what the user asked.
  CHECK(changed(release_profile("1.0"), {}, release_profile("1.0"), {{"release", "2.0"}}).changes.empty());
  // A --set given then and not now: the plan goes back to the default, but
  // that is the user's doing, not the profile's (the plan's steps show it).
  CHECK(changed(release_profile("2.0"), {{"release", "1.0"}}, release_profile("2.0")).changes.empty());
}

TEST_CASE("a new default that a --set now overrides is not what this plan applies") {
  CHECK(changed(release_profile("1.0"), {}, release_profile("2.0"), {{"release", "1.0"}}).changes.empty());
  // Only the column the plan does apply shows when another release is asked.
  std::string third = release_profile("2.0");
  third.replace(third.find("[[step]]"), 8, "[matrix.release.\"3.0\"]\nrepo_dir = \"r30\"\n\n[[step]]");
  CHECK(changed(release_profile("1.0"), {}, third, {{"release", "3.0"}}).changes.empty());
}

TEST_CASE("a variable the recorded run did not have is not compared") {
  Loaded now = load_demo(release_profile("2.0"));
  Variables old_vars = now.manifest.vars;
  old_vars.erase("channel");
  old_vars["retired"] = "x";  // one the profile no longer has: not shown either
  CHECK(defaults_changed(now.manifest, now.manifest, now.source, provisioned(recorded_plan(old_vars))).changes.empty());
}

TEST_CASE("a record without variables (state format 1, or a profile without [vars]) gives nothing to compare") {
  CHECK_FALSE(provisioned_from("id", "t", nlohmann::json::object()).has_value());
  CHECK_FALSE(provisioned_from("id", "t", nlohmann::json{{"plan", {{"steps", nlohmann::json::array()}}}}).has_value());
  CHECK_FALSE(provisioned_from("id", "t", nlohmann::json{{"plan", {{"vars", nlohmann::json::object()}}}}).has_value());
  CHECK_FALSE(provisioned_from("id", "t", nlohmann::json::array()).has_value());
}

TEST_CASE("the source comment is the block above a row, from its Source: line, without the comment marks") {
  const std::string text = "a = 1\n# --- the matrix\n# Source: one,\n#   two.\n[matrix.x.\"1\"]\n";
  CHECK(source_comment_above(text, 5) == "Source: one, two.");
  CHECK(source_comment_above("a = 1\n# a note\n# more\n[t]\n", 4) == "a note more");  // no Source: line: the block
  CHECK(source_comment_above("a = 1\n[t]\n", 2) == "");
  CHECK(source_comment_above("[t]\n", 1) == "");
  CHECK(source_comment_above("[t]\n", 9) == "");  // past the end
}
