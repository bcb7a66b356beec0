#include "installer/transaction/lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

// Who holds the flock on FD, from the kernel's own table: a line of
// /proc/locks is "1: FLOCK  ADVISORY  WRITE 4242 00:2a:1234 0 EOF". The
// holder may not have written its own line into the file yet (it does so
// only once it knows it will change something), and a line that is there
// may be a finished run's; the kernel's answer is neither late nor stale.
// Matched by inode (device numbers differ between what fstat and
// /proc/locks report on overlayfs); empty when it cannot tell.
std::string holder_from_kernel(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {};
  std::ifstream locks("/proc/locks");
  std::string line;
  const std::string inode = ":" + std::to_string(st.st_ino);
  while (std::getline(locks, line)) {
    std::istringstream in(line);
    std::string n, kind, mode, access, pid, where;
    if (!(in >> n >> kind)) continue;
    if (kind == "->") continue;  // a waiter, listed under the holder
    if (!(in >> mode >> access >> pid >> where) || kind != "FLOCK") continue;
    if (where.size() <= inode.size() || where.compare(where.size() - inode.size(), inode.size(), inode) != 0) continue;
    std::ifstream cmdline("/proc/" + pid + "/cmdline", std::ios::binary);
    std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    while (!args.empty() && args.back() == '\0') args.pop_back();
    for (char& c : args) c = c == '\0' ? ' ' : c;
    return "pid " + pid + (args.empty() ? std::string() : ", `" + args + "`");
  }
  return {};
}

}  // namespace

RunLock::RunLock(const std::string& lock_path, std::chrono::milliseconds timeout) : path_(lock_path) {
  fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw StepFailure("cannot open the lock file " + lock_path + ": " + std::strerror(errno));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      ::close(fd_);
      throw StepFailure("cannot lock " + lock_path + ": " + std::strerror(errno));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      char buf[1024] = {};
      ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
      std::string recorded = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
      while (!recorded.empty() && recorded.back() == '\n') recorded.pop_back();
      // The file's line says when the run started; trust it only when it
      // names the pid the kernel names.
      std::string holder = holder_from_kernel(fd_);
      if (!recorded.empty() && (holder.empty() || recorded.rfind(holder.substr(0, holder.find(',')) + ",", 0) == 0))
        holder = recorded;
      ::close(fd_);
      fd_ = -1;
      throw Error(ExitCode::locked, "another wslgpu-setup run holds the lock " + lock_path +
                                        (holder.empty() ? std::string(" (the kernel did not say which process)")
                                                        : ": " + holder) +
                                        "\nWait for it to finish, or pass --lock-timeout SECONDS to wait.");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  // A finished run's line must not be read as the next holder's.
  if (recorded_) (void)!::ftruncate(fd_, 0);
  ::close(fd_);  // closing drops the flock
}

void RunLock::record_holder(const std::string& command_line) {
  char when[64];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::string info = "pid " + std::to_string(::getpid()) + ", started " + when + ", `" + command_line + "`\n";
  if (::ftruncate(fd_, 0) == 0) recorded_ = ::pwrite(fd_, info.data(), info.size(), 0) > 0;
}

}  // namespace wslgpu
