#include "installer/system/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

// Written by the handler, read by everyone else: plain flags, which is all a
// signal handler may touch.
volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_count = 0;
const char* g_first = nullptr;
const char* g_again = nullptr;
std::size_t g_first_len = 0;
std::size_t g_again_len = 0;

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_old[3];
bool g_installed[3] = {false, false, false};

void on_signal(int signo) {
  int saved = errno;
  if (g_signal == 0) g_signal = signo;
  g_count = g_count + 1;
  const char* msg = g_count == 1 ? g_first : g_again;
  std::size_t len = g_count == 1 ? g_first_len : g_again_len;
  if (msg && len) (void)!::write(STDERR_FILENO, msg, len);
  errno = saved;
}

}  // namespace

InterruptScope::InterruptScope(const char* first, const char* again) {
  g_signal = 0;
  g_count = 0;
  g_first = first;
  g_again = again;
  g_first_len = first ? std::strlen(first) : 0;
  g_again_len = again ? std::strlen(again) : 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  // SA_RESTART: file reads and writes carry on after the handler; the
  // process runner's poll() still wakes up (poll is never restarted).
  sa.sa_flags = SA_RESTART;
  for (int i = 0; i < 3; ++i) {
    struct sigaction old {};
    ::sigaction(kSignals[i], nullptr, &old);
    if (kSignals[i] == SIGHUP && old.sa_handler == SIG_IGN) continue;  // nohup: the user asked for it
    g_installed[i] = ::sigaction(kSignals[i], &sa, &g_old[i]) == 0;
  }
}

InterruptScope::~InterruptScope() {
  for (int i = 0; i < 3; ++i) {
    if (g_installed[i]) ::sigaction(kSignals[i], &g_old[i], nullptr);
    g_installed[i] = false;
  }
  g_first = g_again = nullptr;
  g_first_len = g_again_len = 0;
  g_signal = 0;  // outside a scope nothing is pending
  g_count = 0;
}

int interrupt_signal() { return g_signal; }

std::string signal_name(int signo) {
  switch (signo) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
  }
  return "signal " + std::to_string(signo);
}

void throw_if_interrupted(const std::string& what) {
  if (interrupt_signal()) throw_interrupted(what);
}

void throw_interrupted(const std::string& what) {
  int s = interrupt_signal() ? interrupt_signal() : SIGINT;
  throw Interrupted(s, "interrupted (" + signal_name(s) + ") " + what);
}

}  // namespace wslgpu
