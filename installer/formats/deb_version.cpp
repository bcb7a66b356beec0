#include "installer/formats/deb_version.hpp"
#include "installer/system/text.hpp"

#include <cctype>

#include "installer/formats/glob.hpp"

namespace wslgpu {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// dpkg's order of a non-digit character: '~' first (before the end of the
// string), then the end, then letters, then everything else.
int char_order(char c) {
  if (c == '~') return -1;
  if (is_alpha(c)) return c;
  return c + 256;
}

// dpkg's verrevcmp: alternating runs of non-digits (compared character by
// character in char_order) and digits (compared as numbers).
int compare_part(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int first_diff = 0;
    while ((i < a.size() && !text::is_digit(a[i])) || (j < b.size() && !text::is_digit(b[j]))) {
      int ac = i < a.size() && !text::is_digit(a[i]) ? char_order(a[i]) : 0;
      int bc = j < b.size() && !text::is_digit(b[j]) ? char_order(b[j]) : 0;
      if (ac != bc) return ac < bc ? -1 : 1;
      if (i < a.size() && !text::is_digit(a[i])) ++i;
      if (j < b.size() && !text::is_digit(b[j])) ++j;
    }
    while (i < a.size() && a[i] == '0') ++i;
    while (j < b.size() && b[j] == '0') ++j;
    while (i < a.size() && text::is_digit(a[i]) && j < b.size() && text::is_digit(b[j])) {
      if (!first_diff) first_diff = a[i] - b[j];
      ++i;
      ++j;
    }
    if (i < a.size() && text::is_digit(a[i])) return 1;
    if (j < b.size() && text::is_digit(b[j])) return -1;
    if (first_diff) return first_diff < 0 ? -1 : 1;
  }
  return 0;
}

struct Parts {
  long long epoch = 0;
  std::string upstream;
  std::string revision;
};

Parts split(const std::string& v) {
  Parts p;
  std::string rest = v;
  if (auto colon = rest.find(':'); colon != std::string::npos) {
    const std::string e = rest.substr(0, colon);
    p.epoch = 0;
    for (char c : e)
      if (text::is_digit(c) && p.epoch < 1000000000) p.epoch = p.epoch * 10 + (c - '0');
    rest = rest.substr(colon + 1);
  }
  if (auto dash = rest.rfind('-'); dash != std::string::npos) {
    p.revision = rest.substr(dash + 1);
    rest = rest.substr(0, dash);
  }
  p.upstream = rest;
  return p;
}

std::string without_epoch(const std::string& v) {
  auto colon = v.find(':');
  return colon == std::string::npos ? v : v.substr(colon + 1);
}

}  // namespace

int compare_deb_versions(const std::string& a, const std::string& b) {
  Parts pa = split(a), pb = split(b);
  if (pa.epoch != pb.epoch) return pa.epoch < pb.epoch ? -1 : 1;
  if (int c = compare_part(pa.upstream, pb.upstream)) return c;
  return compare_part(pa.revision, pb.revision);
}

bool is_deb_version(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text)
    if (!text::is_digit(c) && !is_alpha(c) && c != '.' && c != '+' && c != '~' && c != '-' && c != ':') return false;
  std::string rest = text;
  if (auto colon = rest.find(':'); colon != std::string::npos) {
    std::string epoch = rest.substr(0, colon);
    if (epoch.empty()) return false;
    for (char c : epoch)
      if (!text::is_digit(c)) return false;
    rest = rest.substr(colon + 1);
    if (rest.find(':') != std::string::npos) return false;
  }
  if (auto dash = rest.rfind('-'); dash != std::string::npos && dash + 1 == rest.size()) return false;
  return !rest.empty() && text::is_digit(rest.front());
}

std::optional<VersionSpec> VersionSpec::parse(const std::string& text, std::string& error) {
  VersionSpec s;
  s.text_ = text;
  std::size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  static const char* const ops[] = {"<<", "<=", ">=", ">>", "="};
  for (const char* op : ops) {
    if (text.compare(i, std::string(op).size(), op) == 0) {
      s.op_ = op;
      i += s.op_.size();
      break;
    }
  }
  std::string operand = text.substr(i);
  while (!operand.empty() && operand.front() == ' ') operand.erase(0, 1);
  while (!operand.empty() && operand.back() == ' ') operand.pop_back();
  if (operand.empty()) {
    error = s.op_.empty() ? "a version is empty" : "\"" + s.op_ + "\" needs a version after it";
    return std::nullopt;
  }
  if (!s.op_.empty()) {
    if (!is_deb_version(operand)) {
      error = "\"" + operand + "\" is not a Debian version";
      return std::nullopt;
    }
  } else {
    for (char c : operand) {
      if (!text::is_digit(c) && !is_alpha(c) && std::string(".+~-:*?").find(c) == std::string::npos) {
        error = "\"" + text +
                "\" is neither a version pattern (letters, digits, . + ~ - : and the wildcards * ?) "
                "nor a relation such as \">= 7.2.1~\"";
        return std::nullopt;
      }
    }
  }
  s.operand_ = operand;
  return s;
}

bool VersionSpec::matches(const std::string& version) const {
  if (op_.empty()) {
    bool epoch_in_pattern = operand_.find(':') != std::string::npos;
    return glob_match(operand_, epoch_in_pattern ? version : without_epoch(version));
  }
  int c = compare_deb_versions(version, operand_);
  if (op_ == "<<") return c < 0;
  if (op_ == "<=") return c <= 0;
  if (op_ == "=") return c == 0;
  if (op_ == ">=") return c >= 0;
  return c > 0;
}

}  // namespace wslgpu
