// Over 700 lines on purpose: every case here reads keys through one parser
// (installer/formats/openpgp.hpp) and compares it with gpg's own listing by
// the helpers below (usage letters, check_same); split, the halves would
// share those helpers through a header of their own.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "installer/formats/openpgp.hpp"
#include "installer/formats/openpgp_armour.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using wslgpu::testing::contains;

namespace {

// What gpg itself says about one key (gpg --with-colons --list-keys), to
// compare the reader with.
struct GpgKey {
  std::string fingerprint;
  std::int64_t created = 0;
  std::optional<std::int64_t> expires;
  std::vector<std::string> user_ids;
  std::vector<std::string> subkey_fingerprints;
  std::string usage;  // the primary key's own capabilities, field 12 in lower case: "sc"
  std::vector<std::optional<std::int64_t>> subkey_expires;
  std::vector<std::string> subkey_usage;  // "s", "e"
};

// Key flags as the capability letters gpg lists, in its order (e, s, c, a).
std::string usage_letters(unsigned flags) {
  std::string out;
  if (flags & (kOpenPgpEncryptCommunications | kOpenPgpEncryptStorage)) out += 'e';
  if (flags & kOpenPgpSign) out += 's';
  if (flags & kOpenPgpCertify) out += 'c';
  if (flags & kOpenPgpAuthenticate) out += 'a';
  return out;
}

std::string lower_only(const std::string& field) {
  std::string out;
  for (char c : field)
    if (c >= 'a' && c <= 'z') out += c;
  return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(text);
  while (std::getline(in, field, sep)) out.push_back(field);
  return out;
}

// A throwaway GnuPG home, so that the keys made here never touch a real
// keyring; the agent gpg starts for it is stopped at the end. The keys are
// made at test time: nothing checked in can go stale or hide how it was made.
class GpgHome {
 public:
  GpgHome() {
    REQUIRE_MESSAGE(std::system("command -v gpg >/dev/null 2>&1") == 0,
                    "gpg is not installed: the OpenPGP tests make their keys with it (package gnupg, tests/deps.txt)");
    char dir[] = "/tmp/wslgpu-openpgp-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    dir_ = dir;
  }
  ~GpgHome() {
    std::string kill = "gpgconf --homedir '" + dir_ + "' --kill all >/dev/null 2>&1";
    if (std::system(kill.c_str()) != 0) MESSAGE("could not stop the gpg-agent of " << dir_);
    // gpg-agent may remove its socket while we walk the folder: a throw in a
    // destructor would abort the whole test run.
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  GpgHome(const GpgHome&) = delete;
  GpgHome& operator=(const GpgHome&) = delete;

  const std::string& dir() const { return dir_; }

  // Runs gpg ARGS in this home, at the real time or at FAKED_TIME (seconds
  // since the epoch); its standard output. Fails the test when gpg fails.
  std::string gpg(const std::string& args, std::int64_t faked_time = 0) const {
    std::string cmd = "gpg --homedir '" + dir_ + "' --batch --pinentry-mode loopback --passphrase ''";
    if (faked_time != 0) cmd += " --faked-system-time " + std::to_string(faked_time);
    cmd += " " + args + " 2>'" + dir_ + "/stderr'";
    FILE* p = ::popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int status = ::pclose(p);
    if (status != 0) {
      std::ifstream err(dir_ + "/stderr");
      std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
      FAIL("gpg " << args << " failed (status " << status << "): " << text);
    }
    return out;
  }

  // Makes a key ('Test <t@example.invalid>' unless UID is given) and returns
  // its fingerprint. SPEC is "ALGO USAGE EXPIRY", as --quick-gen-key takes.
  std::string generate(const std::string& spec, std::int64_t at = 0,
                       const std::string& uid = "Test <t@example.invalid>") const {
    gpg("--quick-gen-key '" + uid + "' " + spec, at);
    return keys().back().fingerprint;
  }

  // The keys of this home, or of the key file PATH.
  std::vector<GpgKey> keys() const { return parse_colons(gpg("--with-colons --list-keys")); }
  std::vector<GpgKey> keys_in(const std::string& path) const {
    return parse_colons(gpg("--with-colons --show-keys '" + path + "'"));
  }

 private:
  static std::vector<GpgKey> parse_colons(const std::string& listing) {
    std::vector<GpgKey> out;
    bool in_subkey = false;
    for (const std::string& line : split(listing, '\n')) {
      std::vector<std::string> f = split(line, ':');
      if (f.size() < 10) continue;
      if (f[0] == "pub") {
        out.emplace_back();
        out.back().created = std::stoll(f[5]);
        if (!f[6].empty()) out.back().expires = std::stoll(f[6]);
        if (f.size() > 11) out.back().usage = lower_only(f[11]);
        in_subkey = false;
      } else if (f[0] == "sub" && !out.empty()) {
        in_subkey = true;
        out.back().subkey_expires.push_back(f[6].empty() ? std::nullopt : std::optional(std::stoll(f[6])));
        out.back().subkey_usage.push_back(f.size() > 11 ? f[11] : "");
      } else if (f[0] == "fpr" && !out.empty()) {
        if (in_subkey)
          out.back().subkey_fingerprints.push_back(f[9]);
        else
          out.back().fingerprint = f[9];
      } else if (f[0] == "uid" && !out.empty()) {
        out.back().user_ids.push_back(f[9]);
      }
    }
    REQUIRE_FALSE(out.empty());
    return out;
  }

  std::string dir_;
};

// The message of the OpenPgpError that reading BYTES throws ("" and a failed
// check when it throws nothing, or something else).
std::string error_of(const std::string& bytes) {
  try {
    auto keys = read_openpgp_keys(bytes);
    FAIL_CHECK("read " << keys.size() << " key(s) where an OpenPgpError was expected");
  } catch (const OpenPgpError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL_CHECK("threw something other than OpenPgpError: " << e.what());
  }
  return "";
}

void check_same(const OpenPgpKey& key, const GpgKey& want) {
  CHECK(key.version == 4);
  CHECK(key.fingerprint == want.fingerprint);
  CHECK(key.created == want.created);
  CHECK(key.expires == want.expires);
  CHECK(key.user_ids == want.user_ids);
  CHECK(key.subkey_fingerprints == want.subkey_fingerprints);
  if (key.flags) CHECK(usage_letters(*key.flags) == want.usage);
  REQUIRE(key.subkeys.size() == want.subkey_fingerprints.size());
  for (std::size_t i = 0; i < key.subkeys.size(); ++i) {
    CHECK(key.subkeys[i].fingerprint == want.subkey_fingerprints[i]);
    CHECK(key.subkeys[i].expires == want.subkey_expires.at(i));
    if (key.subkeys[i].flags) CHECK(usage_letters(*key.subkeys[i].flags) == want.subkey_usage.at(i));
  }
}

std::string with_crlf(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// The armour's lines, to corrupt one on purpose.
std::vector<std::string> armour_lines(const std::string& armour) { return split(armour, '\n'); }
std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// A new-format packet (tag TAG, one-byte length) around BODY.
std::string packet(int tag, const std::string& body) {
  REQUIRE(body.size() < 192);
  return std::string{static_cast<char>(0xC0 | tag), static_cast<char>(body.size())} + body;
}

std::string be32(std::int64_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// A v4 direct-key signature (type 0x1F) by the key FINGERPRINT, made at
// CREATED, with a key expiration of EXPIRY seconds when given. It is not a
// valid signature (the reader verifies none): only its subpackets matter.
std::string direct_key_signature(const std::string& fingerprint, std::int64_t created,
                                 std::optional<std::int64_t> expiry) {
  std::string fpr_bytes;
  for (std::size_t i = 0; i < fingerprint.size(); i += 2)
    fpr_bytes += static_cast<char>(std::stoi(fingerprint.substr(i, 2), nullptr, 16));
  std::string hashed = std::string("\x16\x21\x04", 3) + fpr_bytes + std::string("\x05\x02", 2) + be32(created);
  if (expiry) hashed += std::string("\x05\x09", 2) + be32(*expiry);
  std::string body = std::string("\x04\x1F\x16\x0A\x00", 5) + static_cast<char>(hashed.size()) + hashed;
  body += std::string("\x00\x00\xAB\xCD\x00\x08\x01\x00\x08\x01", 10);  // no unhashed area, hash prefix, r, s
  return packet(2, body);
}

}  // namespace

TEST_CASE("openpgp reads an armoured key as gpg does: fingerprint, algorithm, creation and expiry times, user ID") {
  GpgHome home;
  std::string fpr = home.generate("ed25519 sign 2y");
  GpgKey want = home.keys().at(0);
  REQUIRE(want.expires);
  std::string armour = home.gpg("--export --armor " + fpr);
  REQUIRE(contains(armour, "-----BEGIN PGP PUBLIC KEY BLOCK-----"));

  auto keys = read_openpgp_keys(armour);
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].fingerprint == fpr);
  CHECK(keys[0].algorithm == "ed25519");
  CHECK(keys[0].user_ids == std::vector<std::string>{"Test <t@example.invalid>"});
  CHECK(keys[0].subkey_fingerprints.empty());
  check_same(keys[0], want);

