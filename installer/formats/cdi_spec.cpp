// Over 700 lines on purpose: the reader (YAML events to a graph, the graph
// to JSON within the size limits) and the checker (SPEC.md's fields, each
// problem at the place the graph keeps) share the document's graph and its
// places, types no other file should see; split, they would need a header
// of their own. The writer beside them is the reader's inverse.
#include "installer/formats/cdi_spec.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

namespace wslgpu {

CdiSpecError::CdiSpecError(std::uint32_t line, std::uint32_t column, const std::string& message)
    : std::runtime_error(std::to_string(line) + ":" + std::to_string(column) + ": " + message),
      line_(line),
      column_(column),
      message_(message) {}

namespace {

// Where a node starts, 1-based (yaml-cpp counts from 0, and -1 when unknown).
struct Place {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

Place place_of(const YAML::Mark& mark) {
  if (mark.line < 0 || mark.column < 0) return {};
  return {static_cast<std::uint32_t>(mark.line) + 1, static_cast<std::uint32_t>(mark.column) + 1};
}

[[noreturn]] void fail(const Place& at, const std::string& message) { throw CdiSpecError(at.line, at.column, message); }

// A spec is a few hundred nodes; these bound what aliases and nesting can
// make of a short text (one alias of an alias ... doubles the nodes each time).
constexpr std::size_t kMaxNodes = 100000;
constexpr int kMaxDepth = 64;
// The same for bytes: an alias of a long string, or of a map with long
// keys, repeats them (and the paths that place them) as often as it is used.
constexpr std::size_t kMaxBytes = 8u << 20;

bool valid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t more = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : 4;
    if (more == 4 || i + more >= s.size()) return false;
    std::uint32_t cp = more == 0 ? c : more == 1 ? (c & 0x1fu) : more == 2 ? (c & 0x0fu) : (c & 0x07u);
    for (std::size_t k = 1; k <= more; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2) return false;
      cp = (cp << 6) | (d & 0x3fu);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((more == 1 && cp < 0x80) || (more == 2 && cp < 0x800) || (more == 3 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += more + 1;
  }
  return true;
}

// Whether S (valid UTF-8) holds a Unicode noncharacter (U+FDD0-U+FDEF, and
// U+FFFE and U+FFFF of every plane): YAML does not allow them, and
// yaml-cpp's emitter writes each as U+FFFD, so a spec holding one would not
// read back as written (found by fuzz_cdi_spec: U+FFFF).
bool has_noncharacter(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t more = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : 3;
    std::uint32_t cp = more == 0 ? c : more == 1 ? (c & 0x1fu) : more == 2 ? (c & 0x0fu) : (c & 0x07u);
    for (std::size_t k = 1; k <= more && i + k < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3fu);
    if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffeu) == 0xfffeu) return true;
    i += more + 1;
  }
  return false;
}

bool all_of_class(std::string_view s, bool (*pred)(char)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), pred);
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_octal(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// A YAML 1.2 core schema float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool looks_float(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

bool special_float(std::string_view s) {
  std::string_view t = s;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  return t == ".inf" || t == ".Inf" || t == ".INF" || s == ".nan" || s == ".NaN" || s == ".NAN";
}

// What an unquoted scalar means under the YAML 1.2 core schema (null, bool,
// int, float, else a string). Floats that JSON cannot hold are refused.
nlohmann::json resolve_plain(const std::string& s, const Place& at) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::string_view v = s;
  bool negative = !v.empty() && v[0] == '-';
  std::string_view digits = (!v.empty() && (v[0] == '-' || v[0] == '+')) ? v.substr(1) : v;
  int base = 0;
  std::string_view body;
  if (all_of_class(digits, is_digit)) {
    base = 10;
    body = digits;
  } else if (v.size() > 2 && v.substr(0, 2) == "0o" && all_of_class(v.substr(2), is_octal)) {
    base = 8;
    body = v.substr(2);
    negative = false;
  } else if (v.size() > 2 && v.substr(0, 2) == "0x" && all_of_class(v.substr(2), is_hex)) {
    base = 16;
    body = v.substr(2);
    negative = false;
  }
  if (base != 0) {
    std::uint64_t u = 0;
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), u, base);
    if (ec == std::errc() && end == body.data() + body.size()) {
      if (!negative) return u;
      if (u <= static_cast<std::uint64_t>(INT64_MAX) + 1) return static_cast<std::int64_t>(0 - u);
    }
    // Too large for 64 bits: a float, as JSON readers take it.
  } else if (special_float(s)) {
    fail(at, "\"" + s + "\" is infinite or not a number, which JSON, and so a CDI spec, cannot hold");
  } else if (!looks_float(s)) {
    return s;
  }
  std::string text = v[0] == '+' ? s.substr(1) : s;
  double d = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (end != text.data() + text.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
    return s;  // cannot happen for what looks_float took; a string rather than a guess
  if (!std::isfinite(d)) fail(at, "\"" + s + "\" is too large a number for JSON");
  return d;
}

