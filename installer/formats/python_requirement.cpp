// Over 700 lines on purpose: versions, specifiers, markers and requirements
// are one grammar (PEP 508 builds on PEP 440 and markers compare versions),
// and each part is read only through this file's header.
#include "installer/formats/python_requirement.hpp"

#include <algorithm>
#include <limits>

#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

bool is_alnum_ascii(char c) { return text::is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

}  // namespace

bool valid_pep508_name(const std::string& n) {
  if (n.empty() || !is_alnum_ascii(n.front()) || !is_alnum_ascii(n.back())) return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return is_alnum_ascii(c) || c == '.' || c == '_' || c == '-'; });
}

bool valid_pip_version(const std::string& v) {
  if (v.empty() || !is_alnum_ascii(v.front())) return false;
  return std::all_of(v.begin(), v.end(), [](char c) {
    return is_alnum_ascii(c) || c == '.' || c == '+' || c == '!' || c == '_' || c == '*';
  });
}

// ---- versions (PEP 440, "Version scheme" and "Normalization")

namespace {

// Reads a version from lowercase text, the spec's permissive regular
// expression ("Appendix: Parsing version strings with regular
// expressions") written out by hand.
class VersionReader {
 public:
  explicit VersionReader(std::string_view s) : s_(s) {}

  std::optional<PythonVersion> read() {
    PythonVersion v;
    if (peek('v')) ++i_;
    std::size_t start = i_;
    std::uint64_t n = 0;
    if (number(n) && peek('!')) {
      v.epoch = n;
      ++i_;
    } else {
      i_ = start;
    }
    if (!number(n)) return std::nullopt;
    v.release.push_back(n);
    while (peek('.') && digit_at(i_ + 1)) {
      ++i_;
      if (!number(n)) return std::nullopt;
      v.release.push_back(n);
    }
    if (!pre(v) || !post(v) || !dev(v) || !local(v) || failed_ || i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool digit_at(std::size_t at) const { return at < s_.size() && text::is_digit(s_[at]); }
  bool separator_at(std::size_t at) const {
    return at < s_.size() && (s_[at] == '-' || s_[at] == '_' || s_[at] == '.');
  }
  bool word_at(std::size_t at, std::string_view w) const { return s_.substr(std::min(at, s_.size())).rfind(w, 0) == 0; }

  // Digits at the cursor as a number; false (cursor unmoved) when there
  // are none, and failed_ when they do not fit.
  bool number(std::uint64_t& out) {
    if (!digit_at(i_)) return false;
    std::uint64_t value = 0;
    for (; digit_at(i_); ++i_) {
      auto d = static_cast<std::uint64_t>(s_[i_] - '0');
      if (value > (std::numeric_limits<std::uint64_t>::max() - d) / 10) {
        failed_ = true;
        return false;
      }
      value = value * 10 + d;
    }
    out = value;
    return true;
  }

  // After a word that names a part: [-_.]? NUMBER, or an implicit 0 (and
  // the separator is left for the next part).
  std::uint64_t part_number(std::size_t after_word) {
    std::size_t k = after_word + (separator_at(after_word) ? 1 : 0);
    i_ = k;
    std::uint64_t n = 0;
    if (number(n)) return n;
    i_ = after_word;
    return 0;
  }

  bool pre(PythonVersion& v) {
    std::size_t j = i_ + (separator_at(i_) ? 1 : 0);
    static constexpr std::pair<std::string_view, std::string_view> kSpellings[] = {
        {"alpha", "a"}, {"beta", "b"}, {"preview", "rc"}, {"pre", "rc"}, {"rc", "rc"}, {"a", "a"}, {"b", "b"}, {"c", "rc"}};
    for (auto [word, kind] : kSpellings) {
      if (!word_at(j, word)) continue;
      v.pre_kind = std::string(kind);
      v.pre_number = part_number(j + word.size());
      return true;
    }
    return true;
  }

  bool post(PythonVersion& v) {
    if (peek('-') && digit_at(i_ + 1)) {  // "1.0-1"
      ++i_;
      std::uint64_t n = 0;
      if (!number(n)) return false;
      v.post = n;
      return true;
    }
    std::size_t j = i_ + (separator_at(i_) ? 1 : 0);
    for (std::string_view word : {"post", "rev", "r"}) {
      if (!word_at(j, word)) continue;
      v.post = part_number(j + word.size());
      return true;
    }
    return true;
  }

  bool dev(PythonVersion& v) {
    std::size_t j = i_ + (separator_at(i_) ? 1 : 0);
    if (word_at(j, "dev")) v.dev = part_number(j + 3);
    return true;
  }

  bool local(PythonVersion& v) {
    if (!peek('+')) return true;
    ++i_;
    for (;;) {
      std::size_t start = i_;
      while (i_ < s_.size() && is_alnum_ascii(s_[i_])) ++i_;
      if (i_ == start) return false;
      v.local.emplace_back(s_.substr(start, i_ - start));
      if (separator_at(i_) && i_ + 1 < s_.size() && is_alnum_ascii(s_[i_ + 1])) {
        ++i_;
        continue;
      }
      return true;
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  bool failed_ = false;
};

int compare_numbers(std::uint64_t a, std::uint64_t b) { return a < b ? -1 : a > b ? 1 : 0; }

int compare_releases(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    int c = compare_numbers(i < a.size() ? a[i] : 0, i < b.size() ? b[i] : 0);
    if (c != 0) return c;
  }
  return 0;
}

// PEP 440's order of the suffixes: 1.0.dev1 < 1.0a1.dev1 < 1.0a1 < 1.0b1 <
// 1.0rc1 < 1.0 < 1.0.post1.dev1 < 1.0.post1.
int pre_rank(const PythonVersion& v) {
  if (v.pre_kind.empty()) return v.dev && !v.post ? -1 : 3;
  return v.pre_kind == "a" ? 0 : v.pre_kind == "b" ? 1 : 2;
}

bool all_ascii_digits(const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), text::is_digit); }

// Local labels: segment by segment, numbers as numbers (of any length) and
// above any word, words as lowercase text; a label that is a prefix of the
// other is lower ("Local version identifiers").
int compare_local(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    bool na = all_ascii_digits(a[i]), nb = all_ascii_digits(b[i]);
    if (na != nb) return na ? 1 : -1;
    if (na) {
      std::string x = a[i].substr(std::min(a[i].find_first_not_of('0'), a[i].size()));
      std::string y = b[i].substr(std::min(b[i].find_first_not_of('0'), b[i].size()));
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (int c = x.compare(y); c != 0) return c < 0 ? -1 : 1;
    } else if (int c = a[i].compare(b[i]); c != 0) {
      return c < 0 ? -1 : 1;
    }
  }
  return compare_numbers(a.size(), b.size());
}

int compare_public(const PythonVersion& a, const PythonVersion& b) {
  if (int c = compare_numbers(a.epoch, b.epoch)) return c;
  if (int c = compare_releases(a.release, b.release)) return c;
  if (int c = pre_rank(a) - pre_rank(b)) return c < 0 ? -1 : 1;
  if (!a.pre_kind.empty()) {
    if (int c = compare_numbers(a.pre_number, b.pre_number)) return c;
  }
  // No post-release is below any; no dev release is above any.
  if (a.post.has_value() != b.post.has_value()) return a.post ? 1 : -1;
  if (a.post) {
    if (int c = compare_numbers(*a.post, *b.post)) return c;
  }
  if (a.dev.has_value() != b.dev.has_value()) return a.dev ? -1 : 1;
  if (a.dev) return compare_numbers(*a.dev, *b.dev);
  return 0;
}

}  // namespace