  SUBCASE("the same key, binary, reads the same") {
    std::string binary = home.gpg("--export " + fpr);
    REQUIRE(!binary.empty());
    REQUIRE((static_cast<unsigned char>(binary[0]) & 0x80) != 0);
    auto binary_keys = read_openpgp_keys(binary);
    REQUIRE(binary_keys.size() == 1);
    check_same(binary_keys[0], want);
    CHECK(binary_keys[0].algorithm == "ed25519");
  }
  SUBCASE("CRLF line ends, armour headers and no checksum line change nothing") {
    std::vector<std::string> lines = armour_lines(armour);
    lines.insert(lines.begin() + 1, {"Version: GnuPG v2", "Comment: a test key"});
    std::string headed = joined(lines);
    auto crlf = read_openpgp_keys(with_crlf(headed));
    REQUIRE(crlf.size() == 1);
    check_same(crlf[0], want);

    std::vector<std::string> unsummed;
    for (const auto& l : armour_lines(armour))
      if (l.empty() || l[0] != '=') unsummed.push_back(l);
    REQUIRE(unsummed.size() + 1 == armour_lines(armour).size());  // gpg writes one checksum line
    auto no_sum = read_openpgp_keys(joined(unsummed));
    REQUIRE(no_sum.size() == 1);
    check_same(no_sum[0], want);
  }
  SUBCASE("an armoured key inside other text, as a deb822 Signed-By field holds it, reads the same") {
    std::string field = "Types: deb\nSigned-By:\n";
    for (const auto& l : armour_lines(armour)) field += " " + (l.empty() ? std::string(".") : l) + "\n";
    auto in_field = read_openpgp_keys(field);
    REQUIRE(in_field.size() == 1);
    check_same(in_field[0], want);
  }
}

TEST_CASE("openpgp reads an RSA key with an encryption subkey as one primary key listing the subkey's fingerprint") {
  GpgHome home;
  std::string fpr = home.generate("rsa2048 default 2y");
  home.gpg("--quick-add-key " + fpr + " rsa2048 encr 1y");
  GpgKey want = home.keys().at(0);
  REQUIRE(want.subkey_fingerprints.size() == 1);

  for (const std::string& exported : {home.gpg("--export " + fpr), home.gpg("--export --armor " + fpr)}) {
    auto keys = read_openpgp_keys(exported);
    REQUIRE(keys.size() == 1);
    CHECK(keys[0].fingerprint == fpr);
    CHECK(keys[0].algorithm == "rsa2048");
    CHECK(keys[0].subkey_fingerprints == want.subkey_fingerprints);
    CHECK(keys[0].subkey_fingerprints[0] != fpr);
    check_same(keys[0], want);
  }
}

TEST_CASE("openpgp reads two keys exported into one file as two primary keys, in file order") {
  GpgHome home;
  std::string first = home.generate("ed25519 sign 1y", 0, "First <first@example.invalid>");
  std::string second = home.generate("ed25519 sign never", 0, "Second <second@example.invalid>");
  home.gpg("--quick-add-key " + second + " cv25519 encr 1y");
  std::vector<GpgKey> want = home.keys();
  REQUIRE(want.size() == 2);
  REQUIRE(want[0].fingerprint == first);

  for (const std::string& exported : {home.gpg("--export"), home.gpg("--export --armor")}) {
    auto keys = read_openpgp_keys(exported);
    REQUIRE(keys.size() == 2);
    CHECK(keys[0].fingerprint == first);
    CHECK(keys[1].fingerprint == second);
    check_same(keys[0], want[0]);
    check_same(keys[1], want[1]);
    CHECK(keys[0].user_ids == std::vector<std::string>{"First <first@example.invalid>"});
    CHECK(keys[1].user_ids == std::vector<std::string>{"Second <second@example.invalid>"});
    CHECK(keys[0].subkey_fingerprints.empty());
    CHECK(keys[1].subkey_fingerprints.size() == 1);
  }
  SUBCASE("and two armoured blocks one after the other, too") {
    auto keys =
        read_openpgp_keys(home.gpg("--export --armor " + first) + "\n" + home.gpg("--export --armor " + second));
    REQUIRE(keys.size() == 2);
    CHECK(keys[0].fingerprint == first);
    CHECK(keys[1].fingerprint == second);
  }
}

TEST_CASE(
    "openpgp reads each subkey's expiry and usage from its binding, as gpg does, for a key whose subkey expired") {
  // NVIDIA's container-toolkit key: a primary key [SCE] that never expires,
  // with an old signing subkey that expired on 2021-06-16.
  GpgHome home;
  std::string fpr = home.generate("ed25519 sign never", 1577836800);
  home.gpg("--quick-add-key " + fpr + " ed25519 sign 1d", 1623715200);
  home.gpg("--quick-add-key " + fpr + " cv25519 encr never");
  GpgKey want = home.keys().at(0);
  REQUIRE(want.subkey_expires.size() == 2);
  REQUIRE(want.subkey_expires[0] == 1623715200 + 86400);
  REQUIRE(want.subkey_usage[0] == "s");

  for (const std::string& exported : {home.gpg("--export " + fpr), home.gpg("--export --armor " + fpr)}) {
    auto keys = read_openpgp_keys(exported);
    REQUIRE(keys.size() == 1);
    check_same(keys[0], want);
    CHECK_FALSE(keys[0].expires);
    CHECK(keys[0].flags == (kOpenPgpSign | kOpenPgpCertify));
    CHECK(primary_can_sign(keys[0]));
    REQUIRE(keys[0].subkeys.size() == 2);
    const OpenPgpSubkey& old = keys[0].subkeys[0];
    CHECK(old.created == 1623715200);
    CHECK(old.expires == 1623715200 + 86400);
    CHECK(old.flags == kOpenPgpSign);
    CHECK(old.algorithm == "ed25519");
    CHECK(subkey_can_sign(old));
    const OpenPgpSubkey& enc = keys[0].subkeys[1];
    CHECK_FALSE(enc.expires);
    CHECK(enc.algorithm == "cv25519");
    CHECK_FALSE(subkey_can_sign(enc));
  }
  SUBCASE("a primary key that only certifies cannot sign") {
    std::string cert = home.generate("ed25519 cert never", 1577836800, "Cert <c@example.invalid>");
    auto keys = read_openpgp_keys(home.gpg("--export " + cert));
    REQUIRE(keys.size() == 1);
    CHECK(keys[0].flags == kOpenPgpCertify);
    CHECK_FALSE(primary_can_sign(keys[0]));
    check_same(keys[0], home.keys().at(1));
  }
}

TEST_CASE("openpgp format_key_id groups the long key ID, the last 16 digits") {
  CHECK(format_key_id("C95B321B61E88C1809C4F759DDCAE044F796ECB0") == "DDCA E044 F796 ECB0");
  CHECK(format_key_id("not a fingerprint") == "not a fingerprint");
}

TEST_CASE("openpgp gives a key that never expires no expiry") {
  GpgHome home;
  std::string fpr = home.generate("ed25519 sign never");
  REQUIRE_FALSE(home.keys().at(0).expires);
  auto keys = read_openpgp_keys(home.gpg("--export " + fpr));
  REQUIRE(keys.size() == 1);
  CHECK_FALSE(keys[0].expires);
}

TEST_CASE("openpgp takes a changed expiry from the newest self-signature, whatever the file order") {
  // The key is made a day ago, so that the new self-signature is newer by
  // the clock, not only by its place. Importing the old export back puts
  // the old self-signature after the new one in the file: the reader must
  // go by the signatures' creation times.
  GpgHome home;
  std::int64_t day_ago = static_cast<std::int64_t>(std::time(nullptr)) - 86400;
  std::string fpr = home.generate("ed25519 sign 1y", day_ago);
  std::optional<std::int64_t> old_expiry = home.keys().at(0).expires;
  REQUIRE(old_expiry);
  std::string old_export = home.gpg("--export " + fpr);

  SUBCASE("a later expiry") {
    home.gpg("--quick-set-expire " + fpr + " 3y");
    std::filesystem::path old_file = std::filesystem::path(home.dir()) / "old.gpg";
    std::ofstream(old_file, std::ios::binary) << old_export;
    home.gpg("--import '" + old_file.string() + "'");
    GpgKey want = home.keys().at(0);
    REQUIRE(want.expires);
    REQUIRE(*want.expires > *old_expiry);
    std::string both = home.gpg("--export " + fpr);
    REQUIRE(both.size() > old_export.size());  // both self-signatures are there

    auto keys = read_openpgp_keys(both);
    REQUIRE(keys.size() == 1);
    CHECK(keys[0].expires == want.expires);
    auto old_keys = read_openpgp_keys(old_export);
    REQUIRE(old_keys.size() == 1);
    CHECK(old_keys[0].expires == old_expiry);
  }
  SUBCASE("no expiry any more") {
    home.gpg("--quick-set-expire " + fpr + " never");
    REQUIRE_FALSE(home.keys().at(0).expires);
    auto keys = read_openpgp_keys(home.gpg("--export " + fpr));
    REQUIRE(keys.size() == 1);
    CHECK_FALSE(keys[0].expires);
  }
}

TEST_CASE("openpgp takes a direct-key self-signature's expiry first, and ignores one that names none") {
  GpgHome home;
  std::string fpr = home.generate("ed25519 sign 1y");
  GpgKey want = home.keys().at(0);
  REQUIRE(want.expires);
  std::string binary = home.gpg("--export " + fpr);
  std::size_t key_end = 2 + static_cast<unsigned char>(binary[1]);  // gpg: an old-format, 1-byte length
  REQUIRE(static_cast<unsigned char>(binary[0]) == 0x98);
  auto with_direct = [&](const std::string& sig) { return binary.substr(0, key_end) + sig + binary.substr(key_end); };

  // As the Debian archive keys have: a direct-key signature newer than the
  // user ID's that only names a designated revoker.
  auto keys = read_openpgp_keys(with_direct(direct_key_signature(fpr, want.created + 3600, std::nullopt)));
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].expires == want.expires);

  // One that gives an expiry decides it, even when older than the user ID's.
  keys = read_openpgp_keys(with_direct(direct_key_signature(fpr, want.created - 3600, 864000)));
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].expires == want.created + 864000);

  // One by another key is no self-signature.
  std::string other = "0123456789ABCDEF0123456789ABCDEF01234567";
  keys = read_openpgp_keys(with_direct(direct_key_signature(other, want.created + 3600, 864000)));
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].expires == want.expires);
}

