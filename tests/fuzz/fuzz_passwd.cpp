// ROOT/etc/passwd (installer/host/accounts.hpp): never throws, whatever the
// file holds; every user read has a numeric uid and gid that fit.
#include "fuzz/fuzz_support.hpp"
#include "installer/host/accounts.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const auto& u : parse_passwd_file(fuzz::text_of(data, size))) {
    FUZZ_CHECK(u.name.find_first_of(":\n") == std::string::npos);
    FUZZ_CHECK(u.home.find_first_of(":\n") == std::string::npos);
  }
  return 0;
}
