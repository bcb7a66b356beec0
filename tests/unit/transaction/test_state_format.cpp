// The state's format versions (installer/transaction/state_format.hpp): a
// transaction of every earlier format, kept as a fixture written by the tool
// of that format, is read and rolled back; a newer one is refused.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/transaction/journal.hpp"
#include "installer/transaction/state_format.hpp"
#include "installer/transaction/transaction.hpp"
#include "support/build_paths.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::TempDir;

namespace {

constexpr const char* kFixtureStateDir = "/var/lib/wslgpu-setup";

std::string state_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// tests/unit/transaction/data/state-format-N: the transaction folder the
// tool of format N left after installing the fixture manifest (a file
// replaced, /etc/fixture.conf, and one created, /opt/fixture/fresh.conf).
std::string fixture_dir(int format) {
  return std::string(wslgpu::testing::kSourceDir) + "/tests/unit/transaction/data/state-format-" +
         std::to_string(format);
}

struct FixtureMachine {
  TempDir root;
  RootedFileSystem fs{root.path()};
  FakeProcessRunner runner;
  HostFacts host;
  Transactions tx{fs, runner, host, kFixtureStateDir};

  FixtureMachine() { host.root = root.path(); }

  // Copies the fixture of FORMAT into the state folder (the fixture itself
  // is never touched) and lays out the files as its run left them; returns
  // the transaction's id.
  std::string install_fixture(int format) {
    std::string from = fixture_dir(format);
    std::string first_line;
    std::ifstream journal(from + "/journal.jsonl");
    REQUIRE(std::getline(journal, first_line));
    std::string id = nlohmann::json::parse(first_line).at("id").get<std::string>();
    fs.make_dirs(std::string(kFixtureStateDir) + "/tx", 0700);
    std::filesystem::copy(from, tx.tx_root() + "/" + id, std::filesystem::copy_options::recursive);
    fs.make_dirs("/etc", 0755);
    fs.write_atomic("/etc/fixture.conf", "new\n", FileAttrs{0640, ::geteuid(), ::getegid()});
    fs.make_dirs("/opt/fixture", 0755);
    fs.write_atomic("/opt/fixture/fresh.conf", "fresh\n", FileAttrs{0644, ::geteuid(), ::getegid()});
    return id;
  }
};

// The journal's lines, each of which must be a record.
std::size_t nonempty_lines(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

}  // namespace

TEST_CASE("a transaction of every earlier state format is read, summarized and rolled back by this tool") {
  for (int format = kOldestStateFormat; format <= kStateFormat; ++format) {
    CAPTURE(format);
    // One fixture per format: bumping kStateFormat without one fails here.
    REQUIRE_MESSAGE(std::filesystem::exists(fixture_dir(format) + "/journal.jsonl"), "no fixture for state format ",
                    format, ": write one from the current format");
    FixtureMachine m;
    std::string id = m.install_fixture(format);
    Journal journal = Journal::open(m.tx.tx_root(), id);
    CHECK(journal.state_format() == format);
    auto records = journal.records();
    CHECK(records.size() == nonempty_lines(fixture_dir(format) + "/journal.jsonl"));
    TransactionSummary s = summarize(id, records);
    CHECK(s.status == "committed");
    CHECK(s.manifest == "fixture");
    CHECK(s.changed_steps == 2);
    CHECK_FALSE(m.tx.interrupted());
    CHECK(m.tx.drifted_files(journal).empty());

    // The manifest as the transaction recorded it, as `rollback ID` loads it.
    nlohmann::json plan = journal.read_plan();
    CHECK(state_format_of(plan) == format);
    Manifest manifest = load_manifest({plan.value("source", ""), plan.value("manifest_text", ""), false}, {}, m.host);
    CHECK(m.tx.rollback(journal, manifest, {}) == std::vector<std::string>{"fresh", "conf"});
    CHECK(m.fs.read("/etc/fixture.conf") == "old\n");
    CHECK(m.fs.stat("/etc/fixture.conf")->mode == 0644);
    CHECK_FALSE(m.fs.stat("/opt/fixture"));
    CHECK(summarize(id, journal.records()).status == "rolled_back");
  }
}

TEST_CASE("a journal of a newer state format is refused with exit 2, naming both versions, and is not read") {
  FixtureMachine m;
  m.fs.make_dirs(std::string(kFixtureStateDir) + "/tx", 0700);
  Journal written = Journal::create(m.tx.tx_root(), "20270101-000000-0001");
  written.append({{"type", "begin"},
                  {"id", written.id()},
                  {"manifest", "t"},
                  {"state_format", kStateFormat + 1},
                  {"tool_version", "9.9.9"}});
  std::string before = state_file_text(written.dir() + "/journal.jsonl");

  std::string expected = "transaction 20270101-000000-0001 was written by wslgpu-setup 9.9.9 (state format " +
                         std::to_string(kStateFormat + 1) +
                         "); this is wslgpu-setup " WSLGPU_VERSION ", which reads state formats 1 to " +
                         std::to_string(kStateFormat) + ", so it does not read it rather than misread it";
  try {
    (void)Journal::open(m.tx.tx_root(), written.id());
    FAIL("a journal of a newer format was opened");
  } catch (const NewerStateFormat& e) {
    CHECK(e.code() == ExitCode::bad_input);
    CHECK(std::string(e.what()).find(expected) != std::string::npos);
    CHECK(std::string(e.what()).find("sudo apt install --only-upgrade wslgpu-setup") != std::string::npos);
  }
  // Install's and plan's look for an unfinished run refuse it too (it has
  // no end record: read as ours, it would be an interrupted run to recover).
  CHECK_THROWS_AS((void)m.tx.interrupted(), NewerStateFormat);
  CHECK_THROWS_AS(m.tx.refuse_newer_state(), NewerStateFormat);
  CHECK(state_file_text(written.dir() + "/journal.jsonl") == before);
}

TEST_CASE("a state-format stamp of a newer format is refused before any journal is read") {
  FixtureMachine m;
  m.fs.make_dirs(kFixtureStateDir, 0755);
  const std::string stamp = m.fs.host_path(std::string(kFixtureStateDir) + "/state-format");
  CHECK_NOTHROW(m.tx.refuse_newer_state());  // no stamp: no state, or state of format 1

  write_state_stamp(stamp);
  auto written = nlohmann::json::parse(state_file_text(stamp));
  CHECK(written == nlohmann::json{{"state_format", kStateFormat}, {"tool_version", WSLGPU_VERSION}});
  struct stat st {};
  REQUIRE(::stat(stamp.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0644);  // plan reads it without root
  CHECK_NOTHROW(m.tx.refuse_newer_state());

  write_file_durably(stamp, R"({"state_format": 7, "tool_version": "3.0.0"})");
  write_state_stamp(stamp);  // never lowered: the newer tool's state is still there
  CHECK(state_format_of(nlohmann::json::parse(state_file_text(stamp))) == 7);
  try {
    m.tx.refuse_newer_state();
    FAIL("a newer stamp was not refused");
  } catch (const NewerStateFormat& e) {
    CHECK(e.code() == ExitCode::bad_input);
    CHECK(std::string(e.what()).find(
              "was written by wslgpu-setup 3.0.0 (state format 7); this is wslgpu-setup " WSLGPU_VERSION) !=
          std::string::npos);
  }
  CHECK_THROWS_AS((void)m.tx.interrupted(), NewerStateFormat);

  write_file_durably(stamp, "garbage");
  CHECK_THROWS_WITH_AS(m.tx.refuse_newer_state(), doctest::Contains("holds no state format"), Error);
}

TEST_CASE("a record without a state format is of format 1") {
  CHECK(state_format_of(nlohmann::json{{"type", "begin"}}) == 1);
  CHECK(state_format_of(nlohmann::json{{"state_format", 2}}) == 2);
  CHECK(state_format_of(nlohmann::json{{"state_format", "two"}}) > kStateFormat);  // unknown: refused, never guessed
}