TEST_CASE("openpgp reads the Debian archive keyrings as gpg does") {
  // Real keys from years of Debian releases: RSA, DSA and Ed25519,
  // subkeys, direct-key signatures and expiry changes.
  GpgHome home;
  for (const char* path :
       {"/usr/share/keyrings/debian-archive-keyring.gpg", "/usr/share/keyrings/debian-archive-removed-keys.gpg"}) {
    CAPTURE(path);
    std::ifstream file(path, std::ios::binary);
    REQUIRE_MESSAGE(file.good(), "the package debian-archive-keyring (tests/deps.txt) is needed");
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<GpgKey> want = home.keys_in(path);
    auto keys = read_openpgp_keys(bytes);
    REQUIRE(keys.size() == want.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      CAPTURE(keys[i].fingerprint);
      check_same(keys[i], want[i]);
    }
  }
}

TEST_CASE("openpgp refuses v6 and v5 key packets by name, and v3 ones as obsolete") {
  std::string created = std::string("\x65\x00\x00\x00", 4);
  std::string material = std::string(4, '\0') + std::string(32, 'k');
  material[3] = 32;
  std::string v6 = packet(6, "\x06" + created + "\x1b" + material);  // Ed25519 (27), RFC 9580
  std::string v5 = packet(6, "\x05" + created + "\x16" + material);  // EdDSA (22), the draft's layout
  std::string msg = error_of(v6);
  CHECK(contains(msg, "packet 1 (Public-Key, tag 6) at offset 0"));
  CHECK(contains(msg, "v6 key (RFC 9580)"));
  CHECK(contains(msg, "supports v4 keys only"));
  msg = error_of(v5);
  CHECK(contains(msg, "v5 key"));
  CHECK(contains(msg, "supports v4 keys only"));

  // A v3 RSA key: version, creation time, validity days, algorithm, n, e.
  std::string v3 = packet(6, std::string("\x03", 1) + created + std::string("\x00\x00\x01\x00\x08\xC5\x00\x02\x03", 9));
  msg = error_of(v3);
  CHECK(contains(msg, "v3 key"));
  CHECK(contains(msg, "obsolete"));
}

