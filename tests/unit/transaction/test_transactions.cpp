#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <signal.h>

#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/transaction/journal.hpp"
#include "installer/transaction/lock.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/planner/planner.hpp"
#include "installer/transaction/transaction.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::TempDir;

namespace {

const char* kTwoFilesThenFailingCheck = R"(
[manifest]
name = "t"
schema_version = 1
[[step]]
id = "motd"
kind = "file"
path = "/etc/motd"
content = "new\n"
mode = "0600"
[[step]]
id = "deep"
kind = "file"
path = "/opt/a/b/c.conf"
content = "c\n"
[[step]]
id = "gate"
kind = "check"
path = "/must/exist"
)";

// A file, a program with an undo, another file.
const char* kFileCommandFile = R"(
[manifest]
name = "t"
schema_version = 1
[[step]]
id = "motd"
kind = "file"
path = "/etc/motd"
content = "new\n"
[[step]]
id = "slow"
kind = "command"
argv = ["do-it"]
undo = ["undo-it"]
[[step]]
id = "deep"
kind = "file"
path = "/opt/a/b/c.conf"
content = "c\n"
)";

struct Fixture {
  TempDir root;
  RootedFileSystem fs{root.path()};
  FakeProcessRunner runner;
  HostFacts host;

  Fixture() {
    root.write("etc/motd", "old\n");
    std::filesystem::permissions(root.path() + "/etc/motd", std::filesystem::perms(0644));
    host.root = root.path();
  }

  Manifest manifest(const std::string& text) { return load_manifest({"t.toml", text, false}, {}, host); }
};

std::string slurp(const std::string& path) {
  RootedFileSystem fs("/");
  return fs.read(path);
}

}  // namespace

TEST_CASE("a failing step rolls back every earlier step and leaves no folder behind") {
  Fixture f;
  Manifest m = f.manifest(kTwoFilesThenFailingCheck);
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  std::vector<std::string> undone_seen;
  RunCallbacks cb;
  cb.step_undone = [&](const std::string& id, const std::string&) { undone_seen.push_back(id); };

  RunResult r = tx.run(m, plan, nlohmann::json::object(), cb);

  CHECK(r.failed);
  CHECK(r.rc == 1);
  CHECK(r.error == "step 3 \"gate\" failed: check failed: /must/exist does not exist");
  CHECK(r.undone == std::vector<std::string>{"deep", "motd"});
  CHECK(undone_seen == r.undone);
  CHECK(slurp(f.root.path() + "/etc/motd") == "old\n");
  CHECK(f.fs.stat("/etc/motd")->mode == 0644);
  CHECK_FALSE(f.fs.stat("/opt"));
  auto records = Journal::open(tx.tx_root(), r.transaction_id).records();
  CHECK(summarize(r.transaction_id, records).status == "rolled_back");
}

TEST_CASE("a signal during a step lets it finish, then undoes every applied step, and the run says so") {
  Fixture f;
  Manifest m = f.manifest(kFileCommandFile);
  InterruptScope scope(nullptr, nullptr);
  bool finished = false;
  f.runner.on({"do-it"}, [&](const Command&) {
    ::raise(SIGINT);  // Ctrl-C while the program works; it still ends as it would have
    finished = true;
    ProcessResult r;
    r.exit_code = 0;
    return r;
  });
  f.runner.on({"undo-it"}, ProcessResult{0, false, false, false, "", ""});
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), RunCallbacks{});

  CHECK(finished);
  CHECK(r.interrupted == SIGINT);
  CHECK(r.rc == 130);
  CHECK(r.failed);
  CHECK(r.error == "interrupted by SIGINT after step \"slow\"");
  CHECK(r.undone == std::vector<std::string>{"slow", "motd"});
  CHECK(slurp(f.root.path() + "/etc/motd") == "old\n");
  CHECK_FALSE(std::filesystem::exists(f.root.path() + "/opt/a"));  // the step after it never ran
  CHECK(f.runner.calls.back().argv == std::vector<std::string>{"undo-it"});
  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  CHECK(summarize(r.transaction_id, j.records()).status == "rolled_back");
}

