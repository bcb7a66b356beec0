#include "installer/formats/apt_sources.hpp"
#include "installer/system/text.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include "installer/formats/deb822.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

// A line without its line end.
std::string_view content_of(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    std::string_view v = text::trim(s.substr(pos, comma - pos), text::kCSpace);
    if (!v.empty()) out.emplace_back(v);
    pos = comma + 1;
  }
  return out;
}

bool is_false(const std::string& value) {
  static const std::set<std::string> kFalse = {"no", "false", "without", "off", "disable", "0"};
  return kFalse.count(text::lower(text::trim(value, text::kCSpace))) > 0;
}

// The next word of a one-line entry, the way apt's ParseQuoteWord reads it:
// up to white space, except that "[...]" and "\"...\"" may hold spaces
// ("[ arch=amd64 ]" is one word). Quotes are dropped. False at the end of
// the line, or on an unclosed bracket or quote (PROBLEM says which).
bool next_word(std::string_view& rest, std::string& word, std::string& problem) {
  while (!rest.empty() && text::is_space(rest.front())) rest.remove_prefix(1);
  if (rest.empty()) return false;
  word.clear();
  std::size_t i = 0;
  while (i < rest.size() && !text::is_space(rest[i])) {
    char c = rest[i];
    if (c == '[' || c == '"') {
      char close = c == '[' ? ']' : '"';
      std::size_t end = rest.find(close, i + 1);
      if (end == std::string_view::npos) {
        problem = c == '[' ? "an option list \"[\" without its \"]\"" : "a quote without its closing quote";
        return false;
      }
      if (c == '[')
        word += rest.substr(i, end - i + 1);
      else
        word += rest.substr(i + 1, end - i - 1);
      i = end + 1;
      continue;
    }
    word += c;
    ++i;
  }
  rest.remove_prefix(i);
  return true;
}

void apply_option(AptSourceEntry& e, const AptSourceOption& o) {
  std::string name = text::lower(o.name);
  if (name == "arch" || name == "architectures") {
    if (o.op == "+=")
      e.architectures_add = o.values;
    else if (o.op == "-=")
      e.architectures_remove = o.values;
    else
      e.architectures = o.values;
  } else if (name == "architectures-add") {
    e.architectures_add = o.values;
  } else if (name == "architectures-remove") {
    e.architectures_remove = o.values;
  } else if (name == "signed-by") {
    e.signed_by = o.values;
  } else if (name == "trusted") {
    e.trusted = o.values.empty() ? "" : text::lower(o.values.front());
  }
}

void parse_one_line(AptSourcesFile& file) {
  auto lines = text::split_lines(file.text, text::LineEnd::kept);
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const auto line_no = static_cast<std::uint32_t>(n + 1);
    std::string_view text = content_of(lines[n]);
    // sources.list(5): "a # character anywhere on a line marks the
    // remainder of that line as a comment".
    text = text::trim(text.substr(0, text.find('#')), text::kCSpace);
    if (text.empty()) continue;
    const auto column = static_cast<std::uint32_t>(text.data() - lines[n].data() + 1);
    auto problem_at = [&](const std::string& why) { file.problems.push_back({{file.path, line_no, column}, why}); };
    std::string_view rest = text;
    std::string word, problem;
    next_word(rest, word, problem);
    AptSourceEntry e;
    e.file = file.path;
    e.format = AptSourcesFormat::one_line;
    e.first_line = e.last_line = line_no;
    if (word != "deb" && word != "deb-src") {
      problem_at("the type \"" + word + "\" is not deb or deb-src");
      continue;
    }
    e.types = {word};
    if (!next_word(rest, word, problem)) {
      problem_at((problem.empty() ? "no URI after the type" : problem));
      continue;
    }
    if (!word.empty() && word.front() == '[') {
      std::string_view inner = std::string_view(word).substr(1, word.size() - 2);
      bool bad = false;
      for (const auto& item : split_words(inner)) {
        std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0) {
          problem_at("the option \"" + item + "\" has no \"=\"");
          bad = true;
          break;
        }
        AptSourceOption o;
        std::size_t name_end = eq;
        o.op = "=";
        if (item[eq - 1] == '+' || item[eq - 1] == '-') {
          o.op = std::string(1, item[eq - 1]) + "=";
          name_end = eq - 1;
        }
        o.name = item.substr(0, name_end);
        o.values = split_commas(std::string_view(item).substr(eq + 1));
        apply_option(e, o);
        e.options.push_back(std::move(o));
      }
      if (bad) continue;
      if (!next_word(rest, word, problem)) {
        problem_at((problem.empty() ? "no URI after the options" : problem));
        continue;
      }
    }
    e.uris = {word};
    if (!next_word(rest, word, problem)) {
      problem_at((problem.empty() ? "no suite after the URI" : problem));
      continue;
    }
    // A quoted empty word ("") is no suite: apt rejects the line too.
    if (word.empty()) {
      problem_at("the suite is empty");
      continue;
    }
    e.suites = {word};
    while (next_word(rest, word, problem)) e.components.push_back(word);
    if (!problem.empty()) {
      problem_at(problem);
      continue;
    }
    bool flat = e.suites.front().back() == '/';
    if (flat && !e.components.empty()) {
      problem_at("a suite ending in \"/\" (an exact path) takes no components");
      continue;
    }
    if (!flat && e.components.empty()) {
      problem_at("no component after the suite \"" + e.suites.front() + "\"");
      continue;
    }
    e.index = file.entries.size();
    file.entries.push_back(std::move(e));
  }
}

