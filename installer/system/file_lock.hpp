// Who holds a POSIX record lock (fcntl) on a file: dpkg and apt lock
// /var/lib/dpkg/lock and lock-frontend this way while they work, and a run
// that finds them held must wait or say who it is waiting for, not mistake
// a dpkg that is working for one that was interrupted.
#pragma once
#include <optional>
#include <string>

namespace wslgpu {

struct LockHolder {
  long pid = 0;         // 0 when the kernel does not say (an open file description lock)
  std::string command;  // from /proc/PID/comm, or empty
  std::string describe() const;  // "process 4242 (apt-get)"
};

// The process that holds a write-conflicting lock on HOST_PATH, or nothing
// (also when the file does not exist or cannot be opened).
std::optional<LockHolder> posix_lock_holder(const std::string& host_path);

}  // namespace wslgpu
