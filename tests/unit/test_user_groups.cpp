#include <doctest/doctest.h>

#include "installer/error.hpp"
#include "system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

using Argv = std::vector<std::string>;

ProcessResult exit_with(int code, const std::string& err = "") {
  ProcessResult r;
  r.exit_code = code;
  r.err = err;
  return r;
}

struct Machine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  explicit Machine(const std::string& group_file = "root:x:0:\nvideo:x:44:\nalice:x:1000:\n") {
    host.user = "alice";
    fs.add_file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:,,,:/home/alice:/bin/bash\n"
                               "bob:x:1001:1001:,,,:/home/bob:/bin/bash\n");
    fs.add_file("/etc/group", group_file);
    runner.on({"groupadd"}, exit_with(0));
    runner.on({"usermod"}, exit_with(0));
    runner.on({"gpasswd"}, exit_with(0));
    runner.on({"groupdel"}, exit_with(0));
  }
  StepContext ctx() { return StepContext{fs, runner, host, "rocm"}; }
  std::vector<Argv> argvs() const {
    std::vector<Argv> out;
    for (const auto& c : runner.calls) out.push_back(c.argv);
    return out;
  }
};

const char* kGroups = "kind = \"user_groups\"\ngroups = [\"video\", \"render\"]\n";

}  // namespace

TEST_CASE("user_groups: plan reads /etc/group, runs nothing and says what it will add and create") {
  Machine m;
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(m.runner.calls.empty());
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == "add alice to video, render (creating render as system group)");
  CHECK(plan.details == std::vector<std::string>{"groupadd --system render", "usermod -aG video,render alice"});
  CHECK(plan.changes.size() == 3);
  CHECK(plan.fingerprint["group:video"] == "gid:44 members:");
  CHECK(plan.fingerprint["group:render"] == "absent");
  REQUIRE(plan.notices.size() == 1);
  CHECK(plan.notices[0] == "alice's new groups (video, render) take effect at the next login: in WSL, run "
                           "`wsl --terminate <distro>` from Windows, or open a new login shell.");
}

TEST_CASE("user_groups: apply creates missing groups as system groups and appends with usermod -aG, never -G") {
  Machine m;
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  auto data = step->apply(ctx, plan);
  CHECK(m.argvs() == std::vector<Argv>{{"groupadd", "--system", "render"}, {"usermod", "-aG", "video,render", "alice"}});
  for (const auto& c : m.runner.calls) {
    CHECK(std::find(c.argv.begin(), c.argv.end(), "-G") == c.argv.end());
    CHECK(c.in_root);
  }
  CHECK(data == nlohmann::json{{"user", "alice"}, {"created", {"render"}}, {"added", {"video", "render"}}});
}

TEST_CASE("user_groups: undo removes the user from exactly the groups added, and deletes only the groups created") {
  Machine m;
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  step->undo(ctx, nlohmann::json{{"user", "alice"}, {"created", {"render"}}, {"added", {"video", "render"}}});
  CHECK(m.argvs() ==
        std::vector<Argv>{{"gpasswd", "-d", "alice", "video"}, {"gpasswd", "-d", "alice", "render"}, {"groupdel", "render"}});
}

TEST_CASE("user_groups: a user already in every group is a no-op that says so") {
  Machine m("video:x:44:bob,alice\nrender:x:109:alice\n");
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.summary == "alice is already in video, render");
  CHECK(plan.notices.empty());
  auto data = step->apply(ctx, plan);
  CHECK(m.runner.calls.empty());
  step->undo(ctx, data);
  CHECK(m.runner.calls.empty());
}

TEST_CASE("user_groups: only the groups the user is missing are added, and the plan names the others") {
  Machine m("video:x:44:alice\nrender:x:109:\n");
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(plan.summary == "add alice to render");
  CHECK(plan.details.front() == "alice is already in video");
  auto data = step->apply(ctx, plan);
  CHECK(m.argvs() == std::vector<Argv>{{"usermod", "-aG", "render", "alice"}});
  m.runner.calls.clear();
  step->undo(ctx, data);
  CHECK(m.argvs() == std::vector<Argv>{{"gpasswd", "-d", "alice", "render"}});
}

