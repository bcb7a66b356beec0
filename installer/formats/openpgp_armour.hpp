// The ASCII armour of OpenPGP public keys (RFC 4880 6.2, RFC 9580 6.2): the
// "-----BEGIN PGP PUBLIC KEY BLOCK-----" text form of a key file, decoded
// into the binary packets that openpgp.cpp reads. Headers, the blank line
// (or the "." a deb822 field writes for one), base64 data and the optional
// CRC-24 checksum line; CRLF and indented lines read as plain ones.
#pragma once
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

// "0x1F": how an error names a byte, in the armour and in key packets.
std::string openpgp_byte_text(unsigned value);

}  // namespace wslgpu
