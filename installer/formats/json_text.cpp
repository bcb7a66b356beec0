#include "installer/formats/json_text.hpp"

#include "installer/system/text.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

namespace wslgpu {

namespace {

// Deeper nesting is refused rather than recursed into: a hostile file must
// not exhaust the stack. Real configuration files nest a handful of levels.
constexpr int kMaxJsonDepth = 256;

// Where a value is in the text. Arrays and scalars keep only their extent:
// a merge replaces them whole and never looks inside.
struct JsonNode {
  bool is_object = false;
  std::size_t begin = 0;  // the value's first byte
  std::size_t end = 0;    // one past its last byte
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  struct Member;
  std::vector<Member> members;  // an object's, in text order
};

struct JsonNode::Member {
  std::string key;
  std::size_t key_begin = 0;  // the opening quote
  std::size_t key_end = 0;    // one past the closing quote
  JsonNode value;
};

std::string json_type_name(const nlohmann::json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_null()) return "null";
  return "a number";
}

// A recursive-descent reader that builds the value and the positions together.
class JsonReader {
 public:
  JsonReader(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  nlohmann::json document(JsonNode& root) {
    if (text_.rfind("\xEF\xBB\xBF", 0) == 0)
      fail_strict(
          "the file starts with a UTF-8 byte-order mark, which JSON does not allow (RFC 8259, section 8.1) and "
          "Go's encoding/json refuses: save it without one");
    skip_blanks();
    if (pos_ == text_.size()) fail("expected a JSON value, found the end of the file");
    nlohmann::json v = value(root, 0);
    skip_blanks();
    if (pos_ != text_.size()) fail("unexpected " + found() + " after the end of the JSON value");
    return v;
  }

 private:
  const std::string& text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t column_ = 1;

  [[noreturn]] void fail_at(std::uint32_t line, std::uint32_t column, const std::string& message) const {
    throw InputError(SourcePos{file_, line, column}, message);
  }
  [[noreturn]] void fail(const std::string& message) const { fail_at(line_, column_, message); }
  [[noreturn]] void fail_strict(const std::string& message) const {
    throw StrictJsonError(SourcePos{file_, line_, column_}, message);
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  // One byte on; columns count characters, so UTF-8 continuation bytes do not move it.
  void advance() {
    unsigned char c = static_cast<unsigned char>(text_[pos_++]);
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++column_;
    }
  }

  void skip_blanks() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) advance();
  }

  // What is at the current position, for messages.
  std::string found() const {
    if (at_end()) return "end of the file";
    unsigned char c = static_cast<unsigned char>(peek());
    if (c == '/' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*'))
      return "comment (JSON has none)";
    if (c == '#') return "'#' (JSON has no comments)";
    if (c >= 0x21 && c <= 0x7E) return std::string("'") + static_cast<char>(c) + "'";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02X", c);
    return std::string("byte ") + buf;
  }

  nlohmann::json value(JsonNode& node, int depth) {
    node.begin = pos_;
    node.line = line_;
    node.column = column_;
    nlohmann::json v;
    switch (peek()) {
      case '{':
        if (depth >= kMaxJsonDepth) fail("values are nested more than " + std::to_string(kMaxJsonDepth) + " deep");
        v = object(node, depth);
        break;
      case '[':
        if (depth >= kMaxJsonDepth) fail("values are nested more than " + std::to_string(kMaxJsonDepth) + " deep");
        v = array(depth);
        break;
      case '"':
        v = string();
        break;
      case 't':
        v = literal("true", true);
        break;
      case 'f':
        v = literal("false", false);
        break;
      case 'n':
        v = literal("null", nullptr);
        break;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
          v = number();
          break;
        }
        fail("expected a JSON value (an object, array, string, number, true, false or null), found " + found());
    }
    node.end = pos_;
    return v;
  }

  nlohmann::json literal(const char* word, nlohmann::json v) {
    std::string w(word);
    if (text_.compare(pos_, w.size(), w) != 0)
      fail("expected a JSON value (an object, array, string, number, true, false or null), found " + found());
    for (std::size_t i = 0; i < w.size(); ++i) advance();
    return v;
  }

