// The ASCII armour of OpenPGP public keys (RFC 4880 6.2, RFC 9580 6.2): the
// "-----BEGIN PGP PUBLIC KEY BLOCK-----" text form of a key file, decoded
// into the binary packets that openpgp.cpp reads. Headers, the blank line
// (or the "." a deb822 field writes for one), base64 data and the optional
// CRC-24 checksum line; CRLF and indented lines read as plain ones.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "installer/formats/openpgp.hpp"

namespace wslgpu {

inline constexpr std::string_view kOpenPgpBeginPublic = "-----BEGIN PGP PUBLIC KEY BLOCK-----";

// The packets of every public key block in TEXT, one string per block (none
// when TEXT holds no BEGIN line). Throws OpenPgpError naming the armour line
// of bad base64, a checksum that does not match, a block without its END
// line, or a file that holds only a secret key.
std::vector<std::string> decode_openpgp_armour(std::string_view text);

// AMD's key for its ROCm Core SDK repository (stable.repo.amd.com/rocm/gpg/
// packages.gpg) is a binary key followed by an ASCII-armoured copy of the
// same key. apt's verifiers read a keyring as one or the other, not both
// (gpgv stops at the armour's first byte: "invalid packet (ctb=2d)"), and
// AMD's install page has it go through `gpg --dearmor` for that reason.
// When BYTES has that shape, returns the binary part, which is the key apt
// needs: the armour is read too, and must hold the same primary keys in the
// same order. nullopt when BYTES has another shape (plain binary, plain
// armour, anything else), which read_openpgp_keys then judges. Throws
// OpenPgpError when the armour after the binary key holds other keys.
std::optional<std::string> binary_key_before_its_armour(const std::string& bytes);

// "0x1F": how an error names a byte, in the armour and in key packets.
std::string openpgp_byte_text(unsigned value);

}  // namespace wslgpu
