#include <doctest/doctest.h>

#include "installer/system/error.hpp"
#include "unit/steps/python/python_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const char* const kVenvStep = R"(
id = "venv"
kind = "python_venv"
path = "/home/alice/envs/torch"
owner = "alice"
)";

}  // namespace

TEST_CASE("a venv owned by its user is a no-op that runs nothing") {
  PythonRoot root;
  root.fs.add_file("/home/alice/envs/torch/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n", 0644, 1000, 1000);
  root.fs.set_owner("/home/alice/envs/torch", 1000, 1000);
  auto step = build_ok(kVenvStep);
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary == "venv /home/alice/envs/torch (Python 3.12.3), owned by alice");
  CHECK(root.runner.calls.empty());
}

TEST_CASE("a venv that root owns after a sudo pip refuses the plan with the chown that mends it") {
  PythonRoot root;
  root.fs.add_file("/home/alice/envs/torch/pyvenv.cfg", "version = 3.12.3\n");
  StepPlan p = build_ok(kVenvStep)->plan(root.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(contains(p.summary, "the virtual environment /home/alice/envs/torch belongs to root, not alice"));
  CHECK(contains(p.summary, "`sudo chown -R alice: /home/alice/envs/torch`"));
}

TEST_CASE("a folder that is neither empty nor a venv refuses the plan") {
  PythonRoot root;
  root.fs.add_file("/home/alice/envs/torch/notes.txt", "mine", 0644, 1000, 1000);
  root.fs.set_owner("/home/alice/envs/torch", 1000, 1000);
  StepPlan p = build_ok(kVenvStep)->plan(root.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(contains(p.summary, "is not empty and is not a virtual environment"));
}

TEST_CASE("a missing venv is made as its owner with the parents it needs, and undo removes exactly those") {
  PythonRoot root;
  root.fs.add_file("/usr/bin/python3", "");
  auto before = snapshot(root.fs);
  auto step = build_ok(kVenvStep);
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "create the virtual environment /home/alice/envs/torch with `/usr/bin/python3 -m venv` as alice");
  CHECK(root.runner.calls.empty());  // plan runs nothing

  auto pre = step->snapshot(root.ctx);
  auto data = step->apply(root.ctx, p);
  REQUIRE(root.runner.calls.size() == 2);
  CHECK(root.runner.calls[0].argv ==
        std::vector<std::string>{"runuser", "-u", "alice", "--", "mkdir", "-p", "--", "/home/alice/envs"});
  CHECK(root.runner.calls[1].argv == std::vector<std::string>{"runuser", "-u", "alice", "--", "/usr/bin/python3", "-m",
                                                              "venv", "/home/alice/envs/torch"});
  CHECK(root.runner.calls[1].env.at("HOME") == "/home/alice");
  CHECK(root.runner.calls[1].in_root);
  CHECK(root.fs.stat("/home/alice/envs/torch/pyvenv.cfg")->uid == 1000);
  CHECK(data["parents"] == nlohmann::json::array({"/home/alice/envs"}));

  step->undo(root.ctx, data);
  CHECK(snapshot(root.fs) == before);
  step->undo(root.ctx, data);  // idempotent
  CHECK(snapshot(root.fs) == before);
  // And from the snapshot alone, as after a killed run.
  step->apply(root.ctx, p);
  step->undo(root.ctx, {{"partial", true}, {"pre", pre}});
  CHECK(snapshot(root.fs) == before);
}

TEST_CASE("undo never removes a venv that was there before the run") {
  PythonRoot root;
  root.fs.add_file("/home/alice/envs/torch/pyvenv.cfg", "version = 3.12.3\n", 0644, 1000, 1000);
  root.fs.set_owner("/home/alice/envs/torch", 1000, 1000);
  auto step = build_ok(kVenvStep);
  auto pre = step->snapshot(root.ctx);
  step->undo(root.ctx, {{"partial", true}, {"pre", pre}});
  step->undo(root.ctx, step->apply(root.ctx, step->plan(root.ctx)));
  CHECK(root.fs.stat("/home/alice/envs/torch/pyvenv.cfg"));
}

TEST_CASE("a Python not there yet is a detail of the plan, and apply says which package brings it") {
  PythonRoot root;
  auto step = build_ok(kVenvStep);
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(std::find(p.details.begin(), p.details.end(),
                  "/usr/bin/python3 is not there yet: needs python3 and python3-venv (installed by an earlier step)") !=
        p.details.end());
  root.venv_answer = exited(127, "runuser: failed to execute /usr/bin/python3: No such file or directory\n");
  CHECK_THROWS_WITH_AS(step->apply(root.ctx, p), doctest::Contains("must install python3 and python3-venv"),
                       StepFailure);
}

TEST_CASE("a venv without ensurepip is answered with apt install python3-venv") {
  PythonRoot root;
  root.fs.add_file("/usr/bin/python3", "");
  root.venv_answer = exited(1,
                                      "The virtual environment was not created successfully because ensurepip is not\n"
                                      "available.  On Debian/Ubuntu systems, you need to install the python3-venv\n"
                                      "package using the following command.\n\n    apt install python3.12-venv\n");
  auto step = build_ok(kVenvStep);
  CHECK_THROWS_WITH_AS(step->apply(root.ctx, step->plan(root.ctx)),
                       doctest::Contains("install python3-venv (`apt install python3-venv`"), StepFailure);
}

TEST_CASE("a venv for root is refused when the manifest loads") {
  CHECK(build_errors("id = \"v\"\nkind = \"python_venv\"\npath = \"/opt/venv\"\nowner = \"root\"\n")
            .rfind("m.toml:4:9: a virtual environment must belong to the user who works in it, not root", 0) == 0);
  CHECK(
      contains(build_errors("id = \"v\"\nkind = \"python_venv\"\npath = \"venv\"\nowner = \"alice\"\n"), "m.toml:3:8"));
  CHECK(contains(build_errors("id = \"v\"\nkind = \"python_venv\"\npath = \"/v\"\nowner = \"-rf\"\n"),
                 "m.toml:4:9: \"-rf\" is not a valid user name"));
}

TEST_CASE("an empty owner (${host.user} on a root without a WSL user) loads, and the plan refuses it naming --user") {
  // A distribution installed with --no-launch and provisioned as root has
  // no user yet: that is the machine's state, not a fault of the profile.
  auto step = build_ok("id = \"v\"\nkind = \"python_venv\"\npath = \"/.venvs/pytorch\"\nowner = \"\"\n");
  PythonRoot root;
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(contains(p.summary, "no user to own the virtual environment: this root has no WSL user yet"));
  CHECK(contains(p.summary, "--user NAME"));
}

namespace {

// A distribution as pip leaves it in the venv at /home/alice/envs/torch,
// owned by alice: its module file and a dist-info with METADATA and RECORD.
void add_dist(PythonRoot& root, const std::string& name, const std::string& version) {
  const std::string site = "/home/alice/envs/torch/lib/python3.12/site-packages/";
  const std::string info = name + "-" + version + ".dist-info";
  root.fs.add_file(site + name + "/__init__.py", "", 0644, 1000, 1000);
  root.fs.add_file(site + info + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n",
                   0644, 1000, 1000);
  root.fs.add_file(site + info + "/RECORD",
                   name + "/__init__.py,,\n" + info + "/METADATA,,\n" + info + "/RECORD,,\n", 0644, 1000, 1000);
}

}  // namespace

TEST_CASE("a venv the run created holds what the user added since: drift names it, and undo moves the venv aside, "
          "never removing it") {
  PythonRoot root;
  root.fs.add_file("/usr/bin/python3", "");
  auto step = build_ok(kVenvStep);
  auto data = step->apply(root.ctx, step->plan(root.ctx));
  // `python -m venv` (the fake runner's) left bin/python and pyvenv.cfg: the skeleton.
  CHECK(data["skeleton"]["loose_files"] == nlohmann::json::array({"bin/python", "pyvenv.cfg"}));
  // A later python_packages step of the same transaction installed torch.
  add_dist(root, "torch", "2.0");
  auto made_by_torch_step = [&] {
    root.ctx.made_by_later_steps = {{"/home/alice/envs/torch", {{"versions", {{"torch", "2.0"}}}}}};
  };
  made_by_torch_step();
  CHECK(step->drift(root.ctx, data).empty());

  // Since then, the user's own distribution and a file of theirs.
  add_dist(root, "userpkg", "1.0");
  root.fs.add_file("/home/alice/envs/torch/notes.txt", "my results", 0644, 1000, 1000);
  made_by_torch_step();
  auto drift = step->drift(root.ctx, data);
  REQUIRE(drift.size() == 1);
  CHECK(drift[0] == "/home/alice/envs/torch: userpkg 1.0 and 1 file (notes.txt), added since this transaction created "
                    "the venv (rolling back with --force moves the venv aside to "
                    "/home/alice/envs/torch.kept-by-rollback instead of removing it)");
  // Without a later step's word, torch is not known to be the run's: not removed either.
  root.ctx.made_by_later_steps = nlohmann::json::object();
  CHECK(contains(step->drift(root.ctx, data).at(0), ": torch 2.0, userpkg 1.0 and 1 file (notes.txt), added since"));

  std::vector<std::string> notices;
  root.ctx.notices = &notices;
  made_by_torch_step();
  step->undo(root.ctx, data);
  CHECK_FALSE(root.fs.lstat("/home/alice/envs/torch"));
  CHECK(root.fs.read("/home/alice/envs/torch.kept-by-rollback/notes.txt") == "my results");
  CHECK(root.fs.stat("/home/alice/envs/torch.kept-by-rollback/lib/python3.12/site-packages/userpkg-1.0.dist-info/METADATA"));
  CHECK(notices == std::vector<std::string>{
                       "the venv /home/alice/envs/torch that this transaction created held what was added since "
                       "(userpkg 1.0 and 1 file (notes.txt)): it was moved aside to "
                       "/home/alice/envs/torch.kept-by-rollback, not removed"});
  // Its parent, which the run made, holds the moved venv: it stays.
  CHECK(root.fs.stat("/home/alice/envs"));
}

TEST_CASE("a venv the run created holding only what the run made is removed whole, and a second aside name is found") {
  PythonRoot root;
  root.fs.add_file("/usr/bin/python3", "");
  auto before = snapshot(root.fs);
  auto step = build_ok(kVenvStep);
  auto data = step->apply(root.ctx, step->plan(root.ctx));
  add_dist(root, "torch", "2.0");
  root.ctx.made_by_later_steps = {{"/home/alice/envs/torch", {{"versions", {{"torch", "2.0"}}}}}};
  step->undo(root.ctx, data);
  CHECK(snapshot(root.fs) == before);

  // A killed python_packages step ("whole"): all of the venv is the run's.
  data = step->apply(root.ctx, step->plan(root.ctx));
  add_dist(root, "torch", "2.0");
  root.ctx.made_by_later_steps = {{"/home/alice/envs/torch", {{"whole", true}}}};
  CHECK(step->drift(root.ctx, data).empty());

  // The first aside name is taken: the next one is used, and named.
  root.fs.add_file("/home/alice/envs/torch.kept-by-rollback/old.txt", "", 0644, 1000, 1000);
  root.fs.add_file("/home/alice/envs/torch/notes.txt", "mine", 0644, 1000, 1000);
  root.ctx.made_by_later_steps = {{"/home/alice/envs/torch", {{"versions", {{"torch", "2.0"}}}}}};
  CHECK(contains(step->drift(root.ctx, data).at(0), "moves the venv aside to /home/alice/envs/torch.kept-by-rollback-2 "));
  step->undo(root.ctx, data);
  CHECK(root.fs.read("/home/alice/envs/torch.kept-by-rollback-2/notes.txt") == "mine");
}

namespace {

// A venv as Ubuntu 22.04 made it (Python 3.10, torch in lib/python3.10),
// on a root whose Python is 3.12 now: /usr/bin/python3.10 is gone.
void add_venv_of_a_gone_python(PythonRoot& root) {
  root.fs.add_file("/usr/bin/python3", "");
  root.fs.add_file("/home/alice/envs/torch/pyvenv.cfg", "home = /usr/bin\nversion = 3.10.12\n", 0644, 1000, 1000);
  root.fs.add_file("/home/alice/envs/torch/lib/python3.10/site-packages/mine.py", "the user's", 0644, 1000, 1000);
  root.fs.set_owner("/home/alice/envs/torch", 1000, 1000);
}

}  // namespace

TEST_CASE("a venv whose Python is gone is made anew in a transaction: the old one aside, and undo puts it back") {
  PythonRoot root;
  add_venv_of_a_gone_python(root);
  auto before = snapshot(root.fs);
  auto step = build_ok(kVenvStep);
  StepPlan p = step->plan(root.ctx);
  REQUIRE(p.verdict == Verdict::change);
  CHECK(p.summary == "recreate the virtual environment /home/alice/envs/torch with `/usr/bin/python3 -m venv` as alice: "
                     "it was made by Python 3.10.12, which this machine no longer has (/usr/bin/python3.10)");
  CHECK(contains(p.details.at(0), "moved aside to /home/alice/envs/torch.made-by-python3.10 first"));
  CHECK(root.runner.calls.empty());
  // The packages step that follows sees a venv to be made, not the old one.
  CHECK(root.ctx.made_by_earlier_steps["/home/alice/envs/torch"].value("recreated", false));

  auto data = step->apply(root.ctx, p);
  CHECK(root.fs.read("/home/alice/envs/torch.made-by-python3.10/lib/python3.10/site-packages/mine.py") == "the user's");
  CHECK(contains(root.fs.read("/home/alice/envs/torch/pyvenv.cfg"), "version = 3.12.3"));
  step->undo(root.ctx, data);
  CHECK(snapshot(root.fs) == before);
}

TEST_CASE("a recreate killed after the old venv was moved aside is undone from the record made before it") {
  PythonRoot root;
  add_venv_of_a_gone_python(root);
  auto before = snapshot(root.fs);
  auto step = build_ok(kVenvStep);
  StepPlan p = step->plan(root.ctx);
  auto pre = step->snapshot(root.ctx);
  CHECK(pre.value("recreate_aside", "") == "/home/alice/envs/torch.made-by-python3.10");
  // Killed while `python -m venv` wrote the new one.
  root.fs.rename("/home/alice/envs/torch", "/home/alice/envs/torch.made-by-python3.10");
  root.fs.add_file("/home/alice/envs/torch/pyvenv.cfg", "home = /usr/bin\n", 0644, 1000, 1000);
  step->undo(root.ctx, {{"partial", true}, {"pre", pre}});
  CHECK(snapshot(root.fs) == before);
}

TEST_CASE("a venv of another Python than the one the step names is refused, never filled with the other's wheels") {
  PythonRoot root;
  root.fs.add_file("/home/alice/envs/torch/pyvenv.cfg", "home = /usr/bin\nversion = 3.14.3\n", 0644, 1000, 1000);
  root.fs.set_owner("/home/alice/envs/torch", 1000, 1000);
  root.fs.add_file("/usr/bin/python3.14", "");
  const std::string named_313 = std::string(kVenvStep) + "python = \"/usr/bin/python3.13\"\n";
  StepPlan p = build_ok(named_313)->plan(root.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary ==
        "the virtual environment /home/alice/envs/torch was made by Python 3.14.3, and this plan asks for "
        "/usr/bin/python3.13 (Python 3.13): packages for 3.13 would not run in it. Leave the Python at auto (the "
        "distribution's), or give this venv another folder (--set venv=PATH), or remove it, then run again");
  // The same release, or an interpreter named without one, is the venv as it is.
  CHECK(build_ok(std::string(kVenvStep) + "python = \"/usr/bin/python3.14\"\n")->plan(root.ctx).verdict ==
        Verdict::noop);
  CHECK(build_ok(kVenvStep)->plan(root.ctx).verdict == Verdict::noop);
}
