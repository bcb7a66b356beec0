// SHA-256 (FIPS 180-4), incremental, so downloads are hashed while they
// stream and file fingerprints need no second read.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace wslgpu {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view data);
  // Lowercase hex digest. The object must not be updated afterwards.
  std::string hex_digest();

 private:
  void block(const unsigned char* p);
  std::array<std::uint32_t, 8> h_;
  unsigned char buf_[64];
  std::size_t buf_len_ = 0;
  std::uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view data);

}  // namespace wslgpu
