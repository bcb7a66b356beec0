#include "installer/formats/apt_madison.hpp"
#include "installer/system/text.hpp"

#include <algorithm>

namespace wslgpu {

std::map<std::string, std::vector<std::string>> parse_apt_madison(const std::string& output) {
  std::map<std::string, std::vector<std::string>> out;
  for (std::string_view line : text::split_lines(output, text::LineEnd::newline_dropped)) {
    auto bar1 = line.find('|');
    if (bar1 == std::string_view::npos) continue;
    auto bar2 = line.find('|', bar1 + 1);
    if (bar2 == std::string_view::npos) continue;
    std::string name = std::string(text::trim(line.substr(0, bar1), " \t\r"));
    std::string version = std::string(text::trim(line.substr(bar1 + 1, bar2 - bar1 - 1), " \t\r"));
    if (name.empty() || version.empty() || name.find(' ') != std::string::npos ||
        version.find(' ') != std::string::npos)
      continue;
    auto& versions = out[name];
    if (std::find(versions.begin(), versions.end(), version) == versions.end()) versions.push_back(version);
  }
  return out;
}

}  // namespace wslgpu
