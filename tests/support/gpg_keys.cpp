#include "support/gpg_keys.hpp"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <vector>

namespace wslgpu::testing {

namespace {

class GpgHome {
 public:
  GpgHome() {
    REQUIRE_MESSAGE(std::system("command -v gpg >/dev/null 2>&1") == 0,
                    "gpg is not installed: the key tests make their keys with it (package gnupg, tests/deps.txt)");
    std::string tmpl = (std::filesystem::temp_directory_path() / "wslgpu-gpg-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    for (int i = 0; i < 2; ++i) {
      std::string uid = "Test Key " + std::to_string(i) + " <t" + std::to_string(i) + "@example.invalid>";
      gpg("--quick-gen-key '" + uid + "' ed25519 sign 1y");
      TestKey& k = keys_[static_cast<std::size_t>(i)];
      std::istringstream listing(gpg("--with-colons --list-keys '" + uid + "'"));
      std::string line;
      while (std::getline(listing, line))
        if (line.rfind("fpr:", 0) == 0 && k.fingerprint.empty()) k.fingerprint = line.substr(12, 40);
      REQUIRE(k.fingerprint.size() == 40);
      k.armoured = gpg("--export --armor " + k.fingerprint);
      k.binary = gpg("--export " + k.fingerprint);
    }
    // Made on 2020-01-01 to expire a year later; then extended, today.
    const std::string uid = "Renewed Key <t2@example.invalid>";
    gpg("--faked-system-time 1577836800 --quick-gen-key '" + uid + "' ed25519 sign 1y");
    TestKey& k = keys_[2];
    std::istringstream listing(gpg("--with-colons --list-keys '" + uid + "'"));
    std::string line;
    while (std::getline(listing, line)) {
      if (line.rfind("fpr:", 0) == 0 && k.fingerprint.empty()) k.fingerprint = line.substr(12, 40);
      if (line.rfind("pub:", 0) == 0) {
        std::size_t field = 0, pos = 0;
        while (field < 6 && pos != std::string::npos) {
          pos = line.find(':', pos + 1);
          ++field;
        }
        k.expired_at = std::stoll(line.substr(pos + 1, line.find(':', pos + 1) - pos - 1));
      }
    }
    REQUIRE(k.fingerprint.size() == 40);
    k.expired_binary = gpg("--export " + k.fingerprint);
    gpg("--quick-set-expire " + k.fingerprint + " 2y");
    k.armoured = gpg("--export --armor " + k.fingerprint);
    k.binary = gpg("--export " + k.fingerprint);
    make_with_expired_subkey(keys_[3], "Expired Subkey <t3@example.invalid>", "sign");
    make_with_expired_subkey(keys_[4], "Certify Only <t4@example.invalid>", "cert");
    make_with_expired_subkey(keys_[5], "Certify, New Subkey <t5@example.invalid>", "cert", true);
    // Bound with SHA-1, as NVIDIA's repository key 3BF863CC is: an RSA key,
    // since gpg makes no SHA-1 signature with an EdDSA key.
    const std::string sha1_uid = "SHA-1 Bound <t6@example.invalid>";
    gpg("--cert-digest-algo SHA1 --quick-gen-key '" + sha1_uid + "' rsa2048 sign never");
    TestKey& s1 = keys_[6];
    s1.fingerprint = fingerprints_of(sha1_uid).at(0);
    s1.armoured = gpg("--export --armor " + s1.fingerprint);
    s1.binary = gpg("--export " + s1.fingerprint);
  }
  ~GpgHome() {
    std::string kill = "gpgconf --homedir '" + dir_ + "' --kill all >/dev/null 2>&1";
    if (std::system(kill.c_str()) != 0) std::fprintf(stderr, "could not stop the gpg-agent of %s\n", dir_.c_str());
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  GpgHome(const GpgHome&) = delete;
  GpgHome& operator=(const GpgHome&) = delete;

  const TestKey& key(int which) const { return keys_.at(static_cast<std::size_t>(which)); }

 private:
  std::string gpg(const std::string& args) const {
    std::string cmd = "gpg --homedir '" + dir_ + "' --batch --pinentry-mode loopback --passphrase '' " + args + " 2>'" +
                      dir_ + "/stderr'";
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int status = ::pclose(p);
    REQUIRE_MESSAGE(status == 0, "gpg " << args << " failed (status " << status << "); see " << dir_ << "/stderr");
    return out;
  }

  // A primary key of USAGE ("sign" gives [SC], "cert" [C]) made on
  // 2020-01-01 without expiry, then a signing subkey added with gpg's clock
  // set to 2021-06-15 that expires a day later: gpg writes the binding
  // signature at that time, so the subkey is expired from then on.
  // With FRESH_SUBKEY, a second signing subkey is added today, without expiry.
  void make_with_expired_subkey(TestKey& k, const std::string& uid, const std::string& usage,
                                bool fresh_subkey = false) const {
    gpg("--faked-system-time 1577836800 --quick-gen-key '" + uid + "' ed25519 " + usage + " never");
    k.fingerprint = fingerprints_of(uid).at(0);
    gpg("--faked-system-time 1623715200 --quick-add-key " + k.fingerprint + " ed25519 sign 1d");
    if (fresh_subkey) gpg("--quick-add-key " + k.fingerprint + " ed25519 sign never");
    std::vector<std::string> fprs = fingerprints_of(uid);
    REQUIRE(fprs.size() == (fresh_subkey ? 3u : 2u));
    k.expired_subkey = fprs[1];
    k.subkey_expired_at = 1623715200 + 86400;
    k.armoured = gpg("--export --armor " + k.fingerprint);
    k.binary = gpg("--export " + k.fingerprint);
  }

  // The fingerprints gpg lists for UID: the primary key's, then its subkeys'.
  std::vector<std::string> fingerprints_of(const std::string& uid) const {
    std::istringstream listing(gpg("--with-colons --list-keys '" + uid + "'"));
    std::vector<std::string> out;
    std::string line;
    while (std::getline(listing, line))
      if (line.rfind("fpr:", 0) == 0) out.push_back(line.substr(12, 40));
    REQUIRE_FALSE(out.empty());
    REQUIRE(out[0].size() == 40);
    return out;
  }

  std::string dir_;
  std::array<TestKey, 7> keys_;
};

}  // namespace

const TestKey& test_key(int which) {
  static GpgHome home;
  return home.key(which);
}

}  // namespace wslgpu::testing