// A YAML document as yaml-cpp's parser reports it, in one vector: the graph
// its NodeBuilder (behind YAML::Load; src/nodebuilder.cpp in jbeder/yaml-cpp
// 0.7.0) would make of the same events. An alias is the node its anchor
// names, as there, so a node can have several parents, or be its own
// ancestor (`&a [*a]`), which the Converter's depth limit ends.
struct YamlNode {
  YAML::NodeType::value type = YAML::NodeType::Null;
  YAML::Mark mark = YAML::Mark::null_mark();
  std::string tag;                 // a scalar's
  std::string scalar;              // a scalar's value
  std::vector<std::size_t> items;  // a sequence's nodes; a map's key, value, key, value...
};
using YamlGraph = std::vector<YamlNode>;

// KEY as a JSON pointer's part ('~' as "~0", '/' as "~1"), and a
// pointer's parts back as keys: nlohmann's json_pointer, so that both
// directions follow one rule (RFC 6901).
std::string pointer_token(const std::string& key) {
  return (nlohmann::json::json_pointer() / key).to_string().substr(1);
}
std::vector<std::string> pointer_parts(const std::string& pointer) {
  std::vector<std::string> parts;
  for (nlohmann::json::json_pointer p(pointer); !p.empty(); p.pop_back()) parts.insert(parts.begin(), p.back());
  return parts;
}

// YAML nodes to JSON. The bytes limit counts each value's JSON pointer
// ("/devices/0/name") by its length alone: the pointers themselves are
// not made, the Checker finds a place by walking the graph.
class Converter {
 public:
  explicit Converter(const YamlGraph& graph) : graph_(graph) {}

  nlohmann::json convert(std::size_t index, std::size_t pointer_size, int depth) {
    const YamlNode& node = graph_[index];
    Place at = place_of(node.mark);
    if (++nodes_ > kMaxNodes) fail(at, "too many nodes for a CDI spec (more than " + std::to_string(kMaxNodes) + ")");
    if (depth > kMaxDepth)
      fail(at, "nested more than " + std::to_string(kMaxDepth) + " levels deep, which no CDI spec is");
    const bool scalar = node.type == YAML::NodeType::Scalar;
    bytes_ += pointer_size + (scalar ? node.scalar.size() : 0);
    if (bytes_ > kMaxBytes) fail(at, "too large for a CDI spec (more than 8 MiB once its aliases are expanded)");
    switch (node.type) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return nullptr;
      case YAML::NodeType::Scalar: {
        const std::string& s = node.scalar;
        if (!valid_utf8(s)) fail(at, "a string that is not UTF-8");
        if (has_noncharacter(s))
          fail(at, "a string holding a Unicode noncharacter (such as U+FFFF), which YAML does not allow");
        if (node.tag == "!" || node.tag == "tag:yaml.org,2002:str") return s;
        return resolve_plain(s, at);
      }
      case YAML::NodeType::Sequence: {
        nlohmann::json out = nlohmann::json::array();
        std::size_t i = 0;
        for (std::size_t item : node.items)
          out.push_back(convert(item, pointer_size + 1 + std::to_string(i++).size(), depth + 1));
        return out;
      }
      case YAML::NodeType::Map: {
        nlohmann::json out = nlohmann::json::object();
        // A pair at a time; NodeBuilder drops a key without a value (the
        // parser gives every key one, a null at least).
        for (std::size_t k = 0; k + 1 < node.items.size(); k += 2) {
          const YamlNode& key_node = graph_[node.items[k]];
          Place key_at = place_of(key_node.mark);
          if (key_node.type != YAML::NodeType::Scalar) fail(key_at, "a key that is not a string");
          const std::string& key = key_node.scalar;
          if (!valid_utf8(key)) fail(key_at, "a key that is not UTF-8");
          if (has_noncharacter(key))
            fail(key_at, "a key holding a Unicode noncharacter (such as U+FFFF), which YAML does not allow");
          if (out.contains(key)) fail(key_at, "the key \"" + key + "\" is given twice");
          out[key] = convert(node.items[k + 1], pointer_size + 1 + pointer_token(key).size(), depth + 1);
        }
        return out;
      }
    }
    return nullptr;
  }

 private:
  const YamlGraph& graph_;
  std::size_t nodes_ = 0;
  std::size_t bytes_ = 0;
};

