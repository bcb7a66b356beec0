#include "installer/system/text.hpp"

namespace wslgpu::text {

std::string_view trim_start(std::string_view s, std::string_view chars) {
  auto b = s.find_first_not_of(chars);
  return b == std::string_view::npos ? std::string_view{} : s.substr(b);
}

std::string_view trim_end(std::string_view s, std::string_view chars) {
  auto e = s.find_last_not_of(chars);
  return e == std::string_view::npos ? std::string_view{} : s.substr(0, e + 1);
}

std::string_view trim(std::string_view s, std::string_view chars) { return trim_end(trim_start(s, chars), chars); }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace wslgpu::text