std::optional<PythonVersion> parse_python_version(std::string_view text) {
  std::string_view t = text::trim(text, text::kCSpace);
  if (t.empty()) return std::nullopt;
  std::string lower = text::lower(t);
  auto v = VersionReader(lower).read();
  if (v) v->text = std::string(t);
  return v;
}

std::string PythonVersion::str() const {
  std::string out = epoch ? std::to_string(epoch) + "!" : "";
  for (std::size_t i = 0; i < release.size(); ++i) out += (i ? "." : "") + std::to_string(release[i]);
  if (!pre_kind.empty()) out += pre_kind + std::to_string(pre_number);
  if (post) out += ".post" + std::to_string(*post);
  if (dev) out += ".dev" + std::to_string(*dev);
  for (std::size_t i = 0; i < local.size(); ++i) out += (i ? "." : "+") + local[i];
  return out;
}

int compare_python_versions(const PythonVersion& a, const PythonVersion& b) {
  if (int c = compare_public(a, b)) return c;
  if (a.local.empty() != b.local.empty()) return a.local.empty() ? -1 : 1;
  return compare_local(a.local, b.local);
}

// ---- version specifiers (PEP 440, "Version specifiers")

namespace {

// The parts of V that prefix matching compares, as PEP 440 splits them:
// epoch, each release number (padded with zeros to PAD numbers), then the
// pre-release, post-release and dev parts.
std::vector<std::string> prefix_segments(const PythonVersion& v, std::size_t pad) {
  std::vector<std::string> out{std::to_string(v.epoch)};
  for (std::size_t i = 0; i < std::max(v.release.size(), pad); ++i)
    out.push_back(std::to_string(i < v.release.size() ? v.release[i] : 0));
  if (!v.pre_kind.empty()) out.push_back(v.pre_kind + std::to_string(v.pre_number));
  if (v.post) out.push_back("post" + std::to_string(*v.post));
  if (v.dev) out.push_back("dev" + std::to_string(*v.dev));
  return out;
}

// "==PREFIX.*": CANDIDATE's public version begins with PREFIX.
bool prefix_matches(const PythonVersion& candidate, const PythonVersion& prefix) {
  auto want = prefix_segments(prefix, 0);
  auto have = prefix_segments(candidate, prefix.release.size());
  return have.size() >= want.size() && std::equal(want.begin(), want.end(), have.begin());
}

bool same_base(const PythonVersion& a, const PythonVersion& b) {
  return a.epoch == b.epoch && compare_releases(a.release, b.release) == 0;
}

bool clause_matches(const VersionClause& c, const PythonVersion& v) {
  const PythonVersion& s = c.version;
  if (c.op == "===") return text::lower(v.text) == text::lower(c.arbitrary);
  if (c.op == "==" || c.op == "!=") {
    bool equal;
    if (c.wildcard)
      equal = prefix_matches(v, s);
    else if (!s.local.empty())
      equal = compare_python_versions(v, s) == 0;
    else
      equal = compare_public(v, s) == 0;  // ==2.14.1 matches 2.14.1+cu130
    return c.op == "==" ? equal : !equal;
  }
  if (c.op == "~=") {
    if (s.release.empty()) return false;
    PythonVersion prefix;
    prefix.epoch = s.epoch;
    prefix.release.assign(s.release.begin(), s.release.end() - 1);
    return compare_public(v, s) >= 0 && prefix_matches(v, prefix);
  }
  if (c.op == ">=") return compare_public(v, s) >= 0;
  if (c.op == "<=") return compare_public(v, s) <= 0;
  if (c.op == "<") {
    // <3.1 leaves out 3.1's own pre-releases unless it names one.
    if (compare_python_versions(v, s) >= 0) return false;
    return s.is_prerelease() || !v.is_prerelease() || !same_base(v, s);
  }
  if (c.op == ">") {
    // >3.1 leaves out 3.1's post-releases (unless it names one) and 3.1+local.
    if (compare_python_versions(v, s) <= 0) return false;
    if (!s.post && v.post && same_base(v, s)) return false;
    return v.local.empty() || !same_base(v, s);
  }
  return false;
}

// One clause, "OP VERSION", already trimmed; nullopt with ERROR when wrong.
std::optional<VersionClause> read_clause(std::string_view t, std::string& error) {
  static constexpr std::string_view kOps[] = {"===", "~=", "==", "!=", "<=", ">=", "<", ">"};
  VersionClause c;
  for (std::string_view op : kOps) {
    if (t.rfind(op, 0) == 0) {
      c.op = std::string(op);
      break;
    }
  }
  auto fail = [&](const std::string& why) {
    error = "\"" + std::string(t) + "\": " + why;
    return std::nullopt;
  };
  if (c.op.empty()) return fail("a version specifier starts with ==, !=, >=, <=, >, <, ~= or ===");
  std::string_view rest = text::trim(t.substr(c.op.size()), text::kCSpace);
  if (rest.empty()) return fail("no version after " + c.op);
  if (c.op == "===") {
    if (rest.find_first_of(text::kCSpace) != std::string_view::npos) return fail("=== takes one word");
    c.arbitrary = std::string(rest);
    return c;
  }
  if (rest.size() >= 2 && rest.substr(rest.size() - 2) == ".*") {
    if (c.op != "==" && c.op != "!=") return fail(".* goes with == and != only");
    c.wildcard = true;
    rest.remove_suffix(2);
  }
  auto v = parse_python_version(rest);
  if (!v) return fail("\"" + std::string(rest) + "\" is not a PEP 440 version");
  if (c.wildcard && (!v->local.empty() || v->dev)) return fail(".* may not follow a local label or a .dev part");
  if (!v->local.empty() && c.op != "==" && c.op != "!=")
    return fail("a local label (+" + v->local.front() + "...) goes with == and != only");
  if (c.op == "~=" && v->release.size() < 2)
    return fail("~= needs a version of two or more numbers, such as ~=" + std::to_string(v->release.front()) + ".0");
  c.version = std::move(*v);
  return c;
}

}  // namespace

