// The undo store's retention policy (installer/undo/retention.hpp): which
// transactions' stores `history --prune` removes, and why.
#include <doctest/doctest.h>

#include "installer/undo/retention.hpp"

using namespace wslgpu;

namespace {
std::vector<std::string> ids(const std::vector<Prunable>& p) {
  std::vector<std::string> out;
  for (const auto& x : p) out.push_back(x.id);
  return out;
}
}  // namespace

TEST_CASE("a store goes once a later committed transaction changed the same packages") {
  auto p = prunable_stores({{"20261201-100000-1", "committed", {"rocm", "rocm-core"}, 400},
                            {"20261202-100000-2", "committed", {"rocm-core", "librocdxg"}, 300}});
  REQUIRE(p.size() == 1);
  CHECK(p[0].id == "20261201-100000-1");
  CHECK(p[0].why == "superseded by 20261202-100000-2 (rocm-core)");
  CHECK(p[0].store_bytes == 400);
}

TEST_CASE("the newest committed transaction keeps its store: it can still be rolled back") {
  auto p = prunable_stores({{"20261202-100000-2", "committed", {"rocm"}, 300}, {"20261201-100000-1", "committed", {"rocm"}, 400}});
  CHECK(ids(p) == std::vector<std::string>{"20261201-100000-1"});
}

TEST_CASE("a store stays when the later transactions changed other packages") {
  auto p = prunable_stores({{"20261201-100000-1", "committed", {"rocm"}, 400},
                            {"20261202-100000-2", "committed", {"podman"}, 10}});
  CHECK(p.empty());
}

TEST_CASE("a later transaction that was rolled back or is unfinished supersedes nothing") {
  for (const char* status : {"rolled_back", "interrupted", "half_undone"}) {
    CAPTURE(status);
    auto p = prunable_stores({{"20261201-100000-1", "committed", {"rocm"}, 400},
                              {"20261202-100000-2", status, {"rocm"}, 0}});
    CHECK(p.empty());
  }
}

TEST_CASE("an unfinished transaction keeps its store whatever follows: recover needs it") {
  for (const char* status : {"interrupted", "half_undone"}) {
    CAPTURE(status);
    auto p = prunable_stores({{"20261201-100000-1", status, {"rocm"}, 400},
                              {"20261202-100000-2", "committed", {"rocm"}, 300}});
    CHECK(p.empty());
  }
}

TEST_CASE("a rolled-back transaction's store goes, and one without a store is not listed") {
  auto p = prunable_stores({{"20261201-100000-1", "rolled_back", {"rocm"}, 400},
                            {"20261201-110000-2", "rolled_back", {"rocm"}, 0},
                            {"20261201-120000-3", "committed", {"rocm"}, 0}});
  REQUIRE(p.size() == 1);
  CHECK(p[0].id == "20261201-100000-1");
  CHECK(p[0].why == "rolled back");
}

TEST_CASE("the reason names at most three shared packages") {
  auto p = prunable_stores({{"20261201-100000-1", "committed", {"a", "b", "c", "d", "e"}, 1},
                            {"20261202-100000-2", "committed", {"a", "b", "c", "d", "e"}, 1}});
  REQUIRE(p.size() == 1);
  CHECK(p[0].why == "superseded by 20261202-100000-2 (a, b, c and 2 more)");
}
