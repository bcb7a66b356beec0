#include "installer/formats/diff.hpp"

#include <algorithm>
#include <cstdint>

#include "installer/formats/sha256.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

// Lines with their carriage returns: a CRLF line and an LF line differ.
std::vector<std::string> diff_split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (auto line : text::split_lines(text, text::LineEnd::newline_dropped)) lines.emplace_back(line);
  return lines;
}

struct Edit {
  char op;  // ' ', '-', '+'
  std::size_t a, b;  // line indexes in old and new
};

// Longest-common-subsequence edit script. Files we diff are configuration
// files of at most a few thousand lines; beyond that, a whole replacement.
std::vector<Edit> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<Edit> out;
  const std::size_t n = a.size(), m = b.size();
  if (n * m > 16'000'000) {
    for (std::size_t i = 0; i < n; ++i) out.push_back({'-', i, 0});
    for (std::size_t j = 0; j < m; ++j) out.push_back({'+', n, j});
    return out;
  }
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.push_back({' ', i++, j++});
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push_back({'-', i++, j});  // removals first, as diff -u prints them
    } else {
      out.push_back({'+', i, j++});
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> unified_diff(const std::string& path, const std::string* old_text, const std::string& new_text,
                                      std::size_t context) {
  std::string old_content = old_text ? *old_text : std::string();
  if (old_text && old_content == new_text) return {};
  auto a = diff_split_lines(old_content);
  auto b = diff_split_lines(new_text);
  auto edits = edit_script(a, b);
  std::vector<std::string> out = {"--- " + (old_text ? path : std::string("/dev/null")), "+++ " + path};
  std::size_t k = 0;
  while (k < edits.size()) {
    while (k < edits.size() && edits[k].op == ' ') ++k;
    if (k == edits.size()) break;
    // A hunk: from CONTEXT lines before this change to CONTEXT lines after
    // the last change that is no further than 2*CONTEXT from the previous.
    std::size_t start = k >= context ? k - context : 0;
    std::size_t end = k;
    std::size_t last_change = k;
    while (end < edits.size()) {
      if (edits[end].op != ' ') last_change = end;
      else if (end - last_change > 2 * context) break;
      ++end;
    }
    end = std::min(edits.size(), last_change + context + 1);
    std::size_t a_start = edits[start].a, b_start = edits[start].b, a_count = 0, b_count = 0;
    std::vector<std::string> body;
    for (std::size_t e = start; e < end; ++e) {
      const Edit& ed = edits[e];
      if (ed.op != '+') ++a_count;
      if (ed.op != '-') ++b_count;
      body.push_back(std::string(1, ed.op) + (ed.op == '+' ? b[ed.b] : a[ed.a]));
    }
    auto range = [](std::size_t s, std::size_t c) {
      return std::to_string(c == 0 ? s : s + 1) + (c == 1 ? "" : "," + std::to_string(c));
    };
    out.push_back("@@ -" + range(a_start, a_count) + " +" + range(b_start, b_count) + " @@");
    out.insert(out.end(), body.begin(), body.end());
    k = end;
  }
  if (!old_content.empty() && old_content.back() != '\n') out.push_back("\\ No newline at end of file (before)");
  if (!new_text.empty() && new_text.back() != '\n') out.push_back("\\ No newline at end of file");
  return out;
}

bool is_diffable_text(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') return false;
      if (c == 0x7f) return false;
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, then continuation
    // bytes; overlong forms and surrogates are not text either.
    std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 0 || i + n > text.size()) return false;
    std::uint32_t cp = c & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
    for (std::size_t k = 1; k < n; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
      return false;
    i += n;
  }
  return true;
}

std::vector<std::string> binary_change_lines(const std::string& path, const std::string* old_content,
                                             const std::string& new_content) {
  auto describe = [](const std::string& bytes) {
    return std::to_string(bytes.size()) + " bytes, sha256 " + sha256_hex(bytes);
  };
  return {"binary file " + path + ": " + describe(new_content) +
          (old_content ? "; was " + describe(*old_content) : std::string("; was absent"))};
}

}  // namespace wslgpu