std::optional<VersionSpecifier> parse_version_specifier(std::string_view t, std::string& error) {
  VersionSpecifier spec;
  if (text::trim(t, text::kCSpace).empty()) return spec;
  std::size_t start = 0;
  for (;;) {
    std::size_t comma = t.find(',', start);
    std::string_view part = text::trim(t.substr(start, comma == std::string_view::npos ? std::string_view::npos
                                                                                       : comma - start),
                                       text::kCSpace);
    if (part.empty()) {
      error = "\"" + std::string(t) + "\": an empty clause between commas";
      return std::nullopt;
    }
    auto clause = read_clause(part, error);
    if (!clause) return std::nullopt;
    spec.clauses.push_back(std::move(*clause));
    if (comma == std::string_view::npos) return spec;
    start = comma + 1;
  }
}

bool VersionSpecifier::names_prerelease() const {
  return std::any_of(clauses.begin(), clauses.end(), [](const VersionClause& c) {
    return c.op != "!=" && c.op != "===" && c.version.is_prerelease();
  });
}

std::string VersionSpecifier::str() const {
  std::string out;
  for (const auto& c : clauses)
    out += (out.empty() ? "" : ", ") + c.op +
           (c.op == "===" ? c.arbitrary : c.version.str() + (c.wildcard ? ".*" : ""));
  return out;
}