struct Document {
  nlohmann::json data;
  YamlGraph graph;  // the places of DATA's values
  std::size_t root = 0;
};

// The documents of a YAML text, from the parser's events: where each one
// starts (the place of its first node, what Node::Mark() gives, and the
// byte its "document start" event came at), and the first one's graph, so
// that the text is parsed once (a YAML::Load() after counting the
// documents parsed it twice, and built yaml-cpp's own node graph).
class DocumentReader : public YAML::EventHandler {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct Start {
    YAML::Mark node;
    int at = -1;
  };
  std::vector<Start> starts;
  YamlGraph graph;
  std::size_t root = kNone;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back({YAML::Mark::null_mark(), mark.pos}); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    complete(add(mark, anchor, YAML::NodeType::Null));
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node_at(mark);
    if (!first()) return;
    // The parser refuses an alias of an anchor not yet defined.
    if (anchor == 0 || anchor > anchors_.size()) fail(place_of(mark), "an alias of no anchor");
    complete(anchors_[anchor - 1]);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    std::size_t node = add(mark, anchor, YAML::NodeType::Scalar);
    if (node == kNone) return;
    graph[node].tag = tag;
    graph[node].scalar = value;
    complete(node);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(add(mark, anchor, YAML::NodeType::Sequence));
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(add(mark, anchor, YAML::NodeType::Map));
  }
  void OnMapEnd() override { close(); }

 private:
  // Only the first document is built; the others are only counted.
  bool first() const { return starts.size() == 1; }

  void node_at(const YAML::Mark& mark) {
    if (!starts.empty() && starts.back().node.is_null()) starts.back().node = mark;
  }

  // A new node, its anchor (if any) naming it from now on, as NodeBuilder
  // registers it before the node's own items: an alias inside names it too.
  std::size_t add(const YAML::Mark& mark, YAML::anchor_t anchor, YAML::NodeType::value type) {
    node_at(mark);
    if (!first()) return kNone;
    graph.push_back({type, mark, {}, {}, {}});
    if (anchor) anchors_.push_back(graph.size() - 1);
    return graph.size() - 1;
  }

  void open(std::size_t node) {
    if (node != kNone) open_.push_back(node);
  }
  void close() {
    if (!first() || open_.empty()) return;
    std::size_t node = open_.back();
    open_.pop_back();
    complete(node);
  }
  // NODE, read to its end, into the collection open around it, or the root.
  void complete(std::size_t node) {
    if (node == kNone) return;
    if (open_.empty())
      root = node;
    else
      graph[open_.back()].items.push_back(node);
  }

  std::vector<std::size_t> anchors_;  // anchor N (from 1) names node anchors_[N - 1]
  std::vector<std::size_t> open_;     // the collections being read, innermost last
};

// Reads TEXT's documents into READER, after checking that there is one.
// Not YAML::LoadAll(): yaml-cpp 0.7's (Debian 12's) never returns on some
// malformed texts, as short as "\n,\n", and fills the memory with empty
// documents while it reads the same place again and again (jbeder/yaml-cpp
// pull request 1319, after 0.8.0); a document that starts where the one
// before it started is that loop. At most three documents are read.
void read_only_document(const std::string& text, DocumentReader& documents) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  while (documents.starts.size() < 3 && parser.HandleNextDocument(documents)) {
    const auto& s = documents.starts;
    if (s.size() >= 2 && s[s.size() - 1].at == s[s.size() - 2].at)
      fail(place_of(s[s.size() - 2].node),
           "the YAML cannot be read from here on (a ',', ']' or '}' outside any "
           "[ ] or { }?)");
  }
  if (documents.starts.empty()) fail({}, "the text is empty: no CDI spec in it");
  if (documents.starts.size() > 1)
    fail(place_of(documents.starts[1].node), "a second YAML document: a CDI spec file holds one");
}

