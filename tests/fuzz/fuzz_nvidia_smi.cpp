// The header of `nvidia-smi`'s output, read by doctor's WSL-version check
// for "Driver Version" (installer/doctor/checks_windows.cpp) through
// version_after(): never throws, what it finds is a dotted number that the
// output holds, and it is what the regex it replaced finds (compared on
// inputs of up to 512 bytes: libstdc++'s std::regex is quadratic and
// recursive on long runs of digits, which is why it was replaced).
#include <regex>

#include "fuzz/fuzz_support.hpp"
#include "installer/doctor/checks.hpp"

using namespace wslgpu;

namespace {

std::string regex_version_after(const std::string& text, const std::string& prefix) {
  auto at = text.find(prefix);
  if (at == std::string::npos) return "";
  static const std::regex version(R"(([0-9]+(\.[0-9]+)+))");
  std::smatch m;
  std::string rest = text.substr(at + prefix.size());
  return std::regex_search(rest, m, version) ? m[1].str() : "";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string output = fuzz::text_of(data, size);
  for (const char* prefix : {"Driver Version", "CUDA Version", "NVIDIA-SMI", ""}) {
    std::string v = doctor::version_after(output, prefix);
    if (size <= 512) FUZZ_CHECK(v == regex_version_after(output, prefix));
    if (v.empty()) continue;
    FUZZ_CHECK(output.find(v) != std::string::npos);
    FUZZ_CHECK(v.find_first_not_of("0123456789.") == std::string::npos && v.find('.') != std::string::npos);
  }
  return 0;
}
