// OpenPGP key files (installer/formats/openpgp.hpp), which come from the
// network: any bytes either give keys or throw OpenPgpError, nothing else;
// every fingerprint is 40 uppercase hex digits and survives gpg's grouping,
// and every subkey listed by fingerprint is described once. A binary key
// followed by its armour (AMD's packages.gpg) is cut to a prefix of the
// input that reads as keys by itself.
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/formats/openpgp_armour.hpp"

using namespace wslgpu;

namespace {

void check_fingerprint(const std::string& fp) {
  FUZZ_CHECK(fp.size() == 40 && fp.find_first_not_of("0123456789ABCDEF") == std::string::npos);
  FUZZ_CHECK(normalize_fingerprint(format_fingerprint(fp)) == fp);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes = fuzz::text_of(data, size);
  std::vector<OpenPgpKey> keys;
  try {
    keys = read_openpgp_keys(bytes);
  } catch (const OpenPgpError&) {
  }
  for (const auto& k : keys) {
    check_fingerprint(k.fingerprint);
    for (const auto& sub : k.subkey_fingerprints) check_fingerprint(sub);
    // The subkeys, in the same order, each with an expiry after its creation.
    FUZZ_CHECK(k.subkeys.size() == k.subkey_fingerprints.size());
    for (std::size_t i = 0; i < k.subkeys.size() && i < k.subkey_fingerprints.size(); ++i) {
      FUZZ_CHECK(k.subkeys[i].fingerprint == k.subkey_fingerprints[i]);
      FUZZ_CHECK(!k.subkeys[i].expires || *k.subkeys[i].expires > k.subkeys[i].created);
      FUZZ_CHECK(format_key_id(k.subkeys[i].fingerprint).size() == 19);
    }
    FUZZ_CHECK(!k.algorithm.empty());
  }
  try {
    if (auto cut = binary_key_before_its_armour(bytes)) {
      FUZZ_CHECK(bytes.compare(0, cut->size(), *cut) == 0 && cut->size() < bytes.size());
      FUZZ_CHECK(!read_openpgp_keys(*cut).empty());
    }
  } catch (const OpenPgpError&) {
  }
  // A fingerprint typed by a person (a manifest's key_fingerprint).
  std::string n = normalize_fingerprint(bytes);
  if (!n.empty()) check_fingerprint(n);
  return 0;
}