Document parse_document(const std::string& text) {
  DocumentReader reader;
  try {
    read_only_document(text, reader);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own limit (its message says "bad file"); ours is lower.
    fail(place_of(e.mark), "nested more than " + std::to_string(kMaxDepth) + " levels deep, which no CDI spec is");
  } catch (const YAML::Exception& e) {
    fail(place_of(e.mark), e.msg);
  }
  // A document without a node is what YAML::Load() gives for it: a null
  // without a place.
  if (reader.root == DocumentReader::kNone) {
    reader.graph.push_back({});
    reader.root = reader.graph.size() - 1;
  }
  Document d;
  d.data = Converter(reader.graph).convert(reader.root, 0, 0);
  d.graph = std::move(reader.graph);
  d.root = reader.root;
  return d;
}

// Checks a Document against SPEC.md, field by field, naming the place of
// the first problem.
class Checker {
 public:
  explicit Checker(const Document& doc) : doc_(doc) {}

  // The place of the value at POINTER, or of its nearest ancestor that the
  // document holds (a missing key is reported where its object is).
  Place at(const std::string& pointer) const {
    std::size_t node = doc_.root;
    for (const std::string& part : pointer_parts(pointer)) {
      const YamlNode& n = doc_.graph[node];
      std::optional<std::size_t> child;
      if (n.type == YAML::NodeType::Sequence) {
        for (std::size_t k = 0; k < n.items.size() && !child; ++k)
          if (part == std::to_string(k)) child = n.items[k];
      } else if (n.type == YAML::NodeType::Map) {
        for (std::size_t k = 0; k + 1 < n.items.size() && !child; k += 2)
          if (part == doc_.graph[n.items[k]].scalar) child = n.items[k + 1];
      }
      if (!child) break;
      node = *child;
    }
    return place_of(doc_.graph[node].mark);
  }

  [[noreturn]] void problem(const std::string& pointer, const std::string& message) const {
    fail(at(pointer), message);
  }

  // "/devices/0/containerEdits" -> "devices[0].containerEdits"
  static std::string field(const std::string& pointer) {
    if (pointer.empty()) return "the spec";
    std::string out;
    for (const std::string& part : pointer_parts(pointer))
      out += all_of_class(part, is_digit) ? "[" + part + "]" : (out.empty() ? "" : ".") + part;
    return out;
  }

  const nlohmann::json& object(const nlohmann::json& v, const std::string& pointer) const {
    if (!v.is_object()) problem(pointer, field(pointer) + " must be a mapping, not " + type_name(v));
    return v;
  }
  std::string string(const nlohmann::json& v, const std::string& pointer) const {
    if (!v.is_string()) problem(pointer, field(pointer) + " must be a string, not " + type_name(v));
    return v.get<std::string>();
  }
  std::vector<std::string> strings(const nlohmann::json& v, const std::string& pointer) const {
    if (!v.is_array()) problem(pointer, field(pointer) + " must be a list of strings, not " + type_name(v));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(string(v[i], pointer + "/" + std::to_string(i)));
    return out;
  }
  const nlohmann::json& array(const nlohmann::json& v, const std::string& pointer) const {
    if (!v.is_array()) problem(pointer, field(pointer) + " must be a list, not " + type_name(v));
    return v;
  }
  // An integer in [MIN, MAX], when the key is there.
  void integer(const nlohmann::json& obj, const std::string& key, const std::string& pointer, double min,
               double max) const {
    if (!obj.contains(key)) return;
    const nlohmann::json& v = obj[key];
    std::string p = pointer + "/" + key;
    bool ok = (v.is_number_integer() || v.is_number_unsigned()) && v.get<double>() >= min && v.get<double>() <= max;
    if (!ok) problem(p, field(p) + " must be a whole number from " + number(min) + " to " + number(max));
  }
  std::string required_string(const nlohmann::json& obj, const std::string& key, const std::string& pointer) const {
    if (!obj.contains(key)) problem(pointer, field(pointer) + " has no \"" + key + "\", which CDI requires");
    return string(obj[key], pointer + "/" + key);
  }
  std::optional<std::string> optional_string(const nlohmann::json& obj, const std::string& key,
                                             const std::string& pointer) const {
    if (!obj.contains(key)) return std::nullopt;
    return string(obj[key], pointer + "/" + key);
  }

