#include "installer/manifest/substitute.hpp"

#include <algorithm>

#include "installer/manifest/suggest.hpp"

namespace wslgpu {

bool columns_match_source(const std::string& text, std::size_t offset) {
  if (offset > text.size()) return false;
  return std::none_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

std::string substitute(const std::string& text, const Variables& vars, const SourcePos& pos,
                       std::vector<Diagnostic>& diagnostics) {
  std::string out;
  out.reserve(text.size());
  // A value's position is that of its opening quote; the n-th character sits
  // n+1 columns further on when nothing before it was escaped.
  auto at = [&](std::size_t offset) {
    SourcePos p = pos;
    if (p.column > 0 && columns_match_source(text, offset)) p.column += static_cast<std::uint32_t>(offset + 1);
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
    if (name.empty()) {
      diagnostics.push_back({at(i), "\"${}\" names no variable (write ${NAME}, or \"$${\" for a literal \"${\")"});
      out += "${}";
    } else if (it == vars.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : vars) known.push_back(k);
      std::string hint = suggest(name, known);
      diagnostics.push_back({at(i), "undefined variable \"" + name + "\"" +
                                        (hint.empty() ? " (define it in [vars])" : " (did you mean \"" + hint + "\"?)")});
      out += text.substr(i, close - i + 1);
    } else {
      out += it->second;
    }
    i = close + 1;
  }
  return out;
}

std::vector<std::string> referenced_variables(const std::string& text) {
  std::vector<std::string> names;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.compare(i, 3, "$${") == 0) {
      i += 3;
    } else if (text.compare(i, 2, "${") == 0) {
      auto close = text.find('}', i + 2);
      if (close == std::string::npos) break;
      if (close > i + 2) names.push_back(text.substr(i + 2, close - i - 2));
      i = close + 1;
    } else {
      ++i;
    }
  }
  return names;
}

}  // namespace wslgpu