bool version_satisfies(const PythonVersion& version, const VersionSpecifier& spec, PreReleases pre) {
  if (version.is_prerelease() && pre == PreReleases::when_named && !spec.names_prerelease()) return false;
  return std::all_of(spec.clauses.begin(), spec.clauses.end(),
                     [&](const VersionClause& c) { return clause_matches(c, version); });
}

// ---- environment markers (PEP 508, "Environment Markers")

MarkerEnvironment marker_environment(const PythonTarget& target, const std::string& full_version) {
  MarkerEnvironment env;
  env.python_version = std::to_string(target.major) + "." + std::to_string(target.minor);
  env.python_full_version = full_version.empty() ? env.python_version : full_version;
  env.implementation_version = env.python_full_version;
  env.platform_machine = target.arch;
  return env;
}

// A marker as a tree: a comparison, or all / any of its children.
struct MarkerNode {
  struct Value {
    bool variable = false;
    std::string text;  // the variable's name, or the string's content
  };
  enum class Kind { compare, all, any } kind = Kind::compare;
  Value left, right;  // of a comparison
  std::string op;
  std::vector<MarkerNode> children;
};

namespace {

// The variables PEP 508 defines, and the older dotted spellings pip still
// reads (PEP 345's), under their current names.
std::optional<std::string> marker_variable(std::string_view word) {
  static constexpr std::string_view kNames[] = {
      "python_version",   "python_full_version", "os_name",          "sys_platform",
      "platform_release", "platform_system",     "platform_version", "platform_machine",
      "platform_python_implementation",          "implementation_name", "implementation_version",
      "extra"};
  for (auto n : kNames)
    if (word == n) return std::string(n);
  static constexpr std::pair<std::string_view, std::string_view> kOld[] = {
      {"os.name", "os_name"},
      {"sys.platform", "sys_platform"},
      {"platform.version", "platform_version"},
      {"platform.machine", "platform_machine"},
      {"platform.python_implementation", "platform_python_implementation"},
      {"python_implementation", "platform_python_implementation"}};
  for (auto [old, now] : kOld)
    if (word == old) return std::string(now);
  return std::nullopt;
}

class MarkerParser {
 public:
  explicit MarkerParser(std::string_view s) : s_(s) {}

