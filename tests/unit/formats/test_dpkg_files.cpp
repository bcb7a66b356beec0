// Which package owns a file, from dpkg's info folder.
#include <doctest/doctest.h>

#include "installer/formats/dpkg_files.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;

TEST_CASE("a conffile's owner is found in PACKAGE.conffiles, flags and :ARCH names included") {
  MemoryFileSystem fs;
  fs.add_file("/var/lib/dpkg/info/cuda-keyring.conffiles", "/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list\n");
  fs.add_file(
      "/var/lib/dpkg/info/cuda-keyring.list",
      "/.\n/etc\n/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list\n/usr/share/keyrings/cuda-archive-keyring.gpg\n");
  fs.add_file("/var/lib/dpkg/info/libfoo:amd64.conffiles", "remove-on-upgrade /etc/foo/old.conf\n/etc/foo/foo.conf\n");
  auto list = find_conffile_owner(fs, "/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list");
  REQUIRE(list);
  CHECK(list->package == "cuda-keyring");
  CHECK(list->conffile);
  auto old = find_conffile_owner(fs, "/etc/foo/old.conf");
  REQUIRE(old);
  CHECK(old->package == "libfoo");
  CHECK(find_conffile_owner(fs, "/etc/foo/foo.conf"));
  // A prefix of a listed path is not that path.
  CHECK_FALSE(find_conffile_owner(fs, "/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.lis"));
  // Not a conffile: only find_dpkg_owner, which reads the .list files too, finds it.
  CHECK_FALSE(find_conffile_owner(fs, "/usr/share/keyrings/cuda-archive-keyring.gpg"));
  auto key = find_dpkg_owner(fs, "/usr/share/keyrings/cuda-archive-keyring.gpg");
  REQUIRE(key);
  CHECK(key->package == "cuda-keyring");
  CHECK_FALSE(key->conffile);
  auto by_any = find_dpkg_owner(fs, "/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list");
  REQUIRE(by_any);
  CHECK(by_any->conffile);
}

TEST_CASE("a file no package lists has no owner, and a root without dpkg is no error") {
  MemoryFileSystem fs;
  CHECK_FALSE(find_dpkg_owner(fs, "/etc/apt/sources.list.d/rocm.list"));
  fs.add_file("/var/lib/dpkg/info/bash.list", "/bin/bash\n");
  CHECK_FALSE(find_dpkg_owner(fs, "/etc/apt/sources.list.d/rocm.list"));
}
