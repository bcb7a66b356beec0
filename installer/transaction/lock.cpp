#include "installer/transaction/lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>

#include "installer/system/error.hpp"

namespace wslgpu {

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
      std::string holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
      while (!holder.empty() && holder.back() == '\n') holder.pop_back();
      ::close(fd_);
      fd_ = -1;
      throw Error(ExitCode::locked, "another wslgpu-setup run holds the lock " + lock_path +
                                        (holder.empty() ? std::string(" (it has not said who it is yet)")
                                                        : ": " + holder) +
                                        "\nWait for it to finish, or pass --lock-timeout SECONDS to wait.");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the flock
}

void RunLock::record_holder(const std::string& command_line) {
  char when[64];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::string info = "pid " + std::to_string(::getpid()) + ", started " + when + ", `" + command_line + "`\n";
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, info.data(), info.size(), 0);
}

}  // namespace wslgpu
