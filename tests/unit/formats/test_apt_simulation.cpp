#include <doctest/doctest.h>

#include "installer/formats/apt_simulation.hpp"

using namespace wslgpu;

namespace {

const char* const kInstallOutput =
    "NOTE: This is only a simulation!\n"
    "      apt-get needs root privileges for real execution.\n"
    "      Keep also in mind that locking is deactivated,\n"
    "      so don't depend on the relevance to the real current situation!\n"
    "Reading package lists...\n"
    "Building dependency tree...\n"
    "The following NEW packages will be installed:\n"
    "  hsa-runtime-rocr4wsl-amdgpu rocm-core rocm-dev\n"
    "The following packages will be upgraded:\n"
    "  tzdata\n"
    "1 upgraded, 3 newly installed, 1 to remove and 0 not upgraded.\n"
    "Remv libhsakmt1 [5.7.0-1build1]\n"
    "Inst rocm-core (6.4.2.60402-120~24.04 repo.radeon.com:6.4.2/noble [amd64])\n"
    "Inst tzdata [2024a-0+deb12u1] (2024b-0+deb12u1 Debian:12.8/stable, Debian:12-updates/stable-updates [all])\n"
    "Inst hsa-runtime-rocr4wsl-amdgpu (1.14.0.60402-120~24.04 repo.radeon.com:6.4.2/noble [amd64]) []\n"
    "Inst libc6:i386 (2.36-9+deb12u9 Debian:12.8/stable [i386])\n"
    "Inst rocm-dev (6.4.2.60402-120~24.04 repo.radeon.com:6.4.2/noble [amd64])\n"
    "Conf rocm-core (6.4.2.60402-120~24.04 repo.radeon.com:6.4.2/noble [amd64])\n"
    "Conf tzdata (2024b-0+deb12u1 Debian:12.8/stable, Debian:12-updates/stable-updates [all])\n"
    "Purg oldpkg [1.0]\n";

}  // namespace

TEST_CASE("apt simulation output gives installs, upgrades, configures, removals and purges") {
  AptTransaction tx = parse_apt_simulation(kInstallOutput);
  REQUIRE(tx.actions.size() == 9);
  const auto& remv = tx.actions[0];
  CHECK(remv.kind == AptAction::Kind::remove);
  CHECK(remv.name == "libhsakmt1");
  CHECK(remv.old_version == "5.7.0-1build1");
  CHECK(remv.version.empty());

  const auto& inst = tx.actions[1];
  CHECK(inst.kind == AptAction::Kind::install);
  CHECK(inst.name == "rocm-core");
  CHECK(inst.version == "6.4.2.60402-120~24.04");
  CHECK(inst.origin == "repo.radeon.com:6.4.2/noble");
  CHECK(inst.architecture == "amd64");

  const auto& upgrade = tx.actions[2];
  CHECK(upgrade.kind == AptAction::Kind::upgrade);
  CHECK(upgrade.name == "tzdata");
  CHECK(upgrade.old_version == "2024a-0+deb12u1");
  CHECK(upgrade.version == "2024b-0+deb12u1");
  CHECK(upgrade.origin == "Debian:12.8/stable, Debian:12-updates/stable-updates");
  CHECK(upgrade.architecture == "all");

  CHECK(tx.actions[3].name == "hsa-runtime-rocr4wsl-amdgpu");  // trailing "[]" ignored
  CHECK(tx.actions[3].architecture == "amd64");
  CHECK(tx.actions[4].name == "libc6");  // the :i386 qualifier is split off
  CHECK(tx.actions[4].architecture == "i386");
  CHECK(tx.actions[6].kind == AptAction::Kind::configure);
  CHECK(tx.actions[8].kind == AptAction::Kind::purge);
  CHECK(tx.actions[8].old_version == "1.0");

  auto changes = tx.changes();
  CHECK(changes.size() == 7);  // Conf lines are not changes of their own
  CHECK(std::string(apt_action_name(changes.back().kind)) == "purge");
}

TEST_CASE("an apt simulation with nothing to do is an empty transaction") {
  auto tx = parse_apt_simulation(
      "Reading package lists...\nrocm-dev is already the newest version (6.4.2).\n0 upgraded, 0 newly installed, 0 to "
      "remove and 0 not upgraded.\n");
  CHECK(tx.empty());
  CHECK(tx.actions.empty());
}

TEST_CASE("malformed action lines are ignored rather than guessed") {
  auto tx = parse_apt_simulation("Inst\nInst broken (\nInst nover\nInstx y (1 z [all])\nRemv ok [1]\n");
  REQUIRE(tx.actions.size() == 1);
  CHECK(tx.actions[0].name == "ok");
}

