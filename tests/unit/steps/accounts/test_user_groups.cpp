#include <doctest/doctest.h>

#include <algorithm>

#include "installer/system/error.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

using Argv = std::vector<std::string>;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

// The shadow tools as far as these tests need them: they edit ROOT/etc/group
// in the MemoryFileSystem the way groupadd, usermod -aG, gpasswd -d and
// groupdel edit the real one, and fail the way those do.
class ShadowTools {
 public:
  explicit ShadowTools(MemoryFileSystem& fs) : fs_(fs) {}

  void install(FakeProcessRunner& runner) {
    runner.on({"groupadd"}, [this](const Command& c) {
      auto lines = read();
      for (const auto& l : lines)
        if (l[0] == c.argv[2]) return exited(9, "groupadd: group '" + c.argv[2] + "' already exists\n");
      lines.push_back({c.argv[2], "x", "999", ""});
      write(lines);
      return exited(0);
    });
    runner.on({"usermod", "-aG"}, [this](const Command& c) {
      auto lines = read();
      for (const auto& g : split(c.argv[2], ',')) {
        bool found = false;
        for (auto& l : lines) {
          if (l[0] != g) continue;
          found = true;
          l[3] += (l[3].empty() ? "" : ",") + c.argv[3];
        }
        if (!found) return exited(6, "usermod: group '" + g + "' does not exist\n");
      }
      write(lines);
      return exited(0);
    });
    runner.on({"gpasswd", "-d"}, [this](const Command& c) {
      auto lines = read();
      for (auto& l : lines) {
        if (l[0] != c.argv[3]) continue;
        auto members = split(l[3], ',');
        auto it = std::find(members.begin(), members.end(), c.argv[2]);
        if (l[3].empty() || it == members.end())
          return exited(3, "gpasswd: user '" + c.argv[2] + "' is not a member of '" + c.argv[3] + "'\n");
        members.erase(it);
        std::string joined;
        for (const auto& m : members) joined += (joined.empty() ? "" : ",") + m;
        l[3] = joined;
        write(lines);
        return exited(0);
      }
      return exited(3, "gpasswd: group '" + c.argv[3] + "' does not exist in /etc/group\n");
    });
    runner.on({"groupdel"}, [this](const Command& c) {
      auto lines = read();
      auto before = lines.size();
      std::erase_if(lines, [&](const auto& l) { return l[0] == c.argv[1]; });
      if (lines.size() == before) return exited(6, "groupdel: group '" + c.argv[1] + "' does not exist\n");
      write(lines);
      return exited(0);
    });
  }

 private:
  std::vector<std::vector<std::string>> read() {
    std::vector<std::vector<std::string>> out;
    for (const auto& line : split(fs_.read("/etc/group"), '\n'))
      if (!line.empty()) out.push_back(split(line, ':'));
    return out;
  }
  void write(const std::vector<std::vector<std::string>>& lines) {
    std::string text;
    for (const auto& l : lines) text += l[0] + ":" + l[1] + ":" + l[2] + ":" + l[3] + "\n";
    auto info = fs_.stat("/etc/group");
    fs_.write_atomic("/etc/group", text, FileAttrs{info->mode, info->uid, info->gid});
  }
  MemoryFileSystem& fs_;
};

struct UserGroupsMachine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  ShadowTools tools{fs};
  explicit UserGroupsMachine(const std::string& group_file = "root:x:0:\nvideo:x:44:\nalice:x:1000:\n") {
    host.user = "alice";
    fs.add_file("/etc/passwd",
                "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:,,,:/home/alice:/bin/bash\n"
                "bob:x:1001:1001:,,,:/home/bob:/bin/bash\n");
    fs.add_file("/etc/group", group_file);
    tools.install(runner);
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
  UserGroupsMachine m;
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
  CHECK(plan.notices[0] ==
        "alice's new groups (video, render) take effect at the next login: in WSL, run "
        "`wsl --terminate <distro>` from Windows, or open a new login shell.");
}