  nlohmann::json object(JsonNode& node, int depth) {
    node.is_object = true;
    nlohmann::json v = nlohmann::json::object();
    std::unordered_map<std::string, std::pair<std::uint32_t, std::uint32_t>> seen;
    advance();  // {
    skip_blanks();
    if (peek() == '}') {
      advance();
      return v;
    }
    while (true) {
      if (peek() != '"') fail("expected a key in double quotes, found " + found());
      JsonNode::Member m;
      m.key_begin = pos_;
      std::uint32_t key_line = line_, key_column = column_;
      m.key = string();
      m.key_end = pos_;
      if (auto it = seen.find(m.key); it != seen.end())
        throw StrictJsonError(SourcePos{file_, key_line, key_column},
                              "key " + nlohmann::json(m.key).dump() + " appears twice in this object (first at line " +
                                  std::to_string(it->second.first) + ", column " + std::to_string(it->second.second) +
                                  "); JSON readers disagree on which one counts: remove one of them");
      seen.emplace(m.key, std::make_pair(key_line, key_column));
      skip_blanks();
      if (peek() != ':') fail("expected ':' after the key " + nlohmann::json(m.key).dump() + ", found " + found());
      advance();
      skip_blanks();
      if (at_end())
        fail("expected a value for the key " + nlohmann::json(m.key).dump() + ", found the end of the file");
      v[m.key] = value(m.value, depth + 1);
      node.members.push_back(std::move(m));
      skip_blanks();
      if (peek() == '}') {
        advance();
        return v;
      }
      if (peek() != ',') fail("expected ',' or '}' after a member of the object, found " + found());
      advance();
      skip_blanks();
      if (peek() == '}') fail("a comma before '}' is not allowed in JSON: remove it");
    }
  }

  nlohmann::json array(int depth) {
    nlohmann::json v = nlohmann::json::array();
    advance();  // [
    skip_blanks();
    if (peek() == ']') {
      advance();
      return v;
    }
    while (true) {
      JsonNode item;  // positions inside arrays are not kept
      if (at_end()) fail("expected a value in the array, found the end of the file");
      v.push_back(value(item, depth + 1));
      skip_blanks();
      if (peek() == ']') {
        advance();
        return v;
      }
      if (peek() != ',') fail("expected ',' or ']' after an item of the array, found " + found());
      advance();
      skip_blanks();
      if (peek() == ']') fail("a comma before ']' is not allowed in JSON: remove it");
    }
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      unsigned d = c >= '0' && c <= '9'   ? static_cast<unsigned>(c - '0')
                   : c >= 'a' && c <= 'f' ? static_cast<unsigned>(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? static_cast<unsigned>(c - 'A' + 10)
                                          : 16u;
      if (d == 16) fail("expected four hexadecimal digits after \\u, found " + found());
      u = u * 16 + d;
      advance();
    }
    return u;
  }

  // One UTF-8 character of a string, checked (no overlong forms, no
  // surrogates, nothing above U+10FFFF), copied to OUT.
  void utf8_character(std::string& out) {
    unsigned char c = static_cast<unsigned char>(peek());
    int extra = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
    if (extra < 0 || pos_ + static_cast<std::size_t>(extra) >= text_.size())
      fail("the file is not valid UTF-8 here (" + found() + "); JSON text must be UTF-8");
    unsigned cp = c & (extra == 1 ? 0x1F : extra == 2 ? 0x0F : 0x07);
    for (int i = 1; i <= extra; ++i) {
      unsigned char n = static_cast<unsigned char>(text_[pos_ + static_cast<std::size_t>(i)]);
      if ((n & 0xC0) != 0x80) fail("the file is not valid UTF-8 here (" + found() + "); JSON text must be UTF-8");
      cp = (cp << 6) | (n & 0x3F);
    }
    bool overlong = (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000);
    if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      fail("the file is not valid UTF-8 here (" + found() + "); JSON text must be UTF-8");
    out.append(text_, pos_, static_cast<std::size_t>(extra) + 1);
    for (int i = 0; i <= extra; ++i) advance();
  }

