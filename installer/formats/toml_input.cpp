#include "installer/formats/toml_input.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace wslgpu {

// Inside a namespace of its own: the unity build puts this file beside
// others whose anonymous namespaces have helpers of the same names.
namespace toml_input_detail {
namespace {

// One code point of TEXT at byte AT: its value and length, or length 0 where
// the bytes are not well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), as toml++'s own decoder judges them.
struct Decoded {
  char32_t value = 0;
  std::size_t length = 0;
};

Decoded decode(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t k) -> unsigned {
    return at + k < text.size() ? static_cast<unsigned char>(text[at + k]) : 0x100u;
  };
  auto in = [](unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  const unsigned b0 = byte(0);
  if (b0 < 0x80) return {b0, 1};
  std::size_t length = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (in(b0, 0xC2, 0xDF)) {
    length = 2;
  } else if (in(b0, 0xE0, 0xEF)) {
    length = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (in(b0, 0xF0, 0xF4)) {
    length = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return {};
  }
  if (!in(byte(1), lo, hi)) return {};
  char32_t value = b0 & (0xFFu >> (length + 1));
  for (std::size_t k = 1; k < length; ++k) {
    if (!in(byte(k), 0x80, 0xBF)) return {};
    value = (value << 6) | (byte(k) & 0x3Fu);
  }
  return {value, length};
}

std::string utf8(char32_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

// How toml++ writes a code point other than ASCII in an error's description
// (its escaped_codepoint: a backslash, u and four hex digits, or U and eight).
std::string escaped(char32_t c) {
  const unsigned digits = c > 0xFFFF ? 8 : 4;
  std::string out = digits == 8 ? "\\U" : "\\u";
  for (unsigned i = digits; i-- > 0;) out += "0123456789ABCDEF"[(c >> (4 * i)) & 0xF];
  return out;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code point an escape at byte AT (a backslash, then u and four hex digits
// or U and eight) stands for, or -1. Read wherever a backslash is, in a
// string or not: a stand-in must differ from every code point a key or a
// string of the text can hold, escaped or not.
std::int64_t escape_at(std::string_view text, std::size_t at) {
  if (at + 1 >= text.size() || text[at] != '\\' || (text[at + 1] != 'u' && text[at + 1] != 'U')) return -1;
  const std::size_t digits = text[at + 1] == 'u' ? 4 : 8;
  if (at + 2 + digits > text.size()) return -1;
  std::int64_t value = 0;
  for (std::size_t k = 0; k < digits; ++k) {
    int h = hex_value(text[at + 2 + k]);
    if (h < 0) return -1;
    value = value * 16 + h;
  }
  return value;
}

// The ranges parse_toml() takes stand-ins from (two- and three-byte UTF-8).
constexpr char32_t kTwoByteFirst = 0x500, kTwoByteLast = 0x7FF, kThreeByteFirst = 0xE000, kThreeByteLast = 0xF8FF;
bool may_stand_in(char32_t c) {
  return (c >= kTwoByteFirst && c <= kTwoByteLast) || (c >= kThreeByteFirst && c <= kThreeByteLast);
}

struct Offending {
  std::size_t offset, length;
  char32_t code_point;
  toml::source_position position;
};

struct Scan {
  std::vector<Offending> offending;  // in text order
  // The code points of the stand-ins' ranges (may_stand_in) that the text holds
  // or escapes, which cannot stand in. Only those: a set of every code
  // point, built for every text, was a quarter of fuzz_manifest's time.
  std::set<char32_t> held;
};

// Every offending code point of TEXT, wherever it stands. toml++ tests them
// outside strings and comments and in multi-line basic strings, and also
// inside what looks like a string or a comment when it reads a bad value to
// its end (`x = 1'e` is read as one number up to the next space): rather
// than follow toml++'s reading, every one is replaced, and the strings and
// keys of a parsed table get them back.
Scan scan(std::string_view text) {
  Scan out;
  toml::source_position position{1, 1};
  for (std::size_t i = 0; i < text.size();) {
    const Decoded d = decode(text, i);
    if (d.length && may_stand_in(d.value)) out.held.insert(d.value);
    if (std::int64_t e = escape_at(text, i); e >= 0 && e <= 0x10FFFF && may_stand_in(static_cast<char32_t>(e)))
      out.held.insert(static_cast<char32_t>(e));
    if (d.length && toml_whitespace_test_undefined(d.value)) out.offending.push_back({i, d.length, d.value, position});
    // toml++ counts columns in code points; '\n' ends a line.
    if (text[i] == '\n') {
      position.line++;
      position.column = 1;
    } else {
      position.column++;
    }
    i += d.length ? d.length : 1;
  }
  return out;
}

// The stand-ins of a text and the way back.
class StandIns {
 public:
  void add(char32_t original, char32_t stand_in) {
    pairs_.push_back({utf8(stand_in), utf8(original), escaped(stand_in), escaped(original)});
  }
  bool in(std::string_view s) const {
    for (const auto& p : pairs_)
      if (s.find(p.stand_in) != std::string_view::npos) return true;
    return false;
  }
  // S with the originals back; in an error's DESCRIPTION their escapes too.
  std::string restored(std::string s, bool description) const {
    for (const auto& p : pairs_) {
      replace_all(s, p.stand_in, p.original);
      if (description) replace_all(s, p.stand_in_escaped, p.original_escaped);
    }
    return s;
  }
  void restore(toml::node& node) const {
    if (auto* s = node.as_string()) {
      if (in(s->get())) s->get() = restored(s->get(), false);
    } else if (auto* a = node.as_array()) {
      for (auto& value : *a) restore(value);
    } else if (auto* t = node.as_table()) {
      restore(*t);
    }
  }
  // A key cannot change in place: its value moves to the restored key, at
  // the same place in the file (a table is ordered by its keys anyway).
  void restore(toml::table& t) const {
    std::vector<std::string> renamed;
    for (auto&& [key, value] : t) {
      restore(value);
      if (in(key.str())) renamed.emplace_back(key.str());
    }
    for (const auto& old : renamed) {
      auto at = t.find(old);
      toml::key key(restored(old, false), at->first.source());
      at->second.visit([&](auto& value) { t.insert_or_assign(std::move(key), std::move(value)); });
      t.erase(t.find(old));
    }
  }

 private:
  struct Pair {
    std::string stand_in, original, stand_in_escaped, original_escaped;
  };
  std::vector<Pair> pairs_;
};

}  // namespace
}  // namespace toml_input_detail

bool toml_whitespace_test_undefined(char32_t c) {
  // The table's search area is U+00A0-U+FEFF in 64 blocks of 0x3FA code
  // points; blocks 0, 11 and 63 have no bit in its mask and no case in its
  // switch, and of them only U+00A0, U+3000 and U+FEFF an answer before it.
  return (c >= 0xA1 && c <= 0x499) || (c >= 0x2C5E && c <= 0x3057 && c != 0x3000) || (c >= 0xFB26 && c <= 0xFEFE);
}

toml::table parse_toml(std::string_view text, std::string_view source_path) {
  using namespace toml_input_detail;
  Scan found = scan(text);
  if (found.offending.empty()) return toml::parse(text, source_path);

  // One stand-in for each offending code point, of the same UTF-8 length:
  // toml++ reads the text in blocks of 32 bytes and places an error in
  // ill-formed UTF-8 by the block's last code point, so the bytes must stay
  // where they are. Two-byte ones come from U+0500-U+07FF, three-byte ones
  // from the private-use area U+E000-U+F8FF; toml++ takes none of them for
  // whitespace, a bare key's letter or anything else it looks for.
  struct Pool {
    char32_t next, last;
  };
  Pool two_bytes{kTwoByteFirst, kTwoByteLast}, three_bytes{kThreeByteFirst, kThreeByteLast};
  std::map<char32_t, char32_t> stand_in;
  StandIns way_back;
  for (const auto& o : found.offending) {
    if (stand_in.count(o.code_point)) continue;
    Pool& pool = o.length == 2 ? two_bytes : three_bytes;
    while (pool.next <= pool.last && found.held.count(pool.next)) ++pool.next;
    if (pool.next > pool.last)
      throw toml::parse_error(o.length == 2 ? "more than 768 different characters from U+00A1 to U+0499, more than "
                                              "toml++ 3.3 can be kept from misreading; write some of them as \\uXXXX "
                                              "escapes in strings"
                                            : "more than 6400 different characters from U+2C5E to U+3057 and U+FB26 "
                                              "to U+FEFE, more than toml++ 3.3 can be kept from misreading; write some "
                                              "of them as \\uXXXX escapes in strings",
                              o.position, std::make_shared<const std::string>(source_path));
    stand_in[o.code_point] = pool.next;
    way_back.add(o.code_point, pool.next++);
  }
  std::string parsed;
  parsed.reserve(text.size());
  std::size_t copied = 0;
  for (const auto& o : found.offending) {
    parsed.append(text.substr(copied, o.offset - copied));
    parsed += utf8(stand_in[o.code_point]);
    copied = o.offset + o.length;
  }
  parsed.append(text.substr(copied));

  toml::table root;
  try {
    root = toml::parse(parsed, source_path);
  } catch (const toml::parse_error& e) {
    throw toml::parse_error(way_back.restored(std::string(e.description()), true).c_str(), e.source());
  }
  way_back.restore(root);
  return root;
}

}  // namespace wslgpu
