#include <doctest/doctest.h>

#include "installer/system/error.hpp"
#include "steps/commands/command.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

using Argv = std::vector<std::string>;

ProcessResult exit_with(int code, const std::string& out = "", const std::string& err = "") {
  ProcessResult r;
  r.exit_code = code;
  r.out = out;
  r.err = err;
  return r;
}

struct CommandMachine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx() { return StepContext{fs, runner, host, "rocm"}; }
  std::vector<Argv> argvs() const {
    std::vector<Argv> out;
    for (const auto& c : runner.calls) out.push_back(c.argv);
    return out;
  }
};

}  // namespace

TEST_CASE("command: without creates or unless, plan says it always runs, and without undo that it is irreversible") {
  CommandMachine m;
  auto step = build_ok("kind = \"command\"\nargv = [\"ldconfig\"]\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(m.runner.calls.empty());
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == "run `ldconfig`");
  CHECK(plan.irreversible);
  CHECK(plan.details == std::vector<std::string>{"runs on every install: it has no \"creates\" or \"unless\"",
                                                 "cannot be undone: the step has no \"undo\" command"});
  CHECK(plan.changes[0] == nlohmann::json{{"type", "command"}, {"argv", {"ldconfig"}}});
}

TEST_CASE("command: apply runs the argument list with its environment and timeout") {
  CommandMachine m;
  m.runner.on({"update-alternatives"}, exit_with(0));
  auto step = build_ok(R"(
kind = "command"
argv = ["update-alternatives", "--set", "x", "/opt/it's here"]
timeout = 42
env = { LC_ALL = "C" }
undo = ["update-alternatives", "--auto", "x"]
)");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK_FALSE(plan.irreversible);
  CHECK(plan.details.back() == "undo: `update-alternatives --auto x`");
  auto data = step->apply(ctx, plan);
  REQUIRE(m.runner.calls.size() == 1);
  CHECK(m.runner.calls[0].argv == Argv{"update-alternatives", "--set", "x", "/opt/it's here"});
  CHECK(m.runner.calls[0].env == std::map<std::string, std::string>{{"LC_ALL", "C"}});
  CHECK(m.runner.calls[0].timeout == std::chrono::seconds(42));
  CHECK(data["ran"] == true);
  step->undo(ctx, data);
  REQUIRE(m.runner.calls.size() == 2);
  CHECK(m.runner.calls[1].argv == Argv{"update-alternatives", "--auto", "x"});
  CHECK(m.runner.calls[1].env == std::map<std::string, std::string>{{"LC_ALL", "C"}});
  CHECK(m.runner.calls[1].timeout == std::chrono::seconds(42));
}

TEST_CASE("command: creates skips the command when the path exists, in plan and again in apply") {
  CommandMachine m;
  m.runner.on({"make-cache"}, exit_with(0));
  auto step = build_ok("kind = \"command\"\nargv = [\"make-cache\"]\ncreates = \"/var/cache/x\"\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.details.front() == "runs until /var/cache/x exists");
  CHECK(plan.fingerprint["path:/var/cache/x"] == "absent");
  m.fs.add_file("/var/cache/x", "");  // an earlier step made it meanwhile
  CHECK(step->apply(ctx, plan) == nlohmann::json{{"ran", false}});
  CHECK(m.runner.calls.empty());
  auto again = step->plan(ctx);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.summary == "skip `make-cache`: /var/cache/x exists");
}