TEST_CASE("a committed transaction rolls back later, and refuses when its files drifted") {
  Fixture f;
  Manifest m = f.manifest(R"(
[manifest]
name = "t"
schema_version = 1
[[step]]
id = "motd"
kind = "file"
path = "/etc/motd"
content = "new\n"
)");
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});
  REQUIRE_FALSE(r.failed);
  CHECK(r.changed);
  CHECK(f.fs.read("/etc/motd") == "new\n");

  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  CHECK(summarize(r.transaction_id, j.records()).status == "committed");
  CHECK(tx.drifted_files(j).empty());

  f.fs.write_atomic("/etc/motd", "edited by hand\n", FileAttrs{0644, 0, 0});
  CHECK(tx.drifted_files(j) == std::vector<std::string>{"/etc/motd (changed since)"});

  f.fs.write_atomic("/etc/motd", "new\n", FileAttrs{0644, 0, 0});
  CHECK(tx.rollback(j, m, {}) == std::vector<std::string>{"motd"});
  CHECK(f.fs.read("/etc/motd") == "old\n");
}

TEST_CASE("an interrupted run is found and rolled back from its journal alone") {
  Fixture f;
  Manifest m = f.manifest(kTwoFilesThenFailingCheck);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  f.fs.make_dirs("/var/lib/wslgpu-setup/tx", 0700);
  // What a run killed right after writing /etc/motd leaves behind.
  Journal j = Journal::create(tx.tx_root(), "20261130-000000-0001");
  j.append({{"type", "begin"}, {"id", j.id()}, {"manifest", "t"}});
  j.append({{"type", "intent"}, {"step", "motd"}, {"index", 1}, {"pre", nlohmann::json::object()}});
  std::string blob = j.store_blob("old\n");
  j.append({{"type", "backup"}, {"step", "motd"}, {"path", "/etc/motd"}, {"existed", true}, {"blob", blob},
            {"mode", 0644}, {"uid", 0}, {"gid", 0}});
  f.fs.write_atomic("/etc/motd", "half-done\n", FileAttrs{0600, 0, 0});

  auto found = tx.interrupted();
  REQUIRE(found);
  CHECK(found->id == "20261130-000000-0001");
  CHECK(found->interrupted_step == "motd");

  CHECK(tx.rollback(j, m, {}) == std::vector<std::string>{"motd"});
  CHECK(f.fs.read("/etc/motd") == "old\n");
  CHECK(f.fs.stat("/etc/motd")->mode == 0644);
  CHECK_FALSE(tx.interrupted());
  // Rolling back again changes nothing: every step is already undone.
  CHECK(tx.rollback(j, m, {}).empty());
}

TEST_CASE(
    "an undo that fails stops the rollback, reports both failures and leaves the run half undone until finished") {
  Fixture f;
  Manifest m = f.manifest(std::string(kFileCommandFile) + R"(
[[step]]
id = "gate"
kind = "check"
path = "/must/exist"
)");
  f.runner.on({"do-it"}, ProcessResult{0, false, false, false, "", ""});
  bool masked = true;  // until the user fixes what made the undo fail
  f.runner.on({"undo-it"}, [&](const Command&) {
    return masked ? ProcessResult{1, false, false, false, "", "undo-it: unit is masked\n"}
                  : ProcessResult{0, false, false, false, "", ""};
  });
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");

  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});

  CHECK(r.failed);
  CHECK(r.rc == 5);
  CHECK(r.error == "step 4 \"gate\" failed: check failed: /must/exist does not exist");
  CHECK(r.undo_error.rfind("undoing step \"slow\" failed: ", 0) == 0);
  CHECK(r.undone == std::vector<std::string>{"deep"});
  CHECK(f.fs.read("/etc/motd") == "new\n");  // the rollback stopped before it
  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  TransactionSummary s = summarize(r.transaction_id, j.records());
  CHECK(s.status == "half_undone");
  CHECK(s.undo_failure.rfind("step \"slow\": ", 0) == 0);
  CHECK_FALSE(j.ended());
  auto unfinished = tx.interrupted();
  REQUIRE(unfinished);
  CHECK(unfinished->id == r.transaction_id);

  // Once the cause is gone, the same rollback finishes what is left.
  masked = false;
  CHECK(tx.rollback(j, m, {}) == std::vector<std::string>{"slow", "motd"});
  CHECK(f.fs.read("/etc/motd") == "old\n");
  CHECK(summarize(r.transaction_id, j.records()).status == "rolled_back");
  CHECK_FALSE(tx.interrupted());
}

