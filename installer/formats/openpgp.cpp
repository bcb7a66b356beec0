#include "installer/formats/openpgp.hpp"

#include <cctype>
#include <cstddef>
#include <iterator>
#include <string_view>

#include "installer/formats/openpgp_armour.hpp"
#include "installer/formats/sha1.hpp"

namespace wslgpu {

namespace {

enum Tag : int {
  kSignature = 2,
  kSecretKey = 5,
  kPublicKey = 6,
  kSecretSubkey = 7,
  kUserId = 13,
  kPublicSubkey = 14,
  kUserAttribute = 17,
};

// RFC 9580 5's names, for error messages.
const char* tag_name(int tag) {
  static const char* const kNames[] = {"reserved",
                                       "Public-Key Encrypted Session Key",
                                       "Signature",
                                       "Symmetric-Key Encrypted Session Key",
                                       "One-Pass Signature",
                                       "Secret-Key",
                                       "Public-Key",
                                       "Secret-Subkey",
                                       "Compressed Data",
                                       "Symmetrically Encrypted Data",
                                       "Marker",
                                       "Literal Data",
                                       "Trust",
                                       "User ID",
                                       "Public-Subkey",
                                       "unknown",
                                       "unknown",
                                       "User Attribute",
                                       "Symmetrically Encrypted and Integrity Protected Data",
                                       "Modification Detection Code",
                                       "AEAD Encrypted Data",
                                       "Padding"};
  return tag >= 0 && tag < static_cast<int>(std::size(kNames)) ? kNames[tag] : "unknown";
}

// Reads big-endian numbers and byte runs from a bounded span, throwing
// OpenPgpError naming WHERE (the packet), the field and its offset when a
// read would run past the end: every read of packet data goes through one.
// Offsets are counted from the start of the (decoded) key data, so an error
// points at the same byte however deep the reader is.
class Cursor {
 public:
  Cursor(std::string_view data, std::string where, std::size_t base = 0)
      : data_(data), where_(std::move(where)), base_(base) {}

  std::size_t offset() const { return base_ + pos_; }
  std::size_t left() const { return data_.size() - pos_; }
  bool done() const { return pos_ == data_.size(); }

  [[noreturn]] void fail(const std::string& problem) const { throw OpenPgpError(where_ + ": " + problem); }