TEST_CASE("command: unless skips the command when it exits 0") {
  CommandMachine m;
  m.runner.on({"grep"}, exit_with(0));
  auto step = build_ok("kind = \"command\"\nargv = [\"x\"]\nunless = [\"grep\", \"-q\", \"y\", \"/etc/z\"]\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.summary == "skip `x`: `grep -q y /etc/z` exits 0");
  CHECK(m.argvs() == std::vector<Argv>{{"grep", "-q", "y", "/etc/z"}});
}

TEST_CASE("command: when unless fails, plan says so and apply checks it again before running") {
  CommandMachine m;
  m.runner.on({"grep"}, exit_with(1));
  m.runner.on({"x"}, exit_with(0));
  auto step = build_ok("kind = \"command\"\nargv = [\"x\"]\nunless = [\"grep\", \"-q\", \"y\", \"/etc/z\"]\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.details[0] == "runs unless `grep -q y /etc/z` exits 0");
  CHECK(plan.details[1] == "`grep -q y /etc/z` exits 1 now");
  CHECK(plan.fingerprint["unless:grep -q y /etc/z"] == "exit 1");
  m.runner.calls.clear();
  step->apply(ctx, plan);
  CHECK(m.argvs() == std::vector<Argv>{{"grep", "-q", "y", "/etc/z"}, {"x"}});
}

TEST_CASE("command: a failure throws with the exit code and the last lines of standard error") {
  CommandMachine m;
  m.runner.on({"build"}, exit_with(2, "out\n", "l1\nl2\nl3\nl4\nl5\nl6\nl7\n"));
  auto step = build_ok("kind = \"command\"\nargv = [\"build\", \"--all\"]\n");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  CHECK_THROWS_WITH_AS(step->apply(ctx, plan), "`build --all` exited 2:\n  l3\n  l4\n  l5\n  l6\n  l7", StepFailure);
}

TEST_CASE("command: a missing program and a timeout are told apart") {
  Command c;
  c.argv = {"rocminfo"};
  c.timeout = std::chrono::seconds(30);
  ProcessResult missing;
  missing.not_found = true;
  missing.exit_code = 127;
  CHECK(process_failure_message(c, missing) == "`rocminfo` failed: rocminfo was not found in the root");
  ProcessResult hung;
  hung.timed_out = true;
  CHECK(process_failure_message(c, hung) == "`rocminfo` did not finish within 30 s and was stopped");
  CHECK(process_failure_message(c, exit_with(1)) == "`rocminfo` exited 1 (it printed nothing)");
  CHECK(process_failure_message(c, exit_with(1, "only stdout\n")) == "`rocminfo` exited 1:\n  only stdout");
}

TEST_CASE("command: undo does nothing when apply skipped the command or there is no undo") {
  CommandMachine m;
  auto step = build_ok("kind = \"command\"\nargv = [\"x\"]\nundo = [\"y\"]\n");
  auto ctx = m.ctx();
  step->undo(ctx, {{"ran", false}});
  step->undo(ctx, {{"ran", true}});
  CHECK(m.runner.calls.empty());
}

TEST_CASE("command: when apply failed or was killed, undo runs the undo command recorded in the snapshot") {
  CommandMachine m;
  m.runner.on({"make"}, exit_with(2, "", "make: *** [install] Error 1\n"));
  m.runner.on({"rm"}, exit_with(0));
  auto step = build_ok(R"(
kind = "command"
argv = ["make", "-C", "/opt/src", "install"]
undo = ["rm", "-rf", "/opt/tool"]
timeout = 60
)");
  auto ctx = m.ctx();
  auto plan = step->plan(ctx);
  auto pre = step->snapshot(ctx);
  CHECK_THROWS_AS(step->apply(ctx, plan), StepFailure);
  step->undo(ctx, {{"partial", true}, {"pre", pre}});
  CHECK(m.argvs() == std::vector<Argv>{{"make", "-C", "/opt/src", "install"}, {"rm", "-rf", "/opt/tool"}});
  CHECK(m.runner.calls.back().timeout == std::chrono::seconds(60));
}

TEST_CASE("command: without an undo command, a partial undo does nothing") {
  CommandMachine m;
  auto step = build_ok("kind = \"command\"\nargv = [\"x\"]\n");
  auto ctx = m.ctx();
  step->undo(ctx, {{"partial", true}, {"pre", step->snapshot(ctx)}});
  CHECK(m.runner.calls.empty());
}

TEST_CASE("command: a failing undo throws") {
  CommandMachine m;
  m.runner.on({"y"}, exit_with(4, "", "cannot\n"));
  auto step = build_ok("kind = \"command\"\nargv = [\"x\"]\nundo = [\"y\"]\n");
  auto ctx = m.ctx();
  CHECK_THROWS_WITH_AS(step->undo(ctx, {{"ran", true}, {"undo", {"y"}}}), "`y` exited 4:\n  cannot", StepFailure);
}

TEST_CASE("command: argv must be an argument list, never a shell string") {
  CHECK(build_errors("kind = \"command\"\nargv = \"rm -rf /tmp/x\"\n") ==
        "m.toml:2:8: \"argv\" must be an argument list such as [\"rocminfo\"], not a string (commands never run "
        "through a shell)");
  CHECK(build_errors("kind = \"command\"\n") ==
        "m.toml:1:1: step kind \"command\" needs the key \"argv\", an argument list such as [\"ldconfig\"]");
  CHECK(build_errors("kind = \"command\"\nargv = [\"x\"]\ncreates = \"relative\"\n")
            .find("m.toml:3:11: path "
                  "\"relative\"") == 0);
  CHECK(build_errors("kind = \"command\"\nargv = [\"x\"]\nenv = { \"A B\" = \"1\" }\n") ==
        "m.toml:3:9: \"A B\" is not a valid environment variable name (letters, digits and '_', not starting with a "
        "digit)");
}
