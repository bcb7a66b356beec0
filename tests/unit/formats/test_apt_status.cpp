// apt's and dpkg's status lines (installer/formats/apt_status.hpp), read from
// lines captured from real apt 2.6 and dpkg in a real-root test root
// (tests/unit/formats/data/status-fd/README.md says how), and broken ones;
// and apt's size figures (apt_simulation.hpp).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "installer/formats/apt_simulation.hpp"
#include "installer/formats/apt_status.hpp"
#include "support/build_paths.hpp"

using namespace wslgpu;

namespace {

std::string capture(const std::string& name) {
  std::ifstream in(std::string(wslgpu::testing::kSourceDir) + "/tests/unit/formats/data/status-fd/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in, "missing test data " << name);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

using Phase = ProgressEvent::Phase;

// The events a whole capture amounts to.
std::vector<ProgressEvent> apt_events(const std::string& name, std::uint64_t download, std::size_t packages) {
  AptProgress progress(download, packages);
  std::vector<ProgressEvent> out;
  for (const auto& line : lines_of(capture(name)))
    if (auto ev = progress.feed(line)) out.push_back(*ev);
  return out;
}

}  // namespace

TEST_CASE("every line apt wrote to its status descriptor is read, in each captured run") {
  for (const char* name : {"apt-status-download-only.txt", "apt-status-install.txt", "apt-status-install-failing.txt",
                           "apt-status-purge.txt", "apt-status-update.txt"}) {
    auto lines = lines_of(capture(name));
    CHECK(!lines.empty());
    for (const auto& line : lines) CHECK_MESSAGE(parse_apt_status_line(line).has_value(), name << ": " << line);
  }
}

TEST_CASE("a dlstatus line gives the file being fetched and apt's percentage of all bytes") {
  auto st = parse_apt_status_line("dlstatus:2:22.2376:Retrieving file 2 of 4");
  REQUIRE(st);
  CHECK(st->kind == AptStatusLine::Kind::download);
  CHECK(st->file == 2);
  CHECK(st->percent == doctest::Approx(22.2376));
  CHECK(st->message == "Retrieving file 2 of 4");
}

TEST_CASE("pmstatus and pmerror lines name the package; the message keeps its colons") {
  auto st = parse_apt_status_line(
      "pmstatus:hsa-runtime-rocr4wsl-amdgpu:23.8095:Unpacking hsa-runtime-rocr4wsl-amdgpu (amd64)");
  REQUIRE(st);
  CHECK(st->kind == AptStatusLine::Kind::package);
  CHECK(st->package == "hsa-runtime-rocr4wsl-amdgpu");
  CHECK(st->percent == doctest::Approx(23.8095));
  CHECK(st->message == "Unpacking hsa-runtime-rocr4wsl-amdgpu (amd64)");

  auto err = parse_apt_status_line(
      "pmerror:broken-postinst:60.0000:installed broken-postinst package post-installation "
      "script subprocess returned error exit status 1: see: the log");
  REQUIRE(err);
  CHECK(err->kind == AptStatusLine::Kind::error);
  CHECK(err->message ==
        "installed broken-postinst package post-installation script subprocess returned error exit "
        "status 1: see: the log");
  // A line broken off by a CR (a terminal in the way) still reads.
  CHECK(parse_apt_status_line("dlstatus:1:0.0000:Retrieving file 1 of 1\r").has_value());
}

TEST_CASE("broken and foreign status lines are skipped, never guessed at") {
  for (const char* line :
       {"", "dlstatus", "dlstatus:", "dlstatus:1", "dlstatus:1:50", "dlstatus:x:50:m", "dlstatus:-1:50:m",
        "dlstatus:1:1e5:m", "dlstatus:1:150:m", "dlstatus:1:5.5.5:m", "dlstatus:1::m", "pmstatus::10:m",
        "pmstatus:two words:10:m", "pmstatus:pkg:abc:m", "pmstatus:pkg:.5:m", "status: rocm-core: installed",
        "Get:1 file:/srv/testrepo bookworm", "pmstatus:pkg:10", "whatever:1:2:3"}) {
    CHECK_MESSAGE(!parse_apt_status_line(line).has_value(), "\"" << line << "\"");
  }
  // The kinds nobody asks for here are recognised, and say nothing for progress.
  CHECK(parse_apt_status_line("pmconffile:/etc/x:/etc/x.dpkg-new:1")->kind == AptStatusLine::Kind::conffile);
  AptProgress progress(0, 1);
  CHECK(!progress.feed("pmconffile:/etc/x:/etc/x.dpkg-new:1"));
  CHECK(!progress.feed("pmstatus:rocm:garbage"));
}

TEST_CASE("a download-only run is downloading, file N of M, with bytes from the plan's total") {
  auto events = apt_events("apt-status-download-only.txt", 3258, 4);
  REQUIRE(!events.empty());
  for (const auto& ev : events) {
    CHECK(ev.phase == Phase::download);
    CHECK(ev.items == 4);
    CHECK(ev.bytes_total == 3258);
  }
  // apt repeats a line while a file arrives; each counts once.
  CHECK(events.size() == 5);
  CHECK(events.front().item == 1);
  CHECK(events.front().bytes_done == 0);
  CHECK(events[1].bytes_done == 723);  // 22.2059 % of 3258
  CHECK(events.back().item == 4);
  CHECK(events.back().percent == 100);
  CHECK(events.back().bytes_done == 3258);
}

TEST_CASE("an install run unpacks, then configures, package N of M, each package counted once per stage") {
  auto events = apt_events("apt-status-install.txt", 0, 4);
  std::vector<std::string> unpacked, configured;
  double last = -1;
  for (const auto& ev : events) {
    if (ev.phase == Phase::download) continue;
    CHECK(ev.percent >= last);  // dpkg's work only moves forward
    last = ev.percent;
    CHECK(ev.items == 4);
    auto& list = ev.phase == Phase::unpack ? unpacked : configured;
    REQUIRE((ev.phase == Phase::unpack || ev.phase == Phase::configure));
    if (list.empty() || list.back() != ev.subject) list.push_back(ev.subject);
    CHECK(ev.item == list.size());
  }
  CHECK(unpacked == std::vector<std::string>{"rocm-core", "hsa-runtime-rocr4wsl-amdgpu", "rocminfo", "rocm-dev"});
  CHECK(configured == unpacked);
}

TEST_CASE("a failing postinst is kept as apt's error; a purge is removing, package N of M") {
  AptProgress failing(0, 1);
  for (const auto& line : lines_of(capture("apt-status-install-failing.txt"))) failing.feed(line);
  REQUIRE(failing.errors().size() == 1);
  CHECK(failing.errors()[0] ==
        "broken-postinst: installed broken-postinst package post-installation script subprocess returned error exit "
        "status 1");

  auto events = apt_events("apt-status-purge.txt", 0, 5);
  std::size_t removing = 0, most = 0;
  for (const auto& ev : events)
    if (ev.phase == Phase::remove) {
      ++removing;
      most = std::max(most, ev.item);
      CHECK(ev.items == 5);
    }
  CHECK(removing > 0);
  CHECK(most == 5);
}

TEST_CASE("dpkg's status lines: stages and states, the package's architecture kept with its name") {
  auto p = parse_dpkg_status_line("processing: install: cuda-keyring");
  REQUIRE(p);
  CHECK(p->kind == DpkgStatusLine::Kind::processing);
  CHECK(p->word == "install");
  CHECK(p->package == "cuda-keyring");
  auto s = parse_dpkg_status_line("status: libc6:amd64: unpacked");
  REQUIRE(s);
  CHECK(s->kind == DpkgStatusLine::Kind::status);
  CHECK(s->package == "libc6:amd64");
  CHECK(s->word == "unpacked");
  for (const char* line : {"", "status:", "status: x", "processing: install:", "processing: : x",
                           "status: x: two words", "pmstatus:x:1:y", "error: x: y"})
    CHECK_MESSAGE(!parse_dpkg_status_line(line).has_value(), "\"" << line << "\"");

  for (const char* name : {"dpkg-status-install.txt", "dpkg-status-purge.txt"})
    for (const auto& line : lines_of(capture(name))) CHECK_MESSAGE(parse_dpkg_status_line(line).has_value(), line);
}

TEST_CASE("dpkg's captured install and purge add up to unpacking, configuring and removing") {
  DpkgProgress install;
  std::vector<Phase> phases;
  double last = -1;
  for (const auto& line : lines_of(capture("dpkg-status-install.txt")))
    if (auto ev = install.feed(line)) {
      phases.push_back(ev->phase);
      CHECK(ev->percent >= last);
      last = ev->percent;
      CHECK(ev->subject == "cuda-keyring");
    }
  CHECK(phases.front() == Phase::unpack);
  CHECK(phases.back() == Phase::configure);
  CHECK(last == 100);

  DpkgProgress purge;
  std::vector<ProgressEvent> events;
  for (const auto& line : lines_of(capture("dpkg-status-purge.txt")))
    if (auto ev = purge.feed(line)) events.push_back(*ev);
  REQUIRE(!events.empty());
  for (const auto& ev : events) CHECK(ev.phase == Phase::remove);  // the states pass backwards, still a removal
  CHECK(events.back().percent == 100);
}

TEST_CASE("apt's sizes: the captured --print-uris of local packages fetches nothing") {
  AptSizes s = parse_apt_sizes(capture("apt-print-uris.txt"));
  CHECK(s.known);
  CHECK(s.fetch_bytes == 0);  // file: URIs are read where they are
  CHECK(s.archive_bytes == 4052);
  CHECK(s.disk_bytes == 0);
}

TEST_CASE("apt's sizes: remote files are summed exactly, the rounded figures are read as a fallback") {
  AptSizes s = parse_apt_sizes(
      "Need to get 2936 MB of archives.\n"
      "After this operation, 10.2 GB of additional disk space will be used.\n"
      "'https://repo.radeon.com/rocm/apt/6.4.2/pool/main/r/rocm-core/rocm-core_6.4.2_amd64.deb' "
      "rocm-core_6.4.2_amd64.deb "
      "1234567 SHA256:00\n"
      "'https://repo.radeon.com/rocm/apt/6.4.2/pool/main/r/rocm-dev/rocm-dev_6.4.2_amd64.deb' rocm-dev_6.4.2_amd64.deb "
      "2935000000 SHA256:11\n"
      "'file:/srv/mirror/x.deb' x.deb 99 MD5Sum:22\n");
  CHECK(s.known);
  CHECK(s.fetch_bytes == 2936234567ULL);
  CHECK(s.archive_bytes == 2936000000ULL);
  CHECK(s.disk_bytes == 10200000000LL);

  AptSizes freed =
      parse_apt_sizes("Need to get 0 B of archives.\nAfter this operation, 5120 kB disk space will be freed.\n");
  CHECK(freed.known);
  CHECK(freed.disk_bytes == -5120000);
  CHECK(!parse_apt_sizes("Reading package lists...\nE: Unable to locate package x\n").known);

  CHECK(parse_apt_size("3258 B") == 3258u);
  CHECK(parse_apt_size("12.3 kB") == 12300u);
  CHECK(parse_apt_size("2,936 MB") == 2936000000u);
  CHECK(parse_apt_size("1.2 GB") == 1200000000u);
  CHECK(!parse_apt_size("12 parsecs"));
  CHECK(!parse_apt_size("MB"));
  CHECK(!parse_apt_size("1.2.3 MB"));
}
