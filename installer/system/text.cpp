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

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string shell_quote(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string shell_word(std::string_view value) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
           std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
  };
  bool safe = !value.empty() && value.front() != '=';
  for (char c : value) safe = safe && plain(c);
  return safe ? std::string(value) : shell_quote(value);
}

std::vector<std::string_view> split_lines(std::string_view text, LineEnd end) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    std::size_t stop = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(start, stop - start);
    if (end != LineEnd::kept && !line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (end == LineEnd::dropped && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = stop;
  }
  return lines;
}

std::string first_line(std::string_view text) {
  for (std::string_view line : split_lines(text, LineEnd::newline_dropped)) {
    line = trim(line, " \t\r");
    if (!line.empty()) return std::string(line);
  }
  return "";
}

std::vector<std::string> output_lines(std::string_view output) {
  std::vector<std::string> lines;
  for (std::string_view line : split_lines(output, LineEnd::dropped)) {
    line = trim_end(line, " \r");
    if (!line.empty()) lines.emplace_back(line);
  }
  return lines;
}

}  // namespace wslgpu::text
