#include "support/gpg_keys.hpp"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

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

  std::string dir_;
  std::array<TestKey, 3> keys_;
};

}  // namespace

const TestKey& test_key(int which) {
  static GpgHome home;
  return home.key(which);
}

}  // namespace wslgpu::testing
