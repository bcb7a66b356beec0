#include "installer/formats/ini.hpp"
#include "installer/system/text.hpp"

#include <algorithm>

namespace wslgpu {

namespace {

bool is_comment_or_blank(const std::string& t) {
  std::string s = std::string(text::trim(t, text::kBlanks));
  return s.empty() || s[0] == '#' || s[0] == ';';
}

}  // namespace

bool ini_says_false(const std::string& value) { return text::lower(value) == "false" || value == "0"; }

bool looks_like_utf16(const std::string& text) {
  if (text.size() >= 2) {
    auto b0 = static_cast<unsigned char>(text[0]), b1 = static_cast<unsigned char>(text[1]);
    if ((b0 == 0xFF && b1 == 0xFE) || (b0 == 0xFE && b1 == 0xFF)) return true;
  }
  return text.find('\0') != std::string::npos;
}

std::optional<std::string> utf16_to_utf8(const std::string& text) {
  std::size_t start = 0;
  bool little = true;
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  if (text.size() >= 2 && byte(0) == 0xFF && byte(1) == 0xFE) {
    start = 2;
  } else if (text.size() >= 2 && byte(0) == 0xFE && byte(1) == 0xFF) {
    start = 2;
    little = false;
  } else {
    // No BOM: ASCII text has its NUL bytes at odd offsets in little-endian.
    std::size_t even = 0, odd = 0;
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\0') ++(i % 2 ? odd : even);
    little = odd >= even;
  }
  if ((text.size() - start) % 2 != 0) return std::nullopt;
  std::string out;
  auto unit = [&](std::size_t i) -> std::uint32_t {
    return little ? (byte(i) | (static_cast<std::uint32_t>(byte(i + 1)) << 8))
                  : ((static_cast<std::uint32_t>(byte(i)) << 8) | byte(i + 1));
  };
  for (std::size_t i = start; i < text.size(); i += 2) {
    std::uint32_t cp = unit(i);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (i + 3 >= text.size()) return std::nullopt;
      std::uint32_t low = unit(i + 2);
      if (low < 0xDC00 || low > 0xDFFF) return std::nullopt;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      i += 2;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return std::nullopt;
    }
    wslgpu::text::append_utf8(out, cp);
  }
  // A BOM written inside the text (U+FEFF) says nothing in UTF-8: drop it.
  if (out.rfind("\xEF\xBB\xBF", 0) == 0) out.erase(0, 3);
  return out;
}

IniDocument IniDocument::parse(const std::string& input, const std::string& file) {
  if (looks_like_utf16(input)) {
    throw InputError(SourcePos{file, 1, 1},
                     "the file is saved as UTF-16, which WSL silently ignores; save it as UTF-8");
  }
  IniDocument doc;
  std::string text = input;
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) {
    doc.bom_ = true;
    text.erase(0, 3);
  }
  auto first_nl = text.find('\n');
  doc.crlf_ = first_nl != std::string::npos && first_nl > 0 && text[first_nl - 1] == '\r';
  doc.final_newline_ = text.empty() || text.back() == '\n';

  std::vector<Diagnostic> problems;
  std::string section;
  std::uint32_t number = 0;
  for (std::string_view kept : text::split_lines(text, text::LineEnd::kept)) {
    ++number;
    Line line;
    line.lf = kept.ends_with('\n');
    std::string raw(kept.substr(0, kept.size() - (line.lf ? 1 : 0)));
    if (!raw.empty() && raw.back() == '\r') {
      raw.pop_back();
      line.cr = true;
    }
    line.text = raw;
    std::string t = std::string(text::trim(raw, text::kBlanks));
    if (is_comment_or_blank(t)) {
      line.section = section;
    } else if (t.front() == '[') {
      auto close = t.find(']');
      if (close == std::string::npos) {
        problems.push_back({{file, number, 1}, "section header \"" + t + "\" has no closing ]"});
      } else {
        std::string rest = std::string(text::trim(t.substr(close + 1), text::kBlanks));
        if (!rest.empty() && rest[0] != '#' && rest[0] != ';') {
          problems.push_back({{file, number, static_cast<std::uint32_t>(raw.find(rest) + 1)},
                              "\"" + rest +
                                  "\" follows the section header on the same line; WSL ignores it: "
                                  "put each key on its own line"});
        }
        line.kind = Line::Kind::section;
        line.name = text::trim(t.substr(1, close - 1), text::kBlanks);
        section = text::lower(line.name);
        line.section = section;
      }
    } else if (auto eq = t.find('='); eq != std::string::npos) {
      line.kind = Line::Kind::key;
      line.name = text::trim(t.substr(0, eq), text::kBlanks);
      line.value = text::trim(t.substr(eq + 1), text::kBlanks);
      line.section = section;
      if (section.empty()) {
        problems.push_back({{file, number, 1},
                            "key \"" + line.name +
                                "\" is outside any section; WSL ignores it: "
                                "put it under a [section] header"});
      }
    } else {
      problems.push_back({{file, number, 1}, "\"" + t + "\" is not a comment, a [section] or a key = value line"});
    }
    doc.lines_.push_back(std::move(line));
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  return doc;
}

