/* bench/timed-exec.c: stands in for one of apt's or dpkg's programs (or
 * usermod, gpg, ...) inside the bench's root, so that bench/run.sh can tell
 * the time spent inside them from the runner's own time (docs/performance.md,
 * d). bench/run.sh compiles it once per program, statically, with
 *   -DREAL='"/run/bench-trace/apt-get.real"' -DCLASS='"apt"' -DNAME='"apt-get"'
 * and bind-mounts it over the program. It takes the time as soon as it runs
 * (a static binary starts in well under a millisecond; the bash wrapper it
 * replaces spent about 0.6 ms starting before it could read the clock, which
 * was counted against the runner), runs the real program with the same
 * arguments, and appends "START END CLASS NAME" to /run/bench-trace/calls.
 * The real program's own start-up counts as its time. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  (void)argc;
  struct timespec start, end;
  clock_gettime(CLOCK_REALTIME, &start);
  pid_t pid = fork();
  if (pid == 0) {
    execv(REAL, argv);
    _exit(127);
  }
  int status = 0;
  if (pid > 0)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  clock_gettime(CLOCK_REALTIME, &end);
  char line[256];
  int n = snprintf(line, sizeof line, "%lld.%06ld %lld.%06ld %s %s\n", (long long)start.tv_sec, start.tv_nsec / 1000,
                   (long long)end.tv_sec, end.tv_nsec / 1000, CLASS, NAME);
  int fd = open("/run/bench-trace/calls", O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0 && n > 0) {
    (void)!write(fd, line, (size_t)n);
    close(fd);
  }
  if (pid < 0) return 126;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
