// Rebuilding an installed package's .deb from what dpkg has installed.
// can_repack is read-only and runs on the in-memory file system; the
// rebuild copies files on the machine, so it runs on a temporary folder as
// the root, with a fake dpkg-deb that records the scratch tree it was given.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "installer/system/error.hpp"
#include "installer/undo/deb_repack.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

// A status file as dpkg writes it: the package between two others, fields in
// dpkg's order, a description with an empty line, an obsolete conffile.
const char* const kRepackStatus = R"(Package: rocm-core-extra
Status: install ok installed
Architecture: amd64
Version: 1.0

Package: rocm-core
Essential: no
Status: install ok installed
Priority: optional
Section: devel
Installed-Size: 12
Maintainer: ROCm Dev Support <rocm-dev.support@amd.com>
Architecture: amd64
Version: 6.1.2.60102-119~22.04
Depends: libc6 (>= 2.34)
Conffiles:
 /etc/rocm/rocm.conf 0123456789abcdef0123456789abcdef
 /etc/rocm/old.conf fedcba9876543210fedcba9876543210 obsolete
Description: Radeon Open Compute (ROCm) runtime core
 The runtime's core files.
 .
 And its version.
Homepage: https://github.com/RadeonOpenCompute/ROCm

Package: rocm-dev
Status: deinstall ok config-files
Architecture: amd64
Version: 6.1.2.60102-119~22.04
)";

const char* const kRepackList =
    "/.\n/etc\n/etc/rocm\n/etc/rocm/rocm.conf\n/opt\n/opt/rocm\n/opt/rocm/lib\n"
    "/opt/rocm/lib/librocm-core.so.1\n/opt/rocm/lib/librocm-core.so\n";

void add_rocm_core(MemoryFileSystem& fs) {
  fs.add_file("/var/lib/dpkg/status", kRepackStatus);
  fs.add_file("/var/lib/dpkg/info/rocm-core.list", kRepackList);
  fs.add_file("/etc/rocm/rocm.conf", "path=/opt/rocm\n");
  fs.add_file("/opt/rocm/lib/librocm-core.so.1", "ELF");
  fs.add_symlink("/opt/rocm/lib/librocm-core.so", "librocm-core.so.1");
}

}  // namespace

TEST_CASE(
    "can_repack: an installed package whose listed files are all there can be rebuilt, as big as Installed-Size says") {
  MemoryFileSystem fs;
  add_rocm_core(fs);
  auto check = can_repack(fs, "rocm-core", "amd64");
  CHECK(check.possible);
  CHECK(check.why == "");
  CHECK(check.estimated_bytes == 12 * 1024);
  // The architecture may be left to the stanza.
  CHECK(can_repack(fs, "rocm-core", "").possible);
}

TEST_CASE("can_repack: a listed file that is gone names the file and the package") {
  MemoryFileSystem fs;
  add_rocm_core(fs);
  fs.remove("/opt/rocm/lib/librocm-core.so.1");
  auto check = can_repack(fs, "rocm-core", "amd64");
  CHECK_FALSE(check.possible);
  CHECK(check.why == "/opt/rocm/lib/librocm-core.so.1, listed by dpkg as rocm-core's, is missing");
}

TEST_CASE("can_repack: a package that is not installed, or that dpkg does not know, cannot be rebuilt") {
  MemoryFileSystem fs;
  add_rocm_core(fs);
  fs.add_file("/var/lib/dpkg/info/rocm-dev.list", "/.\n");
  auto config_files = can_repack(fs, "rocm-dev", "amd64");
  CHECK_FALSE(config_files.possible);
  CHECK(config_files.why ==
        "rocm-dev is not installed (dpkg's status says \"deinstall ok config-files\"), so there are no installed "
        "files to rebuild it from");
  auto unknown = can_repack(fs, "hipcc", "amd64");
  CHECK_FALSE(unknown.possible);
  CHECK(unknown.why == "dpkg has no record of hipcc (amd64)");
  // Another architecture's stanza is not this one.
  CHECK(can_repack(fs, "rocm-core", "arm64").why == "dpkg has no record of rocm-core (arm64)");
}

TEST_CASE("can_repack: without the package's .list, which files are its own is not known") {
  MemoryFileSystem fs;
  add_rocm_core(fs);
  fs.remove("/var/lib/dpkg/info/rocm-core.list");
  auto check = can_repack(fs, "rocm-core", "amd64");
  CHECK_FALSE(check.possible);
  CHECK(check.why == "/var/lib/dpkg/info/rocm-core.list, dpkg's list of rocm-core's files, is missing");
}

