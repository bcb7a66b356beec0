// ROOT/etc/os-release (installer/host/host.hpp): never throws; keys and
// values are single lines, and a value loses its quotes only in pairs.
#include "fuzz/fuzz_support.hpp"
#include "installer/host/host.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const auto& [key, value] : parse_os_release(fuzz::text_of(data, size))) {
    FUZZ_CHECK(key.find('\n') == std::string::npos && value.find('\n') == std::string::npos);
  }
  return 0;
}
