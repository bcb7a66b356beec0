// doctor's configuration checks (installer/doctor/checks_config.cpp):
// .wslconfig, memory, disk, groups, PATH and dpkg, each proved ok and failing.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "doctor_fixture.hpp"
#include "findings.hpp"
#include "installer/doctor/doctor.hpp"
#include "installer/formats/ini.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/host/host.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

TEST_CASE("doctor config.wslconfig: found and UTF-8 is ok; UTF-16 and keys on the section's line warn") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "config.wslconfig");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "/mnt/c/Users/alice/.wslconfig is valid UTF-8");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/mnt/c/Users/alice/.wslconfig", utf16le("[wsl2]\r\nmemory=16GB\r\n"));
    auto findings = m.diagnose();
    auto f = get(findings, "config.wslconfig");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "/mnt/c/Users/alice/.wslconfig is UTF-16; WSL ignores it");
    CHECK(contains(f.fix, "Encoding UTF-8"));
    CHECK_FALSE(lookup(findings, "config.wslconfig-memory"));
  }
  {
    DoctorFixture m;
    m.fs.add_file("/mnt/c/Users/alice/.wslconfig", "[wsl2] memory=16GB\nprocessors=8\n");
    auto f = get(m.diagnose(), "config.wslconfig");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "/mnt/c/Users/alice/.wslconfig has lines WSL ignores");
    CHECK(contains(f.cause, "/mnt/c/Users/alice/.wslconfig:1:8: \"memory=16GB\" follows the section header"));
    CHECK(contains(f.fix, "Put each key on its own line"));
  }
  {
    DoctorFixture m;
    m.fs.add_file("/mnt/c/Users/alice/.wslconfig", "memory=16GB\n");
    CHECK(contains(get(m.diagnose(), "config.wslconfig").cause, "is outside any section"));
  }
  {
    DoctorFixture m;
    m.fs.remove("/mnt/c/Users/alice/.wslconfig");
    auto f = get(m.diagnose(), "config.wslconfig");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "no /mnt/c/Users/alice/.wslconfig: WSL's defaults are in force (half of Windows' memory)");
  }
  {
    DoctorFixture m;
    m.fs.add_dir("/mnt/c/Users/bob");  // two candidates: the profile folder is ambiguous
    auto f = get(m.diagnose(), "config.wslconfig");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "the Windows profile folder was not found, so .wslconfig was not checked");
    CHECK(contains(f.fix, "--windows-home /mnt/c/Users/<you>"));
  }
}

TEST_CASE("doctor config.wslconfig-memory: at least 8GB, 16GB advised, and only under [wsl2]") {
  auto with = [](const std::string& text) {
    DoctorFixture m;
    m.fs.add_file("/mnt/c/Users/alice/.wslconfig", text);
    return get(m.diagnose(), "config.wslconfig-memory");
  };
  CHECK(with("[wsl2]\nmemory=16GB\n").seen == "memory=16GB in .wslconfig");
  auto eight = with("[wsl2]\nmemory=8GB\n");
  CHECK(eight.status == FindingStatus::ok);
  CHECK(eight.seen == "memory=8GB in .wslconfig (16GB is advised for machine learning)");
  auto four = with("[wsl2]\nprocessors=8\nmemory=4096MB\n");
  CHECK(four.status == FindingStatus::warn);
  CHECK(four.seen == "/mnt/c/Users/alice/.wslconfig:3: memory=4096MB is below 8GB");
  CHECK(contains(four.cause, "at least 8GB, and 16GB for machine learning"));
  CHECK(four.fix == "sudo wslgpu-setup install wslconfig --set memory=16GB, then run `wsl --shutdown` on Windows.");
  auto misplaced = with("[wsl]\nmemory=16GB\n");
  CHECK(misplaced.status == FindingStatus::warn);
  CHECK(misplaced.seen == "/mnt/c/Users/alice/.wslconfig:2: memory is under [wsl], not [wsl2]");
  CHECK(with("[wsl2]\nmemory=lots\n").status == FindingStatus::warn);
  CHECK(with("[wsl2]\nprocessors=8\n").status == FindingStatus::ok);
}

