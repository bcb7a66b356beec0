#include "installer/formats/deb822.hpp"
#include "installer/system/text.hpp"

#include <cstdint>

#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> Deb822Stanza::get(std::string_view name) const {
  for (const auto& f : fields_)
    if (iequals(f.name, name)) return f.value;
  return std::nullopt;
}

std::string Deb822Stanza::get_or(std::string_view name, const std::string& fallback) const {
  return get(name).value_or(fallback);
}

void Deb822Stanza::set(const std::string& name, const std::string& value) {
  for (auto& f : fields_) {
    if (iequals(f.name, name)) {
      f.value = value;
      return;
    }
  }
  fields_.push_back({name, value});
}

bool Deb822Stanza::erase(std::string_view name) {
  for (auto it = fields_.begin(); it != fields_.end(); ++it) {
    if (iequals(it->name, name)) {
      fields_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<Deb822Stanza> parse_deb822(std::string_view text, const std::string& file) {
  std::vector<Deb822Stanza> out;
  Deb822Stanza current;
  // Fields are appended through a private path: set() would merge a repeated
  // field, which dpkg treats as an error but we simply keep the last one.
  std::vector<Deb822Field> fields;
  std::uint32_t line_no = 0;
  std::uint32_t first_line = 0;
  auto flush = [&] {
    if (fields.empty()) return;
    Deb822Stanza s;
    for (auto& f : fields) s.set(f.name, f.value);
    s.line = first_line;
    out.push_back(std::move(s));
    fields.clear();
  };
  for (std::string_view line : text::split_lines(text, text::LineEnd::dropped)) {
    ++line_no;
    if (text::trim_field(line).empty()) {
      flush();
    } else if (line.front() == '#') {
      // comment
    } else if (line.front() == ' ' || line.front() == '\t') {
      if (fields.empty())
        throw InputError(SourcePos{file, line_no, 1}, "a continuation line (starting with a space) comes before any field");
      std::string_view rest = line.substr(1);
      // Trailing '\r' goes too, as on a field's first line: kept, it would
      // be read back as the line end of the line format_deb822() writes.
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r')) rest.remove_suffix(1);
      fields.back().value += "\n" + std::string(rest);
    } else {
      std::size_t colon = line.find(':');
      std::string_view name =
          colon == std::string_view::npos ? std::string_view() : text::trim_field(line.substr(0, colon));
      if (name.empty() || name.find_first_of(" \t") != std::string_view::npos)
        throw InputError(SourcePos{file, line_no, 1},
                         "\"" + std::string(line) + "\" is not a \"Field: value\" line");
      if (fields.empty()) first_line = line_no;
      fields.push_back({std::string(name), std::string(text::trim_field(line.substr(colon + 1)))});
    }
  }
  flush();
  return out;
}

std::string format_deb822(const std::vector<Deb822Stanza>& stanzas) {
  std::string out;
  for (const auto& s : stanzas) {
    if (s.empty()) continue;
    if (!out.empty()) out += "\n";
    for (const auto& f : s.fields()) {
      out += f.name + ":";
      std::size_t nl = f.value.find('\n');
      std::string first = f.value.substr(0, nl);
      if (!first.empty()) out += " " + first;
      out += "\n";
      while (nl != std::string::npos) {
        std::size_t next = f.value.find('\n', nl + 1);
        out += " " + f.value.substr(nl + 1, next == std::string::npos ? std::string::npos : next - nl - 1) + "\n";
        nl = next;
      }
    }
  }
  return out;
}

std::vector<std::string> split_words(std::string_view value) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < value.size()) {
    while (i < value.size() && (value[i] == ' ' || value[i] == '\t' || value[i] == '\n' || value[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < value.size() && !(value[j] == ' ' || value[j] == '\t' || value[j] == '\n' || value[j] == '\r')) ++j;
    if (j > i) out.emplace_back(value.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace wslgpu