TEST_CASE("openpgp reads a key file cut short at any byte as fewer packets or refuses it, never over-reading") {
  GpgHome home;
  std::string fpr = home.generate("ed25519 sign 1y");
  home.gpg("--quick-add-key " + fpr + " cv25519 encr 1y");
  std::string binary = home.gpg("--export " + fpr);
  std::string armour = home.gpg("--export --armor " + fpr);
  REQUIRE(read_openpgp_keys(binary).at(0).subkey_fingerprints.size() == 1);

  // Reads each prefix of FULL; how many were read without an error.
  auto read_prefixes = [&](const std::string& full) {
    int read = 0;
    for (std::size_t n = 0; n < full.size(); ++n) {
      CAPTURE(n);
      try {
        auto keys = read_openpgp_keys(full.substr(0, n));
        // Cut between packets: what is there is the key, with less of it.
        REQUIRE(keys.size() == 1);
        CHECK(keys[0].fingerprint == fpr);
        CHECK(keys[0].user_ids.size() <= 1);
        CHECK(keys[0].subkey_fingerprints.size() <= 1);
        ++read;
      } catch (const OpenPgpError& e) {
        CHECK(std::string(e.what()).size() > 10);
      } catch (const std::exception& e) {
        FAIL("prefix of " << n << " bytes: not an OpenPgpError: " << e.what());
      }
    }
    return read;
  };
  // Key, user ID, signature, subkey, binding: four cuts fall between packets.
  CHECK(read_prefixes(binary) == 4);
  // Armour is whole only once its END line is: only the cut of the last
  // newline leaves it readable.
  CHECK(read_prefixes(armour) == 1);

  SUBCASE("the error names the packet, its offset and the truncation") {
    std::string msg = error_of(binary.substr(0, 20));
    CHECK(contains(msg, "packet 1 (Public-Key, tag 6) at offset 0 of the key data"));
    CHECK(contains(msg, "truncated"));
    std::size_t key_len = 2 + static_cast<unsigned char>(binary[1]);  // gpg writes an old-format, 1-byte length
    msg = error_of(binary.substr(0, key_len + 3));
    CHECK(contains(msg, "packet 2 (User ID, tag 13) at offset " + std::to_string(key_len) + " of the key data"));
  }
  SUBCASE("every byte changed in turn is read or refused, never over-read") {
    for (std::size_t i = 0; i < binary.size(); ++i) {
      for (int x : {0xFF, 0x01, 0x80}) {
        std::string changed = binary;
        changed[i] = static_cast<char>(changed[i] ^ x);
        try {
          (void)read_openpgp_keys(changed);
        } catch (const OpenPgpError&) {
        }
      }
    }
  }
}