  std::string string() {
    std::string out;
    std::uint32_t line = line_, column = column_;
    advance();  // "
    while (true) {
      if (at_end()) fail_at(line, column, "this string has no closing '\"'");
      unsigned char c = static_cast<unsigned char>(peek());
      if (c == '"') {
        advance();
        return out;
      }
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "U+%04X", c);
        fail(std::string("a control character (") + buf + ") must be written as an escape such as \\n in a JSON " +
             "string");
      }
      if (c >= 0x80) {
        utf8_character(out);
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        advance();
        continue;
      }
      advance();  // backslash
      char e = peek();
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::uint32_t uline = line_, ucolumn = column_ - 1;
          advance();
          unsigned cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF)
            fail_at(uline, ucolumn, "\\u escape of a lone low surrogate; it is no character");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.compare(pos_, 2, "\\u") != 0)
              fail_at(uline, ucolumn, "\\u escape of a high surrogate not followed by a \\u low surrogate");
            advance();
            advance();
            unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF)
              fail_at(uline, ucolumn, "\\u escape of a high surrogate not followed by a \\u low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          wslgpu::text::append_utf8(out, cp);
          continue;
        }
        default:
          fail("unknown escape \\" + (at_end() ? std::string() : std::string(1, e)) +
               " in a JSON string; write a backslash as \\\\");
      }
      advance();
    }
  }

  nlohmann::json number() {
    std::size_t start = pos_;
    std::uint32_t line = line_, column = column_;
    auto digits = [&] {
      std::size_t n = 0;
      while (peek() >= '0' && peek() <= '9') advance(), ++n;
      return n;
    };
    if (peek() == '-') advance();
    if (peek() == '0') {
      advance();
      if (peek() >= '0' && peek() <= '9') fail("a JSON number cannot start with 0 followed by digits");
    } else if (digits() == 0) {
      fail("expected a digit after '-', found " + found());
    }
    if (peek() == '.') {
      advance();
      if (digits() == 0) fail("expected a digit after the decimal point, found " + found());
    }
    if (peek() == 'e' || peek() == 'E') {
      advance();
      if (peek() == '+' || peek() == '-') advance();
      if (digits() == 0) fail("expected a digit in the exponent, found " + found());
    }
    std::string literal = text_.substr(start, pos_ - start);
    try {
      return nlohmann::json::parse(literal);
    } catch (const nlohmann::json::exception&) {
      fail_at(line, column, "the number " + literal + " is too large for a JSON reader to hold");
    }
  }
};