TEST_CASE("user_groups: apply creates missing groups as system groups and appends with usermod -aG, never -G") {
  UserGroupsMachine m;
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  auto data = step->apply(ctx, plan);
  CHECK(m.argvs() ==
        std::vector<Argv>{{"groupadd", "--system", "render"}, {"usermod", "-aG", "video,render", "alice"}});
  for (const auto& c : m.runner.calls) {
    CHECK(std::find(c.argv.begin(), c.argv.end(), "-G") == c.argv.end());
    CHECK(c.in_root);
  }
  CHECK(data == nlohmann::json{{"user", "alice"}, {"created", {"render"}}, {"added", {"video", "render"}}});
}

TEST_CASE("user_groups: undo removes the user from exactly the groups added, and deletes only the groups created") {
  UserGroupsMachine m("root:x:0:\nvideo:x:44:bob,alice\nrender:x:999:alice\nplugdev:x:46:alice\n");
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  step->undo(ctx, nlohmann::json{{"user", "alice"}, {"created", {"render"}}, {"added", {"video", "render"}}});
  CHECK(m.argvs() == std::vector<Argv>{{"gpasswd", "-d", "alice", "video"},
                                       {"gpasswd", "-d", "alice", "render"},
                                       {"groupdel", "render"}});
  CHECK(m.fs.read("/etc/group") == "root:x:0:\nvideo:x:44:bob\nplugdev:x:46:alice\n");
}

TEST_CASE("user_groups: apply then undo leaves /etc/group byte for byte as it was") {
  UserGroupsMachine m("root:x:0:\nvideo:x:44:bob\nalice:x:1000:\nplugdev:x:46:alice\n");
  auto before = snapshot(m.fs);
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  auto data = step->apply(ctx, plan);
  CHECK(m.fs.read("/etc/group") ==
        "root:x:0:\nvideo:x:44:bob,alice\nalice:x:1000:\nplugdev:x:46:alice\nrender:x:999:alice\n");
  CHECK(step->plan(ctx).verdict == Verdict::noop);
  step->undo(ctx, data);
  CHECK(snapshot(m.fs) == before);
}

TEST_CASE("user_groups: undo run twice (an interrupted rollback) does nothing the second time") {
  UserGroupsMachine m;
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto data = step->apply(ctx, step->plan(ctx));
  step->undo(ctx, data);
  auto calls = m.runner.calls.size();
  step->undo(ctx, data);
  CHECK(m.runner.calls.size() == calls);
}

TEST_CASE("user_groups: when apply did not finish, undo finds from the snapshot what was done") {
  UserGroupsMachine m;
  auto before = snapshot(m.fs);
  auto step = build_ok(kGroups);
  auto ctx = m.ctx();
  auto pre = step->snapshot(ctx);
  CHECK(pre == nlohmann::json{{"user", "alice"},
                              {"groups",
                               {{"video", {{"exists", true}, {"member", false}}},
                                {"render", {{"exists", false}, {"member", false}}}}}});
  // Killed after groupadd and usermod ran, before apply returned.
  m.runner.run(Command{{"groupadd", "--system", "render"}, {}, std::chrono::seconds(1), "", true, {}, {}, false, {}, ""});
  m.runner.run(
      Command{{"usermod", "-aG", "video,render", "alice"}, {}, std::chrono::seconds(1), "", true, {}, {}, false, {}, ""});
  m.runner.calls.clear();
  step->undo(ctx, {{"partial", true}, {"pre", pre}});
  CHECK(m.argvs() == std::vector<Argv>{{"gpasswd", "-d", "alice", "video"},
                                       {"gpasswd", "-d", "alice", "render"},
                                       {"groupdel", "render"}});
  CHECK(snapshot(m.fs) == before);
}

TEST_CASE("user_groups: a user already in every group is a no-op that says so") {
  UserGroupsMachine m("video:x:44:bob,alice\nrender:x:109:alice\n");
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
  UserGroupsMachine m("video:x:44:alice\nrender:x:109:\n");
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
  UserGroupsMachine m;
  auto plan = [&] {
    auto step = build_ok("kind = \"user_groups\"\ngroups = [\"alice\"]\n");
    auto ctx = m.ctx();
    return step->plan(ctx);
  }();
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.summary == "alice is already in alice");
}

