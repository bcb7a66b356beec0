// The header of `nvidia-smi`'s output, read by doctor's WSL-version check
// for "Driver Version" (installer/doctor/checks_windows.cpp) through
// version_after(): never throws, and what it finds is a dotted number that
// the output holds.
#include "fuzz/fuzz_support.hpp"
#include "installer/doctor/checks.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string output = fuzz::text_of(data, size);
  for (const char* prefix : {"Driver Version", "CUDA Version", "NVIDIA-SMI", ""}) {
    std::string v = doctor::version_after(output, prefix);
    if (v.empty()) continue;
    FUZZ_CHECK(output.find(v) != std::string::npos);
    FUZZ_CHECK(v.find_first_not_of("0123456789.") == std::string::npos && v.find('.') != std::string::npos);
  }
  return 0;
}
