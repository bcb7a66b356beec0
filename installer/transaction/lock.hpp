// The run lock: an flock on STATE/lock, so two runs that change the machine
// never interleave. The holder writes its pid, start time and command line
// into the file once it knows it will change something, so that a second
// run can say who holds it; before that, the kernel's table of locks
// (/proc/locks) names the holder's pid and command. The kernel drops an flock when its process dies,
// so a crashed run never leaves a stale lock (its journal says what to do).
#pragma once
#include <chrono>
#include <string>

namespace wslgpu {

class RunLock {
 public:
  // Takes the lock on LOCK_PATH (a host path), waiting up to TIMEOUT.
  // Throws Error(locked) naming the holder when it cannot.
  RunLock(const std::string& lock_path, std::chrono::milliseconds timeout);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  // Records who holds the lock (pid, start time, command line).
  void record_holder(const std::string& command_line);

 private:
  int fd_ = -1;
  bool recorded_ = false;
  std::string path_;
};

}  // namespace wslgpu