  std::optional<MarkerNode> parse(std::string& error) {
    auto node = any_of();
    skip_blanks();
    if (node && i_ != s_.size()) fail("expected \"and\", \"or\" or the end of the marker");
    if (!error_.empty()) {
      error = "column " + std::to_string(error_at_ + 1) + " of the marker \"" + std::string(s_) + "\": " + error_;
      return std::nullopt;
    }
    return node;
  }

 private:
  void skip_blanks() {
    while (i_ < s_.size() && text::is_space(s_[i_])) ++i_;
  }
  std::optional<MarkerNode> fail(const std::string& why) {
    if (error_.empty()) {
      error_ = why;
      error_at_ = i_;
    }
    return std::nullopt;
  }
  bool word_char(std::size_t at) const {
    return at < s_.size() && (is_alnum_ascii(s_[at]) || s_[at] == '_' || s_[at] == '.');
  }
  // The word at the cursor ("and", "python_version"), not consumed.
  std::string_view word() const {
    std::size_t j = i_;
    while (word_char(j)) ++j;
    return s_.substr(i_, j - i_);
  }
  bool keyword(std::string_view k) {
    skip_blanks();
    if (word() != k) return false;
    i_ += k.size();
    return true;
  }

  std::optional<MarkerNode> combine(MarkerNode::Kind kind, std::string_view joiner,
                                    std::optional<MarkerNode> (MarkerParser::*next)()) {
    auto first = (this->*next)();
    if (!first) return std::nullopt;
    if (!keyword(joiner)) return first;
    MarkerNode node;
    node.kind = kind;
    node.children.push_back(std::move(*first));
    do {
      auto more = (this->*next)();
      if (!more) return std::nullopt;
      node.children.push_back(std::move(*more));
    } while (keyword(joiner));
    return node;
  }
  std::optional<MarkerNode> any_of() { return combine(MarkerNode::Kind::any, "or", &MarkerParser::all_of); }
  std::optional<MarkerNode> all_of() { return combine(MarkerNode::Kind::all, "and", &MarkerParser::atom); }

  std::optional<MarkerNode> atom() {
    skip_blanks();
    if (i_ < s_.size() && s_[i_] == '(') {
      if (++depth_ > 32) return fail("parentheses nest more than 32 deep");
      ++i_;
      auto inner = any_of();
      if (!inner) return std::nullopt;
      skip_blanks();
      if (i_ >= s_.size() || s_[i_] != ')') return fail("expected \")\"");
      ++i_;
      --depth_;
      return inner;
    }
    MarkerNode node;
    if (!value(node.left) || !op(node.op) || !value(node.right)) return std::nullopt;
    return node;
  }

  bool value(MarkerNode::Value& out) {
    skip_blanks();
    if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
      char quote = s_[i_];
      std::size_t end = s_.find(quote, i_ + 1);
      if (end == std::string_view::npos) {
        fail(std::string("the string has no closing ") + quote);
        return false;
      }
      out.text = std::string(s_.substr(i_ + 1, end - i_ - 1));
      i_ = end + 1;
      return true;
    }
    auto name = marker_variable(word());
    if (!name) {
      fail(word().empty() ? "expected a marker variable (python_version, sys_platform, ...) or a quoted string"
                          : "\"" + std::string(word()) + "\" is not a marker variable (python_version, "
                                                         "sys_platform, platform_machine, extra, ...)");
      return false;
    }
    i_ += word().size();
    out.variable = true;
    out.text = *name;
    return true;
  }

