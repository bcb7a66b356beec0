// Who holds dpkg's lock, and a run that waits for it as apt would. A POSIX
// record lock belongs to a process, so another process (a forked child)
// holds it here.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "installer/formats/dpkg_status.hpp"
#include "installer/system/error.hpp"
#include "installer/system/file_lock.hpp"
#include "installer/system/filesystem.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::TempDir;

namespace {

// A child process that holds a write lock on PATH until it is killed (or
// released: it exits when its pipe closes).
class LockingChild {
 public:
  explicit LockingChild(const std::string& path) {
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
      struct flock l {};
      l.l_type = F_WRLCK;
      l.l_whence = SEEK_SET;
      if (fd < 0 || ::fcntl(fd, F_SETLK, &l) != 0) ::_exit(1);
      (void)!::write(ready[1], "x", 1);
      ::pause();
      ::_exit(0);
    }
    ::close(ready[1]);
    char c = 0;
    REQUIRE(::read(ready[0], &c, 1) == 1);
    ::close(ready[0]);
  }
  ~LockingChild() { release(); }
  void release() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("the holder of a record lock is named by its pid and command") {
  TempDir dir;
  std::string path = dir.path() + "/lock";
  CHECK_FALSE(posix_lock_holder(path).has_value());  // no file
  dir.write("lock", "");
  CHECK_FALSE(posix_lock_holder(path).has_value());  // nobody holds it
  LockingChild child(path);
  auto holder = posix_lock_holder(path);
  REQUIRE(holder.has_value());
  CHECK(holder->pid == child.pid());
  // A forked child keeps its parent's command name.
  CHECK(holder->describe() == "process " + std::to_string(child.pid()) + " (unit_tests)");
  child.release();
  CHECK_FALSE(posix_lock_holder(path).has_value());
}

TEST_CASE("a dpkg that is working is waited for, up to the lock timeout, not taken for an interrupted one") {
  TempDir dir;
  dir.write("var/lib/dpkg/lock-frontend", "");
  dir.write("var/lib/dpkg/updates/0001", "Package: x\n");  // what a working dpkg leaves there
  RootedFileSystem fs(dir.path());
  LockingChild apt(dir.path() + "/var/lib/dpkg/lock-frontend");
  auto start = std::chrono::steady_clock::now();
  try {
    require_no_pending_dpkg_updates(fs, std::chrono::seconds(1));
    FAIL("a held lock must not be passed");
  } catch (const StepFailure& e) {
    std::string what = e.what();
    CHECK(what.find("dpkg's lock is held by process " + std::to_string(apt.pid())) != std::string::npos);
    CHECK(what.find("lock_timeout of 1 s") != std::string::npos);
    CHECK(what.find("interrupted") == std::string::npos);
  }
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(950));
  // Once the holder is gone, what is left in updates/ is an interrupted run.
  apt.release();
  CHECK_THROWS_WITH_AS(require_no_pending_dpkg_updates(fs, std::chrono::seconds(1)),
                       doctest::Contains("an earlier dpkg run was interrupted"), StepFailure);
}
