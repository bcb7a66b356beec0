// doctor's check of the signing keys of the configured apt sources
// (installer/doctor/checks_apt_keys.cpp): expiring and expired keys,
// deb822 keyrings, and keyrings that are not OpenPGP keys.
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
#include "support/gpg_keys.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {
// A real keyring with a known expiry: Debian's own archive key, as the
// debian-archive-keyring package (a test dependency) ships it.
std::string debian_keyring() {
  std::ifstream in("/usr/share/keyrings/debian-archive-bookworm-automatic.gpg", std::ios::binary);
  REQUIRE_MESSAGE(in, "install debian-archive-keyring (tests/deps.txt)");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("doctor warns when a configured source's key expires within 30 days or has expired, and says how to fix it") {
  const std::string keyring = debian_keyring();
  auto keys = read_openpgp_keys(keyring);
  REQUIRE(keys.size() == 1);
  REQUIRE(keys[0].expires);
  const std::int64_t expires = *keys[0].expires;
  const std::string fpr = format_fingerprint(keys[0].fingerprint);

  auto finding_at = [&](std::int64_t now) {
    DoctorFixture m;
    m.fs.add_file("/etc/apt/keyrings/vendor.gpg", keyring);
    m.fs.add_file("/etc/apt/sources.list.d/vendor.list",
                  "deb [arch=amd64 signed-by=/etc/apt/keyrings/vendor.gpg] https://vendor.example/apt jammy main\n");
    m.now = now;
    auto findings = m.diagnose();
    const Finding* f = lookup(findings, "config.apt-keys");
    REQUIRE(f != nullptr);
    return *f;
  };

  Finding fine = finding_at(expires - 31 * 24 * 3600);
  CHECK(fine.status == FindingStatus::ok);
  CHECK(fine.seen == "the 1 signing key of the apt sources are valid for more than 30 days");

  Finding soon = finding_at(expires - 10 * 24 * 3600);
  CHECK(soon.status == FindingStatus::warn);
  CHECK(soon.seen.rfind("/etc/apt/keyrings/vendor.gpg (key " + fpr + ") expires on ", 0) == 0);
  CHECK(soon.seen.find(", used by /etc/apt/sources.list.d/vendor.list:1") != std::string::npos);
  CHECK(soon.fix.find("Fetch the vendor's current copy of the key") == 0);

  Finding gone = finding_at(expires + 1);
  CHECK(gone.status == FindingStatus::warn);
  CHECK(gone.seen.find(") expired on ") != std::string::npos);
  CHECK(gone.cause.find("EXPKEYSIG") != std::string::npos);
}

TEST_CASE("doctor reads a deb822 source's keyring and ignores disabled sources and sources without a key") {
  const std::string keyring = debian_keyring();
  const std::int64_t expires = *read_openpgp_keys(keyring)[0].expires;
  DoctorFixture m;
  m.fs.add_file("/usr/share/keyrings/vendor.gpg", keyring);
  m.fs.add_file("/etc/apt/sources.list.d/vendor.sources",
                "Types: deb\nURIs: https://vendor.example/apt\nSuites: noble\nComponents: main\n"
                "Signed-By: /usr/share/keyrings/vendor.gpg\n");
  m.fs.add_file("/etc/apt/sources.list.d/old.sources",
                "Types: deb\nURIs: https://old.example/apt\nSuites: noble\nComponents: main\nEnabled: no\n"
                "Signed-By: /etc/apt/keyrings/missing.gpg\n");
  m.fs.add_file("/etc/apt/sources.list", "deb http://deb.example/ubuntu noble main\n");
  m.now = expires + 3600;
  auto findings = m.diagnose();
  const Finding* f = lookup(findings, "config.apt-keys");
  REQUIRE(f != nullptr);
  CHECK(f->status == FindingStatus::warn);
  CHECK(f->seen.find("/usr/share/keyrings/vendor.gpg (key ") == 0);
  CHECK(f->seen.find("used by /etc/apt/sources.list.d/vendor.sources:1-5") != std::string::npos);
  CHECK(f->seen.find("missing.gpg") == std::string::npos);
}

TEST_CASE("doctor reports a keyring that is not an OpenPGP key") {
  DoctorFixture m;
  m.fs.add_file("/etc/apt/keyrings/vendor.asc", "<html>404 Not Found</html>\n");
  m.fs.add_file("/etc/apt/sources.list.d/vendor.list",
                "deb [signed-by=/etc/apt/keyrings/vendor.asc] https://vendor.example/apt jammy main\n");
  auto findings = m.diagnose();
  const Finding* f = lookup(findings, "config.apt-keys");
  REQUIRE(f != nullptr);
  CHECK(f->status == FindingStatus::warn);
  CHECK(f->seen.rfind("/etc/apt/keyrings/vendor.asc cannot be read as an OpenPGP key (", 0) == 0);
}

TEST_CASE("doctor fails a source whose key apt's sqv no longer trusts, and says nothing of it where apt uses gpgv") {
  // The shape of NVIDIA's wsl-ubuntu key 3BF863CC: bound to its user ID with
  // SHA-1 (test key 6, made by gpg with --cert-digest-algo SHA1).
  const TestKey& sha1 = test_key(6);
  auto diagnose = [&](bool sqv) {
    DoctorFixture m;
    m.fs.add_file("/usr/share/keyrings/cuda-archive-keyring.gpg", sha1.binary);
    m.fs.add_file("/etc/apt/sources.list.d/cuda-wsl-ubuntu.list",
                  "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
                  "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/ /\n");
    if (sqv) {
      m.fs.add_file("/usr/bin/sqv", "", 0755);
      m.fs.add_file("/usr/share/apt/default-sequoia.config",
                    "[hash_algorithms]\nsha1.second_preimage_resistance = 2026-02-01\n");
    }
    m.now = 1796601600;  // 2026-12-07
    return m.diagnose();
  };
  auto with_sqv = diagnose(true);
  const Finding* f = lookup(with_sqv, "config.apt-key-bindings");
  REQUIRE(f != nullptr);
  CHECK(f->status == FindingStatus::fail);
  CHECK(f->seen.rfind("/usr/share/keyrings/cuda-archive-keyring.gpg, used by "
                      "/etc/apt/sources.list.d/cuda-wsl-ubuntu.list:1: the key " +
                          format_fingerprint(sha1.fingerprint) + " is bound to its user ID by a SHA1 self-signature",
                      0) == 0);
  CHECK(f->cause.find("Signing key on") != std::string::npos);
  CHECK(f->fix.find("does not change the machine's signature policy") != std::string::npos);
  CHECK_FALSE(lookup(diagnose(false), "config.apt-key-bindings"));
}
