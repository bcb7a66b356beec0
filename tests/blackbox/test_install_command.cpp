// `wslgpu-setup install`, `rollback`, `recover` and saved plans from outside,
// against fake WSL roots: a transaction changes all or nothing, a converged
// run writes nothing, a held lock and an interrupted run stop a new run with
// their exit statuses. install needs root (its guard), so every test here is
// in the needs-root suite (harness.hpp), and runs only as root, as in CI.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "installer/formats/sha256.hpp"
#include "support/fakes.hpp"
#include "support/http_server.hpp"
#include "support/build_paths.hpp"

using namespace wslgpu::blackbox;

namespace {

std::string manifest() { return source_dir() + "/tests/blackbox/manifests/install.toml"; }

std::vector<std::string> args(const FakeWslRoot& root, std::vector<std::string> rest) {
  std::vector<std::string> out = {"--root", root.path()};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// The root's content, modes and owners, without the tool's own journal and
// lock. Modification times are left out: restoring a file is a write, and
// writing in a folder moves its mtime. (The converged test compares them.)
std::map<std::string, Stamp> machine(const FakeWslRoot& root) {
  return outside_state_without_times(snapshot(root.path()));
}

}  // namespace

TEST_CASE("install applies every step, and a second install writes nothing and says changed: false" * needs_root()) {
  FakeWslRoot root;
  RunResult first = run_tool(args(root, {"install", manifest(), "--yes", "--output", "json"}));
  REQUIRE(first.exit_code == 0);
  auto j = nlohmann::json::parse(first.out);
  CHECK(j["changed"] == true);
  CHECK(j["failed"] == false);
  CHECK(j["rc"] == 0);
  CHECK(j["transaction_id"].get<std::string>().size() == 20);
  REQUIRE(j["steps"].size() == 3);
  CHECK(j["steps"][0]["id"] == "motd");
  CHECK(j["steps"][0]["changed"] == true);
  CHECK(j["steps"][0]["diff"].get<std::string>().find("+GPU ready") != std::string::npos);
  CHECK(j["steps"][2]["msg"] == "ok: /etc/motd exists");

  auto before = snapshot(root.path());  // everything, the tool's state and mtimes included
  RunResult again = run_tool(args(root, {"install", manifest(), "--yes", "--output", "json"}));
  REQUIRE(again.exit_code == 0);
  auto k = nlohmann::json::parse(again.out);
  CHECK(k["changed"] == false);
  CHECK(k["transaction_id"] == "");
  CHECK(snapshot_difference(before, snapshot(root.path())) == "");
}

TEST_CASE("a failing step rolls the run back: exit 1, and the machine is as it was" * needs_root()) {
  FakeWslRoot root;
  root.write("/etc/motd", "old\n", 0640);
  auto before = machine(root);
  RunResult r = run_tool(args(root, {"--set", "gate=/nonexistent", "install", manifest(), "--yes"}));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("step 3 \"gate\" failed: check failed: /nonexistent does not exist") != std::string::npos);
  CHECK(r.out.find("rolled back 2 steps; the machine is as it was (exit 1)") != std::string::npos);
  CHECK(snapshot_difference(before, machine(root)) == "");
}

TEST_CASE("a second run exits 4 naming the run that holds the lock" * needs_root()) {
  FakeWslRoot root;
  std::filesystem::create_directories(root.path() + "/var/lib/wslgpu-setup");
  int fd = ::open((root.path() + "/var/lib/wslgpu-setup/lock").c_str(), O_RDWR | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  // The line a holder writes; its pid must be the one the kernel names
  // (here, this test's), or the line is not believed.
  std::string line = "pid " + std::to_string(::getpid()) + ", started 2026-11-30T10:15:02Z, `wslgpu-setup install rocm`";
  std::string holder = line + "\n";
  REQUIRE(::write(fd, holder.data(), holder.size()) == static_cast<ssize_t>(holder.size()));
  auto before = machine(root);

  RunResult r = run_tool(args(root, {"install", manifest(), "--yes", "--lock-timeout", "0.3"}));
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("another wslgpu-setup run holds the lock") != std::string::npos);
  CHECK(r.err.find(line) != std::string::npos);
  CHECK(snapshot_difference(before, machine(root)) == "");
  ::close(fd);

  RunResult after = run_tool(args(root, {"install", manifest(), "--yes"}));
  CHECK(after.exit_code == 0);
}

