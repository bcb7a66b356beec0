#include "installer/system/file_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

namespace wslgpu {

std::string LockHolder::describe() const {
  if (pid <= 0) return "another process";
  return "process " + std::to_string(pid) + (command.empty() ? std::string() : " (" + command + ")");
}

std::optional<LockHolder> posix_lock_holder(const std::string& host_path) {
  int fd = ::open(host_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = 0;
  probe.l_len = 0;  // the whole file
  int rc = ::fcntl(fd, F_GETLK, &probe);
  // Closing our descriptor would drop a lock this process held on the file;
  // we never hold dpkg's.
  ::close(fd);
  if (rc != 0 || probe.l_type == F_UNLCK) return std::nullopt;
  LockHolder h;
  h.pid = probe.l_pid;
  if (h.pid > 0) {
    std::ifstream comm("/proc/" + std::to_string(h.pid) + "/comm");
    std::getline(comm, h.command);
  }
  return h;
}

}  // namespace wslgpu