bool plain_json_key(const std::string& key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

// The edit a merge makes: bytes [begin, end) of the text become TEXT.
struct TextEdit {
  std::size_t begin;
  std::size_t end;
  std::string text;
};

class JsonMerger {
 public:
  JsonMerger(const std::string& text, const std::string& file, const JsonNode& root) : text_(text), file_(file) {
    std::size_t nl = text.find('\n');
    eol_ = nl != std::string::npos && nl > 0 && text[nl - 1] == '\r' ? "\r\n" : "\n";
    guess_style(root);
  }

  // Merges PATCH into the object NODE holding HAVE. COMPACT_PARENT: NODE is
  // inside an object written on one line.
  void merge(const JsonNode& node, const nlohmann::json& have, const nlohmann::json& patch,
             std::vector<std::string>& path, bool compact_parent) {
    bool compact = one_line(node) && (compact_parent || !node.members.empty());
    std::vector<std::pair<std::string, const nlohmann::json*>> added;
    for (const auto& item : patch.items()) {
      // Named, not a structured binding: clang before 16 cannot capture one.
      const std::string& key = item.key();
      const nlohmann::json& want = item.value();
      path.push_back(key);
      auto member = std::find_if(node.members.begin(), node.members.end(),
                                 [&](const JsonNode::Member& m) { return m.key == key; });
      if (member == node.members.end()) {
        added.emplace_back(key, &want);
        changes.push_back({path, true, nullptr, want});
      } else if (want.is_object()) {
        const nlohmann::json& now = have.at(key);
        if (!member->value.is_object) {
          // The first key the patch would set in it, to name what cannot be done.
          auto inner = path;
          if (!want.empty()) inner.push_back(want.begin().key());
          throw InputError(SourcePos{file_, member->value.line, member->value.column},
                           json_key_path(path) + " is " + json_type_name(now) + ", not an object, so " +
                               json_key_path(inner) +
                               " cannot be merged into it (replacing it would lose what it holds): make it an "
                               "object, or remove it, then run again");
        }
        merge(member->value, now, want, path, compact);
      } else if (have.at(key) != want) {
        std::string indent = line_indent(member->key_begin);
        edits.push_back({member->value.begin, member->value.end,
                         compact ? one_line_value(want, separators(node)) : multi_line_value(want, indent)});
        changes.push_back({path, false, have.at(key), want});
      }
      path.pop_back();
    }
    if (added.empty()) return;

    Separators seps = separators(node);
    std::string insert;
    if (compact) {
      for (const auto& [key, want] : added) {
        if (!insert.empty() || !node.members.empty()) insert += seps.item;
        insert += nlohmann::json(key).dump() + seps.key + one_line_value(*want, seps);
      }
    } else {
      std::string indent = member_indent(node);
      for (const auto& [key, want] : added) {
        if (!insert.empty() || !node.members.empty()) insert += ",";
        insert += eol_ + indent + nlohmann::json(key).dump() + key_separator_ + multi_line_value(*want, indent);
      }
    }
    if (!node.members.empty()) {
      std::size_t at = node.members.back().value.end;
      edits.push_back({at, at, insert});
    } else {
      // {} or { } or {\n}: what is between the braces is replaced.
      if (!compact) insert += eol_ + line_indent(node.begin);
      edits.push_back({node.begin + 1, node.end - 1, insert});
    }
  }

  // The text for a blank file: an object of PATCH's members.
  std::string new_document(const nlohmann::json& patch) const { return multi_line_value(patch, "") + eol_; }

  std::vector<TextEdit> edits;
  std::vector<JsonChange> changes;

 private:
  const std::string& text_;
  const std::string& file_;
  std::string eol_;
  std::string unit_ = "    ";         // one level of indentation, as nvidia-ctk writes it
  std::string key_separator_ = ": ";  // between a key and its value, as the file spells it

  struct Separators {
    std::string item = ", ";
    std::string key = ": ";
  };

  std::size_t line_start(std::size_t offset) const {
    std::size_t nl = offset == 0 ? std::string::npos : text_.rfind('\n', offset - 1);
    return nl == std::string::npos ? 0 : nl + 1;
  }

  // The blanks that begin the line OFFSET is on.
  std::string line_indent(std::size_t offset) const {
    std::size_t start = line_start(offset);
    std::size_t end = start;
    while (end < offset && (text_[end] == ' ' || text_[end] == '\t')) ++end;
    return text_.substr(start, end - start);
  }

  bool begins_line(std::size_t offset) const { return line_start(offset) + line_indent(offset).size() == offset; }

  bool one_line(const JsonNode& node) const { return text_.find('\n', node.begin) >= node.end; }

  // The indentation of a new member of NODE: its siblings' (the last that
  // begins a line), else its parent's line plus one unit.
  std::string member_indent(const JsonNode& node) const {
    for (auto m = node.members.rbegin(); m != node.members.rend(); ++m)
      if (begins_line(m->key_begin)) return line_indent(m->key_begin);
    return line_indent(node.begin) + unit_;
  }

  // How a one-line object spaces its members: copied from its own first two
  // members, else ", " and ": ".
  Separators separators(const JsonNode& node) const {
    Separators s;
    if (!node.members.empty()) {
      const auto& m = node.members.front();
      std::string key = text_.substr(m.key_end, m.value.begin - m.key_end);
      if (key.find('\n') == std::string::npos) s.key = key;
    }
    if (node.members.size() >= 2) {
      std::size_t from = node.members[0].value.end;
      std::string item = text_.substr(from, node.members[1].key_begin - from);
      if (item.find('\n') == std::string::npos) s.item = item;
    }
    return s;
  }

  // The indent unit and the key separator, from the first object (in text
  // order) whose first member begins a line deeper than the object's own line.
  void guess_style(const JsonNode& root) {
    bool unit_found = false, separator_found = false;
    std::vector<const JsonNode*> todo{&root};
    while (!todo.empty() && !(unit_found && separator_found)) {
      const JsonNode* n = todo.back();
      todo.pop_back();
      if (!n->members.empty()) {
        const auto& m = n->members.front();
        if (!separator_found) {
          std::string sep = text_.substr(m.key_end, m.value.begin - m.key_end);
          if (sep.find('\n') == std::string::npos) key_separator_ = sep, separator_found = true;
        }
        std::string outer = line_indent(n->begin), inner = line_indent(m.key_begin);
        if (!unit_found && begins_line(m.key_begin) && inner.size() > outer.size() && inner.rfind(outer, 0) == 0)
          unit_ = inner.substr(outer.size()), unit_found = true;
      }
      for (auto it = n->members.rbegin(); it != n->members.rend(); ++it)
        if (it->value.is_object) todo.push_back(&it->value);
    }
  }

  // V as Go's json.MarshalIndent writes it at INDENT: one member or item a
  // line, empty objects and arrays as {} and [].
  std::string multi_line_value(const nlohmann::json& v, const std::string& indent) const {
    if (v.is_object() && !v.empty()) {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, item] : v.items()) {
        out += (first ? "" : ",") + eol_ + indent + unit_ + nlohmann::json(k).dump() + key_separator_ +
               multi_line_value(item, indent + unit_);
        first = false;
      }
      return out + eol_ + indent + "}";
    }
    if (v.is_array() && !v.empty()) {
      std::string out = "[";
      bool first = true;
      for (const auto& item : v) {
        out += (first ? "" : ",") + eol_ + indent + unit_ + multi_line_value(item, indent + unit_);
        first = false;
      }
      return out + eol_ + indent + "]";
    }
    return v.dump();
  }

  std::string one_line_value(const nlohmann::json& v, const Separators& s) const {
    if (v.is_object()) {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, item] : v.items()) {
        out += (first ? "" : s.item) + nlohmann::json(k).dump() + s.key + one_line_value(item, s);
        first = false;
      }
      return out + "}";
    }
    if (v.is_array()) {
      std::string out = "[";
      bool first = true;
      for (const auto& item : v) {
        out += (first ? "" : s.item) + one_line_value(item, s);
        first = false;
      }
      return out + "]";
    }
    return v.dump();
  }
};

