// SHA-1 (FIPS 180-4), for OpenPGP v4 key fingerprints (RFC 4880 12.2) and
// nothing else: SHA-1 is broken for collisions, but a v4 fingerprint is
// defined as one, so pinning a v4 key means computing it.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace wslgpu {

class Sha1 {
 public:
  Sha1();
  void update(std::string_view data);
  // Lowercase hex digest (40 digits). The object must not be updated afterwards.
  std::string hex_digest();

 private:
  void block(const unsigned char* p);
  std::array<std::uint32_t, 5> h_;
  unsigned char buf_[64];
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;
};

std::string sha1_hex(std::string_view data);

}  // namespace wslgpu
