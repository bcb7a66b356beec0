// ROOT/etc/group (installer/host/accounts.hpp): never throws, whatever the
// file holds; names and members never hold the separators.
#include "fuzz/fuzz_support.hpp"
#include "installer/host/accounts.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (const auto& g : parse_group_file(fuzz::text_of(data, size))) {
    FUZZ_CHECK(g.name.find_first_of(":\n") == std::string::npos);
    for (const auto& m : g.members) FUZZ_CHECK(m.find_first_of(":,\n") == std::string::npos);
  }
  return 0;
}