TEST_CASE("user_groups: the user's primary group counts as membership") {
  Machine m;
  auto plan = [&] {
    auto step = build_ok("kind = \"user_groups\"\ngroups = [\"alice\"]\n");
    auto ctx = m.ctx();
    return step->plan(ctx);
  }();
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.summary == "alice is already in alice");
}

TEST_CASE("user_groups: the user key overrides the provisioned user") {
  Machine m;
  auto step = build_ok("kind = \"user_groups\"\ngroups = [\"video\"]\nuser = \"bob\"\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  step->apply(ctx, plan);
  CHECK(m.argvs() == std::vector<Argv>{{"usermod", "-aG", "video", "bob"}});
}

TEST_CASE("user_groups: a missing group with create_missing = false refuses the plan") {
  Machine m;
  auto step = build_ok("kind = \"user_groups\"\ngroups = [\"video\", \"render\"]\ncreate_missing = false\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary == "group render does not exist in /etc/group and create_missing is false");
}

TEST_CASE("user_groups: without a user, or with one not in /etc/passwd, the plan refuses") {
  Machine m;
  m.host.user = "";
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary == "no user to add to groups: pass --user NAME or set \"user\" in the step");
  m.host.user = "carol";
  plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary == "user carol does not exist in /etc/passwd; create the user first, or pass --user NAME");
}

TEST_CASE("user_groups: a failing usermod throws with the command and its error, after deleting the group it created") {
  Machine m;
  FakeProcessRunner failing;
  failing.on({"groupadd"}, exit_with(0));
  failing.on({"usermod"}, exit_with(6, "usermod: group 'render' does not exist\n"));
  failing.on({"groupdel"}, exit_with(0));
  StepContext ctx{m.fs, failing, m.host, "rocm"};
  auto step = build_ok(kGroups);
  auto plan = step->plan(ctx);
  CHECK_THROWS_WITH_AS(step->apply(ctx, plan),
                       "`usermod -aG video,render alice` exited 6:\n  usermod: group 'render' does not exist",
                       StepFailure);
  std::vector<Argv> argvs;
  for (const auto& c : failing.calls) argvs.push_back(c.argv);
  CHECK(argvs == std::vector<Argv>{{"groupadd", "--system", "render"},
                                   {"usermod", "-aG", "video,render", "alice"},
                                   {"groupdel", "render"}});
}

TEST_CASE("user_groups: a failing undo command is reported, after trying the others") {
  Machine m;
  FakeProcessRunner failing;
  failing.on({"gpasswd", "-d", "alice", "video"}, exit_with(3, "gpasswd: user 'alice' is not a member of 'video'\n"));
  failing.on({"gpasswd"}, exit_with(0));
  failing.on({"groupdel"}, exit_with(0));
  StepContext ctx{m.fs, failing, m.host, "rocm"};
  auto step = build_ok(kGroups);
  CHECK_THROWS_WITH_AS(step->undo(ctx, {{"user", "alice"}, {"created", {"render"}}, {"added", {"video", "render"}}}),
                       "`gpasswd -d alice video` exited 3:\n  gpasswd: user 'alice' is not a member of 'video'",
                       StepFailure);
  CHECK(failing.calls.size() == 3);
}

TEST_CASE("user_groups: group names that could be read as options are refused when the manifest loads") {
  CHECK(build_errors("kind = \"user_groups\"\ngroups = [\"-G\"]\n") ==
        "m.toml:2:10: \"-G\" is not a valid group name (letters, digits, '_', '.' and '-', not starting with '-' or '.', "
        "at most 32 characters)");
  CHECK(build_errors("kind = \"user_groups\"\ngroups = [\"video\"]\nuser = \"a b\"\n") ==
        "m.toml:3:8: \"a b\" is not a valid user name");
  CHECK(build_errors("kind = \"user_groups\"\n") == "m.toml:1:1: step kind \"user_groups\" needs the key \"groups\"");
}