TEST_CASE("openpgp refuses corrupt armour saying what is wrong and where") {
  GpgHome home;
  std::string fpr = home.generate("ed25519 sign 1y");
  std::string armour = home.gpg("--export --armor " + fpr);
  std::vector<std::string> lines = armour_lines(armour);
  std::size_t sum_line = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty() && lines[i][0] == '=') sum_line = i;
  REQUIRE(sum_line > 2);

  SUBCASE("a wrong checksum") {
    std::vector<std::string> bad = lines;
    bad[sum_line][1] = bad[sum_line][1] == 'A' ? 'B' : 'A';
    std::string msg = error_of(joined(bad));
    CHECK(contains(msg, "armour line " + std::to_string(sum_line + 1)));
    CHECK(contains(msg, "CRC-24 checksum does not match"));
  }
  SUBCASE("a checksum that matches but data changed") {
    std::vector<std::string> bad = lines;
    bad[3][5] = bad[3][5] == 'A' ? 'B' : 'A';
    CHECK(contains(error_of(joined(bad)), "CRC-24 checksum does not match"));
  }
  SUBCASE("a character that is not base64") {
    std::vector<std::string> bad = lines;
    bad[3][7] = '*';
    std::string msg = error_of(joined(bad));
    CHECK(contains(msg, "armour line 4"));
    CHECK(contains(msg, "'*' (0x2A) is not a base64 character"));
  }
  SUBCASE("no END line") {
    std::string cut = armour.substr(0, armour.find("-----END"));
    std::string msg = error_of(cut);
    CHECK(contains(msg, "has no -----END PGP PUBLIC KEY BLOCK----- line"));
    CHECK(contains(msg, "truncated"));
  }
  SUBCASE("a line missing from the middle") {
    std::vector<std::string> bad = lines;
    bad.erase(bad.begin() + 3);
    CHECK_FALSE(error_of(joined(bad)).empty());
  }
}