  CdiContainerEdits edits(const nlohmann::json& v, const std::string& pointer) const {
    CdiContainerEdits e;
    object(v, pointer);
    if (v.contains("env")) {
      e.env = strings(v["env"], pointer + "/env");
      for (std::size_t i = 0; i < e.env.size(); ++i)
        if (e.env[i].find('=') == std::string::npos || e.env[i][0] == '=')
          problem(pointer + "/env/" + std::to_string(i), "\"" + e.env[i] + "\" is not NAME=VALUE");
    }
    if (v.contains("deviceNodes")) {
      const auto& list = array(v["deviceNodes"], pointer + "/deviceNodes");
      for (std::size_t i = 0; i < list.size(); ++i) {
        std::string p = pointer + "/deviceNodes/" + std::to_string(i);
        const auto& n = object(list[i], p);
        CdiDeviceNode d;
        d.path = required_string(n, "path", p);
        d.host_path = optional_string(n, "hostPath", p).value_or("");
        if (d.host_path.empty()) d.host_path = d.path;
        optional_string(n, "type", p);
        optional_string(n, "permissions", p);
        integer(n, "major", p, -9.2233720368547758e18, 9.2233720368547758e18);
        integer(n, "minor", p, -9.2233720368547758e18, 9.2233720368547758e18);
        integer(n, "fileMode", p, 0, 4294967295.0);
        integer(n, "uid", p, 0, 4294967295.0);
        integer(n, "gid", p, 0, 4294967295.0);
        e.device_nodes.push_back(d);
      }
    }
    if (v.contains("mounts")) {
      const auto& list = array(v["mounts"], pointer + "/mounts");
      for (std::size_t i = 0; i < list.size(); ++i) {
        std::string p = pointer + "/mounts/" + std::to_string(i);
        const auto& n = object(list[i], p);
        CdiMount m;
        m.host_path = required_string(n, "hostPath", p);
        m.container_path = required_string(n, "containerPath", p);
        if (n.contains("options")) m.options = strings(n["options"], p + "/options");
        m.type = optional_string(n, "type", p).value_or("");
        e.mounts.push_back(m);
      }
    }
    if (v.contains("hooks")) {
      const auto& list = array(v["hooks"], pointer + "/hooks");
      for (std::size_t i = 0; i < list.size(); ++i) {
        std::string p = pointer + "/hooks/" + std::to_string(i);
        const auto& n = object(list[i], p);
        CdiHook h;
        h.hook_name = required_string(n, "hookName", p);
        h.path = required_string(n, "path", p);
        if (n.contains("args")) h.args = strings(n["args"], p + "/args");
        if (n.contains("env")) strings(n["env"], p + "/env");
        integer(n, "timeout", p, 1, 4294967295.0);
        e.hooks.push_back(h);
      }
    }
    if (v.contains("netDevices")) {
      const auto& list = array(v["netDevices"], pointer + "/netDevices");
      for (std::size_t i = 0; i < list.size(); ++i) {
        std::string p = pointer + "/netDevices/" + std::to_string(i);
        required_string(object(list[i], p), "hostInterfaceName", p);
        required_string(list[i], "name", p);
      }
    }
    if (v.contains("additionalGids")) {
      const auto& list = array(v["additionalGids"], pointer + "/additionalGids");
      for (std::size_t i = 0; i < list.size(); ++i) {
        std::string p = pointer + "/additionalGids/" + std::to_string(i);
        bool ok = (list[i].is_number_integer() || list[i].is_number_unsigned()) && list[i].get<double>() >= 0 &&
                  list[i].get<double>() <= 4294967295.0;
        if (!ok) problem(p, field(p) + " must be a group id (a whole number from 0 to 4294967295)");
      }
    }
    if (v.contains("intelRdt")) object(v["intelRdt"], pointer + "/intelRdt");
    return e;
  }