  std::string_view take(std::size_t n, const char* what) {
    if (n > left())
      fail(std::string(what) + " needs " + std::to_string(n) + (n == 1 ? " byte" : " bytes") + " at offset " +
           std::to_string(offset()) + " but only " + std::to_string(left()) + " are left");
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  // The next N bytes as a cursor of their own, for a length-prefixed part.
  Cursor part(std::size_t n, const char* what) {
    std::size_t start = offset();
    return Cursor(take(n, what), where_, start);
  }
  unsigned byte(const char* what) { return static_cast<unsigned char>(take(1, what)[0]); }
  std::uint32_t be(std::size_t n, const char* what) {
    std::uint32_t v = 0;
    for (char c : take(n, what)) v = v << 8 | static_cast<unsigned char>(c);
    return v;
  }

 private:
  std::string_view data_;
  std::string where_;
  std::size_t base_;
  std::size_t pos_ = 0;
};

// ---- Packet framing (RFC 4880 4.2, RFC 9580 4.2) ----

struct Packet {
  int tag = 0;
  std::size_t offset = 0;       // of the header, in the decoded key data
  std::size_t body_offset = 0;  // of the body
  std::string_view body;
  std::string where;  // "packet 3 (User ID, tag 13) at offset 245", for errors
};

// The packet whose header starts at IN's position; INDEX counts packets
// from 1 and DATA_NAME names what the offsets count in, for the errors.
Packet next_packet(Cursor& in, const std::string& data_name, std::size_t index) {
  Packet p;
  p.offset = in.offset();
  unsigned first = in.byte("a packet header");
  if ((first & 0x80) == 0)
    throw OpenPgpError("packet " + std::to_string(index) + " at offset " + std::to_string(p.offset) + " of " +
                       data_name + ": byte " + openpgp_byte_text(first) +
                       " does not start an OpenPGP packet: the data is corrupt or not OpenPGP");
  bool new_format = (first & 0x40) != 0;
  p.tag = static_cast<int>(new_format ? first & 0x3f : (first >> 2) & 0x0f);
  p.where = "packet " + std::to_string(index) + " (" + tag_name(p.tag) + ", tag " + std::to_string(p.tag) +
            ") at offset " + std::to_string(p.offset) + " of " + data_name;
  auto fail = [&](const std::string& problem) { throw OpenPgpError(p.where + ": " + problem); };
  auto length_byte = [&] {
    if (in.done())
      fail("the header is cut short at offset " + std::to_string(in.offset()) + ": the key data is truncated");
    return in.byte("the packet length");
  };
  std::size_t length = 0;
  if (new_format) {  // a 1, 2 or 5 byte length
    unsigned l0 = length_byte();
    if (l0 < 192) {
      length = l0;
    } else if (l0 < 224) {
      length = ((l0 - 192) << 8) + length_byte() + 192;
    } else if (l0 == 255) {
      for (int i = 0; i < 4; ++i) length = length << 8 | length_byte();
    } else {
      fail("a partial body length, which only data packets use; a key file cannot hold one");
    }
  } else {  // old format: the length's size in the low 2 bits
    switch (first & 3) {
      case 0:
        length = length_byte();
        break;
      case 1:
        for (int i = 0; i < 2; ++i) length = length << 8 | length_byte();
        break;
      case 2:
        for (int i = 0; i < 4; ++i) length = length << 8 | length_byte();
        break;
      default:
        length = in.left();  // "indeterminate": the packet runs to the end
    }
  }
  if (length > in.left())
    fail("its body of " + std::to_string(length) + " bytes runs past the end of the data (" +
         std::to_string(in.left()) + " bytes left): the key data is truncated");
  p.body_offset = in.offset();
  p.body = in.take(length, "the packet body");
  return p;
}

// ---- Key packets (RFC 4880 5.5.2) ----

std::string hex_upper(std::string_view lower) {
  std::string out(lower);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The bit count an MPI declares, after checking its bytes are there.
std::uint32_t read_mpi(Cursor& in, const char* what) {
  std::uint32_t bits = in.be(2, what);
  in.take((bits + 7) / 8, what);
  return bits;
}

std::string dotted_oid(std::string_view oid) {
  std::string out;
  std::uint64_t value = 0;
  bool first = true;
  for (char ch : oid) {
    auto c = static_cast<unsigned char>(ch);
    value = value << 7 | (c & 0x7f);
    if (c & 0x80) continue;
    if (first) {  // the first byte packs the first two arcs as 40 * a + b
      std::uint64_t a = value < 80 ? value / 40 : 2;
      out = std::to_string(a) + "." + std::to_string(value - 40 * a);
      first = false;
    } else {
      out += "." + std::to_string(value);
    }
    value = 0;
  }
  return out;
}

// The curve's name (gpg's spelling) from the DER body of its OID.
std::string curve_name(std::string_view oid) {
  using namespace std::string_view_literals;  // "..."sv keeps the OIDs' zero bytes
  static const std::pair<std::string_view, const char*> kCurves[] = {
      {"\x2A\x86\x48\xCE\x3D\x03\x01\x07"sv, "nistp256"},
      {"\x2B\x81\x04\x00\x22"sv, "nistp384"},
      {"\x2B\x81\x04\x00\x23"sv, "nistp521"},
      {"\x2B\x81\x04\x00\x0A"sv, "secp256k1"},
      {"\x2B\x24\x03\x03\x02\x08\x01\x01\x07"sv, "brainpoolP256r1"},
      {"\x2B\x24\x03\x03\x02\x08\x01\x01\x0B"sv, "brainpoolP384r1"},
      {"\x2B\x24\x03\x03\x02\x08\x01\x01\x0D"sv, "brainpoolP512r1"},
      {"\x2B\x06\x01\x04\x01\xDA\x47\x0F\x01"sv, "ed25519"},
      {"\x2B\x06\x01\x04\x01\x97\x55\x01\x05\x01"sv, "cv25519"},
      {"\x2B\x65\x71"sv, "ed448"},
      {"\x2B\x65\x6F"sv, "cv448"},
  };
  for (const auto& [der, name] : kCurves)
    if (oid == der) return name;
  return "unknown curve " + dotted_oid(oid);
}

// "ed25519", "cv25519", "ecdsa-nistp256", "ecdh-brainpoolP256r1": the
// curve alone when it belongs to one algorithm, else the algorithm with it.
std::string ecc_algorithm(Cursor& in, unsigned algo) {
  unsigned oid_len = in.byte("the curve OID length");
  if (oid_len == 0 || oid_len == 0xff) in.fail("the curve OID length " + std::to_string(oid_len) + " is reserved");
  std::string curve = curve_name(in.take(oid_len, "the curve OID"));
  read_mpi(in, "the public point");
  if (algo == 22 && (curve == "ed25519" || curve == "ed448")) return curve;
  if (algo == 18 && (curve == "cv25519" || curve == "cv448")) return curve;
  const char* prefix = algo == 18 ? "ecdh" : algo == 19 ? "ecdsa" : "eddsa";
  if (curve.starts_with("unknown")) return std::string(prefix) + " (" + curve + ")";
  return std::string(prefix) + "-" + curve;
}

std::string key_algorithm(Cursor& in, unsigned algo) {
  switch (algo) {
    case 1:
    case 2:
    case 3: {
      std::uint32_t bits = read_mpi(in, "the RSA modulus");
      read_mpi(in, "the RSA exponent");
      return "rsa" + std::to_string(bits);
    }
    case 17:
      return "dsa" + std::to_string(read_mpi(in, "the DSA prime"));
    case 16:
    case 20:
      return "elg" + std::to_string(read_mpi(in, "the Elgamal prime"));
    case 18:
    case 19:
    case 22:
      return ecc_algorithm(in, algo);
    case 25:
      return "cv25519";
    case 26:
      return "cv448";
    case 27:
      return "ed25519";
    case 28:
      return "ed448";
    default:
      return "unknown algorithm " + std::to_string(algo);
  }
}

// A Public-Key or Public-Subkey packet, read far enough to name it and
// fingerprint it; refused unless it is a v4 key.
OpenPgpKey read_key_packet(const Packet& p) {
  Cursor in(p.body, p.where, p.body_offset);
  OpenPgpKey key;
  key.version = static_cast<int>(in.byte("the key version"));
  switch (key.version) {
    case 4:
      break;
    case 2:
    case 3:
      in.fail(
          "the key is an OpenPGP v3 key, obsolete since RFC 4880 and unusable by apt: "
          "ask the vendor for its v4 key");
    case 5:
      in.fail(
          "the key is an OpenPGP v5 key (a draft RFC 9580 did not adopt); "
          "apt on this release cannot use it and this reader supports v4 keys only");
    case 6:
      in.fail(
          "the key is an OpenPGP v6 key (RFC 9580); "
          "apt on this release cannot use it and this reader supports v4 keys only");
    default:
      in.fail("unknown key version " + std::to_string(key.version) + ": this reader supports v4 keys only");
  }
  key.created = in.be(4, "the creation time");
  key.algorithm = key_algorithm(in, in.byte("the public-key algorithm"));
  if (p.body.size() > 0xffff)
    in.fail("a v4 key packet is at most 65535 bytes long, this one is " + std::to_string(p.body.size()));
  Sha1 sha;
  const char prefix[3] = {static_cast<char>(0x99), static_cast<char>(p.body.size() >> 8),
                          static_cast<char>(p.body.size() & 0xff)};
  sha.update(std::string_view(prefix, 3));
  sha.update(p.body);
  key.fingerprint = hex_upper(sha.hex_digest());
  return key;
}

// ---- Signatures (RFC 4880 5.2.3) ----

struct SignatureFacts {
  int type = -1;
  int hash_algorithm = 0;  // RFC 9580 9.5
  std::optional<std::int64_t> created;
  std::optional<std::int64_t> key_expiry_seconds;
  std::optional<unsigned> key_flags;  // the first octet of subpacket 27
  std::string issuer_key_id;       // 16 hex digits, from subpacket 16
  std::string issuer_fingerprint;  // 40 hex digits, from subpacket 33 (v4 keys)
};

std::string to_hex(std::string_view bytes) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    out += hex[c >> 4];
    out += hex[c & 0xf];
  }
  return out;
}

// The subpackets of one area. Creation and expiry times count only from the
// hashed area, which the signature covers; the issuer may be in either (gpg
// puts the key ID in the unhashed one).
void read_subpackets(Cursor& in, bool hashed, SignatureFacts& facts) {
  while (!in.done()) {
    std::size_t start = in.offset();
    unsigned l0 = in.byte("a subpacket length");
    std::uint32_t length = l0;
    if (l0 >= 192 && l0 < 255) length = ((l0 - 192) << 8) + in.byte("a subpacket length") + 192;
    if (l0 == 255) length = in.be(4, "a subpacket length");
    if (length == 0) in.fail("the subpacket at offset " + std::to_string(start) + " has length 0");
    Cursor sub = in.part(length, "a subpacket");
    unsigned type = sub.byte("the subpacket type") & 0x7f;  // bit 7 flags it critical
    if (type == 2 && hashed) facts.created = sub.be(4, "the signature creation time");
    if (type == 9 && hashed) facts.key_expiry_seconds = sub.be(4, "the key expiration time");
    // An empty key-flags subpacket grants nothing (RFC 9580 5.2.3.29).
    if (type == 27 && hashed) facts.key_flags = sub.done() ? 0u : sub.byte("the key flags");
    if (type == 16) facts.issuer_key_id = to_hex(sub.take(8, "the issuer key ID"));
    if (type == 33 && sub.byte("the issuer fingerprint version") == 4)
      facts.issuer_fingerprint = to_hex(sub.take(20, "the issuer fingerprint"));
  }
}

// The facts of a v4 signature; nullopt for other versions, which a v4 key's
// self-signatures never are.
std::optional<SignatureFacts> read_signature(const Packet& p) {
  Cursor in(p.body, p.where, p.body_offset);
  if (in.byte("the signature version") != 4) return std::nullopt;
  SignatureFacts facts;
  facts.type = static_cast<int>(in.byte("the signature type"));
  in.byte("the signature's public-key algorithm");
  facts.hash_algorithm = static_cast<int>(in.byte("the signature's hash algorithm"));
  Cursor hashed = in.part(in.be(2, "the hashed subpacket length"), "the hashed subpackets");
  read_subpackets(hashed, true, facts);
  Cursor unhashed = in.part(in.be(2, "the unhashed subpacket length"), "the unhashed subpackets");
  read_subpackets(unhashed, false, facts);
  return facts;
}

// ---- Transferable public keys (RFC 4880 11.1) ----

// Where in a transferable key the packets read so far are: a signature
// belongs to the packet before it.
enum class Section { kPrimary, kUserId, kOther, kSubkey };

class KeyringReader {
 public:
  // DATA_NAME: "the key data", or "the decoded data of armoured block 2".
  explicit KeyringReader(std::string data_name) : data_name_(std::move(data_name)) {}