  bool op(std::string& out) {
    skip_blanks();
    static constexpr std::string_view kSymbols[] = {"===", "==", "!=", "<=", ">=", "~=", "<", ">"};
    for (auto sym : kSymbols) {
      if (s_.substr(i_).rfind(sym, 0) == 0) {
        out = std::string(sym);
        i_ += sym.size();
        return true;
      }
    }
    if (keyword("in")) {
      out = "in";
      return true;
    }
    std::size_t at = i_;
    if (keyword("not") && keyword("in")) {
      out = "not in";
      return true;
    }
    i_ = at;
    fail("expected a comparison (==, !=, <, <=, >, >=, ~=, ===, in, not in)");
    return false;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int depth_ = 0;
  std::string error_;
  std::size_t error_at_ = 0;
};

std::string value_of(const MarkerNode::Value& v, const MarkerEnvironment& env, const std::string& extra) {
  if (!v.variable) return v.text;
  const std::string& n = v.text;
  if (n == "python_version") return env.python_version;
  if (n == "python_full_version") return env.python_full_version;
  if (n == "implementation_version") return env.implementation_version;
  if (n == "os_name") return env.os_name;
  if (n == "sys_platform") return env.sys_platform;
  if (n == "platform_system") return env.platform_system;
  if (n == "platform_machine") return env.platform_machine;
  if (n == "platform_python_implementation") return env.platform_python_implementation;
  if (n == "implementation_name") return env.implementation_name;
  if (n == "platform_release") return env.platform_release;
  if (n == "platform_version") return env.platform_version;
  return extra;  // "extra", the only name left
}

bool compare_holds(const MarkerNode& n, const MarkerEnvironment& env, const std::string& extra) {
  std::string left = value_of(n.left, env, extra), right = value_of(n.right, env, extra);
  if (n.op == "in") return right.find(left) != std::string::npos;
  if (n.op == "not in") return right.find(left) == std::string::npos;
  // Extras are names: compared normalized ("Dev_Tools" is "dev-tools").
  if ((n.left.variable && n.left.text == "extra") || (n.right.variable && n.right.text == "extra")) {
    left = normalize_project_name(left);
    right = normalize_project_name(right);
  }
  // Two versions compare as versions: python_version >= "3.10" holds for
  // 3.12, which as text it would not.
  std::string ignored;
  auto version = parse_python_version(left);
  auto spec = version && right.find(',') == std::string::npos ? parse_version_specifier(n.op + right, ignored)
                                                             : std::nullopt;
  if (version && spec) return version_satisfies(*version, *spec, PreReleases::allowed);
  if (n.op == "==" || n.op == "===") return left == right;
  if (n.op == "!=") return left != right;
  if (n.op == "<") return left < right;
  if (n.op == "<=") return left <= right;
  if (n.op == ">") return left > right;
  if (n.op == ">=") return left >= right;
  return false;  // ~= between strings that are not versions means nothing
}

bool node_holds(const MarkerNode& n, const MarkerEnvironment& env, const std::string& extra) {
  switch (n.kind) {
    case MarkerNode::Kind::all:
      return std::all_of(n.children.begin(), n.children.end(),
                         [&](const MarkerNode& c) { return node_holds(c, env, extra); });
    case MarkerNode::Kind::any:
      return std::any_of(n.children.begin(), n.children.end(),
                         [&](const MarkerNode& c) { return node_holds(c, env, extra); });
    case MarkerNode::Kind::compare:
      break;
  }
  return compare_holds(n, env, extra);
}

}  // namespace

std::optional<Marker> parse_marker(std::string_view text, std::string& error) {
  auto node = MarkerParser(text).parse(error);
  if (!node) return std::nullopt;
  return Marker{std::make_shared<const MarkerNode>(std::move(*node))};
}