TEST_CASE("openpgp refuses a secret key as not a public key") {
  GpgHome home;
  std::string fpr = home.generate("ed25519 sign 1y");
  std::string binary = home.gpg("--export-secret-keys " + fpr);
  std::string armour = home.gpg("--export-secret-keys --armor " + fpr);
  std::string msg = error_of(binary);
  CHECK(contains(msg, "packet 1 (Secret-Key, tag 5) at offset 0"));
  CHECK(contains(msg, "a secret key, not a public key"));
  CHECK(contains(error_of(armour), "a secret key, not a public key"));
}

TEST_CASE("openpgp says so when the input holds no public key") {
  const std::string none = "no OpenPGP public key found";
  CHECK(contains(error_of(""), none));
  CHECK(contains(error_of("This is not a key.\nJust some text.\n"), none));
  CHECK(contains(error_of("<html><body>404 Not Found</body></html>"), none));
  // A signature alone, detached, from gpg: packets, but no key among them.
  GpgHome home;
  home.generate("ed25519 sign 1y");
  std::filesystem::path file = std::filesystem::path(home.dir()) / "signed.txt";
  std::ofstream(file) << "signed text\n";
  home.gpg("--detach-sign '" + file.string() + "'");
  std::ifstream sig(file.string() + ".sig", std::ios::binary);
  std::string signature((std::istreambuf_iterator<char>(sig)), std::istreambuf_iterator<char>());
  REQUIRE_FALSE(signature.empty());
  CHECK(contains(error_of(signature), none));
}