// A deb822 file's blocks: runs of non-blank lines, [first, last] 0-based.
struct Block {
  std::size_t first = 0, last = 0;
  bool has_field = false;  // not only comments
};

std::vector<Block> blocks_of(const std::vector<std::string_view>& lines) {
  std::vector<Block> blocks;
  bool open = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view text = content_of(lines[i]);
    if (text::trim(text, text::kCSpace).empty()) {
      open = false;
      continue;
    }
    if (!open) blocks.push_back({i, i, false});
    open = true;
    blocks.back().last = i;
    if (text.front() != '#') blocks.back().has_field = true;
  }
  return blocks;
}

bool is_comment_or_blank_deb822(std::string_view line) {
  std::string_view text = content_of(line);
  return text::trim(text, text::kCSpace).empty() || text.front() == '#';
}

// The armoured key of an inline Signed-By: its lines, with the " ."
// lines that stand for empty lines (deb822 has no empty continuation lines)
// made empty again.
std::string inline_key(const std::string& value) {
  std::string out;
  std::size_t pos = 0;
  while (pos <= value.size()) {
    std::size_t nl = value.find('\n', pos);
    if (nl == std::string::npos) nl = value.size();
    std::string_view line = text::trim(std::string_view(value).substr(pos, nl - pos), text::kCSpace);
    if (!(out.empty() && line.empty())) out += (line == "." ? std::string() : std::string(line)) + "\n";
    pos = nl + 1;
  }
  return out;
}

void parse_deb822_sources(AptSourcesFile& file) {
  auto lines = text::split_lines(file.text, text::LineEnd::kept);
  for (const Block& b : blocks_of(lines)) {
    if (!b.has_field) continue;
    std::string block;
    std::uint32_t first_field = 0, last_field = 0;
    for (std::size_t i = b.first; i <= b.last; ++i) {
      block += lines[i];
      if (i == b.last && (lines[i].empty() || lines[i].back() != '\n')) block += '\n';
      if (content_of(lines[i]).front() != '#') {
        if (!first_field) first_field = static_cast<std::uint32_t>(i + 1);
        last_field = static_cast<std::uint32_t>(i + 1);
      }
    }
    auto problem_at = [&](const std::string& why) { file.problems.push_back({{file.path, first_field, 1}, why}); };
    std::vector<Deb822Stanza> stanzas;
    try {
      stanzas = parse_deb822(block, file.path);
    } catch (const InputError& e) {
      const Diagnostic& d = e.diagnostics().front();
      file.problems.push_back(
          {{file.path, static_cast<std::uint32_t>(b.first + d.pos.line), d.pos.column ? d.pos.column : 1}, d.message});
      continue;
    }
    if (stanzas.empty()) continue;
    const Deb822Stanza& s = stanzas.front();
    AptSourceEntry e;
    e.file = file.path;
    e.format = AptSourcesFormat::deb822;
    e.first_line = first_field;
    e.last_line = last_field;
    e.types = split_words(s.get_or("Types", ""));
    e.uris = split_words(s.get_or("URIs", ""));
    e.suites = split_words(s.get_or("Suites", ""));
    e.components = split_words(s.get_or("Components", ""));
    e.enabled = !is_false(s.get_or("Enabled", "yes"));
    for (const auto& f : s.fields()) {
      std::string name = text::lower(f.name);
      if (name == "types" || name == "uris" || name == "suites" || name == "components" || name == "enabled") continue;
      AptSourceOption o{f.name, "", {}};
      if (name == "signed-by" && f.value.find("-----BEGIN PGP PUBLIC KEY BLOCK-----") != std::string::npos) {
        e.signed_by_key = inline_key(f.value);
        o.values = {e.signed_by_key};
      } else {
        o.values = split_words(f.value);
        apply_option(e, o);
      }
      e.options.push_back(std::move(o));
    }
    if (e.types.empty() || e.uris.empty() || e.suites.empty()) {
      problem_at(std::string("the stanza lacks ") + (e.types.empty() ? "Types" : e.uris.empty() ? "URIs" : "Suites"));
      continue;
    }
    bool known =
        std::all_of(e.types.begin(), e.types.end(), [](const std::string& t) { return t == "deb" || t == "deb-src"; });
    if (!known) {
      problem_at("a type in \"" + s.get_or("Types", "") + "\" is not deb or deb-src");
      continue;
    }
    e.index = file.entries.size();
    file.entries.push_back(std::move(e));
  }
}

