// OpenPGP public keys (RFC 4880, with RFC 9580's packet framing), read far
// enough to pin a repository's signing key: the primary keys of a key file,
// ASCII-armoured or binary, each with its v4 fingerprint, creation and expiry
// times, user IDs and subkeys. Nothing here verifies a signature: apt does
// that with the key, once we know the key is the one the vendor publishes.
// Parsed by hand (no gpg, no shell): the tool runs as root on files that came
// from the network, and the subset needed is small.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wslgpu {

struct OpenPgpKey {
  int version = 4;
  std::string fingerprint;   // 40 uppercase hex digits (v4: SHA-1 of the key packet)
  // "rsa4096", "dsa2048", "elg2048", "ed25519", "cv25519", "ecdsa-nistp256",
  // "ecdh-brainpoolP256r1", "ecdsa (unknown curve 1.2.3.4)", "unknown algorithm 99".
  std::string algorithm;
  std::int64_t created = 0;  // seconds since the epoch
  // From the key-expiration subpacket (created + that many seconds) of the
  // newest direct-key self-signature when it has one, else of the newest
  // user ID self-signature, as gpg reads it; nullopt when the key does not
  // expire. Signatures are not verified (see above).
  std::optional<std::int64_t> expires;
  std::vector<std::string> user_ids;
  std::vector<std::string> subkey_fingerprints;
};

// Why a key file cannot be read: corrupt, truncated, not a public key, or
// a key version this reader does not support (v5/v6 say so by name).
class OpenPgpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every primary key (transferable public key) in BYTES, in file order.
// BYTES is ASCII armour ("-----BEGIN PGP PUBLIC KEY BLOCK-----", checksum
// line optional) or binary packets (a .gpg keyring). Throws OpenPgpError.
std::vector<OpenPgpKey> read_openpgp_keys(const std::string& bytes);

// "CA8B B472 7A47 ..." or "ca8bb472..." -> "CA8BB4727A47...", or "" when
// TEXT is not 40 hexadecimal digits once spaces are removed.
std::string normalize_fingerprint(const std::string& text);

// "CA8B B472 7A47 B4D0 9B4E  E896 9386 B48A 1A69 3C5C" (gpg's grouping).
std::string format_fingerprint(const std::string& fingerprint);

}  // namespace wslgpu