  void annotations(const nlohmann::json& obj, const std::string& pointer) const {
    if (!obj.contains("annotations")) return;
    std::string p = pointer + "/annotations";
    for (const auto& [k, v] : object(obj["annotations"], p).items()) string(v, p + "/" + pointer_token(k));
  }

  CdiSpec spec() const {
    const nlohmann::json& d = doc_.data;
    object(d, "");
    CdiSpec s;
    s.cdi_version = required_string(d, "cdiVersion", "");
    s.kind = required_string(d, "kind", "");
    if (std::string why = cdi_kind_problem(s.kind); !why.empty()) problem("/kind", why);
    annotations(d, "");
    if (!d.contains("devices")) problem("", "the spec has no \"devices\", which CDI requires");
    const auto& devices = array(d["devices"], "/devices");
    if (devices.empty()) problem("/devices", "\"devices\" is empty: a CDI spec names at least one device");
    std::set<std::string> names;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      std::string p = "/devices/" + std::to_string(i);
      const auto& dev = object(devices[i], p);
      CdiDevice out;
      out.name = required_string(dev, "name", p);
      if (std::string why = cdi_device_name_problem(out.name); !why.empty()) problem(p + "/name", why);
      if (!names.insert(out.name).second) problem(p + "/name", "a second device named \"" + out.name + "\"");
      annotations(dev, p);
      if (!dev.contains("containerEdits")) problem(p, field(p) + " has no \"containerEdits\", which CDI requires");
      out.edits = edits(dev["containerEdits"], p + "/containerEdits");
      s.devices.push_back(std::move(out));
    }
    if (d.contains("containerEdits")) s.edits = edits(d["containerEdits"], "/containerEdits");
    s.data = d;
    return s;
  }

 private:
  static std::string type_name(const nlohmann::json& v) {
    if (v.is_null()) return "empty";
    if (v.is_boolean()) return "true or false";
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_array()) return "a list";
    return "a mapping";
  }
  static std::string number(double d) {
    return d < -1e18 ? "-2^63" : d > 1e18 ? "2^63-1" : std::to_string(static_cast<long long>(d));
  }

  const Document& doc_;
};

// The order the schema (schema.json, defs.json) lists each object's keys in.
const std::vector<std::string>& key_order(const std::string& what) {
  static const std::map<std::string, std::vector<std::string>> orders = {
      {"spec", {"cdiVersion", "kind", "annotations", "devices", "containerEdits"}},
      {"device", {"name", "annotations", "containerEdits"}},
      {"edits", {"env", "deviceNodes", "netDevices", "mounts", "hooks", "intelRdt", "additionalGids"}},
      {"deviceNode", {"path", "hostPath", "permissions", "type", "major", "minor", "fileMode", "uid", "gid"}},
      {"mount", {"hostPath", "containerPath", "options", "type"}},
      {"hook", {"hookName", "path", "args", "env", "timeout"}},
      {"netDevice", {"hostInterfaceName", "name"}},
      {"intelRdt", {"closID", "l3CacheSchema", "memBwSchema", "schemata", "enableMonitoring"}},
      {"", {}},
  };
  auto it = orders.find(what);
  return it == orders.end() ? orders.at("") : it->second;
}

// What the values under KEY of an object of kind WHAT are.
std::string child_kind(const std::string& what, const std::string& key) {
  if (what == "spec" && key == "devices") return "device";
  if ((what == "spec" || what == "device") && key == "containerEdits") return "edits";
  if (what == "edits") {
    if (key == "deviceNodes") return "deviceNode";
    if (key == "mounts") return "mount";
    if (key == "hooks") return "hook";
    if (key == "netDevices") return "netDevice";
    if (key == "intelRdt") return "intelRdt";
  }
  return "";
}

// Whether a YAML 1.1 reader would take S, unquoted, for a boolean or a
// number: CDI's own loader reads specs with Go's YAML 1.1 library, whose
// booleans include yes/no/on/off and whose integers allow '_', 0b and 0.
bool yaml11_non_string(const std::string& s) {
  static const std::set<std::string> words = {"y",  "Y",  "yes", "Yes", "YES", "n",   "N",   "no",
                                              "No", "NO", "on",  "On",  "ON",  "off", "Off", "OFF"};
  if (words.count(s)) return true;
  std::string t;
  for (char c : s)
    if (c != '_') t += c;
  std::string_view v = t;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'b' || v[1] == 'x' || v[1] == 'o')) return true;
  return all_of_class(v, is_digit) || looks_float(v) || special_float(s);
}