TEST_CASE("a rollback stopped after the commit leaves the transaction half undone, and drift skips what it put back") {
  Fixture f;
  Manifest m = f.manifest(R"(
[manifest]
name = "t"
schema_version = 1
[[step]]
id = "motd"
kind = "file"
path = "/etc/motd"
content = "new\n"
[[step]]
id = "issue"
kind = "file"
path = "/etc/issue"
content = "GPU\n"
)");
  f.root.write("etc/issue", "plain\n");
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});
  REQUIRE_FALSE(r.failed);
  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  // What `rollback ID` killed after undoing its first step leaves.
  j.append({{"type", "rollback"}, {"time", "t"}, {"pid", 1}});
  f.fs.write_atomic("/etc/issue", "plain\n", FileAttrs{0644, 0, 0});
  j.append({{"type", "undone"}, {"step", "issue"}});

  CHECK(summarize(r.transaction_id, j.records()).status == "half_undone");
  CHECK_FALSE(j.ended());
  REQUIRE(tx.interrupted());
  CHECK(tx.drifted_files(j).empty());  // /etc/issue differs from what was written, but it was put back
  f.fs.write_atomic("/etc/motd", "edited\n", FileAttrs{0644, 0, 0});
  CHECK(tx.drifted_files(j) == std::vector<std::string>{"/etc/motd (changed since)"});
  f.fs.write_atomic("/etc/motd", "new\n", FileAttrs{0644, 0, 0});

  CHECK(tx.rollback(j, m, {}) == std::vector<std::string>{"motd"});
  CHECK(f.fs.read("/etc/motd") == "old\n");
  CHECK(f.fs.read("/etc/issue") == "plain\n");
  CHECK(summarize(r.transaction_id, j.records()).status == "rolled_back");
}

TEST_CASE("a torn last journal line from a crash is ignored") {
  TempDir dir;
  Journal j = Journal::create(dir.path(), "x");
  j.append({{"type", "begin"}});
  {
    std::ofstream out(j.dir() + "/journal.jsonl", std::ios::app);
    out << "{\"type\": \"inte";
  }
  CHECK(j.records().size() == 1);
}

TEST_CASE("a journal counts as ended only when its last complete line is an end with a final status") {
  TempDir dir;
  auto journal_with = [&](const std::string& id, const std::string& text) {
    Journal j = Journal::create(dir.path(), id);
    std::ofstream(j.dir() + "/journal.jsonl", std::ios::app) << text;
    return j;
  };
  const std::string begin = "{\"type\":\"begin\"}\n";
  // Long enough that the tail read starts in the middle of a line.
  std::string many;
  for (int i = 0; i < 200; ++i) many += "{\"type\":\"outcome\",\"step\":\"s" + std::to_string(i) + "\",\"status\":\"applied\"}\n";
  CHECK(journal_with("committed", begin + many + "{\"type\":\"end\",\"status\":\"committed\"}\n").ended());
  CHECK(journal_with("rolled-back", begin + "{\"type\":\"end\",\"status\":\"rolled_back\"}\n").ended());
  CHECK_FALSE(journal_with("no-end", begin + many).ended());
  CHECK_FALSE(journal_with("empty", "").ended());
  CHECK_FALSE(journal_with("torn-end", begin + "{\"type\":\"end\",\"sta").ended());
  CHECK_FALSE(journal_with("end-without-status", begin + "{\"type\":\"end\"}\n").ended());
  // A rollback that was started after the commit and then interrupted.
  CHECK_FALSE(journal_with("undo-after-end", begin + "{\"type\":\"end\",\"status\":\"committed\"}\n" +
                                                 "{\"type\":\"undone\",\"step\":\"s1\"}\n")
                  .ended());
  // ended() agrees with the full reading wherever it says yes.
  for (const char* id : {"committed", "rolled-back"}) {
    Journal j = Journal::open(dir.path(), id);
    CHECK(summarize(id, j.records()).status != "interrupted");
  }
}

