// The progress display (installer/cli/progress_display.hpp), with a clock
// the test moves: the terminal line, the log lines per 10 %, rate and time left.
#include <doctest/doctest.h>

#include <sstream>

#include "installer/cli/progress_display.hpp"

using namespace wslgpu;
using Phase = ProgressEvent::Phase;
using namespace std::chrono_literals;

namespace {

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  ProgressDisplay::Clock fn() {
    return [this] { return now; };
  }
};

ProgressEvent download(std::uint64_t done, std::uint64_t total) {
  ProgressEvent ev;
  ev.phase = Phase::download;
  ev.bytes_done = done;
  ev.bytes_total = total;
  ev.percent = 100.0 * static_cast<double>(done) / static_cast<double>(total);
  return ev;
}

}  // namespace

TEST_CASE("a progress line says what is done, how much of how much, and for a download the rate and time left") {
  CHECK(ProgressDisplay::describe(download(1'200'000'000, 2'900'000'000), 12'000'000) ==
        "downloading 1.2 GB of 2.9 GB, 41 %, 12 MB/s, 2 min 21 s left");
  ProgressEvent unpack{Phase::unpack, "rocm-core", 0, 0, 12, 43, 63.4};
  CHECK(ProgressDisplay::describe(unpack, 0) == "unpacking rocm-core, package 12 of 43, 63 %");
  ProgressEvent configure{Phase::configure, "rocminfo", 0, 0, 30, 43, 85};
  CHECK(ProgressDisplay::describe(configure, 0) == "configuring rocminfo, package 30 of 43, 85 %");
  ProgressEvent files{Phase::download, "", 0, 0, 2, 5, 19.5};
  CHECK(ProgressDisplay::describe(files, 0) == "downloading, file 2 of 5, 19 %");
  ProgressEvent unknown{Phase::download, "big.bin", 12'000'000, 0, 0, 0, -1};
  CHECK(ProgressDisplay::describe(unknown, 3'000'000) == "downloading big.bin 12 MB so far, 3.0 MB/s");
  ProgressEvent resumed = download(1'500'000'000, 2'900'000'000);
  resumed.subject = "torch.whl";
  resumed.resumed_from = 1'200'000'000;
  CHECK(ProgressDisplay::describe(resumed, 0) ==
        "downloading torch.whl 1.5 GB of 2.9 GB (resumed after 1.2 GB), 51 %");
}

TEST_CASE("on a terminal: one line, rewritten in place at most ten times a second, cut to the width, cleared") {
  std::ostringstream out;
  FakeClock clock;
  ProgressDisplay d(out, ProgressDisplay::Mode::terminal, 40, clock.fn());
  d.step_started(4, 9, "rocm", "installing 43 packages, 2.9 GB to download");
  CHECK(out.str() == "[4/9] rocm: installing 43 packages, 2.9 GB to download\n");
  out.str("");
  d.update(download(0, 2'900'000'000));
  CHECK(out.str() == "\r\x1b[K  rocm: downloading 0 B of 2.9 GB, 0 %");
  out.str("");
  clock.now += 50ms;
  d.update(download(1'000'000, 2'900'000'000));
  CHECK(out.str().empty());  // too soon
  clock.now += 60ms;
  d.update(download(2'000'000, 2'900'000'000));
  REQUIRE(!out.str().empty());
  CHECK(out.str().size() == 4 + 39);  // "\r\x1b[K" and the line cut to 39 columns
  out.str("");
  ProgressEvent unpack{Phase::unpack, "rocm-core", 0, 0, 1, 43, 2};
  clock.now += 1ms;
  d.update(unpack);  // a new phase is shown at once
  CHECK(out.str().find("unpacking rocm-core") != std::string::npos);
  out.str("");
  d.clear();
  CHECK(out.str() == "\r\x1b[K");
  out.str("");
  d.clear();
  CHECK(out.str().empty());  // nothing to clear
}

TEST_CASE("the download rate is the recent average, and the time left follows from it") {
  std::ostringstream out;
  FakeClock clock;
  ProgressDisplay d(out, ProgressDisplay::Mode::terminal, 0, clock.fn());
  d.step_started(1, 1, "big", "downloading big.bin");
  for (int i = 0; i <= 10; ++i) {
    d.update(download(static_cast<std::uint64_t>(i) * 10'000'000, 1'000'000'000));  // 10 MB per second
    clock.now += 1s;
  }
  CHECK(out.str().find("10 MB/s, 1 min 30 s left") != std::string::npos);
}

TEST_CASE("without a terminal: a line per 10 %, counted apart for the download and the rest") {
  std::ostringstream out;
  FakeClock clock;
  ProgressDisplay d(out, ProgressDisplay::Mode::lines, 0, clock.fn());
  d.step_started(2, 3, "rocm", "installing 2 packages");
  for (int p = 0; p <= 100; p += 5) d.update(download(static_cast<std::uint64_t>(p), 100));
  for (int p = 0; p <= 96; p += 3)
    d.update(ProgressEvent{Phase::unpack, "rocm-dev", 0, 0, 1, 2, static_cast<double>(p)});
  std::istringstream lines(out.str());
  std::string line;
  int downloads = 0, installs = 0;
  std::getline(lines, line);
  CHECK(line == "[2/3] rocm: installing 2 packages");
  while (std::getline(lines, line)) {
    CHECK(line.find('\r') == std::string::npos);
    CHECK(line.rfind("  rocm: ", 0) == 0);
    (line.find("downloading") != std::string::npos ? downloads : installs)++;
  }
  CHECK(downloads == 10);  // 10 % to 100 %
  CHECK(installs == 9);    // 10 % to 90 %: apt's last pmstatus is short of 100
}

TEST_CASE("on a terminal, the end of a download is drawn even when it comes soon after the last line") {
  std::ostringstream out;
  FakeClock clock;
  ProgressDisplay d(out, ProgressDisplay::Mode::terminal, 0, clock.fn());
  d.step_started(1, 1, "big", "downloading big.bin");
  d.update(download(0, 3'000'000));
  clock.now += 10ms;
  d.update(download(3'000'000, 3'000'000));
  CHECK(out.str().find("downloading 3.0 MB of 3.0 MB, 100 %") != std::string::npos);
}

TEST_CASE("an undo's progress lines name the step being undone") {
  std::ostringstream out;
  FakeClock clock;
  ProgressDisplay d(out, ProgressDisplay::Mode::lines, 0, clock.fn());
  d.undo_started("rocm");
  d.update(ProgressEvent{Phase::remove, "rocm-core", 0, 0, 1, 4, 21});
  CHECK(out.str() == "  undo rocm: removing rocm-core, package 1 of 4, 21 %\n");
}
