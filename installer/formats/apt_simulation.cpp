#include "installer/formats/apt_simulation.hpp"

#include <cctype>

#include "installer/formats/deb822.hpp"
#include "installer/formats/deb_version.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

const char* apt_action_name(AptAction::Kind kind) {
  switch (kind) {
    case AptAction::Kind::install: return "install";
    case AptAction::Kind::upgrade: return "upgrade";
    case AptAction::Kind::downgrade: return "downgrade";
    case AptAction::Kind::configure: return "configure";
    case AptAction::Kind::remove: return "remove";
    case AptAction::Kind::purge: return "purge";
  }
  return "";
}

std::vector<AptAction> AptTransaction::changes() const {
  std::vector<AptAction> out;
  for (const auto& a : actions)
    if (a.kind != AptAction::Kind::configure) out.push_back(a);
  return out;
}

std::string AptTransaction::chain(const std::string& name) const {
  std::vector<std::string> links = {name};
  std::string current = name;
  for (int depth = 0; depth < 64; ++depth) {  // apt's output has no cycles; stay safe anyway
    auto it = pulled_in_by.find(current);
    if (it == pulled_in_by.end() || it->second == current) break;
    current = it->second;
    links.push_back(current);
  }
  std::string out;
  for (auto it = links.rbegin(); it != links.rend(); ++it) out += (out.empty() ? "" : " → ") + *it;
  return out;
}

namespace {

std::string without_arch(const std::string& name) { return name.substr(0, name.find(':')); }

// "  Installing b:amd64 as Depends of a:amd64" -> (b, a)
bool parse_reason(const std::string& line, std::string& child, std::string& parent) {
  // Most lines are no reason: look for the word before splitting into words
  // (split_words() allocates each of them, for every line of apt's output).
  if (line.find("Installing") == std::string::npos) return false;
  auto words = split_words(line);
  if (words.size() != 6 || words[0] != "Installing" || words[2] != "as" || words[4] != "of") return false;
  child = without_arch(words[1]);
  parent = without_arch(words[5]);
  return true;
}

// Parses "(VERSION ORIGIN... [ARCH])" into ACTION; false when malformed.
bool parse_candidate(const std::string& inside, AptAction& action) {
  auto words = split_words(inside);
  if (words.empty()) return false;
  action.version = words.front();
  std::size_t last = words.size();
  if (words.size() >= 2 && words.back().size() >= 2 && words.back().front() == '[' && words.back().back() == ']') {
    action.architecture = words.back().substr(1, words.back().size() - 2);
    last = words.size() - 1;
  }
  for (std::size_t i = 1; i < last; ++i) action.origin += (action.origin.empty() ? "" : " ") + words[i];
  return true;
}

}  // namespace

