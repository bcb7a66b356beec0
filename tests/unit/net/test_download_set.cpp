// Several downloads at once (installer/net/download_set.hpp), with a fake
// fetch: how many run at once, the set's progress, and what one failure
// does to the others.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "installer/net/download_set.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

namespace {

std::vector<SetDownload> set_of(std::size_t n, std::uint64_t expected) {
  std::vector<SetDownload> set;
  for (std::size_t i = 0; i < n; ++i) {
    SetDownload d;
    d.request.url = "https://files.example/wheels/w" + std::to_string(i) + ".whl";
    d.expected_bytes = expected;
    set.push_back(d);
  }
  return set;
}

}  // namespace

TEST_CASE("a download set runs at most its jobs at once, returns the results in order and counts the set's bytes") {
  std::atomic<int> running{0}, most{0};
  std::mutex mutex;
  std::vector<DownloadSetProgress> seen;
  DownloadSetOptions o;
  o.jobs = 3;
  o.fetch = [&](const DownloadRequest& r) {
    int now = ++running;
    for (int m = most; now > m && !most.compare_exchange_weak(m, now);) {
    }
    r.on_progress(0, 100);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    r.on_progress(100, 100);
    --running;
    DownloadResult d;
    d.bytes = 100;
    d.sha256 = r.url;  // names which request this answers
    return d;
  };
  o.on_progress = [&](const DownloadSetProgress& p) {
    std::lock_guard<std::mutex> lock(mutex);
    seen.push_back(p);
  };
  auto results = download_set(set_of(7, 100), o);
  REQUIRE(results.size() == 7);
  for (std::size_t i = 0; i < 7; ++i) CHECK(results[i].sha256 == "https://files.example/wheels/w" + std::to_string(i) + ".whl");
  CHECK(most == 3);
  REQUIRE_FALSE(seen.empty());
  // The total is the set's from the first report: every size was known.
  for (const auto& p : seen) CHECK(p.bytes_total == 700);
  CHECK(seen.back().bytes_done == 700);
  CHECK(seen.back().files_done == 7);
  CHECK(seen.back().files == 7);
}

TEST_CASE("a failed download stops the ones in flight, starts no other, and its failure is what is thrown") {
  std::atomic<int> started{0};
  std::atomic<bool> others_stopped{true};
  DownloadSetOptions o;
  o.jobs = 2;
  o.fetch = [&](const DownloadRequest& r) -> DownloadResult {
    ++started;
    if (r.url.find("/w0.whl") != std::string::npos) {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      throw StepFailure("w0: hash mismatch");
    }
    // The other one runs until the set stops it, as the helper does.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!(r.cancel && r.cancel->load())) {
      if (std::chrono::steady_clock::now() > deadline) {
        others_stopped = false;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    throw StepFailure("stopped downloading " + r.url);
  };
  CHECK_THROWS_WITH_AS(download_set(set_of(5, 0), o), "w0: hash mismatch", StepFailure);
  CHECK(others_stopped);
  CHECK(started == 2);
}

TEST_CASE("a set's total is unknown while a size is, and resumed bytes are counted apart") {
  std::vector<DownloadSetProgress> seen;
  DownloadSetOptions o;
  o.jobs = 1;
  o.fetch = [](const DownloadRequest& r) {
    // The first count is where an earlier run's partial file ends.
    r.on_progress(40, 0);
    r.on_progress(100, 0);
    DownloadResult d;
    d.bytes = 100;
    return d;
  };
  o.on_progress = [&](const DownloadSetProgress& p) { seen.push_back(p); };
  download_set(set_of(2, 0), o);
  REQUIRE(seen.size() >= 3);
  CHECK(seen[0].bytes_total == 0);
  CHECK(seen[0].resumed_from == 40);
  CHECK(seen.back().resumed_from == 80);
  CHECK(seen.back().bytes_done == 200);
  CHECK(seen.back().bytes_total == 200);
}

TEST_CASE("a signal during a set names every download it caught in flight, in the set's order, whichever stopped first") {
  std::atomic<int> started{0};
  DownloadSetOptions o;
  o.jobs = 3;
  o.fetch = [&](const DownloadRequest& r) -> DownloadResult {
    ++started;
    // The last one to start stops first: its helper answers the signal first.
    while (started < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (r.url.find("/w2.whl") == std::string::npos)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    throw Interrupted(2, "interrupted (SIGINT) while downloading " + r.url);
  };
  try {
    download_set(set_of(5, 0), o);
    FAIL("no Interrupted");
  } catch (const Interrupted& e) {
    CHECK(std::string(e.what()) ==
          "interrupted (SIGINT) while downloading https://files.example/wheels/w0.whl, "
          "https://files.example/wheels/w1.whl, https://files.example/wheels/w2.whl (what was fetched is kept for "
          "the next run)");
  }
}
