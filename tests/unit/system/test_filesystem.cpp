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

TEST_CASE("remove_tree removes a folder's contents but a link inside it only as a link") {
  TempDir outside;  // what a link in the tree points to, outside the root
  outside.write("keep/precious", "mine\n");
  TempDir root;
  root.write("home/alice/venv/lib/python3.12/site-packages/torch/__init__.py", "x");
  root.write("home/alice/venv/bin/python", "");
  std::filesystem::create_symlink(outside.path() + "/keep", root.path() + "/home/alice/venv/escape");
  std::filesystem::create_symlink("/home/alice", root.path() + "/home/alice/venv/lib64");
  RootedFileSystem fs(root.path());
  remove_tree(fs, "/home/alice/venv");
  CHECK_FALSE(std::filesystem::exists(root.path() + "/home/alice/venv"));
  CHECK(std::filesystem::exists(root.path() + "/home/alice"));
  CHECK(std::filesystem::exists(outside.path() + "/keep/precious"));
  remove_tree(fs, "/home/alice/venv");  // nothing there: no error
}

TEST_CASE("rename moves a whole tree inside the root and resolves both paths under it") {
  TempDir root;
  root.write("venv/lib/torch/lib/libhsa-runtime64.so.1", "hsa");
  std::filesystem::create_directories(root.path() + "/venv/.undo");
  RootedFileSystem fs(root.path());
  fs.rename("/venv/lib/torch", "/venv/.undo/torch");
  CHECK(fs.read("/venv/.undo/torch/lib/libhsa-runtime64.so.1") == "hsa");
  CHECK_FALSE(fs.lstat("/venv/lib/torch"));
  // ".." cannot reach above the root: this lands in ROOT/x.
  fs.rename("/venv/.undo/torch", "/../../x");
  CHECK(std::filesystem::exists(root.path() + "/x/lib/libhsa-runtime64.so.1"));
  CHECK_THROWS_AS(fs.rename("/nothing", "/venv/y"), StepFailure);
}
