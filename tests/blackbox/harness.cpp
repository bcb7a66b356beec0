#include "harness.hpp"
#include "support/build_paths.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace wslgpu::blackbox {

namespace {

void make_dir(const std::string& path) { std::filesystem::create_directories(path); }

// The folder reachable_by_anyone() copies into: in the temporary folder,
// opened to everyone (mkdtemp makes it 0700), removed at exit.
class AnyoneFolder {
 public:
  AnyoneFolder() {
    if (::chmod(dir_.path().c_str(), 0755) != 0) throw std::runtime_error("cannot open " + dir_.path() + " to anyone");
  }
  // A copy of FILE (its mode's execute bits kept, readable by anyone),
  // named after FILE's whole path so that two files of one name differ.
  std::string stage(const std::string& file) {
    auto known = staged_.find(file);
    if (known != staged_.end()) return known->second;
    std::string name = std::filesystem::absolute(file).lexically_normal().string();
    for (char& c : name) c = c == '/' ? '_' : c;
    std::filesystem::path copy = std::filesystem::path(dir_.path()) / name.substr(1);
    std::filesystem::copy_file(file, copy, std::filesystem::copy_options::overwrite_existing);
    struct stat st{};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    REQUIRE(::chmod(copy.c_str(), (st.st_mode & 0111) ? 0755 : 0644) == 0);
    return staged_[file] = copy.string();
  }
  // BINARY staged with wslgpu-setup-fetch, which the tool looks for beside
  // itself, in a folder of their own under their own names.
  std::string stage_program(const std::string& binary) {
    auto known = programs_.find(binary);
    if (known != programs_.end()) return known->second;
    std::filesystem::path folder = std::filesystem::path(dir_.path()) / ("program-" + std::to_string(programs_.size()));
    std::filesystem::create_directory(folder);
    REQUIRE(::chmod(folder.c_str(), 0755) == 0);
    std::filesystem::path from(binary);
    for (const auto& name : {from.filename(), std::filesystem::path("wslgpu-setup-fetch")}) {
      std::filesystem::path source = from.parent_path() / name;
      if (!std::filesystem::exists(source)) continue;
      std::filesystem::copy_file(source, folder / name, std::filesystem::copy_options::overwrite_existing);
      REQUIRE(::chmod((folder / name).c_str(), 0755) == 0);
    }
    return programs_[binary] = (folder / from.filename()).string();
  }

 private:
  wslgpu::testing::TempDir dir_;
  std::map<std::string, std::string> staged_, programs_;
};

AnyoneFolder& anyone_folder() {
  static AnyoneFolder folder;
  return folder;
}

}  // namespace

std::string reachable_by_anyone(const std::string& file) { return anyone_folder().stage(file); }

std::string source_dir() { return wslgpu::testing::kSourceDir; }

RunResult run_tool(const std::vector<std::string>& args, const RunOptions& options) {
  return run_tool_copy(wslgpu::testing::kToolBinary, args, options);
}

RunResult run_tool_copy(const std::string& binary, const std::vector<std::string>& args, const RunOptions& options) {
  std::vector<std::string> argv_storage = {binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  // argv[0] stays BINARY, as typed (the tool names it in what it suggests).
  const std::string executed = options.as_uid >= 0 ? anyone_folder().stage_program(binary) : binary;
  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("SUDO_USER=", 0) == 0 || entry.rfind("NO_COLOR=", 0) == 0) continue;
    env_storage.push_back(entry);
  }
  env_storage.insert(env_storage.end(), options.env.begin(), options.env.end());
  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> argv, envp;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  REQUIRE(::pipe2(out_pipe, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(err_pipe, O_CLOEXEC) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(126);
    if (options.as_uid >= 0) {
      const auto id = static_cast<uid_t>(options.as_uid);
      if (::setgroups(0, nullptr) != 0 || ::setgid(id) != 0 || ::setuid(id) != 0) ::_exit(125);
    }
    ::execve(executed.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);

  RunResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  bool timed_out = false;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    REQUIRE(n >= 0);
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string command;
  for (const auto& a : args) command += " " + a;
  if (timed_out) FAIL("wslgpu-setup" << command << " did not finish within 60 s");
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (result.exit_code == 127 && result.out.empty() && result.err.empty()) FAIL("could not run " << executed);
  return result;
}

RunResult run_tool_in_terminal(const std::vector<std::string>& args, unsigned short columns, const RunOptions& options) {
  std::vector<std::string> argv_storage = {wslgpu::testing::kToolBinary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("SUDO_USER=", 0) == 0 || entry.rfind("NO_COLOR=", 0) == 0 || entry.rfind("TERM=", 0) == 0) continue;
    env_storage.push_back(entry);
  }
  env_storage.push_back("TERM=xterm");
  env_storage.insert(env_storage.end(), options.env.begin(), options.env.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);

  winsize ws{};
  ws.ws_row = 40;
  ws.ws_col = columns;
  int master = -1;
  pid_t pid = ::forkpty(&master, nullptr, nullptr, &ws);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(126);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  RunResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd fd{master, POLLIN, 0};
    int n = ::poll(&fd, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    REQUIRE(n >= 0);
    char buf[4096];
    ssize_t got = ::read(master, buf, sizeof buf);
    if (got > 0) {
      result.out.append(buf, static_cast<std::size_t>(got));
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the terminal's last user has gone
    }
  }
  ::close(master);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) FAIL("wslgpu-setup did not finish within 60 s on a terminal");
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