// Found by tests/fuzz/fuzz_apt_simulation.cpp: a name that was only an
// architecture qualifier gave an action for the package "", and one with a
// carriage return inside an action for a name no package has.
TEST_CASE("an action line whose package is only \":ARCH\" or holds a control character is ignored") {
  auto tx = parse_apt_simulation(
      "Conf :amd64 (1.0 Debian:12/stable [amd64])\nRemv :i386 [1]\nInst lib\rx (1 D [all])\nRemv ok [1]\n");
  REQUIRE(tx.actions.size() == 1);
  CHECK(tx.actions[0].name == "ok");
}

TEST_CASE("apt's error lines are collected without their prefix") {
  CHECK(apt_error_lines("Reading package lists...\nE: Unable to locate package hsa-runtime-rocr4wsl-amdgpu\nW: x\nE: "
                        "Couldn't find any package\n") ==
        std::vector<std::string>{"Unable to locate package hsa-runtime-rocr4wsl-amdgpu", "Couldn't find any package"});
}

TEST_CASE("apt's AutoInstall debug lines give the chain that pulled a package in") {
  auto tx = parse_apt_simulation(
      "  Installing rocm-dev:amd64 as Depends of rocm:amd64\n"
      "    Installing amdgpu-dkms:amd64 as Depends of rocm-dkms:amd64\n"
      "      Installing dkms:amd64 as Recommends of amdgpu-dkms:amd64\n"
      "    Installing dkms:amd64 as Depends of other:amd64\n"
      "Inst dkms (3.0.10-8 Debian:12/stable [all])\n");
  CHECK(tx.chain("dkms") == "rocm-dkms → amdgpu-dkms → dkms");  // the first reason counts
  CHECK(tx.chain("rocm-dev") == "rocm → rocm-dev");
  CHECK(tx.chain("rocm") == "rocm");
  CHECK(tx.actions.size() == 1);
}

TEST_CASE("dpkg's own reason is read from apt's output, joined with its indented line") {
  // As apt-get install printed it when the disk filled up while unpacking.
  const std::string output =
      "Preparing to unpack .../zeros-package_1.0-1_all.deb ...\n"
      "Unpacking zeros-package (1.0-1) ...\n"
      "dpkg: error processing archive /srv/testrepo/pool/zeros-package_1.0-1_all.deb (--unpack):\n"
      " cannot copy extracted data for './opt/zeros-package/zeros' to '/opt/zeros-package/zeros.dpkg-new': "
      "failed to write (No space left on device)\n"
      "No apport report written because the error message indicates a disk full error\n"
      "Errors were encountered while processing:\n"
      " /srv/testrepo/pool/zeros-package_1.0-1_all.deb\n"
      "E: Sub-process /usr/bin/dpkg returned an error code (1)\n";
  CHECK(dpkg_error_lines(output) ==
        std::vector<std::string>{
            "dpkg: error processing archive /srv/testrepo/pool/zeros-package_1.0-1_all.deb (--unpack): cannot copy "
            "extracted data for './opt/zeros-package/zeros' to '/opt/zeros-package/zeros.dpkg-new': failed to write "
            "(No space left on device)"});
  CHECK(dpkg_error_lines("E: Unable to locate package x\n").empty());
  // A reason line that never came: the first line alone.
  CHECK(dpkg_error_lines("dpkg: error: dpkg frontend lock was locked by another process\n") ==
        std::vector<std::string>{"dpkg: error: dpkg frontend lock was locked by another process"});
}

TEST_CASE("apt-get download --print-uris gives each .deb's URI, file, size and SHA-256") {
  auto uris = parse_apt_uris(
      "'file:/srv/testrepo/pool/amd/rocm_6.4.2.1-1_amd64.deb' rocm_6.4.2.1-1_amd64.deb 1234 "
      "SHA256:ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789\n"
      "'https://repo.radeon.com/x/libdrm-amdgpu-amdgpu1_1%3a2.4.125_amd64.deb' libdrm-amdgpu-amdgpu1_1%3a2.4.125_amd64.deb "
      "99 MD5Sum:0123456789abcdef0123456789abcdef\n"
      "Reading package lists...\n"
      "'broken' line-without-size\n");
  REQUIRE(uris.size() == 2);
  CHECK(uris[0].uri == "file:/srv/testrepo/pool/amd/rocm_6.4.2.1-1_amd64.deb");
  CHECK(uris[0].file == "rocm_6.4.2.1-1_amd64.deb");
  CHECK(uris[0].size == 1234);
  CHECK(uris[0].sha256 == "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
  CHECK(uris[1].file == "libdrm-amdgpu-amdgpu1_1%3a2.4.125_amd64.deb");
  CHECK(uris[1].size == 99);
  CHECK(uris[1].sha256.empty());  // only MD5Sum: no SHA-256 to check against
}
