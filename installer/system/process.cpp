#include "installer/system/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include <spdlog/spdlog.h>

#include "installer/system/interrupt.hpp"

namespace wslgpu {

std::string Command::display() const {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`;&|<>()*?[]{}!#~") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

namespace {

// The environment a child sees: a fixed, minimal one plus what the command
// asks for, so that the user's shell settings cannot change what apt does.
std::vector<std::string> child_environment(const Command& cmd) {
  std::map<std::string, std::string> env = {
      {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
      {"LC_ALL", "C.UTF-8"},
      {"HOME", "/root"},
  };
  for (const auto& [k, v] : cmd.env) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

int open_descriptor_limit() {
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536) return 65536;
  return static_cast<int>(rl.rlim_cur);
}

// What the child does between vfork and exec, set up before the vfork so
// that the child only reads it.
struct ChildSetup {
  int in, out, err;
  int status;             // the write end for kStatusFd, or -1
  const char* chroot_to;  // nullptr: run in our own root
  const char* cwd;        // nullptr: "/" in a chroot, else where we are
  char* const* argv;
  char* const* envp;
  int max_fd;             // the descriptor limit, read before the vfork
};

// Descriptors our own caller left open without close-on-exec (a CI runner's
// pipe on 3, a shell's here-document) must not reach apt or dpkg: a child
// that writes to "its" descriptor 3 would write into someone else's pipe,
// and one that holds a pipe open keeps its reader from seeing EOF.
// close_range is one system call; kernels before 5.9 fall back to a loop.
void close_inherited(int first, int max_fd) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, static_cast<unsigned>(first), ~0U, 0U) == 0) return;
#endif
  for (int fd = first; fd < max_fd; ++fd) ::close(fd);
}

// The child's side of vfork: only async-signal-safe system calls, no writes
// to the parent's memory but errno, and no return: exec or _exit.
[[noreturn]] void exec_child(const ChildSetup& c) {
  ::setpgid(0, 0);
  ::dup2(c.in, 0);
  ::dup2(c.out, 1);
  ::dup2(c.err, 2);
  if (c.status >= 0) {
    // dup2 clears close-on-exec on the copy; a pipe that already is
    // kStatusFd keeps its own flag, so clear it by hand.
    if (c.status == kStatusFd) ::fcntl(kStatusFd, F_SETFD, 0);
    else ::dup2(c.status, kStatusFd);
  }
  close_inherited(c.status >= 0 ? kStatusFd + 1 : kStatusFd, c.max_fd);
  if (c.chroot_to && (::chroot(c.chroot_to) != 0 || ::chdir("/") != 0)) {
    // Between vfork and exec only async-signal-safe calls: fixed texts.
    const char msg[] = "wslgpu-setup: chroot into the target root failed\n";
    const char eperm[] =
        "wslgpu-setup: chroot into the target root failed: only root may chroot; run it again with sudo\n";
    if (errno == EPERM)
      (void)!::write(2, eperm, sizeof eperm - 1);
    else
      (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(126);
  }
  if (c.cwd && ::chdir(c.cwd) != 0) {
    const char msg[] = "wslgpu-setup: cannot enter the program's working folder\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(126);
  }
  ::execvpe(c.argv[0], c.argv, c.envp);
  ::_exit(errno == ENOENT ? 127 : 126);
}

}  // namespace

ProcessResult RealProcessRunner::run(const Command& cmd) {
  ProcessResult result;
  if (cmd.argv.empty()) {
    result.not_found = true;
    return result;
  }
  spdlog::debug("run: {}", cmd.display());
  int out_pipe[2], err_pipe[2], in_pipe[2], status_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 || ::pipe2(in_pipe, O_CLOEXEC) != 0 ||
      (cmd.on_status_line && ::pipe2(status_pipe, O_CLOEXEC) != 0)) {
    result.err = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  std::vector<std::string> env_strings = child_environment(cmd);
  std::vector<char*> argv, envp;
  for (const auto& a : cmd.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  ChildSetup child{in_pipe[0], out_pipe[1], err_pipe[1], status_pipe[1],
                   cmd.in_root && root_ != "/" && !root_.empty() ? root_.c_str() : nullptr,
                   cmd.cwd.empty() ? nullptr : cmd.cwd.c_str(), argv.data(), envp.data(),
                   open_descriptor_limit()};

  // vfork, not fork: the child shares our memory until it execs, so nothing
  // is copied (fork copied the page tables of the whole process, measurable
  // on every apt call). We are suspended until the child's exec or _exit.
  pid_t pid = ::vfork();
  if (pid == 0) exec_child(child);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (status_pipe[1] >= 0) ::close(status_pipe[1]);
  if (pid < 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    if (status_pipe[0] >= 0) ::close(status_pipe[0]);
    result.err = std::string("vfork: ") + std::strerror(errno);
    return result;
  }
  // Feed stdin (small inputs only) and close it so the child sees EOF. A
  // child that exits without reading it (or never started) must not kill us
  // with SIGPIPE: the signal is blocked for the write, and a pending one
  // taken off again.
  if (!cmd.stdin_data.empty()) {
    sigset_t pipe_signal, old_mask;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
    (void)!::write(in_pipe[1], cmd.stdin_data.data(), cmd.stdin_data.size());
    const timespec no_wait{0, 0};
    while (::sigtimedwait(&pipe_signal, nullptr, &no_wait) == SIGPIPE) {
    }
    ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  }
  ::close(in_pipe[1]);

  auto deadline = std::chrono::steady_clock::now() + cmd.timeout;
  // Standard output, standard error and, when asked for, the status pipe.
  pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {status_pipe[0], POLLIN, 0}};
  const int nfds = status_pipe[0] >= 0 ? 3 : 2;
  int open_fds = nfds;
  std::string status_text;
  std::size_t err_line_start = 0;  // the first byte of err not yet passed to on_stderr_line
  std::size_t out_line_start = 0;  // the same for out and on_stdout_line
  std::size_t status_line_start = 0;
  // After a signal, a program that may stop gets SIGTERM, and SIGKILL if it
  // is still there 10 s later.
  std::optional<std::chrono::steady_clock::time_point> kill_at;
  char buf[65536];
  while (open_fds > 0) {
    auto now = std::chrono::steady_clock::now();
    const bool signalled = cmd.stop_on_interrupt && interrupt_signal();
    if (!result.interrupted && (signalled || (cmd.stop_flag && cmd.stop_flag->load()))) {
      result.interrupted = true;
      spdlog::info("stopping `{}` ({})", cmd.display(),
                   signalled ? signal_name(interrupt_signal()) : std::string("no longer needed"));
      ::kill(-pid, SIGTERM);
      kill_at = now + std::chrono::seconds(10);
    }
    if (kill_at && now >= *kill_at) {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      kill_at.reset();
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      break;
    }
    int n = ::poll(fds, static_cast<nfds_t>(nfds), static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    for (int i = 0; i < nfds; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        std::string& sink = i == 0 ? result.out : i == 1 ? result.err : status_text;
        sink.append(buf, static_cast<std::size_t>(got));
        if (i == 0 && cmd.on_stdout_line) {
          std::size_t nl;
          while ((nl = result.out.find('\n', out_line_start)) != std::string::npos) {
            cmd.on_stdout_line(result.out.substr(out_line_start, nl - out_line_start));
            out_line_start = nl + 1;
          }
        }
        if (i == 1 && cmd.on_stderr_line) {
          std::size_t nl;
          while ((nl = result.err.find('\n', err_line_start)) != std::string::npos) {
            cmd.on_stderr_line(result.err.substr(err_line_start, nl - err_line_start));
            err_line_start = nl + 1;
          }
        }
        if (i == 2) {
          std::size_t nl;
          while ((nl = status_text.find('\n', status_line_start)) != std::string::npos) {
            cmd.on_status_line(status_text.substr(status_line_start, nl - status_line_start));
            status_line_start = nl + 1;
          }
          // Only the unfinished line is kept: apt reports thousands of lines.
          status_text.erase(0, status_line_start);
          status_line_start = 0;
        }
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  if (cmd.on_stderr_line && err_line_start < result.err.size()) cmd.on_stderr_line(result.err.substr(err_line_start));
  if (cmd.on_stdout_line && out_line_start < result.out.size()) cmd.on_stdout_line(result.out.substr(out_line_start));
  if (cmd.on_status_line && !status_text.empty()) cmd.on_status_line(status_text);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  if (result.exit_code == 127 && result.out.empty() && result.err.empty()) result.not_found = true;
  spdlog::debug("exit {}{}: {}", result.exit_code,
                result.timed_out ? " (timed out)" : result.interrupted ? " (stopped by a signal)" : "", cmd.display());
  if (!result.out.empty()) spdlog::trace("stdout:\n{}", result.out);
  // Lines already passed on as they came are not logged a second time.
  if (!result.err.empty() && !cmd.on_stderr_line) spdlog::debug("stderr:\n{}", result.err);
  return result;
}

}  // namespace wslgpu