  void read(std::string_view data, std::vector<OpenPgpKey>& keys) {
    Cursor in(data, data_name_);
    for (std::size_t index = 1; !in.done(); ++index) {
      Packet p = next_packet(in, data_name_, index);
      take(p, keys);
    }
    finish(keys);
  }

 private:
  void take(const Packet& p, std::vector<OpenPgpKey>& keys) {
    switch (p.tag) {
      case kPublicKey:
        finish(keys);
        current_ = read_key_packet(p);
        newest_direct_.reset();
        newest_certification_.reset();
        newest_binding_.reset();
        section_ = Section::kPrimary;
        break;
      case kPublicSubkey: {
        OpenPgpKey& primary = require_primary(p);
        OpenPgpKey sub = read_key_packet(p);
        primary.subkey_fingerprints.push_back(sub.fingerprint);
        primary.subkeys.push_back(
            OpenPgpSubkey{sub.fingerprint, sub.algorithm, sub.created, std::nullopt, std::nullopt});
        newest_binding_.reset();
        section_ = Section::kSubkey;
        break;
      }
      case kUserId:
        require_primary(p).user_ids.emplace_back(p.body);
        section_ = Section::kUserId;
        break;
      case kSignature:
        if (current_) take_signature(p);
        break;
      case kSecretKey:
      case kSecretSubkey:
        throw OpenPgpError(p.where +
                           ": the file holds a secret key, not a public key: export the public key with gpg --export");
      case kUserAttribute:
        // A photo ID: the signatures after it are not about a user ID.
        if (section_ != Section::kSubkey) section_ = Section::kOther;
        break;
      default:
        // Trust packets (12), which keyrings put after the packet they
        // qualify, markers and packets this reader does not know: skipped,
        // leaving the section as it was.
        break;
    }
  }

