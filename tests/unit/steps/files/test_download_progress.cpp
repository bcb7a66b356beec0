// download_progress (steps/files/download.hpp): what a download step, the
// wheel fetch and the .deb install show while a file comes in, from the
// counts installer/net/download.cpp reports.
#include <doctest/doctest.h>

#include <vector>

#include "installer/host/host.hpp"
#include "steps/files/download.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

struct Events : ProgressSink {
  std::vector<ProgressEvent> seen;
  void update(const ProgressEvent& ev) override { seen.push_back(ev); }
};

struct ProgressMachine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  Events events;
  StepContext ctx{fs, runner, host, "test"};
  ProgressMachine() { ctx.progress = &events; }
};

}  // namespace

TEST_CASE("download progress: nobody listening is no callback at all") {
  ProgressMachine m;
  m.ctx.progress = nullptr;
  CHECK_FALSE(download_progress(m.ctx, "torch.whl"));
}

TEST_CASE("download progress: a download from the first byte resumed from nothing") {
  ProgressMachine m;
  auto report = download_progress(m.ctx, "torch.whl");
  for (std::uint64_t done : {0u, 400u, 1000u}) report(done, 1000);
  REQUIRE(m.events.seen.size() == 3);
  for (const auto& ev : m.events.seen) {
    CHECK(ev.phase == ProgressEvent::Phase::download);
    CHECK(ev.subject == "torch.whl");
    CHECK(ev.resumed_from == 0);
  }
  CHECK(m.events.seen[1].percent == doctest::Approx(40));
  // A file:// copy starts from its first byte, and says so first (0 of its total).
  auto copy = download_progress(m.ctx, "big.bin");
  copy(0, 3'000'000);
  copy(65536, 3'000'000);
  CHECK(m.events.seen.back().resumed_from == 0);
}

TEST_CASE("download progress: the first count of a resumed download is what it resumed from, until it starts again") {
  ProgressMachine m;
  auto report = download_progress(m.ctx, "torch.whl");
  report(410, 0);     // the kept bytes, reported before any new one
  report(500, 1000);  // the server answered the Range request
  report(1000, 1000);
  CHECK(m.events.seen[1].resumed_from == 410);
  CHECK(m.events.seen[2].resumed_from == 410);
  // A server that ignores the Range: the count falls back and nothing was resumed.
  auto again = download_progress(m.ctx, "rocm.deb");
  again(410, 0);
  again(20, 1000);
  again(600, 1000);
  CHECK(m.events.seen[4].resumed_from == 0);
  CHECK(m.events.seen[5].resumed_from == 0);
}
