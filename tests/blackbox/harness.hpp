// What the black-box tests need to drive the built wslgpu-setup binary
// (kToolBinary, support/build_paths.hpp) from outside: run it with arguments and capture its exit
// status and both output streams, build a folder that looks like a WSL2
// machine for --root, and take a snapshot of a folder to prove that a
// command left it untouched.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/fakes.hpp"

namespace wslgpu::blackbox {

struct RunResult {
  int exit_code = -1;  // the exit status, or 128 + signal
  std::string out;     // standard output
  std::string err;     // standard error
};

// The finding ID in R, the output of `doctor --output json`; fails the test
// (naming the output) when doctor did not report it.
nlohmann::json doctor_finding(const RunResult& r, const std::string& id);

struct RunOptions {
  std::string cwd;               // "" for the test's own working folder
  std::vector<std::string> env;  // "NAME=VALUE" added to the environment
  // >= 0: run as this uid (and gid, no supplementary groups), as a normal
  // user runs it; the tests must be root to switch. -1: as the test runs.
  // Such a run executes a copy of the binary (and of wslgpu-setup-fetch
  // beside it) staged where anyone may reach it, with argv[0] still the
  // binary's own path: the build may lie where no other user may enter (a
  // clone under /root or in a `mktemp -d` folder, mode 0700). Files it
  // names must be staged too: reachable_by_anyone().
  int as_uid = -1;
};

// A copy of FILE in a folder every user may enter and read (made once per
// test program, removed when it ends), for a run with RunOptions::as_uid;
// the same path for the same FILE.
std::string reachable_by_anyone(const std::string& file);

// A normal user's uid for RunOptions::as_uid ("nobody").
inline constexpr int kUnprivilegedUid = 65534;

// No test may reach a vendor's server, and the bundled profiles' plans fetch
// their signing keys (and ask wheels' sizes) from there: a run with these
// options goes through a proxy that refuses at once (nothing listens on port 1).
inline const RunOptions kOffline{"",
                                 {"https_proxy=http://127.0.0.1:1", "HTTPS_PROXY=http://127.0.0.1:1", "all_proxy=",
                                  "ALL_PROXY=", "no_proxy=", "NO_PROXY="}};

// The first line of TEXT.
inline std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Runs the binary with ARGS (no shell: fork and exec) and waits for it, at
// most 60 seconds, then kills it and fails the test. The environment is the
// test's own without SUDO_USER and NO_COLOR, so that results do not depend on
// who runs the tests, plus OPTIONS.env.
RunResult run_tool(const std::vector<std::string>& args, const RunOptions& options = {});

// The same with BINARY, a copy of the built binary somewhere else (alone in
// a folder, as a user may copy it).
RunResult run_tool_copy(const std::string& binary, const std::vector<std::string>& args,
                        const RunOptions& options = {});

// The same on a pseudo-terminal of COLUMNS columns, as a person at a
// terminal runs it: standard input, output and error are the terminal, so
// RunResult::out holds both output streams as the terminal received them
// (with the terminal's CR LF line ends) and err is empty.
RunResult run_tool_in_terminal(const std::vector<std::string>& args, unsigned short columns = 100,
                               const RunOptions& options = {});

// A temporary folder laid out as a WSL2 Ubuntu 24.04 machine:
//   /proc/sys/kernel/osrelease  5.15.153.1-microsoft-standard-WSL2
//   /dev/dxg                    a character device (1,3) when the tests run as
//                               root, else a regular file (which the tool must
//                               not take for the device)
//   /usr/lib/wsl/lib/           the driver mount, empty
//   /etc/os-release             Ubuntu 24.04 (noble)
//   /etc/passwd, /etc/group     root, and alice with uid and gid 1000
//   /home/alice/, /mnt/c/Users/alice/ and /mnt/c/Users/Public/
// The folder and everything in it go when the object does.
class FakeWslRoot {
 public:
  FakeWslRoot();
  const std::string& path() const { return dir_.path(); }
  // Whether /dev/dxg is a real character device (only root may make one).
  bool dxg_is_device() const { return dxg_is_device_; }
  // Writes target path TARGET ("/etc/motd") under the root with MODE.
  void write(const std::string& target, const std::string& content, std::uint32_t mode = 0644) const;

 private:
  wslgpu::testing::TempDir dir_;
  bool dxg_is_device_ = false;
};

// One entry of a folder as lstat sees it, with the content of regular files.
struct Stamp {
  std::uint32_t mode = 0;  // type and permission bits
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::string content;

  bool operator==(const Stamp&) const = default;
};

// Every entry under DIR (symbolic links not followed), by path relative to DIR.
std::map<std::string, Stamp> snapshot(const std::string& dir);

// What differs between two snapshots, one line per path, for messages.
std::string snapshot_difference(const std::map<std::string, Stamp>& before, const std::map<std::string, Stamp>& after);

// ALL without the tool's state folder and the folders made to hold it
// (var, var/lib), modification times left out: restoring a file is a
// write, and writing in a folder moves its mtime.
std::map<std::string, Stamp> outside_state_without_times(std::map<std::string, Stamp> all);

// The decorator of a test that needs root (install's guard; only root can
// make /dev/dxg a character device): TEST_CASE("..." * needs_root()). It
// puts the test in the doctest test suite kNeedsRootSuite, which ctest runs
// as an entry of its own that says Skipped when not run as root
// (tests/CMakeLists.txt), and, when the tests do not run as root, marks it
// skipped, so that doctest counts it as skipped rather than passed.
inline constexpr const char* kNeedsRootSuite = "needs-root";  // named in tests/CMakeLists.txt too
bool running_as_root();
struct needs_root {
  template <typename TestCase>
  void fill(TestCase& test) const {
    test.m_test_suite = kNeedsRootSuite;
    test.m_skip = !running_as_root();
  }
};

// The folder the sources are in (for tests/broken and tests/blackbox/manifests).
std::string source_dir();

}  // namespace wslgpu::blackbox
