#include "installer/formats/nvidia_smi.hpp"
#include "installer/system/text.hpp"

#include <cctype>
#include <vector>

namespace wslgpu {

namespace {

// What follows LABEL (matched case-insensitively, as a whole label) in LINE:
// the value after an optional ':' and blanks, up to the next blank or '|'.
// Returns false when LINE has no such label.
bool value_after(const std::string& line, const std::string& lowered, const std::string& label, std::string& value) {
  std::size_t at = 0;
  while ((at = lowered.find(label, at)) != std::string::npos) {
    // "CUDA Version" must not match inside "CUDA UMD Version", nor
    // "Driver Version" inside a longer word.
    bool starts_word = at == 0 || !std::isalnum(static_cast<unsigned char>(lowered[at - 1]));
    std::size_t i = at + label.size();
    if (!starts_word || (i < lowered.size() && std::isalnum(static_cast<unsigned char>(lowered[i])))) {
      at = i;
      continue;
    }
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == ':') ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t end = i;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '|' && line[end] != '\r') ++end;
    value = line.substr(i, end - i);
    return true;
  }
  return false;
}

// "591.86", "13.1", "580.95.05": digits and dots, starting with a digit.
bool is_version(const std::string& v) {
  if (v.empty() || !text::is_digit(v.front()) || !text::is_digit(v.back())) return false;
  for (char c : v)
    if (!text::is_digit(c) && c != '.') return false;
  return true;
}

}  // namespace

NvidiaSmiHeader parse_nvidia_smi_header(const std::string& output) {
  NvidiaSmiHeader h;
  for (std::string_view v : text::split_lines(output, text::LineEnd::newline_dropped)) {
    const std::string line(v);
    const std::string lowered = text::lower(line);
    std::string value;
    for (const char* label : {"driver version", "kmd version"}) {
      if (h.driver_version.empty() && value_after(line, lowered, label, value) && is_version(value))
        h.driver_version = value;
    }
    for (const char* label : {"cuda version", "cuda umd version"}) {
      if (!h.cuda_version.empty() || !value_after(line, lowered, label, value)) continue;
      if (is_version(value)) {
        h.cuda_version = value;
        h.cuda_error = false;
      } else if (value == "ERR!") {
        h.cuda_error = true;
      }
    }
  }
  return h;
}

}  // namespace wslgpu