TEST_CASE(
    "can_repack: a Multi-Arch: same package's files are NAME:ARCH.*, and its size is its files' without "
    "Installed-Size") {
  MemoryFileSystem fs;
  fs.add_file("/var/lib/dpkg/status",
              "Package: libhsa\nStatus: install ok installed\nArchitecture: i386\nMulti-Arch: same\nVersion: 1\n\n"
              "Package: libhsa\nStatus: hold ok installed\nArchitecture: amd64\nMulti-Arch: same\nVersion: 1\n");
  fs.add_file("/var/lib/dpkg/info/libhsa:amd64.list", "/.\n/usr\n/usr/lib/libhsa.so.1\n");
  fs.add_file("/usr/lib/libhsa.so.1", "0123456789");
  auto check = can_repack(fs, "libhsa", "amd64");
  CHECK(check.possible);
  CHECK(check.estimated_bytes == 10);
  auto i386 = can_repack(fs, "libhsa", "i386");
  CHECK(i386.why == "/var/lib/dpkg/info/libhsa:i386.list, dpkg's list of libhsa:i386's files, is missing");
}

TEST_CASE("can_repack: a file another package diverted is looked for where the diversion put it") {
  MemoryFileSystem fs;
  add_rocm_core(fs);
  fs.add_file("/var/lib/dpkg/diversions",
              "/etc/rocm/rocm.conf\n/etc/rocm/rocm.conf.distrib\nrocm-wsl\n"
              "/opt/rocm/lib/librocm-core.so.1\n/opt/rocm/lib/librocm-core.so.1.real\nrocm-core\n");
  auto check = can_repack(fs, "rocm-core", "amd64");
  CHECK_FALSE(check.possible);
  CHECK(check.why ==
        "/etc/rocm/rocm.conf, listed by dpkg as rocm-core's, is missing (where a diversion put it, "
        "/etc/rocm/rocm.conf.distrib)");
  fs.add_file("/etc/rocm/rocm.conf.distrib", "path=/opt/rocm\n");
  // rocm-core's own diversion is not one of its files moving away.
  CHECK(can_repack(fs, "rocm-core", "amd64").possible);
}

