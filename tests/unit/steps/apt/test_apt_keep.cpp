// What the package steps keep for undo (steps/apt_keep.hpp): where each old
// version's .deb comes from at plan time, how the runner keeps it, and how
// undo finds it. A FakeProcessRunner stands in for apt; nothing runs apt.
#include <doctest/doctest.h>

#include <filesystem>

#include "installer/formats/sha256.hpp"
#include "installer/system/error.hpp"
#include "steps/apt/apt_keep.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::MemoryFileSystem;
using wslgpu::testing::TempDir;

namespace {

ProcessResult keep_ok(const std::string& out = "") {
  ProcessResult r;
  r.exit_code = 0;
  r.out = out;
  return r;
}

std::string keep_installed(const std::string& name, const std::string& version) {
  return "Package: " + name + "\nStatus: install ok installed\nArchitecture: amd64\nVersion: " + version +
         "\nInstalled-Size: 10\nMaintainer: t <t@example.org>\nDescription: test\n\n";
}

const std::string kKeepSha = sha256_hex("the fetched deb");

}  // namespace

TEST_CASE("plan keeps from apt's cache, fetches what the sources offer, rebuilds the rest, and names what none can provide") {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  host.arch = "amd64";
  StepContext ctx{fs, runner, host, "test"};
  fs.add_file("/var/lib/dpkg/status", keep_installed("cached", "1.0") + keep_installed("offered", "2.0") + keep_installed("local", "3.0") +
                                          keep_installed("lost", "4.0"));
  fs.add_file("/var/cache/apt/archives/cached_1.0_amd64.deb", "12345");
  fs.add_file("/var/lib/dpkg/info/local.list", "/opt\n/opt/local.bin\n");
  fs.add_dir("/opt");
  fs.add_file("/opt/local.bin", "x");
  runner.on({"apt-cache", "madison"}, keep_ok("offered | 2.0 | file:/srv/repo  Packages\noffered | 2.1 | file:/srv/repo  Packages\n"));
  runner.on({"apt-get", "download", "--print-uris"},
            keep_ok("'file:/srv/repo/offered_2.0_amd64.deb' offered_2.0_amd64.deb 15 SHA256:" + kKeepSha + "\n"));
  auto keeps = plan_undo_keeps(ctx, {{"cached", "1.0", "amd64"}, {"offered", "2.0", "amd64"},
                                     {"local", "3.0", "amd64"}, {"lost", "4.0", "amd64"}});
  REQUIRE(keeps.size() == 4);
  CHECK(keeps[0].from == "apt cache");
  CHECK(keeps[0].source == "/var/cache/apt/archives/cached_1.0_amd64.deb");
  CHECK(keeps[0].bytes == 5);
  CHECK(keeps[1].from == "fetched");
  CHECK(keeps[1].source == "file:/srv/repo/offered_2.0_amd64.deb");
  CHECK(keeps[1].bytes == 15);
  CHECK(keeps[1].index_sha256 == kKeepSha);
  CHECK(keeps[2].from == "rebuilt");
  CHECK(keeps[2].bytes == 10 * 1024);
  CHECK(keeps[3].from == "");
  CHECK(keeps[3].why.find("no source of this machine offers 4.0") != std::string::npos);
  // Only the version a source offers is asked about, with the target's own sources.
  REQUIRE(runner.calls.size() == 2);
  CHECK(runner.calls[1].argv.back() == "offered=2.0");

  StepPlan p;
  p.keeps = keeps;
  add_keep_details(p);
  REQUIRE(p.details.size() == 2);
  CHECK(p.details[0].rfind("undo cannot put back lost 4.0: ", 0) == 0);
  CHECK(p.details[1].rfind("undo keeps cached 1.0, offered 2.0, local 3.0 (", 0) == 0);
}

TEST_CASE("plan says so when apt cannot tell which old versions its sources offer") {
  MemoryFileSystem fs;
  FakeProcessRunner runner;  // apt-cache is not found
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  fs.add_file("/var/lib/dpkg/status", keep_installed("lost", "4.0"));
  auto keeps = plan_undo_keeps(ctx, {{"lost", "4.0", "amd64"}});
  REQUIRE(keeps.size() == 1);
  CHECK(keeps[0].from == "");
  CHECK(keeps[0].why.find("apt could not say which versions its sources offer") != std::string::npos);
}

