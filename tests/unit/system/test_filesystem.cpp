#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::TempDir;

TEST_CASE("a symbolic link to an absolute path stays inside the root") {
  TempDir root;
  root.write("etc/real.conf", "inside\n");
  std::filesystem::create_directories(root.path() + "/x");
  std::filesystem::create_symlink("/etc", root.path() + "/x/link");
  RootedFileSystem fs(root.path());
  CHECK(fs.read("/x/link/real.conf") == "inside\n");
  CHECK(fs.host_path("/x/link/real.conf") == root.path() + "/etc/real.conf");
}

TEST_CASE("dot-dot never climbs above the root") {
  TempDir root;
  RootedFileSystem fs(root.path());
  CHECK(fs.host_path("/../../../etc/passwd") == root.path() + "/etc/passwd");
  std::filesystem::create_symlink("../../../../../etc", root.path() + "/up");
  CHECK(fs.host_path("/up/shadow") == root.path() + "/etc/shadow");
}

TEST_CASE("write_atomic sets content, mode and owner and leaves no temporary file") {
  TempDir root;
  RootedFileSystem fs(root.path());
  fs.write_atomic("/etc/profile.d/x.sh", "export A=1\n", FileAttrs{0640, ::getuid(), ::getgid()});
  auto info = fs.stat("/etc/profile.d/x.sh");
  REQUIRE(info);
  CHECK(info->mode == 0640);
  CHECK(info->type == FileType::regular);
  CHECK(fs.read("/etc/profile.d/x.sh") == "export A=1\n");
  CHECK(fs.list("/etc/profile.d") == std::vector<std::string>{"x.sh"});
}

TEST_CASE("reading a missing file names it") {
  TempDir root;
  RootedFileSystem fs(root.path());
  CHECK_THROWS_WITH_AS(fs.read("/etc/nothing"), "cannot read /etc/nothing: No such file or directory", StepFailure);
  CHECK_FALSE(fs.stat("/etc/nothing"));
}

TEST_CASE("lstat reports a link at the last component as a link, and resolves links before it under the root") {
  TempDir root;
  root.write("etc/real.conf", "inside\n");
  std::filesystem::create_symlink("/etc/real.conf", root.path() + "/etc/linked.conf");
  std::filesystem::create_symlink("/etc", root.path() + "/etc-link");
  std::filesystem::create_symlink("/etc/missing", root.path() + "/dangling");
  RootedFileSystem fs(root.path());
  REQUIRE(fs.lstat("/etc/linked.conf"));
  CHECK(fs.lstat("/etc/linked.conf")->type == FileType::symlink);
  CHECK(fs.stat("/etc/linked.conf")->type == FileType::regular);
  CHECK(fs.lstat("/etc-link/linked.conf")->type == FileType::symlink);  // the middle link followed, inside the root
  CHECK(fs.lstat("/etc-link/real.conf")->type == FileType::regular);
  REQUIRE(fs.lstat("/dangling"));
  CHECK(fs.lstat("/dangling")->type == FileType::symlink);
  CHECK_FALSE(fs.stat("/dangling"));
  CHECK_FALSE(fs.lstat("/etc/none"));
}
