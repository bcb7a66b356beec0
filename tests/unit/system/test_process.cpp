// The real process runner, with real programs from the machine running the
// tests (sh, true), outside any root.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "installer/system/process.hpp"
#include "support/helpers.hpp"

#include <unistd.h>

using namespace wslgpu;
using wslgpu::testing::host_command;

TEST_CASE("a child that exits without reading its input does not take the runner down with SIGPIPE") {
  RealProcessRunner runner("/");
  Command cmd = host_command({"true"});
  cmd.stdin_data = std::string(1 << 20, 'x');  // more than a pipe holds
  ProcessResult r = runner.run(cmd);
  CHECK(r.ok());
  // And the runner still works afterwards.
  Command cat = host_command({"cat"});
  cat.stdin_data = "hello";
  CHECK(runner.run(cat).out == "hello");
}

TEST_CASE("standard error is passed on line by line as it arrives, the last line even without a line break") {
  RealProcessRunner runner("/");
  Command cmd = host_command({"sh", "-c", "printf 'one\\ntwo\\n' >&2; sleep 0.05; printf 'three\\nfour' >&2"});
  std::vector<std::string> lines;
  cmd.on_stderr_line = [&](const std::string& line) { lines.push_back(line); };
  ProcessResult r = runner.run(cmd);
  CHECK(r.ok());
  CHECK(lines == std::vector<std::string>{"one", "two", "three", "four"});
  CHECK(r.err == "one\ntwo\nthree\nfour");
}

TEST_CASE("standard output is passed on line by line too, and kept whole in the result") {
  RealProcessRunner runner("/");
  Command cmd =
      host_command({"sh", "-c", "printf 'Collecting torch\\n'; echo e >&2; sleep 0.05; printf 'Installing\\nlast'"});
  std::vector<std::string> lines;
  cmd.on_stdout_line = [&](const std::string& line) { lines.push_back(line); };
  ProcessResult r = runner.run(cmd);
  CHECK(r.ok());
  CHECK(lines == std::vector<std::string>{"Collecting torch", "Installing", "last"});
  CHECK(r.out == "Collecting torch\nInstalling\nlast");
  CHECK(r.err == "e\n");
}

TEST_CASE("a program that does not exist is reported as not found") {
  RealProcessRunner runner("/");
  ProcessResult r = runner.run(host_command({"/nonexistent/wslgpu-no-such-program"}));
  CHECK(r.not_found);
  CHECK_FALSE(r.ok());
}

TEST_CASE("a program's status descriptor is a pipe of its own, read line by line as it arrives") {
  RealProcessRunner runner("/");
  Command cmd = host_command({"sh", "-c", "echo out; echo 'dlstatus:1:50:x' >&3; echo err >&2; printf 'pmstatus:a:60:y' >&3"});
  std::vector<std::string> lines;
  cmd.on_status_line = [&](const std::string& line) { lines.push_back(line); };
  ProcessResult r = runner.run(cmd);
  CHECK(r.ok());
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK(lines == std::vector<std::string>{"dlstatus:1:50:x", "pmstatus:a:60:y"});
  // Without a listener there is no descriptor 3, even when our caller left
  // one open (CI runners do).
  int inherited[2];
  REQUIRE(::pipe(inherited) == 0);
  int saved3 = ::dup(kStatusFd);
  REQUIRE(::dup2(inherited[1], kStatusFd) == kStatusFd);
  Command plain = host_command({"sh", "-c", "echo x >&3"});
  bool wrote = runner.run(plain).ok();
  if (saved3 >= 0) ::dup2(saved3, kStatusFd), ::close(saved3);
  else ::close(kStatusFd);
  ::close(inherited[0]);
  ::close(inherited[1]);
  CHECK_FALSE(wrote);
}

TEST_CASE("descriptors the caller left open without close-on-exec do not reach the child") {
  RealProcessRunner runner("/");
  int leaked[2];
  REQUIRE(::pipe(leaked) == 0);  // no O_CLOEXEC, as a careless caller would
  Command cmd = host_command({"sh", "-c", "ls /proc/self/fd"});
  ProcessResult r = runner.run(cmd);
  ::close(leaked[0]);
  ::close(leaked[1]);
  REQUIRE(r.ok());
  std::vector<std::string> fds;
  std::istringstream in(r.out);
  for (std::string fd; in >> fd;) fds.push_back(fd);
  // 0, 1, 2, and the lowest free one, which ls opens to read /proc/self/fd.
  CHECK(fds == std::vector<std::string>{"0", "1", "2", "3"});
}
