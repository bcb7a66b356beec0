#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "installer/net/background_sha256.hpp"
#include "installer/formats/sha256.hpp"

using wslgpu::BackgroundSha256;
using wslgpu::Sha256;
using wslgpu::sha256_hex;

namespace {

// Hashes TEXT fed to update() in pieces of CHUNK bytes.
std::string chunked(const std::string& text, std::size_t chunk) {
  Sha256 h;
  for (std::size_t i = 0; i < text.size(); i += chunk) h.update(std::string_view(text).substr(i, chunk));
  return h.hex_digest();
}

}  // namespace

TEST_CASE("sha256 gives the FIPS 180-4 test vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 gives the same digest however the input is split") {
  // Lengths around the 64-byte block and the 56-byte padding boundary, fed
  // in pieces that hit the buffered path, the one-block path and the
  // many-blocks path (the SHA-NI code, where the CPU has it).
  std::string text;
  for (int i = 0; i < 5000; ++i) text += static_cast<char>((i * 131 + 7) % 251);
  for (std::size_t len : {55u, 56u, 63u, 64u, 65u, 127u, 128u, 129u, 1000u, 5000u}) {
    std::string part = text.substr(0, len);
    std::string whole = sha256_hex(part);
    for (std::size_t chunk : {1u, 7u, 63u, 64u, 65u, 200u, 4096u}) {
      CAPTURE(len);
      CAPTURE(chunk);
      CHECK(chunked(part, chunk) == whole);
    }
  }
  CHECK(sha256_hex(text.substr(0, 1000)) == chunked(text.substr(0, 1000), 1));
}

TEST_CASE("the background hasher gives the same digest whatever the chunking, mid-stream and after a reset") {
  std::string data;
  std::uint32_t x = 12345;
  // Three and a half blocks and a few bytes: several hand-offs, a partial last block.
  for (std::size_t i = 0; i < BackgroundSha256::kBlockSize * 7 / 2 + 13; ++i) {
    x = x * 1103515245u + 12345u;
    data.push_back(static_cast<char>(x >> 24));
  }
  for (std::size_t chunk : {std::size_t{1} << 14, std::size_t{1000}, BackgroundSha256::kBlockSize, data.size()}) {
    CAPTURE(chunk);
    BackgroundSha256 h;
    std::size_t half = data.size() / 2;
    for (std::size_t at = 0; at < data.size(); at += chunk) {
      std::size_t end = std::min({at + chunk, data.size()});
      if (at < half && end > half) {  // stop at the middle once to read the digest so far
        h.update(std::string_view(data).substr(at, half - at));
        CHECK(h.hex_digest_so_far() == sha256_hex(std::string_view(data).substr(0, half)));
        h.update(std::string_view(data).substr(half, end - half));
      } else {
        h.update(std::string_view(data).substr(at, end - at));
      }
    }
    CHECK(h.hex_digest_so_far() == sha256_hex(data));
    h.reset();
    CHECK(h.hex_digest_so_far() == sha256_hex(""));
    h.update("abc");
    CHECK(h.hex_digest_so_far() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }
}