// The text of FILE without the entries at INDEXES; ANYTHING_LEFT says
// whether it still holds more than comments and blank lines.
std::string edit(const AptSourcesFile& file, const std::vector<std::size_t>& indexes, bool& anything_left) {
  auto lines = text::split_lines(file.text, text::LineEnd::kept);
  std::vector<bool> drop(lines.size(), false);
  std::set<std::size_t> wanted(indexes.begin(), indexes.end());
  if (file.format == AptSourcesFormat::one_line) {
    for (const auto& e : file.entries)
      if (wanted.count(e.index)) drop[e.first_line - 1] = true;
  } else {
    auto blocks = blocks_of(lines);
    // The block of each entry to remove: the last that starts at or before
    // its first line (blocks are in line order), looked up once per entry,
    // not once per block and entry.
    std::vector<bool> removed_blocks(blocks.size(), false);
    for (const auto& e : file.entries) {
      if (!wanted.count(e.index)) continue;
      auto after = std::upper_bound(blocks.begin(), blocks.end(), e.first_line - 1,
                                    [](std::size_t line, const Block& block) { return line < block.first; });
      if (after == blocks.begin()) continue;
      const auto b = static_cast<std::size_t>(after - blocks.begin()) - 1;
      if (e.last_line - 1 <= blocks[b].last) removed_blocks[b] = true;
    }
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      if (!removed_blocks[b]) continue;
      for (std::size_t i = blocks[b].first; i <= blocks[b].last; ++i) drop[i] = true;
      // The blank lines that separated it from the next block go with it;
      // after the last block, the ones that separated it from the previous.
      std::size_t next_start = b + 1 < blocks.size() ? blocks[b + 1].first : lines.size();
      if (b + 1 < blocks.size()) {
        for (std::size_t i = blocks[b].last + 1; i < next_start; ++i) drop[i] = true;
      } else {
        for (std::size_t i = blocks[b].last + 1; i < lines.size(); ++i) drop[i] = true;
        std::size_t prev_end = b > 0 ? blocks[b - 1].last + 1 : 0;
        for (std::size_t i = prev_end; i < blocks[b].first; ++i) drop[i] = true;
      }
    }
  }
  std::string out;
  anything_left = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (drop[i]) continue;
    out += lines[i];
    std::string_view text = content_of(lines[i]);
    if (file.format == AptSourcesFormat::one_line) {
      if (!text::trim(text.substr(0, text.find('#')), text::kCSpace).empty()) anything_left = true;
    } else if (!is_comment_or_blank_deb822(lines[i])) {
      anything_left = true;
    }
  }
  return out;
}

}  // namespace

std::string AptSourceEntry::where() const {
  std::string out = file + ":" + std::to_string(first_line);
  if (last_line > first_line) out += "-" + std::to_string(last_line);
  return out;
}

bool AptSourceEntry::has_type(const std::string& type) const {
  return std::find(types.begin(), types.end(), type) != types.end();
}

bool AptSourceEntry::has_uri(const std::string& uri) const {
  std::string want = normalize_apt_uri(uri);
  return std::any_of(uris.begin(), uris.end(), [&](const std::string& u) { return normalize_apt_uri(u) == want; });
}

bool AptSourceEntry::has_suite(const std::string& suite) const {
  return std::find(suites.begin(), suites.end(), suite) != suites.end();
}

std::string normalize_apt_uri(const std::string& uri) {
  std::string out = uri;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

AptSourcesFile parse_apt_sources(const std::string& path, const std::string& text) {
  AptSourcesFile file;
  file.path = path;
  file.text = text;
  const std::string ext = ".sources";
  bool deb822 = path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  file.format = deb822 ? AptSourcesFormat::deb822 : AptSourcesFormat::one_line;
  if (deb822)
    parse_deb822_sources(file);
  else
    parse_one_line(file);
  return file;
}

bool apt_reads_source_file_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  std::size_t dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  std::string ext = name.substr(dot + 1);
  if (ext != "list" && ext != "sources") return false;
  if (dot == 0) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == ':' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::vector<AptSourcesFile> read_apt_sources(const FileSystem& fs) {
  std::vector<std::string> paths;
  paths.push_back("/etc/apt/sources.list");
  for (const auto& name : fs.list("/etc/apt/sources.list.d"))
    if (apt_reads_source_file_name(name)) paths.push_back("/etc/apt/sources.list.d/" + name);
  std::vector<AptSourcesFile> files;
  for (const auto& path : paths) {
    auto info = fs.stat(path);
    if (!info || info->type != FileType::regular) continue;
    files.push_back(parse_apt_sources(path, fs.read(path)));
  }
  return files;
}

std::optional<std::string> remove_apt_source_entries(const AptSourcesFile& file,
                                                     const std::vector<std::size_t>& indexes) {
  bool anything_left = false;
  std::string out = edit(file, indexes, anything_left);
  if (!anything_left) return std::nullopt;
  return out;
}

std::string apt_sources_without(const AptSourcesFile& file, const std::vector<std::size_t>& indexes) {
  bool anything_left = false;
  return edit(file, indexes, anything_left);
}

}  // namespace wslgpu
