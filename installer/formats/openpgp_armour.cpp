#include "installer/formats/openpgp_armour.hpp"

#include <cstdint>
#include <optional>
#include <utility>

#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

constexpr std::string_view kEndPublic = "-----END PGP PUBLIC KEY BLOCK-----";
constexpr std::string_view kBeginPrivate = "-----BEGIN PGP PRIVATE KEY BLOCK-----";

// The text's lines, each trimmed: CRLF files and the indented lines of a
// deb822 Signed-By field read the same as plain ones.
std::vector<std::string_view> trimmed_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    lines.push_back(text::trim(text.substr(0, nl), text::kCSpace));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Decodes the base64 of LINES (padding only at the very end), naming the
// armour line (1-based, in the whole text) of a bad character.
std::string base64_decode(const std::vector<std::pair<std::size_t, std::string_view>>& lines) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0, pad = 0;
  std::size_t chars = 0;
  for (const auto& [line_no, line] : lines) {
    for (char c : line) {
      if (c == ' ' || c == '\t') continue;
      if (c == '=') {
        ++pad;
        ++chars;
        continue;
      }
      int v = base64_value(c);
      if (v < 0 || pad > 0)
        throw OpenPgpError("armour line " + std::to_string(line_no) + ": " +
                           (v < 0 ? "'" + std::string(1, c) + "' (" + openpgp_byte_text(static_cast<unsigned char>(c)) +
                                        ") is not a base64 character"
                                  : std::string("base64 data after the '=' padding")));
      acc = acc << 6 | static_cast<std::uint32_t>(v);
      bits += 6;
      ++chars;
      if (bits >= 8) {
        bits -= 8;
        out.push_back(static_cast<char>((acc >> bits) & 0xff));
      }
    }
  }
  if (chars % 4 != 0 || pad > 2)
    throw OpenPgpError("the armoured base64 data is cut short: " + std::to_string(chars) +
                       " characters, not a multiple of four");
  return out;
}

// CRC-24 of RFC 4880 6.1, the armour's optional "=XXXX" checksum.
std::uint32_t crc24(std::string_view data) {
  std::uint32_t crc = 0xB704CE;
  for (char c : data) {
    crc ^= static_cast<std::uint32_t>(static_cast<unsigned char>(c)) << 16;
    for (int i = 0; i < 8; ++i) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864CFB;
    }
  }
  return crc & 0xFFFFFF;
}

bool is_armour_header(std::string_view line) { return line.find(':') != std::string_view::npos; }

// One armoured block starting after the BEGIN line at index FIRST of LINES:
// its decoded packets, checked against the checksum line when there is one.
// *NEXT is set to the index after the END line.
std::string decode_armour_block(const std::vector<std::string_view>& lines, std::size_t first, std::size_t* next) {
  std::size_t i = first;
  // Headers ("Version: ...", "Comment: ...") up to the blank line. A "."
  // line counts as blank: that is how a deb822 field writes one. Some tools
  // leave out the blank line when there are no headers; base64 has no ':',
  // so the first line that is not a header is data either way.
  while (i < lines.size() && is_armour_header(lines[i])) ++i;
  if (i < lines.size() && (lines[i].empty() || lines[i] == ".")) ++i;
  std::vector<std::pair<std::size_t, std::string_view>> data;
  std::optional<std::pair<std::size_t, std::string_view>> checksum;
  for (; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line == kEndPublic) break;
    if (line.empty()) continue;
    if (checksum)
      throw OpenPgpError("armour line " + std::to_string(i + 1) + ": text after the checksum line, where " +
                         std::string(kEndPublic) + " should be");
    if (line.front() == '=') {
      checksum = {i + 1, line.substr(1)};
      continue;
    }
    data.emplace_back(i + 1, line);
  }
  if (i == lines.size())
    throw OpenPgpError("the armoured key block that begins on line " + std::to_string(first) + " has no " +
                       std::string(kEndPublic) + " line: the file is truncated");
  *next = i + 1;
  std::string packets = base64_decode(data);
  if (checksum) {
    std::string sum = base64_decode({*checksum});
    if (sum.size() != 3)
      throw OpenPgpError("armour line " + std::to_string(checksum->first) +
                         ": the checksum line is not four base64 characters");
    std::uint32_t want = static_cast<std::uint32_t>(static_cast<unsigned char>(sum[0])) << 16 |
                         static_cast<std::uint32_t>(static_cast<unsigned char>(sum[1])) << 8 |
                         static_cast<unsigned char>(sum[2]);
    if (crc24(packets) != want)
      throw OpenPgpError("armour line " + std::to_string(checksum->first) +
                         ": the CRC-24 checksum does not match the data: the armoured key is corrupt");
  }
  return packets;
}

}  // namespace

std::string openpgp_byte_text(unsigned value) {
  static const char* hex = "0123456789ABCDEF";
  return std::string{'0', 'x', hex[(value >> 4) & 0xf], hex[value & 0xf]};
}

// The packets of every public key block in TEXT, one string per block.
std::vector<std::string> decode_openpgp_armour(std::string_view text) {
  std::vector<std::string_view> lines = trimmed_lines(text);
  std::vector<std::string> blocks;
  bool private_block = false;
  for (std::size_t i = 0; i < lines.size();) {
    if (lines[i] == kOpenPgpBeginPublic) {
      blocks.push_back(decode_armour_block(lines, i + 1, &i));
      continue;
    }
    if (lines[i] == kBeginPrivate) private_block = true;
    ++i;
  }
  if (blocks.empty() && private_block)
    throw OpenPgpError("the file holds a secret key, not a public key (" + std::string(kBeginPrivate) +
                       "): export the public key with gpg --export");
  return blocks;
}

}  // namespace wslgpu

namespace wslgpu {

std::optional<std::string> binary_key_before_its_armour(const std::string& bytes) {
  // A binary packet's first byte has its top bit set (RFC 9580 4.2), so a
  // file that starts with text is not this shape.
  if (bytes.empty() || (static_cast<unsigned char>(bytes[0]) & 0x80) == 0) return std::nullopt;
  for (std::size_t at = bytes.find(kOpenPgpBeginPublic); at != std::string::npos;
       at = bytes.find(kOpenPgpBeginPublic, at + 1)) {
    // The binary part ends where the armour begins, or before a line break
    // a tool put between them; tried in that order, since a packet's last
    // byte may itself be 0x0A or 0x0D.
    std::size_t end = at;
    std::vector<OpenPgpKey> binary;
    for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
      if (cut > at || (cut == 1 && bytes[at - 1] != '\n') ||
          (cut == 2 && bytes.compare(at - 2, 2, "\r\n") != 0))
        continue;
      try {
        binary = read_openpgp_keys(bytes.substr(0, at - cut));
        end = at - cut;
        break;
      } catch (const OpenPgpError&) {
        // the marker's bytes inside a packet, or a packet cut short
      }
    }
    if (binary.empty()) continue;
    const std::vector<OpenPgpKey> armoured = read_openpgp_keys(bytes.substr(at));
    bool same = armoured.size() == binary.size();
    for (std::size_t i = 0; same && i < binary.size(); ++i) same = armoured[i].fingerprint == binary[i].fingerprint;
    if (!same) {
      std::string inside;
      for (const auto& k : armoured) inside += (inside.empty() ? "" : ", ") + format_fingerprint(k.fingerprint);
      throw OpenPgpError("a binary key (" + format_fingerprint(binary.front().fingerprint) +
                         ") followed by armour holding other keys (" + (inside.empty() ? "none" : inside) + ")");
    }
    return bytes.substr(0, end);
  }
  return std::nullopt;
}

}  // namespace wslgpu