bool blank_json_text(const std::string& text) { return text.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& file) {
  JsonNode root;
  return JsonReader(text, file).document(root);
}

namespace {

// The object of a non-blank TEXT, with ROOT its positions.
nlohmann::json read_object(const std::string& text, const std::string& file, JsonNode& root) {
  nlohmann::json have = JsonReader(text, file).document(root);
  if (!root.is_object)
    throw InputError(SourcePos{file, root.line, root.column},
                     "the JSON text is " + json_type_name(have) + ", not an object, so no keys can be merged into it");
  return have;
}

}  // namespace

nlohmann::json read_json_object(const std::string& text, const std::string& file) {
  if (blank_json_text(text)) return nlohmann::json::object();
  JsonNode root;
  return read_object(text, file, root);
}

std::string json_key_path(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& key : path)
    out += (out.empty() ? "" : ".") + (plain_json_key(key) ? key : nlohmann::json(key).dump());
  return out;
}

JsonMerge merge_json_text(const std::string& text, const nlohmann::json& patch, const std::string& file) {
  if (!patch.is_object()) throw std::invalid_argument("merge_json_text: the patch must be a JSON object");
  JsonMerge result;
  result.text = text;
  JsonNode root;
  if (blank_json_text(text)) {
    if (patch.empty()) return result;
    // Parsed, so that a blank text with CRLF line ends gets them too.
    JsonMerger merger(text, file, root);
    for (const auto& [key, want] : patch.items()) result.changes.push_back({{key}, true, nullptr, want});
    result.text = merger.new_document(patch);
    return result;
  }
  nlohmann::json have = read_object(text, file, root);
  JsonMerger merger(text, file, root);
  std::vector<std::string> path;
  merger.merge(root, have, patch, path, false);
  result.changes = std::move(merger.changes);
  auto& edits = merger.edits;
  std::stable_sort(edits.begin(), edits.end(), [](const TextEdit& a, const TextEdit& b) { return a.begin < b.begin; });
  std::string out;
  std::size_t cursor = 0;
  for (const auto& e : edits) {
    out.append(text, cursor, e.begin - cursor);
    out += e.text;
    cursor = e.end;
  }
  out.append(text, cursor, std::string::npos);
  result.text = std::move(out);
  return result;
}

}  // namespace wslgpu