TEST_CASE("openpgp reads packets framed in every length form and refuses partial lengths in a key file") {
  // One hand-made v4 Ed25519 key, its body framed five ways: the
  // fingerprint depends only on the body, so all five must agree.
  std::string oid = "\x09\x2B\x06\x01\x04\x01\xDA\x47\x0F\x01";
  std::string point = std::string("\x01\x07\x40", 3) + std::string(32, 'p');
  std::string body = std::string("\x04\x65\x00\x00\x00\x16", 6) + oid + point;
  auto size = static_cast<char>(body.size());
  std::vector<std::string> framings = {
      std::string{static_cast<char>(0xC6), size} + body,                                    // new, 1-byte length
      std::string{static_cast<char>(0xC6), static_cast<char>(0xFF), 0, 0, 0, size} + body,  // new, 5-byte length
      std::string{static_cast<char>(0x98), size} + body,                                    // old, 1-byte length
      std::string{static_cast<char>(0x99), 0, size} + body,                                 // old, 2-byte length
      std::string{static_cast<char>(0x9A), 0, 0, 0, size} + body,                           // old, 4-byte length
      std::string{static_cast<char>(0x9B)} + body,                                          // old, to the end
  };
  std::string fingerprint;
  for (const auto& bytes : framings) {
    auto keys = read_openpgp_keys(bytes);
    REQUIRE(keys.size() == 1);
    CHECK(keys[0].algorithm == "ed25519");
    CHECK(keys[0].created == 0x65000000);
    CHECK_FALSE(keys[0].expires);
    if (fingerprint.empty()) fingerprint = keys[0].fingerprint;
    CHECK(keys[0].fingerprint == fingerprint);
  }
  CHECK(normalize_fingerprint(fingerprint) == fingerprint);

  // A 2-byte length needs a body of 192 bytes or more: a user ID of 300.
  std::string uid(300, 'u');
  std::string two_byte = framings[0] +
                         std::string{static_cast<char>(0xCD), static_cast<char>(192 + ((300 - 192) >> 8)),
                                     static_cast<char>((300 - 192) & 0xff)} +
                         uid;
  auto keys = read_openpgp_keys(two_byte);
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].user_ids == std::vector<std::string>{uid});

  std::string partial = std::string{static_cast<char>(0xC6), static_cast<char>(0xE2)} + body;
  std::string msg = error_of(partial);
  CHECK(contains(msg, "packet 1 (Public-Key, tag 6) at offset 0"));
  CHECK(contains(msg, "partial body length"));

  CHECK(contains(error_of(framings[0] + "\x0A"), "packet 2 at offset " + std::to_string(framings[0].size()) +
                                                     " of the key data: byte 0x0A does not start an OpenPGP packet"));
}

TEST_CASE("openpgp names ECC keys by their curve") {
  auto name = [](std::uint8_t algo, const std::string& oid) {
    std::string body = std::string("\x04\x65\x00\x00\x00", 5) + static_cast<char>(algo) +
                       static_cast<char>(oid.size()) + oid + std::string("\x00\x08\x04", 3);
    if (algo == 18) body += std::string("\x03\x01\x08\x07", 4);  // ECDH's KDF parameters
    return read_openpgp_keys(packet(6, body)).at(0).algorithm;
  };
  const std::string p256 = "\x2A\x86\x48\xCE\x3D\x03\x01\x07";
  CHECK(name(19, p256) == "ecdsa-nistp256");
  CHECK(name(18, p256) == "ecdh-nistp256");
  CHECK(name(19, std::string("\x2B\x81\x04\x00\x22", 5)) == "ecdsa-nistp384");
  CHECK(name(19, std::string("\x2B\x81\x04\x00\x23", 5)) == "ecdsa-nistp521");
  CHECK(name(19, std::string("\x2B\x81\x04\x00\x0A", 5)) == "ecdsa-secp256k1");
  CHECK(name(19, "\x2B\x24\x03\x03\x02\x08\x01\x01\x07") == "ecdsa-brainpoolP256r1");
  CHECK(name(22, "\x2B\x06\x01\x04\x01\xDA\x47\x0F\x01") == "ed25519");
  CHECK(name(18, "\x2B\x06\x01\x04\x01\x97\x55\x01\x05\x01") == "cv25519");
  CHECK(name(19, "\x2B\x06\x01\x04\x01\x82\x37\x01") == "ecdsa (unknown curve 1.3.6.1.4.1.311.1)");

  // And keys gpg made, whose OIDs hold zero bytes.
  GpgHome home;
  for (const char* curve : {"nistp384", "nistp521"}) {
    std::string fpr = home.generate(std::string(curve) + " sign 1y", 0, std::string(curve) + " <t@example.invalid>");
    CHECK(read_openpgp_keys(home.gpg("--export " + fpr)).at(0).algorithm == "ecdsa-" + std::string(curve));
  }
}

