// The output of `apt-get -s install ...` and `apt-get install --print-uris`:
// never throws (a line it does not understand is ignored), and what it
// reads is well formed: names without spaces or ":arch", chains that end.
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/apt_simulation.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string output = fuzz::text_of(data, size);
  AptTransaction t = parse_apt_simulation(output);
  for (const auto& a : t.actions) {
    FUZZ_CHECK(!a.name.empty());
    FUZZ_CHECK(a.name.find_first_of(" \t\r\n") == std::string::npos);
    FUZZ_CHECK(a.name.find(':') == std::string::npos);
    std::string chain = t.chain(a.name);  // must end, also when apt's lines make a cycle
    FUZZ_CHECK(chain.size() >= a.name.size());
    (void)apt_action_name(a.kind);
  }
  FUZZ_CHECK(t.changes().size() <= t.actions.size());
  AptSizes sizes = parse_apt_sizes(output);
  // (The URI lines alone give the bytes to fetch, and are not apt's summary.)
  if (!sizes.known) FUZZ_CHECK(sizes.archive_bytes == 0 && sizes.disk_bytes == 0);
  for (const auto& line : apt_error_lines(output)) FUZZ_CHECK(line.find('\n') == std::string::npos);
  // One of apt's rounded sizes, from the first line alone.
  (void)parse_apt_size(output.substr(0, output.find('\n')));
  return 0;
}
