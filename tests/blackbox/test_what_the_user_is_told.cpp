// What the tool tells the user is what happens: a normal user is told to use
// sudo (never an empty history or a permission error with exit 1), the
// command a plan suggests applies exactly that plan, exit statuses are the
// documented ones, and a rollback that stops half way says so and can be
// finished. Switching to a normal user needs root, so these run as root, as
// CI does.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "support/build_paths.hpp"

using namespace wslgpu::blackbox;

namespace {

std::string install_manifest() { return source_dir() + "/tests/blackbox/manifests/install.toml"; }
// The same manifest where a normal user can read it, wherever the sources lie.
std::string install_manifest_for_anyone() { return reachable_by_anyone(install_manifest()); }

std::vector<std::string> on(const FakeWslRoot& root, std::vector<std::string> rest) {
  std::vector<std::string> out = {"--root", root.path()};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// A root a normal user may look into, as / is (mkdtemp makes it 0700).
void open_to_everyone(const FakeWslRoot& root) { REQUIRE(::chmod(root.path().c_str(), 0755) == 0); }

const RunOptions kAsNobody{"", {}, kUnprivilegedUid};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string committed_install(const FakeWslRoot& root) {
  RunResult r = run_tool(on(root, {"install", install_manifest(), "--yes", "--output", "json"}));
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["transaction_id"].get<std::string>();
}

}  // namespace

TEST_CASE("without root, install, rollback and recover are refused by the root guard before the state folder" *
          needs_root()) {
  FakeWslRoot root;
  open_to_everyone(root);
  auto before = snapshot(root.path());
  for (std::vector<std::string> command : {std::vector<std::string>{"install", install_manifest_for_anyone(), "--yes"},
                                           {"rollback", "20261201-120000-1234", "--yes"},
                                           {"recover", "--rollback", "--yes"}}) {
    CAPTURE(command[0]);
    RunResult r = run_tool(on(root, command), kAsNobody);
    CHECK(r.exit_code == 3);
    CHECK(has(r.err, "refused by guard root: `wslgpu-setup " + command[0] + "` changes the machine"));
    CHECK(has(r.err, "Run it again with sudo: sudo " + std::string(wslgpu::testing::kToolBinary) + " --root " +
                         root.path() + " " + command[0]));
    CHECK_FALSE(has(r.err, "Permission denied"));
  }
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");  // no state folder, no lock file
}

TEST_CASE("without root, history says it needs sudo instead of showing an empty list" * needs_root()) {
  FakeWslRoot root;
  open_to_everyone(root);
  std::string id = committed_install(root);

  RunResult list = run_tool(on(root, {"history"}), kAsNobody);
  CHECK(list.exit_code == 3);
  CHECK(has(list.err, "history needs root"));
  CHECK(has(list.err, "Run it again with sudo: sudo "));
  CHECK_FALSE(has(list.out, "No transactions yet"));

  RunResult one = run_tool(on(root, {"history", id}), kAsNobody);
  CHECK(one.exit_code == 3);
  CHECK(has(one.err, "history needs root"));
  CHECK_FALSE(has(one.err, "there is no transaction"));

  RunResult as_root_again = run_tool(on(root, {"history"}));
  CHECK(as_root_again.exit_code == 0);
  CHECK(has(as_root_again.out, id + "  "));
}

TEST_CASE("without root, plan works where it can read what it compares, and says to use sudo where it cannot" *
          needs_root()) {
  FakeWslRoot root;
  open_to_everyone(root);
  RunResult fresh = run_tool(on(root, {"plan", install_manifest_for_anyone()}), kAsNobody);
  INFO(fresh.out, fresh.err);
  CHECK(fresh.exit_code == 0);
  CHECK(has(fresh.out, "Plan: 2 changes, 0 already done, 1 check. Nothing has been changed.\n"));

  committed_install(root);  // /opt/wslgpu/gpu.conf is now root's, mode 0600, and the state folder root's alone
  RunResult provisioned = run_tool(on(root, {"plan", install_manifest_for_anyone()}), kAsNobody);
  INFO(provisioned.out, provisioned.err);
  CHECK(provisioned.exit_code == 3);
  CHECK(has(provisioned.out, "cannot be planned without root: cannot read /opt/wslgpu/gpu.conf: Permission denied"));
  CHECK(has(provisioned.out, "run it again with sudo"));

  CHECK(run_tool(on(root, {"list"}), kAsNobody).exit_code == 0);
  RunResult doctor = run_tool(on(root, {"doctor", "--output", "json"}), kAsNobody);
  CHECK((doctor.exit_code == 0 || doctor.exit_code == 1));  // 1: a GPU finding fails on a fake root
  auto findings = nlohmann::json::parse(doctor.out, nullptr, false);  // no exception: a bad document is discarded
  CHECK(findings.is_object());
  CHECK_FALSE(has(doctor.err, "Permission denied"));
}

TEST_CASE("the command a plan ends with carries every option that shaped it, and applies that very plan" *
          needs_root()) {
  FakeWslRoot root;
  root.write("/etc/gate", "present\n");
  RunResult plan = run_tool(on(root, {"plan", install_manifest(), "--set", "gate=/etc/gate", "--user", "alice"}));
  REQUIRE(plan.exit_code == 0);
  const std::string command = std::string("sudo ") + wslgpu::testing::kToolBinary + " install " + install_manifest() +
                              " --root " + root.path() + " --user alice --set gate=/etc/gate";
  CHECK(has(plan.out, "Run `" + command + "` to apply it.\n"));

  // What it names, run (already as root), applies the plan that was shown:
  // with gate=/etc/gate, not the profile's default.
  RunResult applied = run_tool({"install", install_manifest(), "--root", root.path(), "--user", "alice", "--set",
                                "gate=/etc/gate", "--yes", "--output", "json"});
  REQUIRE(applied.exit_code == 0);
  auto steps = nlohmann::json::parse(applied.out)["steps"];
  CHECK(steps[2]["msg"] == "ok: /etc/gate exists");
}

TEST_CASE("a plan saved with --out ends with the command that runs exactly the saved plan" * needs_root()) {
  FakeWslRoot root;
  const std::string saved_plan = root.path() + "-saved.plan";
  RunResult saved = run_tool(on(root, {"plan", install_manifest(), "--out", saved_plan}));
  CHECK(saved.exit_code == 0);
  CHECK(has(saved.out, "Run `sudo " + std::string(wslgpu::testing::kToolBinary) + " install --plan " + saved_plan +
                           "` to apply it.\n"));
  std::filesystem::remove(saved_plan);
}

TEST_CASE("install shows the plan it applies without saying that nothing changed or what to run" * needs_root()) {
  FakeWslRoot root;
  RunResult r = run_tool(on(root, {"install", install_manifest(), "--yes"}));
  REQUIRE(r.exit_code == 0);
  CHECK(has(r.out, "Plan: 2 changes, 0 already done, 1 check.\n"));
  CHECK_FALSE(has(r.out, "Nothing has been changed"));
  CHECK_FALSE(has(r.out, "to apply it"));
  CHECK(has(r.out, "committed.\n"));
}

TEST_CASE("a converged install whose check fails exits 1 and does not say there is nothing to do" * needs_root()) {
  FakeWslRoot root;
  committed_install(root);
  auto before = snapshot(root.path());
  RunResult r = run_tool(on(root, {"install", install_manifest(), "--set", "gate=/nonexistent", "--yes"}));
  CHECK(r.exit_code == 1);
  CHECK(has(r.err, "check \"gate\" failed"));
  CHECK(has(r.out, "but a check failed; nothing was changed (exit 1)"));
  CHECK_FALSE(has(r.out, "Nothing to do"));
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");
}

TEST_CASE("plan exits 3 when install would refuse, with or without --detailed-exitcode" * needs_root()) {
  FakeWslRoot root;
  root.write("/etc/motd.real", "x\n");
  std::filesystem::create_symlink("motd.real",
                                  root.path() + "/etc/motd");  // the link guard refuses to write through it
  RunResult plain = run_tool(on(root, {"plan", install_manifest()}));
  CHECK(plain.exit_code == 3);
  CHECK(has(plain.out, "Install would stop before changing anything"));
  CHECK(run_tool(on(root, {"plan", install_manifest(), "--detailed-exitcode"})).exit_code == 3);
  CHECK(run_tool(on(root, {"plan", install_manifest(), "--output", "json"})).exit_code == 3);
}

TEST_CASE("plan warns of an interrupted run, and exits 5 with --detailed-exitcode as install would" * needs_root()) {
  FakeWslRoot root;
  RunResult killed =
      run_tool(on(root, {"install", install_manifest(), "--yes"}), {"", {"WSLGPU_SETUP_CRASH_AT=conf:after"}});
  REQUIRE(killed.exit_code == 128 + 9);

  RunResult plain = run_tool(on(root, {"plan", install_manifest()}));
  CHECK(plain.exit_code == 0);
  CHECK(has(plain.err, "warning: transaction "));
  CHECK(has(plain.err, "was interrupted after step \"conf\""));
  CHECK(has(plain.err, "install refuses (exit 5)"));

  RunResult detailed = run_tool(on(root, {"plan", install_manifest(), "--detailed-exitcode"}));
  CHECK(detailed.exit_code == 5);
  CHECK(has(detailed.err, "sudo wslgpu-setup recover --rollback"));

  RunResult json = run_tool(on(root, {"plan", install_manifest(), "--output", "json"}));
  CHECK(nlohmann::json::parse(json.out)["unfinished_transaction"]["status"] == "interrupted");
  CHECK(run_tool(on(root, {"install", install_manifest(), "--yes"})).exit_code == 5);
}

TEST_CASE("a rollback killed half way shows as unfinished, and the same rollback finishes it without --force" *
          needs_root()) {
  FakeWslRoot root;
  root.write("/etc/motd", "old\n");
  auto before = outside_state_without_times(snapshot(root.path()));
  std::string id = committed_install(root);

  // Undone in reverse: conf first, then killed before motd's undo.
  RunResult killed = run_tool(on(root, {"rollback", id, "--yes"}), {"", {"WSLGPU_SETUP_CRASH_AT=motd:undo"}});
  REQUIRE(killed.exit_code == 128 + 9);

  RunResult history = run_tool(on(root, {"history"}));
  CHECK(has(history.out, id + "  "));
  CHECK(has(history.out, "half_undone (rollback unfinished: run it again)"));
  RunResult blocked = run_tool(on(root, {"install", install_manifest(), "--yes"}));
  CHECK(blocked.exit_code == 5);
  CHECK(has(blocked.err, "is half undone"));

  RunResult again = run_tool(on(root, {"rollback", id, "--yes"}));
  CHECK(again.exit_code == 0);
  CHECK_FALSE(has(again.err, "have changed since"));
  CHECK(snapshot_difference(before, outside_state_without_times(snapshot(root.path()))) == "");
  CHECK(has(run_tool(on(root, {"history"})).out, "rolled_back"));
}

TEST_CASE("an undo that fails during rollback ID says what was undone and what failed, exit 5, until it is finished" *
          needs_root()) {
  FakeWslRoot root;
  root.write("/etc/motd", "old\n");
  auto before = outside_state_without_times(snapshot(root.path()));
  std::string id = committed_install(root);
  // Since the install, /etc/motd became a link: undo refuses to write through it.
  std::filesystem::remove(root.path() + "/etc/motd");
  std::filesystem::create_symlink("issue", root.path() + "/etc/motd");

  RunResult r = run_tool(on(root, {"rollback", id, "--yes", "--force"}));
  CHECK(r.exit_code == 5);
  CHECK(has(r.err, "undoing step \"motd\" failed"));
  CHECK(has(r.out, "is half undone: 1 step was undone, the rest is still applied (exit 5)"));
  CHECK(has(r.out, "recover --rollback --root " + root.path()));
  CHECK(has(run_tool(on(root, {"history", id})).out, "undo failed"));
  CHECK(run_tool(on(root, {"install", install_manifest(), "--yes"})).exit_code == 5);

  std::filesystem::remove(root.path() + "/etc/motd");
  RunResult finished = run_tool(on(root, {"recover", "--rollback", "--yes"}));
  CHECK(finished.exit_code == 0);
  CHECK(snapshot_difference(before, outside_state_without_times(snapshot(root.path()))) == "");
}

TEST_CASE("without root, plan rocm says its key steps need sudo, not that the key could not be used" * needs_root()) {
  FakeWslRoot root;  // no /var/lib/wslgpu-setup yet: only root may make it
  open_to_everyone(root);
  auto before = snapshot(root.path());
  RunResult r = run_tool(on(root, {"plan", "rocm"}), kAsNobody);
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);
  CHECK(has(r.out,
            "planning this step needs root: it keeps the vendor's signing key in /var/lib/wslgpu-setup/cache/keys, "
            "which only root may write"));
  CHECK(has(r.out, "Run it again with sudo."));
  CHECK_FALSE(has(r.out, "could not be used"));
  CHECK_FALSE(has(r.out, "Check that key_url"));
  // apt's own steps cannot run chrooted without root either, and say so
  // rather than that apt has no such version.
  CHECK(has(r.out, "only root may chroot; run it again with sudo"));
  CHECK_FALSE(has(r.out, "apt has no rocm version"));
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");
}