  OpenPgpKey& require_primary(const Packet& p) {
    if (!current_) throw OpenPgpError(p.where + ": comes before any Public-Key packet");
    return *current_;
  }

  struct SelfSignature {
    std::int64_t created = 0;
    std::optional<std::int64_t> key_expiry_seconds;
    std::optional<unsigned> key_flags;
    int hash_algorithm = 0;
  };

  // Keeps SIG in NEWEST when it is the newest so far by creation time (the
  // later in the file on a tie: gpg appends a new self-signature).
  static bool keep_newest(std::optional<SelfSignature>& newest, const SignatureFacts& sig) {
    if (newest && *sig.created < newest->created) return false;
    newest = SelfSignature{*sig.created, sig.key_expiry_seconds, sig.key_flags, sig.hash_algorithm};
    return true;
  }

  // Self-signatures on a user ID and on the key itself (direct-key) carry
  // the key's expiry and flags; finish() decides which one is in force. A
  // subkey's newest binding signature (by the primary) gives its own.
  void take_signature(const Packet& p) {
    std::optional<SignatureFacts> sig = read_signature(p);
    if (!sig || !sig->created) return;
    bool certifies_user_id = sig->type >= 0x10 && sig->type <= 0x13 && section_ == Section::kUserId;
    bool direct_key = sig->type == 0x1F && section_ != Section::kSubkey;
    bool binds_subkey = sig->type == 0x18 && section_ == Section::kSubkey;
    if (!certifies_user_id && !direct_key && !binds_subkey) return;
    const std::string& fpr = current_->fingerprint;
    bool self = sig->issuer_fingerprint == fpr ||
                (sig->issuer_fingerprint.empty() && sig->issuer_key_id == fpr.substr(fpr.size() - 16));
    if (!self) return;
    if (binds_subkey) {
      if (!keep_newest(newest_binding_, *sig)) return;
      OpenPgpSubkey& sub = current_->subkeys.back();
      sub.expires.reset();
      if (sig->key_expiry_seconds && *sig->key_expiry_seconds > 0) sub.expires = sub.created + *sig->key_expiry_seconds;
      sub.flags = sig->key_flags;
      sub.binding_hash = sig->hash_algorithm;
      return;
    }
    keep_newest(direct_key ? newest_direct_ : newest_certification_, *sig);
  }