FakeWslRoot::FakeWslRoot() {
  const std::string& r = dir_.path();
  write("/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
  make_dir(r + "/dev");
  std::string dxg = r + "/dev/dxg";
  if (::geteuid() == 0 && ::mknod(dxg.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0) {
    ::chmod(dxg.c_str(), 0666);  // whatever the umask took away
    dxg_is_device_ = true;
  } else {
    write("/dev/dxg", "", 0666);
  }
  make_dir(r + "/usr/lib/wsl/lib");
  write("/etc/os-release",
        "PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\n"
        "VERSION=\"24.04.1 LTS (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\n"
        "UBUNTU_CODENAME=noble\n");
  write("/etc/passwd",
        "root:x:0:0:root:/root:/bin/bash\n"
        "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
        "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n");
  write("/etc/group", "root:x:0:\ndaemon:x:1:\nvideo:x:44:\nrender:x:105:\nalice:x:1000:\n");
  make_dir(r + "/home/alice");
  make_dir(r + "/mnt/c/Users/alice");
  make_dir(r + "/mnt/c/Users/Public");
}

void FakeWslRoot::write(const std::string& target, const std::string& content, std::uint32_t mode) const {
  std::string host = dir_.path() + target;
  make_dir(std::filesystem::path(host).parent_path().string());
  std::ofstream(host, std::ios::binary | std::ios::trunc) << content;
  REQUIRE(::chmod(host.c_str(), mode) == 0);
}

std::map<std::string, Stamp> snapshot(const std::string& dir) {
  std::map<std::string, Stamp> out;
  auto stamp = [&](const std::string& path, const std::string& key) {
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    Stamp s;
    s.mode = st.st_mode;
    s.uid = st.st_uid;
    s.gid = st.st_gid;
    s.size = st.st_size;
    s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    if (S_ISREG(st.st_mode)) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      s.content = text.str();
    }
    out[key] = s;
  };
  stamp(dir, ".");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    stamp(entry.path().string(), std::filesystem::relative(entry.path(), dir).string());
  }
  return out;
}

std::string snapshot_difference(const std::map<std::string, Stamp>& before, const std::map<std::string, Stamp>& after) {
  std::string out;
  for (const auto& [path, stamp] : before) {
    auto it = after.find(path);
    if (it == after.end()) out += "removed: " + path + "\n";
    else if (!(it->second == stamp)) out += "changed: " + path + "\n";
  }
  for (const auto& [path, stamp] : after)
    if (!before.count(path)) out += "added: " + path + "\n";
  return out;
}

std::map<std::string, Stamp> outside_state_without_times(std::map<std::string, Stamp> all) {
  std::erase_if(all, [](const auto& e) {
    return e.first.rfind("var/lib/wslgpu-setup", 0) == 0 || e.first == "var/lib" || e.first == "var";
  });
  for (auto& [path, stamp] : all) stamp.mtime_ns = 0;
  return all;
}

bool running_as_root() { return ::geteuid() == 0; }

nlohmann::json doctor_finding(const RunResult& r, const std::string& id) {
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE(doc.is_object());
  for (const auto& f : doc["findings"])
    if (f["id"] == id) return f;
  FAIL("no finding " << id << " in:\n" << r.out);
  return {};
}

}  // namespace wslgpu::blackbox