namespace {

std::string repack_read(const std::string& host_path) {
  std::ifstream in(host_path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A temporary folder as the target, rocm-core installed in it as dpkg would
// leave it, and a dpkg-deb that records what it was given to build.
struct RepackRoot {
  TempDir dir;
  RootedFileSystem fs{dir.path()};
  FakeProcessRunner runner;
  std::map<std::string, std::string> control;  // DEBIAN member -> content, as dpkg-deb saw them
  std::map<std::string, unsigned> control_modes;
  std::vector<std::string> tree;  // "PATH TYPE MODE[ -> TARGET]" for the package's files, as dpkg-deb saw them
  std::string built;

  RepackRoot() {
    put("var/lib/dpkg/status", kRepackStatus);
    put("var/lib/dpkg/info/rocm-core.list", kRepackList);
    put("var/lib/dpkg/info/rocm-core.conffiles", "/etc/rocm/rocm.conf\n/etc/rocm/old.conf\n");
    put("var/lib/dpkg/info/rocm-core.md5sums", "6d4e0c1d1b0e5e2cd7e2e0d1b1c7d7c1  opt/rocm/lib/librocm-core.so.1\n");
    put("var/lib/dpkg/info/rocm-core.postinst", "#!/bin/sh\nldconfig\n", 0755);
    put("var/lib/dpkg/info/rocm-core.triggers", "activate-noawait ldconfig\n");
    put("var/lib/dpkg/info/rocm-core.shlibs", "librocm-core 1 rocm-core\n");
    // Another package's, whose name goes on from rocm-core's with a dot and a dash.
    put("var/lib/dpkg/info/rocm-core.x.postinst", "#!/bin/sh\n", 0755);
    put("var/lib/dpkg/info/rocm-core-extra.postinst", "#!/bin/sh\n", 0755);
    put("etc/rocm/rocm.conf", "path=/opt/rocm # changed by the administrator\n");
    put("opt/rocm/lib/librocm-core.so.1", "ELF", 0750);
    std::filesystem::create_symlink("librocm-core.so.1", dir.path() + "/opt/rocm/lib/librocm-core.so");
    // Folder modes set, not left to the umask.
    for (const char* folder : {"/etc", "/etc/rocm", "/opt", "/opt/rocm/lib"})
      ::chmod((dir.path() + folder).c_str(), 0755);
    ::chmod((dir.path() + "/opt/rocm").c_str(), 0711);
    std::filesystem::create_directories(dir.path() + "/var/cache/wslgpu-setup/undo");
  }

  void put(const std::string& path, const std::string& content, mode_t mode = 0644) {
    dir.write(path, content);
    ::chmod((dir.path() + "/" + path).c_str(), mode);
  }

  // dpkg-deb records the tree it is given and writes the .deb, or fails with EXIT.
  void dpkg_deb_builds(int exit = 0) {
    runner.on({"dpkg-deb"}, [this, exit](const Command& cmd) {
      const std::string scratch = dir.path() + cmd.argv.at(3);
      for (const auto& e : std::filesystem::recursive_directory_iterator(scratch)) {
        const std::string rel = e.path().string().substr(scratch.size());
        struct stat st {};
        ::lstat(e.path().c_str(), &st);
        if (rel.rfind("/DEBIAN/", 0) == 0) {
          control[rel.substr(8)] = repack_read(e.path());
          control_modes[rel.substr(8)] = st.st_mode & 07777;
        } else if (rel != "/DEBIAN") {
          std::ostringstream line;
          line << rel
               << (S_ISDIR(st.st_mode)   ? " dir "
                   : S_ISLNK(st.st_mode) ? " link "
                                         : " file ")
               << std::oct << (st.st_mode & 07777) << std::dec;
          if (S_ISLNK(st.st_mode)) line << " -> " << std::filesystem::read_symlink(e.path()).string();
          if (S_ISREG(st.st_mode)) line << " " << repack_read(e.path()).size() << " bytes";
          tree.push_back(line.str());
        }
      }
      std::sort(tree.begin(), tree.end());
      std::ofstream(dir.path() + cmd.argv.at(4)) << "!<arch>\n";
      return exited(exit, exit == 0 ? "" : "dpkg-deb: error: conffile '/etc/rocm/rocm.conf' is not a plain file\n");
    });
  }

  bool exists(const std::string& target_path) const {
    std::error_code ec;
    return std::filesystem::exists(std::filesystem::symlink_status(dir.path() + target_path, ec));
  }
};

const char* const kRepackScratch = "/var/cache/wslgpu-setup/undo/rocm-core.tree";
const char* const kRepackOut = "/var/cache/wslgpu-setup/undo/rocm-core_6.1.2.60102-119~22.04_amd64.deb";

}  // namespace

TEST_CASE("repack_installed: the control file is the status stanza in its order, without what dpkg writes itself") {
  RepackRoot root;
  root.dpkg_deb_builds();
  repack_installed(root.fs, root.runner, "rocm-core", "amd64", kRepackScratch, kRepackOut);
  CHECK(root.control["control"] == R"(Package: rocm-core
Essential: no
Priority: optional
Section: devel
Installed-Size: 12
Maintainer: ROCm Dev Support <rocm-dev.support@amd.com>
Architecture: amd64
Version: 6.1.2.60102-119~22.04
Depends: libc6 (>= 2.34)
Description: Radeon Open Compute (ROCm) runtime core
 The runtime's core files.
 .
 And its version.
Homepage: https://github.com/RadeonOpenCompute/ROCm
)");
  CHECK(root.control_modes["control"] == 0644);
}

TEST_CASE("repack_installed: the conffiles are the stanza's, without the obsolete ones") {
  RepackRoot root;
  root.dpkg_deb_builds();
  repack_installed(root.fs, root.runner, "rocm-core", "amd64", kRepackScratch, kRepackOut);
  CHECK(root.control["conffiles"] == "/etc/rocm/rocm.conf\n");
}

TEST_CASE("repack_installed: every control file dpkg kept is copied with its mode, and no other package's") {
  RepackRoot root;
  root.dpkg_deb_builds();
  repack_installed(root.fs, root.runner, "rocm-core", "amd64", kRepackScratch, kRepackOut);
  std::vector<std::string> members;
  for (const auto& [member, content] : root.control) members.push_back(member);
  CHECK(members == std::vector<std::string>{"conffiles", "control", "md5sums", "postinst", "shlibs", "triggers"});
  CHECK(root.control["postinst"] == "#!/bin/sh\nldconfig\n");
  CHECK(root.control_modes["postinst"] == 0755);
  CHECK(root.control["md5sums"] == "6d4e0c1d1b0e5e2cd7e2e0d1b1c7d7c1  opt/rocm/lib/librocm-core.so.1\n");
  CHECK(root.control["triggers"] == "activate-noawait ldconfig\n");
}

TEST_CASE("repack_installed: the listed files go in as they are now: content, mode, links, folders") {
  RepackRoot root;
  root.dpkg_deb_builds();
  repack_installed(root.fs, root.runner, "rocm-core", "amd64", kRepackScratch, kRepackOut);
  CHECK(root.tree == std::vector<std::string>{
                         "/etc dir 755",
                         "/etc/rocm dir 755",
                         "/etc/rocm/rocm.conf file 644 46 bytes",
                         "/opt dir 755",
                         "/opt/rocm dir 711",
                         "/opt/rocm/lib dir 755",
                         "/opt/rocm/lib/librocm-core.so link 777 -> librocm-core.so.1",
                         "/opt/rocm/lib/librocm-core.so.1 file 750 3 bytes",
                     });
}

TEST_CASE("repack_installed: a listed link with listed files under it goes in as the folder the package shipped") {
  RepackRoot root;
  // A merged-/usr system: the package shipped /lib/rocm/, dpkg put it through the link /lib -> usr/lib.
  root.put("var/lib/dpkg/info/rocm-core.list", "/.\n/lib\n/lib/rocm\n/lib/rocm/librocm.so\n");
  root.put("usr/lib/rocm/librocm.so", "ELF");
  for (const char* folder : {"/usr", "/usr/lib", "/usr/lib/rocm"}) ::chmod((root.dir.path() + folder).c_str(), 0755);
  std::filesystem::create_directory_symlink("usr/lib", root.dir.path() + "/lib");
  root.put("var/lib/dpkg/status",
           "Package: rocm-core\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1\n");
  root.dpkg_deb_builds();
  repack_installed(root.fs, root.runner, "rocm-core", "amd64", kRepackScratch, kRepackOut);
  CHECK(root.tree ==
        std::vector<std::string>{"/lib dir 755", "/lib/rocm dir 755", "/lib/rocm/librocm.so file 644 3 bytes"});
  CHECK(root.control.count("conffiles") == 0);
}

TEST_CASE(
    "repack_installed: the target's own dpkg-deb builds the .deb, chrooted, from the scratch folder, which then goes") {
  RepackRoot root;
  root.dpkg_deb_builds();
  repack_installed(root.fs, root.runner, "rocm-core", "amd64", kRepackScratch, kRepackOut);
  REQUIRE(root.runner.calls.size() == 1);
  CHECK(root.runner.calls[0].argv ==
        std::vector<std::string>{"dpkg-deb", "--build", "-Zgzip", kRepackScratch, kRepackOut});
  CHECK(root.runner.calls[0].in_root);
  CHECK_FALSE(root.exists(kRepackScratch));
  CHECK(root.exists(kRepackOut));
  // The installed files are as they were.
  CHECK(repack_read(root.dir.path() + "/opt/rocm/lib/librocm-core.so.1") == "ELF");
  CHECK(root.fs.lstat("/opt/rocm")->mode == 0711);
}

TEST_CASE(
    "repack_installed: a failing dpkg-deb is a StepFailure naming the package, and leaves no scratch folder nor .deb") {
  RepackRoot root;
  root.dpkg_deb_builds(2);
  // A scratch folder left by an earlier run is replaced.
  root.put("var/cache/wslgpu-setup/undo/rocm-core.tree/stale", "x");
  std::string message;
  try {
    repack_installed(root.fs, root.runner, "rocm-core", "amd64", kRepackScratch, kRepackOut);
  } catch (const StepFailure& e) {
    message = e.what();
  }
  CHECK(message ==
        std::string("cannot rebuild the .deb of rocm-core 6.1.2.60102-119~22.04: `dpkg-deb --build -Zgzip ") +
            kRepackScratch + " '" + kRepackOut +
            "'` failed: it exited with status 2:\ndpkg-deb: error: conffile '/etc/rocm/rocm.conf' is not a plain file\n"
            "Undo needs that .deb to put rocm-core 6.1.2.60102-119~22.04 back; make it available to apt, then run "
            "wslgpu-setup again.");
  CHECK(root.tree.size() == 8);  // the stale file was gone before dpkg-deb ran
  CHECK_FALSE(root.exists(kRepackScratch));
  CHECK_FALSE(root.exists(kRepackOut));
}

TEST_CASE("repack_installed: a package that cannot be rebuilt fails before anything is made, with can_repack's why") {
  RepackRoot root;
  root.dpkg_deb_builds();
  std::filesystem::remove(root.dir.path() + "/etc/rocm/rocm.conf");
  CHECK_THROWS_WITH_AS(
      repack_installed(root.fs, root.runner, "rocm-core", "amd64", kRepackScratch, kRepackOut),
      "cannot rebuild the .deb of rocm-core 6.1.2.60102-119~22.04 from what dpkg has installed: /etc/rocm/rocm.conf, "
      "listed by dpkg as rocm-core's, is missing. Undo needs that .deb to put rocm-core 6.1.2.60102-119~22.04 back; "
      "make it available to apt (or put back what is missing), then run wslgpu-setup again.",
      StepFailure);
  CHECK(root.runner.calls.empty());
  CHECK_FALSE(root.exists(kRepackScratch));
}