TEST_CASE("doctor config.memory: MemTotal below 8GB warns") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "config.memory");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "the distribution has 15.6 GB of memory");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/proc/meminfo", "MemTotal:        4015004 kB\n");
    auto f = get(m.diagnose(), "config.memory");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "the distribution has 3.8 GB of memory, below 8GB");
    CHECK(contains(f.fix, "--set memory=16GB"));
  }
}

TEST_CASE("doctor config.disk: under 20 GB free warns, under 2 GB fails") {
  auto with = [](std::optional<std::uint64_t> free) {
    DoctorFixture m;
    m.free_disk = free;
    return get(m.diagnose(), "config.disk");
  };
  CHECK(with(100 * kGiB).status == FindingStatus::ok);
  CHECK(with(100 * kGiB).seen == "100.0 GB of disk free");
  CHECK(with(10 * kGiB).status == FindingStatus::warn);
  CHECK(with(10 * kGiB).seen == "10.0 GB of disk free, below 20 GB");
  auto low = with(kGiB);
  CHECK(low.status == FindingStatus::fail);
  CHECK(contains(low.cause, "apt stops midway without space"));
  CHECK(with(std::nullopt).status == FindingStatus::warn);
}

TEST_CASE("doctor config.groups: video and render are informational under WSL, needed with /dev/kfd") {
  {
    DoctorFixture m;
    auto f = get(m.diagnose(), "config.groups");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "alice is not in video and render: not needed under WSL (there is no /dev/kfd)");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/etc/group", "video:x:44:alice\nrender:x:110:bob,alice\n");
    CHECK(get(m.diagnose(), "config.groups").seen == "alice is in video and render");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
    m.fs.add_char_device("/dev/kfd", 0660);
    auto f = get(m.diagnose(), "config.groups");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.fix == "sudo usermod -aG video,render alice (-aG, never -G), then log out and in again.");
  }
}

TEST_CASE("doctor config.path: the toolkit's bin folder must be on PATH for login shells") {
  {
    DoctorFixture m;
    m.make_amd();
    m.fs.add_dir("/opt/rocm/bin");
    auto f = get(m.diagnose(), "config.path");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "PATH includes /opt/rocm/bin (/etc/profile.d/wslgpu-rocm.sh)");
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.fs.remove("/etc/profile.d/wslgpu-rocm.sh");
    m.fs.add_file("/home/alice/.bashrc", "# export PATH=$PATH:/opt/rocm/bin\n");
    auto f = get(m.diagnose(), "config.path");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "/opt/rocm/bin is not on PATH for login shells");
    CHECK(f.fix ==
          "sudo wslgpu-setup install rocm (or add `export PATH=\"$PATH:/opt/rocm/bin\"` to ~/.bashrc), "
          "then open a new shell.");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.add_file("/etc/profile.d/wslgpu-cuda.sh", "export LD_LIBRARY_PATH=/usr/lib/wsl/lib\n");
    CHECK(get(m.diagnose(), "config.path").seen == "/usr/local/cuda/bin is not on PATH for login shells");
  }
}

TEST_CASE("doctor config.dpkg: an interrupted dpkg or a damaged status file fails") {
  {
    DoctorFixture m;
    m.packages["bash"] = "5.2.21-2ubuntu4";
    auto f = get(m.diagnose(), "config.dpkg");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "dpkg is consistent (1 packages installed)");
  }
  {
    DoctorFixture m;
    m.fs.add_file("/var/lib/dpkg/updates/0003", "Package: rocm-core\n");
    auto f = get(m.diagnose(), "config.dpkg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "an earlier dpkg run was interrupted: /var/lib/dpkg/updates/ holds 1 unfinished entry");
    CHECK(f.fix == "sudo dpkg --configure -a");
  }
  {
    DoctorFixture m;
    m.make_amd();
    m.pending_status = "this is not a stanza\n\n";
    auto findings = m.diagnose();
    auto f = get(findings, "config.dpkg");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "the dpkg status database cannot be read");
    CHECK(contains(f.cause, "/var/lib/dpkg/status:1"));
    CHECK(get(findings, "amd.dkms").status == FindingStatus::warn);  // cannot tell, and says so
  }
}
