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

// Key flags (RFC 4880 5.2.3.21), the bits of the key-flags subpacket.
enum OpenPgpKeyFlag : unsigned {
  kOpenPgpCertify = 0x01,
  kOpenPgpSign = 0x02,
  kOpenPgpEncryptCommunications = 0x04,
  kOpenPgpEncryptStorage = 0x08,
  kOpenPgpAuthenticate = 0x20,
};

// A subkey, as its newest binding signature by the primary key (type 0x18)
// describes it. Signatures are not verified (see above).
struct OpenPgpSubkey {
  std::string fingerprint;              // 40 uppercase hex digits
  std::string algorithm;                // as OpenPgpKey::algorithm
  std::int64_t created = 0;             // seconds since the epoch
  std::optional<std::int64_t> expires;  // created + the binding's key expiration; nullopt: never
  // The binding's key-flags subpacket (OpenPgpKeyFlag bits); nullopt when it
  // has none, or when the subkey has no binding signature at all.
  std::optional<unsigned> flags;
  // The hash algorithm of that binding signature (RFC 9580 9.5: 2 is SHA-1,
  // 8 SHA-256); 0 when there is none. What a verifier's policy judges
  // (apt's sqv refuses SHA-1 bindings after a cutoff date).
  int binding_hash = 0;
};

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
  // The key flags of the self-signature the expiry is taken from (OpenPgpKeyFlag
  // bits); nullopt when it has none (gpg then goes by the algorithm).
  std::optional<unsigned> flags;
  // The hash algorithm of the newest user ID self-signature (the binding
  // of the primary key to its user ID, RFC 9580 9.5); 0 when it has none.
  int user_id_binding_hash = 0;
  std::vector<std::string> subkey_fingerprints;  // of `subkeys`, in the same order
  std::vector<OpenPgpSubkey> subkeys;
};

// Whether KEY's primary key may make signatures: its key flags say so, or,
// without key flags, its algorithm is one that signs (RSA, DSA, ECDSA,
// EdDSA), as gpg reads it.
bool primary_can_sign(const OpenPgpKey& key);

// Whether SUBKEY is a signing subkey: its binding's key flags say so, or,
// without key flags, its algorithm signs (as primary_can_sign).
bool subkey_can_sign(const OpenPgpSubkey& subkey);

// "6ED9 1CA3 AC11 60CD": the long key ID (last 16 digits of FINGERPRINT),
// grouped as gpg prints fingerprints.
std::string format_key_id(const std::string& fingerprint);

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

// "SHA1", "SHA256" ... for an RFC 9580 hash algorithm ID; "hash algorithm N"
// for one not listed there.
std::string openpgp_hash_name(int algorithm);

}  // namespace wslgpu