  // The newest direct-key self-signature's expiry when it gives one, else
  // the newest user ID self-signature's (none there: the key does not
  // expire). Taking the newest self-signature of either kind would be
  // wrong: the Debian archive keys carry direct-key signatures, newer than
  // their user ID's, that only name designated revokers, and gpg reads
  // such keys as expiring (it ranks the two kinds the same way).
  void finish(std::vector<OpenPgpKey>& keys) {
    if (!current_) return;
    auto expiry = [](const std::optional<SelfSignature>& sig) -> std::optional<std::int64_t> {
      if (sig && sig->key_expiry_seconds && *sig->key_expiry_seconds > 0) return sig->key_expiry_seconds;
      return std::nullopt;
    };
    std::optional<std::int64_t> seconds = expiry(newest_direct_);
    if (!seconds) seconds = expiry(newest_certification_);
    if (seconds) current_->expires = current_->created + *seconds;
    // The flags likewise: the direct-key signature's when it names some.
    if (newest_direct_ && newest_direct_->key_flags)
      current_->flags = newest_direct_->key_flags;
    else if (newest_certification_)
      current_->flags = newest_certification_->key_flags;
    if (newest_certification_) current_->user_id_binding_hash = newest_certification_->hash_algorithm;
    keys.push_back(std::move(*current_));
    current_.reset();
  }

