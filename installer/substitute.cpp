#include "installer/substitute.hpp"

namespace wslgpu {

std::string substitute(const std::string& text, const Variables& vars, const SourcePos& pos,
                       std::vector<Diagnostic>& diagnostics) {
  std::string out;
  out.reserve(text.size());
  // A value's position is that of its opening quote; on a one-line string the
  // n-th character sits n+1 columns further on.
  const bool one_line = text.find('\n') == std::string::npos;
  auto at = [&](std::size_t offset) {
    SourcePos p = pos;
    if (one_line && p.column > 0) p.column += static_cast<std::uint32_t>(offset + 1);
    return p;
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      out += text[i++];
      continue;
    }
    auto close = text.find('}', i + 2);
    if (close == std::string::npos) {
      diagnostics.push_back({at(i), "\"${\" has no closing \"}\" (write \"$${\" for a literal \"${\")"});
      out += text.substr(i);
      break;
    }
    std::string name = text.substr(i + 2, close - i - 2);
    auto it = vars.find(name);
    if (it == vars.end()) {
      diagnostics.push_back({at(i), "undefined variable \"" + name + "\" (define it in [vars] or pass --set " +
                                        name + "=VALUE)"});
      out += text.substr(i, close - i + 1);
    } else {
      out += it->second;
    }
    i = close + 1;
  }
  return out;
}

}  // namespace wslgpu