// Whether the reader (or a YAML 1.1 one) would take S, unquoted, for
// anything but that string.
bool needs_quotes(const std::string& s) {
  if (yaml11_non_string(s)) return true;
  // yaml-cpp's emitter writes control characters other than tab plain ("\r"
  // alone then reads back as no document at all, found by fuzz_cdi_spec);
  // quoted, it escapes them.
  auto control = [](char c) { return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F; };
  if (std::any_of(s.begin(), s.end(), control)) return true;
  // Nor does it quote "---" or "..." followed by a blank: written plain at
  // the start of a line (a document's only string, a top-level key), they
  // begin or end a document, and "--- a" read back as "a" (found by
  // fuzz_cdi_spec).
  bool marker = s.size() >= 3 && (s.compare(0, 3, "---") == 0 || s.compare(0, 3, "...") == 0);
  if (marker && (s.size() == 3 || s[3] == ' ' || s[3] == '\t')) return true;
  try {
    nlohmann::json v = resolve_plain(s, {});
    return !v.is_string();
  } catch (const CdiSpecError&) {
    return true;
  }
}

}  // namespace

nlohmann::json cdi_spec_to_json(const std::string& text) { return parse_document(text).data; }

CdiSpec read_cdi_spec(const std::string& text) {
  Document d = parse_document(text);
  return Checker(d).spec();
}

namespace {

void emit_string(YAML::Emitter& out, const std::string& s) {
  if (needs_quotes(s)) out << YAML::DoubleQuoted;
  out << s;
}

void emit_value(YAML::Emitter& out, const nlohmann::json& v, const std::string& what) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      out << YAML::Null;
      return;
    case nlohmann::json::value_t::boolean:
      out << YAML::TrueFalseBool << v.get<bool>();
      return;
    case nlohmann::json::value_t::number_integer:
      out << v.get<std::int64_t>();
      return;
    case nlohmann::json::value_t::number_unsigned:
      out << v.get<std::uint64_t>();
      return;
    case nlohmann::json::value_t::number_float: {
      // The shortest text that reads back as the same double.
      char buf[64];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get<double>());
      (void)ec;
      out << std::string(buf, end);
      return;
    }
    case nlohmann::json::value_t::string:
      emit_string(out, v.get<std::string>());
      return;
    case nlohmann::json::value_t::array:
      if (v.empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        return;
      }
      out << YAML::BeginSeq;
      for (const auto& item : v) emit_value(out, item, what);
      out << YAML::EndSeq;
      return;
    case nlohmann::json::value_t::object: {
      if (v.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
      }
      out << YAML::BeginMap;
      const auto& order = key_order(what);
      std::vector<std::string> keys;
      for (const auto& key : order)
        if (v.contains(key)) keys.push_back(key);
      for (const auto& [key, value] : v.items())  // sorted: nlohmann::json keeps keys in order
        if (std::find(order.begin(), order.end(), key) == order.end()) keys.push_back(key);
      for (const auto& key : keys) {
        // YAML allows an implicit key ("key: value") of at most 1024
        // characters as written, and yaml-cpp makes a key explicit ("? key")
        // only when the string itself is longer: quoted with escapes, a
        // shorter one can pass 1024 and not read back (found by
        // fuzz_cdi_spec). So a key of more than 128 characters, which no
        // spec has, is written explicit (an escape is at most 6 characters).
        if (key.size() > 128) out << YAML::LongKey;
        out << YAML::Key;
        emit_string(out, key);
        out << YAML::Value;
        emit_value(out, v[key], child_kind(what, key));
      }
      out << YAML::EndMap;
      return;
    }
    default:
      out << YAML::Null;
      return;
  }
}

}  // namespace

std::string write_cdi_spec(const nlohmann::json& spec) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit_value(out, spec, "spec");
  std::string text = out.c_str();
  return text + "\n";
}

}  // namespace wslgpu
