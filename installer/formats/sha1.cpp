#include "installer/formats/sha1.hpp"

#include <algorithm>
#include <cstring>

namespace wslgpu {

namespace {
inline std::uint32_t rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
}  // namespace

Sha1::Sha1() : h_{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0} {}

void Sha1::block(const unsigned char* p) {
  std::uint32_t w[80];
  for (int i = 0; i < 16; ++i)
    w[i] = static_cast<std::uint32_t>(p[4 * i]) << 24 | static_cast<std::uint32_t>(p[4 * i + 1]) << 16 |
           static_cast<std::uint32_t>(p[4 * i + 2]) << 8 | static_cast<std::uint32_t>(p[4 * i + 3]);
  for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
  for (int i = 0; i < 80; ++i) {
    std::uint32_t f = 0, k = 0;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5a827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ed9eba1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8f1bbcdc;
    } else {
      f = b ^ c ^ d;
      k = 0xca62c1d6;
    }
    std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = rotl(b, 30);
    b = a;
    a = t;
  }
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
  h_[4] += e;
}

void Sha1::update(std::string_view data) {
  total_ += data.size();
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  if (buf_len_ > 0) {
    std::size_t take = std::min(n, 64 - buf_len_);
    std::memcpy(buf_ + buf_len_, p, take);
    buf_len_ += take;
    p += take;
    n -= take;
    if (buf_len_ < 64) return;
    block(buf_);
    buf_len_ = 0;
  }
  for (; n >= 64; p += 64, n -= 64) block(p);
  if (n > 0) {
    std::memcpy(buf_, p, n);
    buf_len_ = n;
  }
}

std::string Sha1::hex_digest() {
  // The padding goes through update(), which counts it; the length must be
  // the message's, so it is taken first.
  std::uint64_t bits = total_ * 8;
  unsigned char pad[64] = {0x80};
  std::size_t pad_len = (buf_len_ < 56) ? 56 - buf_len_ : 120 - buf_len_;
  update(std::string_view(reinterpret_cast<const char*>(pad), pad_len));
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
  update(std::string_view(reinterpret_cast<const char*>(len), 8));
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::uint32_t v : h_)
    for (int i = 28; i >= 0; i -= 4) out += hex[(v >> i) & 0xf];
  return out;
}

std::string sha1_hex(std::string_view data) {
  Sha1 h;
  h.update(data);
  return h.hex_digest();
}

}  // namespace wslgpu