AptTransaction parse_apt_simulation(const std::string& output) {
  AptTransaction tx;
  for (std::string_view v : text::split_lines(output, text::LineEnd::dropped)) {
    std::string line(v);
    std::string child, parent;
    if (parse_reason(line, child, parent)) {
      tx.pulled_in_by.emplace(child, parent);  // the first reason apt gives is the one that counted
      continue;
    }
    if (line.size() < 6 || line[4] != ' ') continue;
    std::string verb = line.substr(0, 4);
    AptAction a;
    if (verb == "Inst") a.kind = AptAction::Kind::install;
    else if (verb == "Conf") a.kind = AptAction::Kind::configure;
    else if (verb == "Remv") a.kind = AptAction::Kind::remove;
    else if (verb == "Purg") a.kind = AptAction::Kind::purge;
    else continue;
    std::string rest = line.substr(5);
    std::size_t sp = rest.find(' ');
    std::string name = rest.substr(0, sp);
    rest = sp == std::string::npos ? "" : rest.substr(sp + 1);
    if (auto colon = name.find(':'); colon != std::string::npos) {
      a.architecture = name.substr(colon + 1);
      name = name.substr(0, colon);
    }
    // No package named ("Inst :amd64 ..."), or not a name apt would print.
    if (name.empty() || name.find_first_of("\t\r\v\f") != std::string::npos) continue;
    a.name = name;
    // Optional "[OLD]" (the installed version), then optional "(NEW ...)".
    if (!rest.empty() && rest.front() == '[') {
      std::size_t close = rest.find(']');
      if (close == std::string::npos) continue;
      a.old_version = rest.substr(1, close - 1);
      rest = rest.substr(close + 1);
      while (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
    }
    if (!rest.empty() && rest.front() == '(') {
      std::size_t close = rest.find(')');
      if (close == std::string::npos || !parse_candidate(rest.substr(1, close - 1), a)) continue;
    }
    if (a.kind == AptAction::Kind::install && !a.old_version.empty())
      a.kind = compare_deb_versions(a.version, a.old_version) < 0 ? AptAction::Kind::downgrade : AptAction::Kind::upgrade;
    if (a.kind != AptAction::Kind::configure && a.kind != AptAction::Kind::remove && a.kind != AptAction::Kind::purge &&
        a.version.empty())
      continue;
    tx.actions.push_back(a);
  }
  return tx;
}

std::vector<std::string> apt_error_lines(const std::string& output) {
  std::vector<std::string> out;
  for (std::string_view v : text::split_lines(output, text::LineEnd::dropped)) {
    std::string line(v);
    if (line.rfind("E: ", 0) == 0) out.push_back(line.substr(3));
  }
  return out;
}

std::vector<std::string> dpkg_error_lines(const std::string& output) {
  std::vector<std::string> out;
  bool continuing = false;
  for (std::string_view v : text::split_lines(output, text::LineEnd::dropped)) {
    std::string line(v);
    if (line.rfind("dpkg: error", 0) == 0) {
      out.push_back(line);
      continuing = true;
    } else if (continuing && !line.empty() && line.front() == ' ') {
      std::size_t text = line.find_first_not_of(' ');
      if (text != std::string::npos) out.back() += " " + line.substr(text);
      continuing = false;  // dpkg gives one reason line
    } else {
      continuing = false;
    }
  }
  return out;
}

std::vector<ExactDependency> apt_unmet_exact_dependencies(const std::string& output) {
  std::vector<ExactDependency> out;
  for (std::string_view line : text::split_lines(output, text::LineEnd::newline_dropped)) {
    for (const char* field : {"Depends: ", "PreDepends: "}) {
      auto at = line.find(field);
      if (at == std::string_view::npos) continue;
      auto words = split_words(line.substr(at + std::string(field).size()));
      // NAME (= VERSION) but ...
      if (words.size() < 4 || words[1] != "(=" || words[2].empty() || words[2].back() != ')' || words[3] != "but")
        continue;
      ExactDependency d{words[0].substr(0, words[0].find(':')), words[2].substr(0, words[2].size() - 1)};
      bool known = false;
      for (const auto& e : out) known = known || (e.name == d.name && e.version == d.version);
      if (!known) out.push_back(d);
    }
  }
  return out;
}

std::optional<std::uint64_t> parse_apt_size(const std::string& text) {
  // NUMBER [UNIT]B, NUMBER with an optional decimal point and, in some
  // locales, thousands separators.
  std::string t = text;
  while (!t.empty() && (t.back() == ' ' || t.back() == '.')) t.pop_back();
  while (!t.empty() && t.front() == ' ') t.erase(t.begin());
  auto space = t.find(' ');
  if (space == std::string::npos || space == 0) return std::nullopt;
  std::string number = t.substr(0, space), unit = t.substr(space + 1);
  double scale = 0;
  if (unit == "B") scale = 1;
  else if (unit == "kB") scale = 1e3;
  else if (unit == "MB") scale = 1e6;
  else if (unit == "GB") scale = 1e9;
  else if (unit == "TB") scale = 1e12;
  else return std::nullopt;
  double value = 0, frac = 0;
  bool digits = false;
  for (char c : number) {
    if (c == ',' && frac == 0) continue;  // thousands
    if (c == '.') {
      if (frac != 0) return std::nullopt;
      frac = 1;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    digits = true;
    if (frac != 0) value += (c - '0') * (frac /= 10);
    else value = value * 10 + (c - '0');
  }
  if (!digits || value * scale > 1e18) return std::nullopt;
  return static_cast<std::uint64_t>(value * scale + 0.5);
}

AptSizes parse_apt_sizes(const std::string& output) {
  AptSizes sizes;
  std::uint64_t listed = 0;
  bool any_listed = false;
  const std::string need = "Need to get ", after = "After this operation, ";
  for (std::string_view v : text::split_lines(output, text::LineEnd::dropped)) {
    std::string line(v);
    if (line.rfind(need, 0) == 0) {
      auto of = line.find(" of archives");
      if (of == std::string::npos) continue;
      std::string figures = line.substr(need.size(), of - need.size());
      auto slash = figures.find('/');
      auto fetch = parse_apt_size(figures.substr(0, slash));
      auto all = slash == std::string::npos ? fetch : parse_apt_size(figures.substr(slash + 1));
      if (!fetch || !all) continue;
      sizes.known = true;
      sizes.fetch_bytes = *fetch;
      sizes.archive_bytes = *all;
    } else if (line.rfind(after, 0) == 0) {
      std::string rest = line.substr(after.size());
      bool used = rest.find(" of additional disk space will be used") != std::string::npos;
      bool freed = rest.find(" disk space will be freed") != std::string::npos;
      if (!used && !freed) continue;
      auto size = parse_apt_size(rest.substr(0, rest.find(used ? " of additional" : " disk space")));
      if (!size) continue;
      sizes.known = true;
      sizes.disk_bytes = used ? static_cast<std::int64_t>(*size) : -static_cast<std::int64_t>(*size);
    } else if (line.size() > 2 && line.front() == '\'') {
      // 'URI' FILE SIZE HASH: a local file (file:, copy:, cdrom:) is read where it is.
      auto close = line.find('\'', 1);
      if (close == std::string::npos) continue;
      std::string uri = line.substr(1, close - 1);
      auto words = split_words(line.substr(close + 1));
      if (words.size() < 2 || words[1].find_first_not_of("0123456789") != std::string::npos || words[1].size() > 18)
        continue;
      any_listed = true;
      bool local = uri.rfind("file:", 0) == 0 || uri.rfind("copy:", 0) == 0 || uri.rfind("cdrom:", 0) == 0;
      if (!local) listed += std::stoull(words[1]);
    }
  }
  if (any_listed) sizes.fetch_bytes = listed;
  return sizes;
}

std::vector<AptUri> parse_apt_uris(const std::string& output) {
  std::vector<AptUri> out;
  for (std::string_view v : text::split_lines(output, text::LineEnd::dropped)) {
    std::string line(v);
    if (line.size() < 3 || line.front() != '\'') continue;
    auto close = line.find('\'', 1);
    if (close == std::string::npos) continue;
    auto words = split_words(line.substr(close + 1));
    if (words.size() < 2 || words[1].empty() || words[1].find_first_not_of("0123456789") != std::string::npos ||
        words[1].size() > 18)
      continue;
    AptUri u;
    u.uri = line.substr(1, close - 1);
    u.file = words[0];
    u.size = std::stoull(words[1]);
    if (words.size() > 2 && words[2].rfind("SHA256:", 0) == 0) {
      std::string hex = words[2].substr(7);
      for (auto& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (hex.size() == 64 && hex.find_first_not_of("0123456789abcdef") == std::string::npos) u.sha256 = hex;
    }
    out.push_back(u);
  }
  return out;
}

}  // namespace wslgpu