TEST_CASE("user_groups: the user key overrides the provisioned user") {
  UserGroupsMachine m;
  auto step = build_ok("kind = \"user_groups\"\ngroups = [\"video\"]\nuser = \"bob\"\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  step->apply(ctx, plan);
  CHECK(m.argvs() == std::vector<Argv>{{"usermod", "-aG", "video", "bob"}});
}

TEST_CASE("user_groups: a missing group with create_missing = false refuses the plan") {
  UserGroupsMachine m;
  auto step = build_ok("kind = \"user_groups\"\ngroups = [\"video\", \"render\"]\ncreate_missing = false\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary == "group render does not exist in /etc/group and create_missing is false");
}

TEST_CASE("user_groups: without a user, or with one not in /etc/passwd, the plan refuses") {
  UserGroupsMachine m;
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

TEST_CASE("user_groups: a failing usermod throws with the command and its error; the partial undo deletes the group") {
  UserGroupsMachine m;
  auto before = snapshot(m.fs);
  FakeProcessRunner failing;
  ShadowTools tools(m.fs);
  failing.on({"usermod"}, exited(6, "usermod: cannot lock /etc/group; try again later.\n"));
  tools.install(failing);
  StepContext ctx{m.fs, failing, m.host, "rocm"};
  auto step = build_ok(kGroups);
  auto plan = step->plan(ctx);
  auto pre = step->snapshot(ctx);
  CHECK_THROWS_WITH_AS(
      step->apply(ctx, plan),
      "`usermod -aG video,render alice` exited 6:\n  usermod: cannot lock /etc/group; try again later.", StepFailure);
  step->undo(ctx, {{"partial", true}, {"pre", pre}});
  std::vector<Argv> argvs;
  for (const auto& c : failing.calls) argvs.push_back(c.argv);
  CHECK(argvs == std::vector<Argv>{{"groupadd", "--system", "render"},
                                   {"usermod", "-aG", "video,render", "alice"},
                                   {"groupdel", "render"}});
  CHECK(snapshot(m.fs) == before);
}

TEST_CASE("user_groups: a failing undo command is reported, after trying the others") {
  UserGroupsMachine m("video:x:44:alice\nrender:x:999:alice\n");
  FakeProcessRunner failing;
  ShadowTools tools(m.fs);
  failing.on({"gpasswd", "-d", "alice", "video"}, exited(1, "gpasswd: cannot lock /etc/group; try again later.\n"));
  tools.install(failing);
  StepContext ctx{m.fs, failing, m.host, "rocm"};
  auto step = build_ok(kGroups);
  CHECK_THROWS_WITH_AS(step->undo(ctx, {{"user", "alice"}, {"created", {"render"}}, {"added", {"video", "render"}}}),
                       "`gpasswd -d alice video` exited 1:\n  gpasswd: cannot lock /etc/group; try again later.",
                       StepFailure);
  CHECK(failing.calls.size() == 3);
  CHECK(m.fs.read("/etc/group") == "video:x:44:alice\n");
}

TEST_CASE("user_groups: group names that could be read as options are refused when the manifest loads") {
  CHECK(
      build_errors("kind = \"user_groups\"\ngroups = [\"-G\"]\n") ==
      "m.toml:2:10: \"-G\" is not a valid group name (letters, digits, '_', '.' and '-', not starting with '-' or '.', "
      "at most 32 characters)");
  CHECK(build_errors("kind = \"user_groups\"\ngroups = [\"video\"]\nuser = \"a b\"\n") ==
        "m.toml:3:8: \"a b\" is not a valid user name");
  CHECK(build_errors("kind = \"user_groups\"\n") == "m.toml:1:1: step kind \"user_groups\" needs the key \"groups\"");
}
