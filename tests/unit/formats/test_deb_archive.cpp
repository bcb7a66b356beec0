#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "installer/formats/deb822.hpp"
#include "installer/formats/deb_archive.hpp"
#include "installer/system/error.hpp"
#include "installer/system/process.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::TempDir;

namespace {

// Builds DIR into a .deb with the machine's dpkg-deb (it only writes the
// output file). Returns the .deb's path.
std::string dpkg_deb_build(const TempDir& tmp, const std::string& dir) {
  std::string out = tmp.path() + "/" + dir + ".deb";
  RealProcessRunner runner("/");
  Command cmd;
  cmd.argv = {"dpkg-deb", "--root-owner-group", "--build", tmp.path() + "/" + dir, out};
  cmd.in_root = false;
  cmd.timeout = std::chrono::seconds(60);
  ProcessResult r = runner.run(cmd);
  REQUIRE_MESSAGE(r.ok(), r.err);
  return out;
}

// A tar archive in memory (FILTER: "gzip" or ""), of (path, content) files.
std::string make_tar(const std::vector<std::pair<std::string, std::string>>& files, bool gzip) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  if (gzip) archive_write_add_filter_gzip(a);
  std::string buf(1 << 20, '\0');
  size_t used = 0;
  REQUIRE(archive_write_open_memory(a, buf.data(), buf.size(), &used) == ARCHIVE_OK);
  for (const auto& [path, content] : files) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, path.c_str());
    bool dir = !path.empty() && path.back() == '/';
    archive_entry_set_filetype(e, dir ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(e, dir ? 0755 : 0644);
    archive_entry_set_size(e, dir ? 0 : static_cast<la_int64_t>(content.size()));
    archive_write_header(a, e);
    if (!dir) archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  buf.resize(used);
  return buf;
}

// A .deb written with libarchive's ar writer, the way dpkg-deb lays it out.
std::string write_deb_with_libarchive(const TempDir& tmp, const std::string& name, const std::string& control,
                                      const std::vector<std::pair<std::string, std::string>>& data_files) {
  std::string control_tar = make_tar({{"./control", control}}, true);
  std::string data_tar = make_tar(data_files, false);
  std::string out = tmp.path() + "/" + name;
  archive* a = archive_write_new();
  archive_write_set_format_ar_svr4(a);
  REQUIRE(archive_write_open_filename(a, out.c_str()) == ARCHIVE_OK);
  for (const auto& [member, content] : std::vector<std::pair<std::string, std::string>>{
           {"debian-binary", "2.0\n"}, {"control.tar.gz", control_tar}, {"data.tar", data_tar}}) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, member.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
    archive_write_header(a, e);
    archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

}  // namespace

TEST_CASE("a .deb built by dpkg-deb gives its name, version, dependencies and files") {
  TempDir tmp;
  tmp.write("pkg/DEBIAN/control",
            "Package: rocm-dev\nVersion: 6.4.2.60402-120\nArchitecture: amd64\nMaintainer: t <t@example.org>\n"
            "Pre-Depends: dpkg (>= 1.17)\nDepends: rocm-core (= 6.4.2.60402-120), hsa-rocr | hsa-runtime-rocr4wsl-amdgpu, "
            "libc6:any\nDescription: test\n");
  tmp.write("pkg/opt/rocm/bin/hipcc", "#!/bin/sh\n");
  tmp.write("pkg/opt/rocm/share/doc/README", "doc\n");
  std::filesystem::create_symlink("hipcc", tmp.path() + "/pkg/opt/rocm/bin/hipcc-link");
  DebInfo info = read_deb(dpkg_deb_build(tmp, "pkg"));
  CHECK(info.name == "rocm-dev");
  CHECK(info.version == "6.4.2.60402-120");
  CHECK(info.architecture == "amd64");
  CHECK(info.pre_depends == "dpkg (>= 1.17)");
  CHECK(info.dependency_names() ==
        std::vector<std::string>{"dpkg", "rocm-core", "hsa-rocr", "hsa-runtime-rocr4wsl-amdgpu", "libc6"});
  auto files = info.files;
  std::sort(files.begin(), files.end());  // the order is dpkg-deb's, not ours
  CHECK(files == std::vector<std::string>{"/opt/rocm/bin/hipcc", "/opt/rocm/bin/hipcc-link",
                                               "/opt/rocm/share/doc/README"});
  CHECK(std::find(info.directories.begin(), info.directories.end(), "/opt/rocm/bin") != info.directories.end());
  CHECK(kernel_module_problem(info).empty());
}

TEST_CASE("a .deb written with libarchive (gzip control, plain data tar) is read the same way") {
  TempDir tmp;
  std::string deb = write_deb_with_libarchive(
      tmp, "cuda-keyring_1.1-1_all.deb", "Package: cuda-keyring\nVersion: 1.1-1\nArchitecture: all\n",
      {{"./", ""}, {"./usr/share/keyrings/", ""}, {"./usr/share/keyrings/cuda-archive-keyring.gpg", "KEY"},
       {"./etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list", "deb [signed-by=...] https://x/ /\n"}});
  DebInfo info = read_deb(deb);
  CHECK(info.name == "cuda-keyring");
  CHECK(info.version == "1.1-1");
  CHECK(info.depends.empty());
  CHECK(info.files == std::vector<std::string>{"/usr/share/keyrings/cuda-archive-keyring.gpg",
                                               "/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list"});
  CHECK(info.directories == std::vector<std::string>{"/usr/share/keyrings"});
}