TEST_CASE("a second run waiting for the lock gives up and names the holder") {
  TempDir dir;
  std::string path = dir.path() + "/lock";
  RunLock first(path, std::chrono::milliseconds(0));
  first.record_holder("wslgpu-setup install rocm");
  try {
    RunLock second(path, std::chrono::milliseconds(200));
    FAIL("the second lock must not be granted");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::locked);
    CHECK(std::string(e.what()).find("`wslgpu-setup install rocm`") != std::string::npos);
    CHECK(std::string(e.what()).find("pid ") != std::string::npos);
  }
}

TEST_CASE("a holder that has not recorded itself yet is named by the kernel's table of locks") {
  TempDir dir;
  std::string path = dir.path() + "/lock";
  RunLock first(path, std::chrono::milliseconds(0));
  try {
    RunLock second(path, std::chrono::milliseconds(0));
    FAIL("the second lock must not be granted");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::locked);
    // This process holds it: its pid, and the test program's command line.
    CHECK(std::string(e.what()).find("pid " + std::to_string(::getpid()) + ", `") != std::string::npos);
    CHECK(std::string(e.what()).find("unit_tests") != std::string::npos);
  }
}

TEST_CASE("a finished run's line in the lock file is not taken for the next holder's") {
  TempDir dir;
  std::string path = dir.path() + "/lock";
  {
    RunLock finished(path, std::chrono::milliseconds(0));
    finished.record_holder("wslgpu-setup install cuda");
  }
  CHECK(slurp(path).empty());
  // A line left by a run that was killed (no destructor): a pid that is
  // not the holder's is not believed.
  std::ofstream(path) << "pid 1, started 2026-01-01T00:00:00Z, `wslgpu-setup install cuda`\n";
  RunLock next(path, std::chrono::milliseconds(0));
  try {
    RunLock second(path, std::chrono::milliseconds(0));
    FAIL("the second lock must not be granted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("install cuda") == std::string::npos);
    CHECK(std::string(e.what()).find("pid " + std::to_string(::getpid())) != std::string::npos);
  }
}

TEST_CASE("a journal cut at any byte of its last record reads what is complete, and what recovery appends is read too") {
  TempDir dir;
  {
    Journal j = Journal::create(dir.path(), "t");
    j.append({{"type", "begin"}, {"id", "t"}, {"manifest", "m"}});
    j.append({{"type", "intent"}, {"step", "s1"}, {"index", 1}});
    j.append({{"type", "outcome"}, {"step", "s1"}, {"status", "applied"}, {"undo", {{"k", "v"}}}});
  }
  const std::string path = dir.path() + "/t/journal.jsonl";
  const std::string whole = slurp(path);
  const std::size_t last = whole.rfind('\n', whole.size() - 2) + 1;
  for (std::size_t cut = last; cut <= whole.size(); ++cut) {
    CAPTURE(cut);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << whole.substr(0, cut);
    Journal j = Journal::open(dir.path(), "t");
    // Only a whole line (with or without its line break) is a record.
    const std::size_t complete = cut >= whole.size() - 1 ? 3 : 2;
    CHECK(j.records().size() == complete);
    std::string torn = j.cut_torn_tail();
    CHECK(torn == (complete == 3 ? std::string() : whole.substr(last, cut - last)));
    j.append({{"type", "end"}, {"status", "rolled_back"}});
    auto records = j.records();
    REQUIRE(records.size() == complete + 1);
    CHECK(records.back()["type"] == "end");
    CHECK(j.ended());
    CHECK(summarize("t", records).status == "rolled_back");
  }
}

TEST_CASE("transaction ids sort in the order they were made") {
  std::string a = new_transaction_id();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::string b = new_transaction_id();
  CHECK(a < b);
  CHECK(a.size() == std::string("20261130-101502-7f3a").size());
}

namespace {

// Records every write and removal, in order, on top of a real root.
class RecordingFileSystem : public RootedFileSystem {
 public:
  using RootedFileSystem::RootedFileSystem;
  void write_atomic(const std::string& path, std::string_view content, const FileAttrs& attrs) override {
    ops.push_back("write " + path);
    RootedFileSystem::write_atomic(path, content, attrs);
  }
  void remove(const std::string& path) override {
    if (stat(path)) ops.push_back("remove " + path);
    RootedFileSystem::remove(path);
  }
  std::vector<std::string> ops;
};

// A step whose plan is given: only the runner's file writes.
class GivenWrites : public Step {
 public:
  StepPlan plan(StepContext&) const override { return {}; }
};

}  // namespace

TEST_CASE("plan writes are made in list order and undone in the reverse order, each path from its first backup") {
  TempDir root;
  root.write("etc/apt/sources.list.d/rocm.list", "deb [signed-by=/etc/apt/keyrings/rocm.gpg] https://x/ noble main\n");
  root.write("etc/apt/keyrings/rocm.gpg", "OLD KEY");
  RecordingFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  host.root = root.path();
  Manifest m;
  m.name = "t";
  m.steps.push_back({"repo", "apt_repository", "repo", nullptr, {}, std::make_shared<GivenWrites>(), "t"});
  m.steps.push_back({"gate", "check", "gate", nullptr, {}, std::make_shared<GivenWrites>(), "t"});
  Plan plan;
  PlannedStep ps;
  ps.index = 1;
  ps.id = "repo";
  ps.kind = "apt_repository";
  ps.plan.verdict = Verdict::change;
  ps.plan.changes.push_back({{"type", "file"}});
  FileAttrs attrs{0644, 0, 0};
  ps.plan.writes = {{"/etc/apt/sources.list.d/rocm.list", std::nullopt, attrs},
                    {"/etc/apt/keyrings/rocm.gpg", std::nullopt, attrs},
                    {"/etc/apt/keyrings/rocm.asc", "NEW KEY", attrs},
                    {"/etc/apt/sources.list.d/rocm.sources", "Types: deb\n", attrs}};
  plan.steps.push_back(ps);
  PlannedStep gate;
  gate.index = 2;
  gate.id = "gate";
  gate.kind = "check";
  gate.plan.verdict = Verdict::refused;  // fails at install, so the first step is rolled back
  gate.plan.summary = "stop here";
  plan.steps.push_back(gate);

  Transactions tx(fs, runner, host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});
  CHECK(r.failed);
  CHECK(r.undone == std::vector<std::string>{"gate", "repo"});
  std::vector<std::string> files;
  for (const auto& op : fs.ops)
    if (op.find("/var/lib/wslgpu-setup") == std::string::npos) files.push_back(op);
  CHECK(files == std::vector<std::string>{
                     "remove /etc/apt/sources.list.d/rocm.list",
                     "remove /etc/apt/keyrings/rocm.gpg",
                     "write /etc/apt/keyrings/rocm.asc",
                     "write /etc/apt/sources.list.d/rocm.sources",
                     // undo: the new source goes before the old one comes back
                     "remove /etc/apt/sources.list.d/rocm.sources",
                     "remove /etc/apt/keyrings/rocm.asc",
                     "write /etc/apt/keyrings/rocm.gpg",
                     "write /etc/apt/sources.list.d/rocm.list",
                 });
  CHECK(fs.read("/etc/apt/keyrings/rocm.gpg") == "OLD KEY");
  CHECK_FALSE(fs.stat("/etc/apt/sources.list.d/rocm.sources"));
}
