#include <doctest/doctest.h>

#include "installer/formats/dpkg_status.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;

namespace {

const char* const kStatus =
    "Package: libc6\n"
    "Status: install ok installed\n"
    "Architecture: amd64\n"
    "Version: 2.36-9+deb12u4\n"
    "Description: GNU C Library\n"
    " Contains the standard libraries.\n"
    "\n"
    "Package: libc6\n"
    "Status: install ok installed\n"
    "Architecture: i386\n"
    "Version: 2.36-9+deb12u4\n"
    "\n"
    "Package: rocm-core\n"
    "Status: install ok unpacked\n"
    "Architecture: amd64\n"
    "Version: 6.4.2.60402-120~24.04\n"
    "\n"
    "Package: libhsakmt1\n"
    "Status: deinstall ok config-files\n"
    "Architecture: amd64\n"
    "Version: 5.7.0-1build1\n"
    "\n"
    "Package: oldthing\n"
    "Status: purge ok not-installed\n"
    "Architecture: amd64\n"
    "\n"
    "Package: held\n"
    "Status: hold ok installed\n"
    "Architecture: all\n"
    "Version: 1.0\n"
    "\n"
    "Package: broken\n"
    "Status: install reinstreq half-installed\n"
    "Architecture: amd64\n"
    "Version: 0.1\n";

}  // namespace

TEST_CASE("only 'install ok installed' (or held) counts as installed") {
  auto db = DpkgStatus::parse(kStatus);
  CHECK(db.is_installed("libc6"));
  CHECK(db.is_installed("held"));
  CHECK_FALSE(db.is_installed("rocm-core"));   // unpacked, not configured
  CHECK_FALSE(db.is_installed("libhsakmt1"));  // only configuration files left
  CHECK_FALSE(db.is_installed("oldthing"));
  CHECK_FALSE(db.is_installed("broken"));
  CHECK_FALSE(db.is_installed("nothing-like-it"));
  auto installed = db.installed();
  CHECK(installed == std::map<std::string, std::string>{{"libc6", "2.36-9+deb12u4"},
                                                        {"libc6:amd64", "2.36-9+deb12u4"},
                                                        {"libc6:i386", "2.36-9+deb12u4"},
                                                        {"held", "1.0"}});
}

TEST_CASE("present packages include half-installed and config-files states, for undo") {
  auto db = DpkgStatus::parse(kStatus);
  auto present = db.present();
  CHECK(present.count("rocm-core"));
  CHECK(present.count("libhsakmt1"));
  CHECK(present.count("broken"));
  CHECK_FALSE(present.count("oldthing"));
  const DpkgPackage* core = db.find("rocm-core");
  REQUIRE(core);
  CHECK(core->version == "6.4.2.60402-120~24.04");
  CHECK(core->want == "install");
  CHECK(core->status == "unpacked");
  REQUIRE(db.find("libc6:i386"));
  CHECK(db.find("libc6:i386")->architecture == "i386");
}

TEST_CASE("a root without a dpkg status file has nothing installed") {
  MemoryFileSystem fs;
  CHECK(DpkgStatus::read(fs).packages().empty());
  fs.add_file("/var/lib/dpkg/status", "Package: bash\nStatus: install ok installed\nVersion: 5.2\n");
  CHECK(DpkgStatus::read(fs).is_installed("bash"));
}

TEST_CASE("numbered files in /var/lib/dpkg/updates are an interrupted dpkg run") {
  MemoryFileSystem fs;
  fs.add_dir("/var/lib/dpkg/updates");
  fs.add_file("/var/lib/dpkg/updates/tmp.i", "");
  CHECK(pending_dpkg_updates(fs).empty());
  CHECK_NOTHROW(require_no_pending_dpkg_updates(fs));
  fs.add_file("/var/lib/dpkg/updates/0001", "Package: x\n");
  fs.add_file("/var/lib/dpkg/updates/0002", "Package: y\n");
  CHECK(pending_dpkg_updates(fs) == std::vector<std::string>{"0001", "0002"});
  CHECK_THROWS_WITH_AS(require_no_pending_dpkg_updates(fs),
                       "an earlier dpkg run was interrupted: /var/lib/dpkg/updates/ holds 2 unfinished entries, and apt "
                       "will not work until dpkg has finished it.\nRun `sudo dpkg --configure -a`, then run wslgpu-setup "
                       "again.",
                       StepFailure);
}