TEST_CASE("a package that ships a kernel module or a DKMS tree, or depends on a dkms package, is named as such") {
  TempDir tmp;
  tmp.write("mod/DEBIAN/control", "Package: amdgpu-kmod\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@x>\nDescription: t\n");
  tmp.write("mod/lib/modules/5.15.0/extra/amdgpu.ko", "ELF");
  CHECK(kernel_module_problem(read_deb(dpkg_deb_build(tmp, "mod"))) ==
        "amdgpu-kmod ships a kernel module (/lib/modules/5.15.0/extra/amdgpu.ko)");

  tmp.write("dkms/DEBIAN/control", "Package: amdgpu-dkms\nVersion: 1:6.12.12\nArchitecture: all\nMaintainer: t <t@x>\nDescription: t\n");
  tmp.write("dkms/usr/src/amdgpu-6.12.12/dkms.conf", "PACKAGE_NAME=amdgpu\n");
  CHECK(kernel_module_problem(read_deb(dpkg_deb_build(tmp, "dkms"))) ==
        "amdgpu-dkms ships a DKMS module source (/usr/src/amdgpu-6.12.12/dkms.conf)");

  DebInfo meta;
  meta.name = "rocm-dkms";
  meta.depends = "rocm-dev, amdgpu-dkms (>= 1:6.12)";
  CHECK(kernel_module_problem(meta) == "rocm-dkms depends on amdgpu-dkms");
  meta.depends = "linux-headers-generic";
  CHECK(kernel_module_problem(meta) == "rocm-dkms depends on linux-headers-generic");
}

TEST_CASE("kernel-module package names") {
  CHECK(is_kernel_module_package("dkms"));
  CHECK(is_kernel_module_package("amdgpu-dkms"));
  CHECK(is_kernel_module_package("linux-headers-6.8.0-45-generic"));
  CHECK(is_kernel_module_package("linux-modules-extra-6.8.0-45-generic"));
  CHECK_FALSE(is_kernel_module_package("rocm-dev"));
  CHECK_FALSE(is_kernel_module_package("dkms-tools"));
  CHECK_FALSE(is_kernel_module_package("linux-libc-dev"));
}

TEST_CASE("dependency names drop versions, architectures and alternatives' bars") {
  CHECK(parse_dependency_names("a (>= 1:2.0~rc1), b | c (<< 3), d:any, e [amd64 arm64], f <!nocheck>, a") ==
        std::vector<std::string>{"a", "b", "c", "d", "e", "f"});
  CHECK(parse_dependency_names("").empty());
}

namespace {

// parse_dependency_names() as it was written first: each alternative copied
// with its brackets made blanks, then split into words, the first kept.
std::vector<std::string> dependency_names_by_splitting(const std::string& field) {
  std::vector<std::string> out;
  std::string current;
  char skipping_to = 0;
  auto flush = [&] {
    auto words = split_words(current);
    if (!words.empty()) {
      std::string name = words.front().substr(0, words.front().find(':'));
      if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    current.clear();
  };
  for (char c : field) {
    if (skipping_to) {
      if (c == skipping_to) skipping_to = 0;
      continue;
    }
    if (c == '(' || c == '[' || c == '<') {
      skipping_to = c == '(' ? ')' : c == '[' ? ']' : '>';
      current += ' ';
    } else if (c == ',' || c == '|') {
      flush();
    } else {
      current += c;
    }
  }
  flush();
  return out;
}

}  // namespace

TEST_CASE("dependency names: the one-pass reader finds what splitting each alternative into words finds, on 20,000 generated fields") {
  std::mt19937 random(124);  // fixed seed: the same fields every run
  const std::string alphabet = "ab:,|()[]<>  \t\n\r";
  for (int n = 0; n < 20000; ++n) {
    std::string field(random() % 20, ' ');
    for (char& c : field) c = alphabet[random() % alphabet.size()];
    INFO("field: \"" << field << "\"");
    REQUIRE(parse_dependency_names(field) == dependency_names_by_splitting(field));
  }
}

TEST_CASE("a file that is not a .deb is refused with its name") {
  TempDir tmp;
  tmp.write("not.deb", "hello, this is text\n");
  CHECK_THROWS_AS(read_deb(tmp.path() + "/not.deb"), StepFailure);
  try {
    read_deb(tmp.path() + "/not.deb");
  } catch (const StepFailure& e) {
    CHECK(std::string(e.what()).rfind("cannot open " + tmp.path() + "/not.deb as a .deb package: ", 0) == 0);
  }
  // An ar archive without the .deb members.
  archive* a = archive_write_new();
  archive_write_set_format_ar_svr4(a);
  std::string path = tmp.path() + "/other.a";
  REQUIRE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK);
  archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, "debian-binary");
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_size(e, 4);
  archive_write_header(a, e);
  archive_write_data(a, "2.0\n", 4);
  archive_entry_free(e);
  archive_write_close(a);
  archive_write_free(a);
  CHECK_THROWS_WITH_AS(read_deb(path), (path + " is not a .deb package: it lacks control.tar").c_str(), StepFailure);
}

// Found by tests/fuzz/fuzz_deb_archive.cpp: a control file that is not
// deb822 let parse_deb822()'s InputError out of read_deb(), which promises a
// StepFailure: the user's input is fine, the package is broken.
TEST_CASE("a .deb whose control file is not deb822 is refused as a damaged package") {
  TempDir tmp;
  std::string deb = write_deb_with_libarchive(tmp, "bad-control.deb", "Package: x\nthis is not a field\n", {});
  CHECK_THROWS_AS(read_deb(deb), StepFailure);
  try {
    read_deb(deb);
  } catch (const StepFailure& e) {
    CHECK(std::string(e.what()).rfind(deb + " is not a .deb package: its control file is damaged: ", 0) == 0);
  }
}