namespace {

struct KeepWorld {
  TempDir dir;
  RootedFileSystem fs{dir.path()};
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  UndoStore store{dir.path() + "/var/lib/wslgpu-setup/tx/T/undo", "/var/lib/wslgpu-setup/tx/T/undo"};
};

UndoKeep keep(const std::string& from, std::uint64_t bytes = 0, const std::string& sha = "") {
  return UndoKeep{"rocm", "6.4.2.1-1", "amd64", from, "", bytes, sha, ""};
}

}  // namespace

TEST_CASE("a copy in apt's cache is kept without asking apt") {
  KeepWorld w;
  w.dir.write("var/cache/apt/archives/rocm_6.4.2.1-1_amd64.deb", "cached deb");
  KeptDeb k = keep_for_undo(w.ctx, w.store, "rocm", keep("apt cache"));
  CHECK(k.from == KeptFrom::apt_cache);
  CHECK(k.sha256 == sha256_hex("cached deb"));
  CHECK(k.step == "rocm");
  CHECK(w.runner.calls.empty());
  CHECK(std::filesystem::exists(w.store.host_path(k)));
  // Undo finds it, checked, as a path apt-get takes inside the root.
  w.store.add(k);
  w.ctx.undo_store = &w.store;
  CHECK(kept_deb(w.ctx, "rocm", "6.4.2.1-1", "amd64") == "/var/lib/wslgpu-setup/tx/T/undo/rocm_6.4.2.1-1_amd64.deb");
  CHECK(kept_deb(w.ctx, "rocm", "7.2.2", "amd64").empty());
  w.dir.write("var/lib/wslgpu-setup/tx/T/undo/rocm_6.4.2.1-1_amd64.deb", "changed on disk");
  CHECK_THROWS_AS(kept_deb(w.ctx, "rocm", "6.4.2.1-1", "amd64"), CorruptCopy);
}

TEST_CASE("a version the cache lost since the plan is fetched with apt-get download into the store") {
  KeepWorld w;
  std::string seen_cwd;
  w.runner.on({"apt-get", "download"}, [&](const Command& c) {
    seen_cwd = c.cwd;
    w.dir.write("var/lib/wslgpu-setup/tx/T/undo/rocm_6.4.2.1-1_amd64.deb", "the fetched deb");
    return keep_ok();
  });
  KeptDeb k = keep_for_undo(w.ctx, w.store, "rocm", keep("apt cache", 0, kKeepSha));
  CHECK(k.from == KeptFrom::fetched);
  CHECK(seen_cwd == "/var/lib/wslgpu-setup/tx/T/undo");
  REQUIRE(w.runner.calls.size() == 1);
  CHECK(w.runner.calls[0].argv.back() == "rocm=6.4.2.1-1");
  CHECK(w.runner.calls[0].stop_on_interrupt);
}

TEST_CASE("a fetched copy that does not match the Packages index is refused, not rebuilt instead") {
  KeepWorld w;
  w.runner.on({"apt-get", "download"}, [&](const Command&) {
    w.dir.write("var/lib/wslgpu-setup/tx/T/undo/rocm_6.4.2.1-1_amd64.deb", "something else");
    return keep_ok();
  });
  CHECK_THROWS_WITH_AS(keep_for_undo(w.ctx, w.store, "rocm", keep("fetched", 15, kKeepSha)),
                       doctest::Contains("does not match what apt published"), CorruptCopy);
  CHECK(w.store.entries().empty());
}

TEST_CASE("when no way keeps a copy, the error names the package and why each way failed") {
  KeepWorld w;
  w.runner.on({"apt-get", "download"}, [](const Command&) {
    ProcessResult r;
    r.exit_code = 100;
    r.err = "E: Can't find a source to download version '6.4.2.1-1' of 'rocm:amd64'\n";
    return r;
  });
  CHECK_THROWS_WITH_AS(keep_for_undo(w.ctx, w.store, "rocm", keep("fetched", 15, kKeepSha)),
                       doctest::Contains("could not keep rocm 6.4.2.1-1 for undo, so nothing was changed:\n"
                                         "  fetching: `apt-get download"),
                       StepFailure);
}