TEST_CASE("a killed run stops the next one with exit 5 until recover rolls it back" * needs_root()) {
  FakeWslRoot root;
  auto before = machine(root);
  RunResult killed = run_tool(args(root, {"install", manifest(), "--yes"}), {"", {"WSLGPU_SETUP_CRASH_AT=conf:after"}});
  CHECK(killed.exit_code == 128 + 9);

  RunResult blocked = run_tool(args(root, {"install", manifest(), "--yes"}));
  CHECK(blocked.exit_code == 5);
  CHECK(blocked.err.find("was interrupted after step \"conf\"") != std::string::npos);
  CHECK(blocked.err.find("sudo wslgpu-setup recover --rollback") != std::string::npos);
  CHECK(blocked.err.find("sudo wslgpu-setup recover --resume") != std::string::npos);

  RunResult recovered = run_tool(args(root, {"recover", "--rollback", "--yes"}));
  CHECK(recovered.exit_code == 0);
  CHECK(snapshot_difference(before, machine(root)) == "");
}

TEST_CASE("a saved plan runs exactly, and is refused with exit 3 once the machine has moved" * needs_root()) {
  FakeWslRoot root;
  std::string fresh = root.path() + "/../" + std::filesystem::path(root.path()).filename().string() + "-fresh.plan";
  std::string stale = root.path() + "/../" + std::filesystem::path(root.path()).filename().string() + "-stale.plan";
  REQUIRE(run_tool(args(root, {"plan", manifest(), "--out", stale})).exit_code == 0);
  root.write("/etc/motd", "edited after the plan was made\n");
  auto before = machine(root);
  RunResult refused = run_tool(args(root, {"install", "--plan", stale, "--yes"}));
  CHECK(refused.exit_code == 3);
  CHECK(refused.err.find("the machine no longer matches the saved plan") != std::string::npos);
  CHECK(refused.err.find("step \"motd\": file:/etc/motd was \"absent\", now") != std::string::npos);
  CHECK(snapshot_difference(before, machine(root)) == "");

  REQUIRE(run_tool(args(root, {"plan", manifest(), "--out", fresh})).exit_code == 0);
  RunResult ran = run_tool(args(root, {"install", "--plan", fresh, "--yes"}));
  CHECK(ran.exit_code == 0);
  std::ifstream motd(root.path() + "/etc/motd");
  std::string line;
  std::getline(motd, line);
  CHECK(line == "GPU ready");
  std::filesystem::remove(fresh);
  std::filesystem::remove(stale);
}

TEST_CASE("rollback of a finished transaction puts every file back" * needs_root()) {
  FakeWslRoot root;
  auto before = machine(root);
  RunResult r = run_tool(args(root, {"install", manifest(), "--yes", "--output", "json"}));
  REQUIRE(r.exit_code == 0);
  std::string id = nlohmann::json::parse(r.out)["transaction_id"];
  RunResult history = run_tool(args(root, {"history", "--output", "json"}));
  REQUIRE(history.exit_code == 0);
  CHECK(nlohmann::json::parse(history.out)[0]["id"] == id);
  CHECK(nlohmann::json::parse(history.out)[0]["status"] == "committed");

  RunResult back = run_tool(args(root, {"rollback", id, "--yes"}));
  CHECK(back.exit_code == 0);
  CHECK(snapshot_difference(before, machine(root)) == "");
}

