// The INI editor of .wslconfig and wsl.conf (installer/formats/ini.hpp),
// which promises to keep everything it does not touch byte for byte:
//   1. str(parse(x)) == x for every x that parses;
//   2. after set(section, key, value) every line it did not touch is
//      unchanged, the new text parses again, and get() finds the value.
// The section, key and value come from the input's first line (so that
// seeds, which have none, still exercise the parser); they are made into
// names and a value a step could ask for.
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/ini.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

namespace {

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::string trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  auto e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
}

// Keeps the characters of RAW that a name may hold; FALLBACK when none is left.
std::string name_from(std::string_view raw, const char* fallback) {
  std::string out;
  for (char c : raw)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')
      out += c;
  return out.empty() ? fallback : out;
}

// A value: printable ASCII, no surrounding blanks (parse() trims them).
std::string value_from(std::string_view raw) {
  std::string out;
  for (char c : raw)
    if (c >= ' ' && c <= '~') out += c;
  return trim(out);
}

std::string_view without_eol(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Whether LINE (as written before the edit) holds KEY, so that set() may rewrite it.
bool is_key_line(std::string_view line, const std::string& key) {
  std::string t = trim(without_eol(line));
  if (t.empty() || t[0] == '#' || t[0] == ';' || t[0] == '[') return false;
  auto eq = t.find('=');
  return eq != std::string::npos && lower(trim(std::string_view(t).substr(0, eq))) == lower(key);
}

// Property 2: AFTER is BEFORE with key lines rewritten in place (the text up
// to '=' kept) and lines added that set() writes: "KEY=VALUE", "[SECTION]"
// and a blank line. The last line of BEFORE may gain a line end.
void check_untouched(const std::string& before, const std::string& after, const std::string& section,
                     const std::string& key, const std::string& value) {
  // The BOM stays, and is no part of the first line.
  const std::string_view bom = "\xEF\xBB\xBF";
  bool had_bom = before.rfind(bom, 0) == 0;
  FUZZ_CHECK(had_bom == (after.rfind(bom, 0) == 0));
  auto b = fuzz::lines_with_ends(std::string_view(before).substr(had_bom ? 3 : 0));
  auto a = fuzz::lines_with_ends(std::string_view(after).substr(had_bom ? 3 : 0));
  auto added = [&](std::string_view line) {
    std::string_view t = without_eol(line);
    return t == key + "=" + value || t == "[" + section + "]" || t.empty();
  };
  std::size_t i = 0, j = 0, added_lines = 0;
  std::string current;  // the section of b[i], as parse() names it
  while (i < b.size() && j < a.size()) {
    std::string t = trim(without_eol(b[i]));
    if (!t.empty() && t[0] == '[' && t.find(']') != std::string::npos)
      current = lower(trim(t.substr(1, t.find(']') - 1)));
    bool last_without_eol = i + 1 == b.size() && b[i].back() != '\n';
    auto gained_eol = [&] {
      std::string line(b[i]);
      return last_without_eol && (a[j] == line + "\n" || a[j] == line + "\r\n");
    };
    if (a[j] == b[i] || gained_eol()) {
      ++i, ++j;
    } else if (current == lower(section) && is_key_line(b[i], key) &&
               a[j].substr(0, b[i].find('=') + 1) == b[i].substr(0, b[i].find('=') + 1) &&
               trim(without_eol(a[j].substr(b[i].find('=') + 1))) == value) {
      ++i, ++j;  // rewritten in place
    } else if (added(a[j])) {
      ++j, ++added_lines;
    } else {
      std::fprintf(stderr, "set(\"%s\", \"%s\", \"%s\"), line %zu:\n", section.c_str(), key.c_str(), value.c_str(),
                   i + 1);
      fuzz::show_difference(b[i], a[j]);
      FUZZ_CHECK(!"set() changed a line it had no reason to touch");
    }
  }
  FUZZ_CHECK(i == b.size());
  for (; j < a.size(); ++j, ++added_lines) FUZZ_CHECK(added(a[j]));
  FUZZ_CHECK(added_lines <= 3);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);
  IniDocument doc;
  try {
    doc = IniDocument::parse(text, "fuzz");
  } catch (const InputError&) {
    return 0;
  }
  if (doc.str() != text) fuzz::show_difference(doc.str(), text);
  FUZZ_CHECK(doc.str() == text);  // property 1

  std::string_view first = without_eol(fuzz::lines_with_ends(text).empty() ? "" : fuzz::lines_with_ends(text)[0]);
  auto cut = [&](std::size_t n) {
    auto part = first.substr(0, std::min(n, first.size()));
    first.remove_prefix(part.size());
    return part;
  };
  std::string section = name_from(cut(8), "wsl2");
  std::string key = name_from(cut(8), "memory");
  std::string value = value_from(first);

  std::string before = doc.str();
  doc.set(section, key, value);
  std::string after = doc.str();
  check_untouched(before, after, section, key, value);
  IniDocument again;
  try {
    again = IniDocument::parse(after, "fuzz");
  } catch (const InputError&) {
    FUZZ_CHECK(!"the document no longer parses after set()");
  }
  FUZZ_CHECK(again.get(section, key) == value);
  FUZZ_CHECK(again.str() == after);
  for (const auto& v : again.values(section, key)) FUZZ_CHECK(v == value);
  return 0;
}
