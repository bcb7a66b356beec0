#include <doctest/doctest.h>

#include <string>

#include "installer/formats/sha1.hpp"

using wslgpu::Sha1;
using wslgpu::sha1_hex;

TEST_CASE("sha1 gives the FIPS 180 test vectors") {
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  CHECK(sha1_hex(std::string(1000000, 'a')) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST_CASE("sha1 gives the same digest however the input is split") {
  // Lengths around the 64-byte block and the 56-byte padding boundary.
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>((i * 131 + 7) % 251);
  for (std::size_t len : {55u, 56u, 63u, 64u, 65u, 119u, 120u, 128u, 1000u}) {
    std::string part = text.substr(0, len);
    std::string whole = sha1_hex(part);
    for (std::size_t chunk : {1u, 7u, 63u, 64u, 65u, 200u}) {
      CAPTURE(len);
      CAPTURE(chunk);
      Sha1 h;
      for (std::size_t i = 0; i < part.size(); i += chunk) h.update(std::string_view(part).substr(i, chunk));
      CHECK(h.hex_digest() == whole);
    }
  }
}