TEST_CASE("openpgp normalize_fingerprint takes spaced or lower-case hex and refuses anything else") {
  const std::string fpr = "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C";
  CHECK(normalize_fingerprint(fpr) == fpr);
  CHECK(normalize_fingerprint("CA8B B472 7A47 B4D0 9B4E  E896 9386 B48A 1A69 3C5C") == fpr);
  CHECK(normalize_fingerprint("ca8bb4727a47b4d09b4ee8969386b48a1a693c5c") == fpr);
  CHECK(normalize_fingerprint(" ca8b b472 7A47 b4d0 9b4e e896 9386 b48a 1a69 3c5c ") == fpr);
  CHECK(normalize_fingerprint("CA8BB4727A47B4D09B4EE8969386B48A1A693C5") == "");    // 39 digits
  CHECK(normalize_fingerprint("CA8BB4727A47B4D09B4EE8969386B48A1A693C5C0") == "");  // 41
  CHECK(normalize_fingerprint("9386B48A1A693C5C") == "");                           // a long key ID
  CHECK(normalize_fingerprint("GA8BB4727A47B4D09B4EE8969386B48A1A693C5C") == "");   // not hex
  CHECK(normalize_fingerprint("0xCA8BB4727A47B4D09B4EE8969386B48A1A693C") == "");
  CHECK(normalize_fingerprint("") == "");
}

TEST_CASE("openpgp format_fingerprint groups the digits as gpg prints them") {
  CHECK(format_fingerprint("ca8bb4727a47b4d09b4ee8969386b48a1a693c5c") ==
        "CA8B B472 7A47 B4D0 9B4E  E896 9386 B48A 1A69 3C5C");
  CHECK(format_fingerprint("not a fingerprint") == "not a fingerprint");
}

TEST_CASE("openpgp reads the hash algorithm of the user ID binding") {
  GpgHome home;
  std::string strong = home.generate("ed25519 sign never");
  auto keys = read_openpgp_keys(home.gpg("--export " + strong));
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].user_id_binding_hash != 0);
  CHECK(keys[0].user_id_binding_hash != 2);
  // gpg's --cert-digest-algo SHA1 (an RSA key: gpg signs nothing with SHA-1
  // and EdDSA), as NVIDIA's repository key 3BF863CC is bound. (gpg 2.2 makes
  // no SHA-1 subkey binding at all: the subkey case is read from structs in
  // test_apt_signature_policy.cpp.)
  home.gpg("--cert-digest-algo SHA1 --quick-gen-key 'Weak <w@example.invalid>' rsa2048 sign never");
  std::string fpr = home.keys().back().fingerprint;
  keys = read_openpgp_keys(home.gpg("--export " + fpr));
  REQUIRE(keys.size() == 1);
  CHECK(keys[0].user_id_binding_hash == 2);
  CHECK(openpgp_hash_name(keys[0].user_id_binding_hash) == "SHA1");
  CHECK(openpgp_hash_name(8) == "SHA256");
  CHECK(openpgp_hash_name(99) == "hash algorithm 99");
}

TEST_CASE("a binary key followed by its own armour, as AMD publishes its Core SDK key, gives apt the binary key alone") {
  GpgHome home;
  std::string fpr = home.generate("ed25519 sign 1y");
  const std::string binary = home.gpg("--export " + fpr);
  const std::string armour = home.gpg("--export --armor " + fpr);
  REQUIRE(!binary.empty());

  auto cut = binary_key_before_its_armour(binary + armour);
  REQUIRE(cut);
  CHECK(*cut == binary);
  CHECK(read_openpgp_keys(*cut).front().fingerprint == fpr);
  SUBCASE("with a line break between the two, as a shell's echo leaves one") {
    auto cut2 = binary_key_before_its_armour(binary + "\r\n" + armour);
    REQUIRE(cut2);
    CHECK(*cut2 == binary);
  }
  SUBCASE("a plain binary key or a plain armoured one is not this shape") {
    CHECK_FALSE(binary_key_before_its_armour(binary));
    CHECK_FALSE(binary_key_before_its_armour(armour));
    CHECK_FALSE(binary_key_before_its_armour(""));
  }
  SUBCASE("armour of another key after the binary key is refused, naming both") {
    std::string other = home.generate("ed25519 sign 1y", 0, "Other <o@example.invalid>");
    try {
      binary_key_before_its_armour(binary + home.gpg("--export --armor " + other));
      FAIL("expected OpenPgpError");
    } catch (const OpenPgpError& e) {
      CHECK(contains(e.what(), format_fingerprint(fpr)));
      CHECK(contains(e.what(), format_fingerprint(other)));
    }
  }
  SUBCASE("the reader alone refuses the two together, which is why they are cut") {
    CHECK_THROWS_AS(read_openpgp_keys(binary + armour), OpenPgpError);
  }
}