  std::string data_name_;
  std::optional<OpenPgpKey> current_;
  std::optional<SelfSignature> newest_direct_, newest_certification_;
  std::optional<SelfSignature> newest_binding_;  // of the last subkey read
  Section section_ = Section::kPrimary;
};

// Without key flags, gpg gives a key the usages its algorithm allows.
bool algorithm_signs(const std::string& algorithm) {
  for (const char* prefix : {"rsa", "dsa", "ecdsa", "eddsa", "ed25519", "ed448"})
    if (algorithm.starts_with(prefix)) return true;
  return false;
}

bool looks_binary(std::string_view bytes) { return !bytes.empty() && (bytes[0] & 0x80) != 0; }

}  // namespace

std::vector<OpenPgpKey> read_openpgp_keys(const std::string& input) {
  std::string_view bytes = input;
  // A UTF-8 byte order mark (an editor's) would pass for a packet header.
  if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);
  std::vector<OpenPgpKey> keys;
  if (looks_binary(bytes)) {
    KeyringReader("the key data").read(bytes, keys);
  } else {
    std::vector<std::string> blocks = decode_openpgp_armour(bytes);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      std::string name = "the decoded data of armoured block";
      if (blocks.size() > 1) name += " " + std::to_string(i + 1);
      KeyringReader(name).read(blocks[i], keys);
    }
  }
  if (keys.empty())
    throw OpenPgpError("no OpenPGP public key found: neither a " + std::string(kOpenPgpBeginPublic) +
                       " nor binary key packets (gpg --export) holding a Public-Key packet");
  return keys;
}

bool primary_can_sign(const OpenPgpKey& key) {
  return key.flags ? (*key.flags & kOpenPgpSign) != 0 : algorithm_signs(key.algorithm);
}

bool subkey_can_sign(const OpenPgpSubkey& subkey) {
  return subkey.flags ? (*subkey.flags & kOpenPgpSign) != 0 : algorithm_signs(subkey.algorithm);
}

std::string format_key_id(const std::string& fingerprint) {
  std::string fpr = normalize_fingerprint(fingerprint);
  if (fpr.empty()) return fingerprint;
  std::string out;
  for (std::size_t i = 24; i < fpr.size(); i += 4) out += (i > 24 ? " " : "") + fpr.substr(i, 4);
  return out;
}

std::string normalize_fingerprint(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ' ') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return "";
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out.size() == 40 ? out : "";
}

std::string format_fingerprint(const std::string& fingerprint) {
  std::string fpr = normalize_fingerprint(fingerprint);
  if (fpr.empty()) return fingerprint;
  std::string out;
  for (std::size_t i = 0; i < fpr.size(); i += 4) {
    if (i > 0) out += i == 20 ? "  " : " ";
    out += fpr.substr(i, 4);
  }
  return out;
}

std::string openpgp_hash_name(int algorithm) {
  switch (algorithm) {
    case 1: return "MD5";
    case 2: return "SHA1";
    case 3: return "RIPEMD160";
    case 8: return "SHA256";
    case 9: return "SHA384";
    case 10: return "SHA512";
    case 11: return "SHA224";
    case 12: return "SHA3-256";
    case 14: return "SHA3-512";
    default: return "hash algorithm " + std::to_string(algorithm);
  }
}

}  // namespace wslgpu
