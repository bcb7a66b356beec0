// What the fuzz targets share: the input as text, and a property check that
// stops the run the way a crash does, so that libFuzzer keeps the input.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace wslgpu::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A broken property is a finding like a crash: say which, then abort (which
// libFuzzer reports as a deadly signal and saves the input for).
[[noreturn]] inline void property_failed(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: property does not hold: %s\n", file, line, what);
  std::abort();
}

// Says where A and B first differ (for a failed equality), on stderr.
inline void show_difference(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  auto around = [&](std::string_view s) {
    std::string out;
    for (char c : s.substr(i < 16 ? 0 : i - 16, 32)) {
      if (c >= ' ' && c <= '~')
        out += c;
      else
        out += "\\x" + std::string(1, "0123456789abcdef"[(c >> 4) & 15]) + "0123456789abcdef"[c & 15];
    }
    return out;
  };
  std::fprintf(stderr, "first difference at byte %zu of %zu/%zu:\n  %s\n  %s\n", i, a.size(), b.size(),
               around(a).c_str(), around(b).c_str());
}

// Lines of TEXT with their "\n" kept, so that comparing them compares bytes.
inline std::vector<std::string_view> lines_with_ends(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

}  // namespace wslgpu::fuzz

#define FUZZ_CHECK(condition) \
  ((condition) ? static_cast<void>(0) : ::wslgpu::fuzz::property_failed(#condition, __FILE__, __LINE__))
