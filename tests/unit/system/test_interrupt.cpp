// Caught signals (installer/system/interrupt.hpp) and what the process
// runner does with them: a program that may stop is stopped, any other is
// left to finish.
#include <doctest/doctest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/process.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using wslgpu::testing::host_command;

TEST_CASE("a caught signal is only noted, and the scope gives the old handling back") {
  struct sigaction before {};
  ::sigaction(SIGINT, nullptr, &before);
  {
    InterruptScope scope(nullptr, nullptr);
    CHECK(interrupt_signal() == 0);
    CHECK_NOTHROW(throw_if_interrupted("never"));
    ::raise(SIGTERM);  // would end the test run if it were not caught
    CHECK(interrupt_signal() == SIGTERM);
    ::raise(SIGINT);
    CHECK(interrupt_signal() == SIGTERM);  // the first one counts
    try {
      throw_if_interrupted("while testing; nothing was changed");
      FAIL("no exception");
    } catch (const Interrupted& e) {
      CHECK(e.signal() == SIGTERM);
      CHECK(static_cast<int>(e.code()) == 143);
      CHECK(std::string(e.what()) == "interrupted (SIGTERM) while testing; nothing was changed");
    }
  }
  struct sigaction now {};
  ::sigaction(SIGINT, nullptr, &now);
  bool restored = now.sa_handler == before.sa_handler;
  CHECK(restored);
  CHECK(interrupt_signal() == 0);  // and nothing is left pending
  CHECK(signal_name(SIGHUP) == "SIGHUP");
}

TEST_CASE("after a signal, the runner stops a program that may stop, and lets any other finish") {
  InterruptScope scope(nullptr, nullptr);
  RealProcessRunner runner("/");
  Command stoppable = host_command({"sh", "-c", "kill -INT $PPID; sleep 10; echo finished"});
  stoppable.stop_on_interrupt = true;
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = runner.run(stoppable);
  CHECK(r.interrupted);
  CHECK_FALSE(r.ok());
  CHECK(r.out.empty());
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));

  // Like dpkg: it runs to its end although the signal is still pending.
  Command finishing = host_command({"sh", "-c", "sleep 0.3; echo finished"});
  ProcessResult f = runner.run(finishing);
  CHECK(f.ok());
  CHECK_FALSE(f.interrupted);
  CHECK(f.out == "finished\n");
}
