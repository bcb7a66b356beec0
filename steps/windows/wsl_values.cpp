#include "steps/windows/wsl_values.hpp"
#include "installer/system/text.hpp"

#include <cctype>
#include <climits>
#include <cstdlib>
#include <limits>

namespace wslgpu {

namespace {

}  // namespace

std::string without_trailing_comment(const std::string& raw) {
  bool quoted = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\') {
      ++i;  // an escaped quote or '#' neither opens a quote nor starts a comment
    } else if (raw[i] == '"') {
      quoted = !quoted;
    } else if (raw[i] == '#' && !quoted) {
      return std::string(text::trim(raw.substr(0, i), text::kBlanks));
    }
  }
  return std::string(text::trim(raw, text::kBlanks));
}

std::optional<std::string> wsl_value(const std::string& raw) {
  std::string text = without_trailing_comment(raw);
  std::string out;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (c == '\\') {
      if (++i == text.size()) return std::nullopt;  // a line continuation, which this line-based reader does not join
      switch (text[i]) {
        case '\\':
        case '"':
          out += text[i];
          break;
        case 'b':
          out += '\b';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        default:
          return std::nullopt;
      }
    } else {
      out += c;
    }
  }
  if (quoted) return std::nullopt;
  return out;
}

std::optional<std::uint64_t> wsl_size_bytes(const std::string& value) {
  std::size_t digits = 0;
  while (digits < value.size() && std::isdigit(static_cast<unsigned char>(value[digits]))) ++digits;
  if (digits == 0 || digits > 20) return std::nullopt;
  std::uint64_t number = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    auto d = static_cast<std::uint64_t>(value[i] - '0');
    if (number > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return std::nullopt;
    number = number * 10 + d;
  }
  // WSL takes a zero only as "0": "00" and "0GB" are not sizes to it.
  if (number == 0 && value != "0") return std::nullopt;
  std::string unit;
  for (std::size_t i = digits; i < value.size(); ++i)
    unit += static_cast<char>(std::toupper(static_cast<unsigned char>(value[i])));
  unsigned shift = 0;
  if (unit.empty() || unit == "B")
    shift = 0;
  else if (unit == "K" || unit == "KB")
    shift = 10;
  else if (unit == "M" || unit == "MB")
    shift = 20;
  else if (unit == "G" || unit == "GB")
    shift = 30;
  else if (unit == "T" || unit == "TB")
    shift = 40;
  else
    return std::nullopt;
  if (shift && number > (std::numeric_limits<std::uint64_t>::max() >> shift)) return std::nullopt;
  return number << shift;
}

std::optional<std::uint64_t> wsl_count(const std::string& value) {
  if (value.empty()) return std::nullopt;
  char* end = nullptr;
  long number = std::strtol(value.c_str(), &end, 0);
  if (*end != '\0' || number < 0 || number > INT_MAX) return std::nullopt;
  return static_cast<std::uint64_t>(number);
}

}  // namespace wslgpu