std::optional<std::string> IniDocument::get(const std::string& section, const std::string& key) const {
  std::optional<std::string> out;
  std::string s = text::lower(section), k = text::lower(key);
  for (const auto& l : lines_)
    if (l.kind == Line::Kind::key && l.section == s && text::lower(l.name) == k) out = l.value;
  return out;
}

std::uint32_t IniDocument::line_of(const std::string& section, const std::string& key) const {
  std::uint32_t out = 0;
  std::string s = text::lower(section), k = text::lower(key);
  for (std::size_t i = 0; i < lines_.size(); ++i)
    if (lines_[i].kind == Line::Kind::key && lines_[i].section == s && text::lower(lines_[i].name) == k)
      out = static_cast<std::uint32_t>(i + 1);
  return out;
}

std::vector<std::string> IniDocument::values(const std::string& section, const std::string& key) const {
  std::vector<std::string> out;
  std::string s = text::lower(section), k = text::lower(key);
  for (const auto& l : lines_)
    if (l.kind == Line::Kind::key && l.section == s && text::lower(l.name) == k) out.push_back(l.value);
  return out;
}

std::vector<std::uint32_t> IniDocument::section_lines(const std::string& section) const {
  std::vector<std::uint32_t> out;
  std::string s = text::lower(section);
  for (std::size_t i = 0; i < lines_.size(); ++i)
    if (lines_[i].kind == Line::Kind::section && lines_[i].section == s)
      out.push_back(static_cast<std::uint32_t>(i + 1));
  return out;
}

void IniDocument::set(const std::string& section, const std::string& key, const std::string& value) {
  std::string s = text::lower(section), k = text::lower(key);
  // Replace every occurrence in place, keeping indentation and spacing.
  bool replaced = false;
  for (auto& l : lines_) {
    if (l.kind == Line::Kind::key && l.section == s && text::lower(l.name) == k) {
      auto eq = l.text.find('=');
      std::string after = l.text.substr(eq + 1);
      std::size_t lead = after.find_first_not_of(" \t");
      std::string spacing = lead == std::string::npos ? after : after.substr(0, lead);
      l.text = l.text.substr(0, eq + 1) + spacing + value;
      l.value = value;
      replaced = true;
    }
  }
  if (replaced) return;
  Line line;
  line.kind = Line::Kind::key;
  line.name = key;
  line.value = value;
  line.section = s;
  line.text = key + "=" + value;
  line.cr = crlf_;
  // Append after the last non-blank line of the section's last block.
  std::optional<std::size_t> insert_at;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (lines_[i].section != s) continue;
    if (lines_[i].kind != Line::Kind::other || !text::trim(lines_[i].text, text::kBlanks).empty()) insert_at = i + 1;
  }
  if (insert_at) {
    lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(*insert_at), std::move(line));
    return;
  }
  if (!lines_.empty() && !text::trim(lines_.back().text, text::kBlanks).empty()) {
    Line blank;
    blank.cr = crlf_;
    lines_.push_back(std::move(blank));
  }
  Line header;
  header.kind = Line::Kind::section;
  header.name = section;
  header.section = s;
  header.text = "[" + section + "]";
  header.cr = crlf_;
  lines_.push_back(std::move(header));
  lines_.push_back(std::move(line));
  final_newline_ = true;
}

bool IniDocument::erase(const std::string& section, const std::string& key) {
  std::string s = text::lower(section), k = text::lower(key);
  auto before = lines_.size();
  std::erase_if(lines_,
                [&](const Line& l) { return l.kind == Line::Kind::key && l.section == s && text::lower(l.name) == k; });
  return lines_.size() != before;
}

std::vector<std::string> IniDocument::sections() const {
  std::vector<std::string> out;
  for (const auto& l : lines_)
    if (l.kind == Line::Kind::section && std::find(out.begin(), out.end(), l.section) == out.end())
      out.push_back(l.section);
  return out;
}

std::vector<std::string> IniDocument::keys(const std::string& section) const {
  std::vector<std::string> out;
  std::string s = text::lower(section);
  for (const auto& l : lines_)
    if (l.kind == Line::Kind::key && l.section == s) out.push_back(l.name);
  return out;
}

std::string IniDocument::str() const {
  std::string out = bom_ ? "\xEF\xBB\xBF" : "";
  const char* eol = crlf_ ? "\r\n" : "\n";
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const Line& l = lines_[i];
    out += l.text;
    // A line keeps its own end; one that had none (the file's last) takes
    // the document's when a line now follows it.
    if (i + 1 < lines_.size() || final_newline_)
      out += l.cr ? "\r\n" : l.lf ? "\n" : eol;
    else if (l.cr && !l.lf)
      out += '\r';
  }
  return out;
}

}  // namespace wslgpu