TEST_CASE("a network download runs in the wslgpu-setup-fetch helper next to the binary, and its log reaches ours" *
          needs_root()) {
  FakeWslRoot root;
  std::string body(100000, 'w');
  wslgpu::testing::TinyHttpServer server({body});
  wslgpu::testing::TempDir tmp;
  std::string path = tmp.path() + "/download.toml";
  std::ofstream(path) << "[manifest]\nname = \"download\"\ndescription = \"one download over http\"\nschema_version = 1\n\n"
                         "[[step]]\nid = \"big\"\nkind = \"download\"\nurl = \""
                      << server.url("/big.bin") << "\"\nsha256 = \"" << wslgpu::sha256_hex(body)
                      << "\"\ndest = \"/var/tmp/big.bin\"\ninsecure_http = true\n";
  std::string log = tmp.path() + "/log.txt";
  RunResult r = run_tool(args(root, {"--not-wsl", "--log-file", log, "install", path, "--yes"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::ifstream in(root.path() + "/var/tmp/big.bin", std::ios::binary);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == body);
  std::ifstream log_in(log);
  std::string text((std::istreambuf_iterator<char>(log_in)), {});
  CHECK(text.find("debug run: " + std::filesystem::path(wslgpu::testing::kToolBinary).parent_path().string() + "/wslgpu-setup-fetch") !=
        std::string::npos);
  CHECK(text.find(" info " + server.url("/big.bin") + ": done, 97.7 KiB (sha256 " + wslgpu::sha256_hex(body) + ")") !=
        std::string::npos);
  CHECK(server.requests() == 1);
}

namespace {

// A manifest with one download of BODY from URL, to /var/tmp/big.bin.
std::string download_manifest(const wslgpu::testing::TempDir& tmp, const std::string& url, const std::string& body) {
  std::string path = tmp.path() + "/download.toml";
  std::ofstream(path) << "[manifest]\nname = \"download\"\ndescription = \"one download\"\nschema_version = 1\n\n"
                         "[[step]]\nid = \"big\"\nkind = \"download\"\nurl = \""
                      << url << "\"\nsha256 = \"" << wslgpu::sha256_hex(body)
                      << "\"\ndest = \"/var/tmp/big.bin\"\ninsecure_http = true\n";
  return path;
}

}  // namespace

TEST_CASE("without the download helper next to it, wslgpu-setup downloads itself and warns once a run that it does" *
          needs_root()) {
  FakeWslRoot root;
  std::string body(5000, 'h');
  wslgpu::testing::TinyHttpServer server({body});
  wslgpu::testing::TempDir tmp;
  // A copy of the binary alone in a folder, as a user may copy it.
  std::filesystem::create_directories(tmp.path() + "/bin");
  std::string alone = tmp.path() + "/bin/wslgpu-setup";
  std::filesystem::copy_file(wslgpu::testing::kToolBinary, alone);
  std::string path = tmp.path() + "/two.toml";
  std::ofstream(path) << "[manifest]\nname = \"two\"\ndescription = \"two downloads\"\nschema_version = 1\n";
  for (const char* id : {"first", "second"})
    std::ofstream(path, std::ios::app) << "\n[[step]]\nid = \"" << id << "\"\nkind = \"download\"\nurl = \""
                                       << server.url(std::string("/") + id + ".bin") << "\"\nsha256 = \""
                                       << wslgpu::sha256_hex(body) << "\"\ndest = \"/var/tmp/" << id
                                       << ".bin\"\ninsecure_http = true\n";
  const std::string warning = "the download helper wslgpu-setup-fetch is not installed (looked for " + tmp.path() +
                              "/bin/wslgpu-setup-fetch or " + tmp.path() +
                              "/libexec/wslgpu-setup/wslgpu-setup-fetch); downloading inside wslgpu-setup instead, "
                              "which loads libcurl and OpenSSL into it. To keep downloads in their own program, "
                              "install the wslgpu-setup package, or keep the two programs together (`cmake --install` "
                              "puts the helper in libexec/wslgpu-setup/)";
  RunResult r = run_tool_copy(alone, args(root, {"--not-wsl", "install", path, "--yes"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(server.requests() == 2);
  std::ifstream in(root.path() + "/var/tmp/second.bin", std::ios::binary);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == body);
  auto at = r.err.find(warning);
  REQUIRE_MESSAGE(at != std::string::npos, r.err);
  CHECK(r.err.find(warning, at + 1) == std::string::npos);  // once, for two downloads

  // The binary next to its helper says nothing of the kind.
  FakeWslRoot other;
  RunResult normal = run_tool(args(other, {"--not-wsl", "install", path, "--yes"}));
  REQUIRE_MESSAGE(normal.exit_code == 0, normal.err);
  CHECK(normal.err.find("is not installed") == std::string::npos);
}

TEST_CASE("install on a terminal says which step starts and shows its progress on one line, rewritten in place" *
          needs_root()) {
  FakeWslRoot root;
  std::string body(3'000'000, 'p');
  wslgpu::testing::TinyHttpServer server({body});
  wslgpu::testing::TempDir tmp;
  std::string manifest = download_manifest(tmp, server.url("/big.bin"), body);
  RunResult r = run_tool_in_terminal(args(root, {"--not-wsl", "--no-color", "install", manifest, "--yes"}), 100);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("[1/1] big: downloading big.bin\r\n") != std::string::npos);
  // The progress line: drawn after "\r" and a clear-to-end-of-line, never with a line break of its own.
  auto line = r.out.find("\r\x1b[K  big: downloading big.bin ");
  REQUIRE(line != std::string::npos);
  CHECK(r.out.find(" of 3.0 MB", line) != std::string::npos);
  // Cleared before the step's result is printed.
  CHECK(r.out.find("\r\x1b[K  big                 changed") != std::string::npos);
  CHECK(r.out.find("Transaction ") != std::string::npos);
}

TEST_CASE("without a terminal, progress is a line per 10 %; in JSON mode standard output is the result alone" *
          needs_root()) {
  std::string body(3'000'000, 'q');
  wslgpu::testing::TempDir tmp;
  std::ofstream(tmp.path() + "/big.bin", std::ios::binary) << body;
  std::string manifest = download_manifest(tmp, "file://" + tmp.path() + "/big.bin", body);
  {
    FakeWslRoot root;
    RunResult r = run_tool(args(root, {"--not-wsl", "install", manifest, "--yes"}));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out.find('\r') == std::string::npos);
    CHECK(r.out.find("[1/1] big: downloading big.bin\n") != std::string::npos);
    CHECK(r.out.find("  big: downloading big.bin 3.0 MB of 3.0 MB, 100 %") != std::string::npos);
    std::size_t lines = 0;
    for (std::size_t at = r.out.find("  big: downloading"); at != std::string::npos; at = r.out.find("  big: downloading", at + 1))
      ++lines;
    CHECK(lines <= 10);
  }
  {
    FakeWslRoot root;
    RunResult r = run_tool(args(root, {"--not-wsl", "install", manifest, "--yes", "--output", "json"}));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    auto j = nlohmann::json::parse(r.out);  // throws, failing the test, on anything but the result
    CHECK(j["changed"] == true);
  }
}

namespace {

// A file:// source of BODY in TMP and a manifest downloading it to /var/tmp/big.bin.
std::string local_download(const wslgpu::testing::TempDir& tmp, const std::string& body) {
  std::ofstream(tmp.path() + "/big.bin", std::ios::binary) << body;
  return download_manifest(tmp, "file://" + tmp.path() + "/big.bin", body);
}

std::string content_of(const std::string& host_path) {
  std::ifstream in(host_path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("a download to a symbolic link is refused by plan and install, and nothing is changed" * needs_root()) {
  FakeWslRoot root;
  wslgpu::testing::TempDir tmp;
  std::string manifest = local_download(tmp, std::string(5000, 'l'));
  std::filesystem::create_directories(root.path() + "/var/tmp");
  std::filesystem::create_symlink("/etc/passwd", root.path() + "/var/tmp/big.bin");
  auto before = machine(root);
  RunResult plan = run_tool(args(root, {"--not-wsl", "plan", manifest}));
  CHECK(plan.out.find("refused by guard no-writes-through-links: /var/tmp/big.bin is a symbolic link to /etc/passwd") !=
        std::string::npos);
  RunResult r = run_tool(args(root, {"--not-wsl", "install", manifest, "--yes"}));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("refused by guard no-writes-through-links: /var/tmp/big.bin is a symbolic link to /etc/passwd") !=
        std::string::npos);
  CHECK(snapshot_difference(before, machine(root)) == "");
}

TEST_CASE("rollback puts back the file a download replaced, and refuses with exit 3 once it changed, unless --force" *
          needs_root()) {
  FakeWslRoot root;
  root.write("/var/tmp/big.bin", "the file before\n", 0600);
  wslgpu::testing::TempDir tmp;
  std::string body(300000, 'r');
  std::string manifest = local_download(tmp, body);
  auto before = machine(root);
  RunResult r = run_tool(args(root, {"--not-wsl", "install", manifest, "--yes", "--output", "json"}));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::string id = nlohmann::json::parse(r.out)["transaction_id"];
  CHECK(content_of(root.path() + "/var/tmp/big.bin") == body);
  CHECK_FALSE(std::filesystem::exists(root.path() + "/var/tmp/big.bin.wslgpu-previous"));

  root.write("/var/tmp/big.bin", "edited since\n");
  auto edited = machine(root);
  RunResult refused = run_tool(args(root, {"rollback", id, "--yes"}));
  CHECK(refused.exit_code == 3);
  CHECK(refused.err.find("/var/tmp/big.bin (changed since)") != std::string::npos);
  CHECK(snapshot_difference(edited, machine(root)) == "");

  RunResult forced = run_tool(args(root, {"rollback", id, "--yes", "--force"}));
  CHECK(forced.exit_code == 0);
  CHECK(snapshot_difference(before, machine(root)) == "");
}

TEST_CASE("a run killed after a download replaced its file is undone by recover --rollback, the old file back" *
          needs_root()) {
  FakeWslRoot root;
  root.write("/var/tmp/big.bin", "the file before\n", 0640);
  wslgpu::testing::TempDir tmp;
  std::string body(300000, 'k');
  std::string manifest = local_download(tmp, body);
  auto before = machine(root);
  RunResult killed =
      run_tool(args(root, {"--not-wsl", "install", manifest, "--yes"}), {"", {"WSLGPU_SETUP_CRASH_AT=big:applied"}});
  CHECK(killed.exit_code == 128 + 9);
  CHECK(content_of(root.path() + "/var/tmp/big.bin") == body);  // replaced, and nothing of it recorded after

  RunResult recovered = run_tool(args(root, {"recover", "--rollback", "--yes"}));
  CHECK(recovered.exit_code == 0);
  CHECK(snapshot_difference(before, machine(root)) == "");
}