bool marker_holds(const Marker& marker, const MarkerEnvironment& env, const std::vector<std::string>& extras) {
  if (!marker.root) return true;
  // As pip asks: once per requested extra, or once with "" when none is.
  if (extras.empty()) return node_holds(*marker.root, env, "");
  return std::any_of(extras.begin(), extras.end(),
                     [&](const std::string& e) { return node_holds(*marker.root, env, e); });
}

// ---- requirements (PEP 508, "Grammar")

std::optional<PythonRequirement> parse_python_requirement(std::string_view line, std::string& error) {
  PythonRequirement r;
  std::size_t i = 0;
  auto skip_blanks = [&] {
    while (i < line.size() && text::is_space(line[i])) ++i;
  };
  auto fail = [&](std::size_t at, const std::string& why) {
    error = "column " + std::to_string(at + 1) + " of the requirement \"" + std::string(line) + "\": " + why;
    return std::nullopt;
  };
  auto name_at = [&]() {
    std::size_t start = i;
    while (i < line.size() && (is_alnum_ascii(line[i]) || line[i] == '.' || line[i] == '_' || line[i] == '-')) ++i;
    return std::string(line.substr(start, i - start));
  };
  skip_blanks();
  std::size_t name_start = i;
  r.name = name_at();
  if (!valid_pep508_name(r.name))
    return fail(name_start, "expected a distribution name (letters, digits, '.', '_' and '-', starting and ending "
                            "with a letter or digit)");
  skip_blanks();
  if (i < line.size() && line[i] == '[') {
    ++i;
    skip_blanks();
    while (i < line.size() && line[i] != ']') {
      std::size_t at = i;
      std::string extra = name_at();
      if (!valid_pep508_name(extra)) return fail(at, "expected the name of an extra");
      r.extras.push_back(extra);
      skip_blanks();
      if (i < line.size() && line[i] == ',') {
        ++i;
        skip_blanks();
      } else if (i >= line.size() || line[i] != ']') {
        return fail(i, "expected \",\" or \"]\" in the extras");
      }
    }
    if (i >= line.size()) return fail(i, "the extras have no closing \"]\"");
    ++i;
    skip_blanks();
  }
  std::size_t marker_at = std::string_view::npos;
  if (i < line.size() && line[i] == '@') {
    ++i;
    skip_blanks();
    std::size_t start = i;
    while (i < line.size() && !text::is_space(line[i])) ++i;
    r.url = std::string(line.substr(start, i - start));
    if (r.url.empty()) return fail(start, "expected a URL after \"@\"");
    skip_blanks();
    if (i < line.size()) {
      if (line[i] != ';') return fail(i, "expected \";\" and a marker after the URL");
      marker_at = i + 1;
    }
  } else {
    std::string_view spec_text;
    std::size_t spec_at = i;
    if (i < line.size() && line[i] == '(') {
      std::size_t close = line.find(')', i);
      if (close == std::string_view::npos) return fail(i, "the version specifier has no closing \")\"");
      spec_text = line.substr(i + 1, close - i - 1);
      i = close + 1;
      skip_blanks();
      if (i < line.size() && line[i] != ';') return fail(i, "expected \";\" and a marker after the version");
    } else {
      std::size_t semi = line.find(';', i);
      spec_text = line.substr(i, semi == std::string_view::npos ? std::string_view::npos : semi - i);
      i = semi == std::string_view::npos ? line.size() : semi;
    }
    std::string why;
    auto spec = parse_version_specifier(spec_text, why);
    if (!spec) return fail(spec_at, why);
    r.specifier = std::move(*spec);
    if (i < line.size()) marker_at = i + 1;
  }
  if (marker_at != std::string_view::npos) {
    while (marker_at < line.size() && text::is_space(line[marker_at])) ++marker_at;
    std::string why;
    auto marker = parse_marker(text::trim(line.substr(marker_at), text::kCSpace), why);
    if (!marker) return fail(marker_at, why);
    r.marker = std::move(*marker);
  }
  return r;
}

bool requirement_applies(const PythonRequirement& r, const MarkerEnvironment& env,
                         const std::vector<std::string>& extras) {
  return !r.marker || marker_holds(*r.marker, env, extras);
}

}  // namespace wslgpu
