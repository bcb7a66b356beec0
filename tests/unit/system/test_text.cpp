// The shared text helpers: each trim keeps exactly what its parsers kept
// before they shared it (a CR that is content, a form feed in a sources
// file), and lower() touches ASCII letters only.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "installer/system/text.hpp"

using namespace wslgpu;

TEST_CASE("trim drops a line's blanks and its line ending, and nothing inside") {
  CHECK(text::trim("  a b \r\n") == "a b");
  CHECK(text::trim("\t\r\n ") == "");
  CHECK(text::trim("") == "");
  CHECK(text::trim("x") == "x");
}

TEST_CASE("trim with kBlanks keeps a CR, as the INI editor needs to give a CRLF file back") {
  CHECK(text::trim(" key = v\r", text::kBlanks) == "key = v\r");
  CHECK(text::trim("\tv\t", text::kBlanks) == "v");
}

TEST_CASE("trim with kCSpace drops what C's isspace() calls space, form feed and vertical tab too") {
  CHECK(text::trim("\v\f deb x \f", text::kCSpace) == "deb x");
}

TEST_CASE("trim_field keeps a leading CR but drops a trailing one") {
  CHECK(text::trim_field(" \tPackage: x \r") == "Package: x");
  CHECK(text::trim_field("\rx") == "\rx");
  CHECK(text::trim_field(" \t\r") == "");
}

TEST_CASE("trim_start and trim_end work on one side only") {
  CHECK(text::trim_start("  a  ", " ") == "a  ");
  CHECK(text::trim_end("  a  ", " ") == "  a");
  CHECK(text::trim_start("   ", " ") == "");
  CHECK(text::trim_end("   ", " ") == "");
}

TEST_CASE("lower changes A-Z only, whatever the bytes around them") {
  CHECK(text::lower("Signed-By: ABC") == "signed-by: abc");
  const std::string latin1 = "\xC4\xD6 Z";  // bytes a Latin-1 locale would fold
  CHECK(text::lower(latin1) == "\xC4\xD6 z");
}

TEST_CASE("is_digit and is_space are ASCII and C-locale only") {
  CHECK(text::is_digit('0'));
  CHECK(text::is_digit('9'));
  CHECK_FALSE(text::is_digit('a'));
  CHECK_FALSE(text::is_digit('\xB2'));  // superscript two in Latin-1
  CHECK(text::is_space('\f'));
  CHECK(text::is_space('\n'));
  CHECK_FALSE(text::is_space('\xA0'));  // no-break space in Latin-1
  CHECK_FALSE(text::is_space('x'));
}

TEST_CASE("shell_word leaves plain words alone and quotes anything a shell would read differently") {
  CHECK(text::shell_word("rocm") == "rocm");
  CHECK(text::shell_word("rocm_version=6.4.2.1") == "rocm_version=6.4.2.1");
  CHECK(text::shell_word("/mnt/c/Users/alice") == "/mnt/c/Users/alice");
  CHECK(text::shell_word("") == "''");
  CHECK(text::shell_word("/mnt/c/Users/Ann Lee") == "'/mnt/c/Users/Ann Lee'");
  CHECK(text::shell_word("note=it's") == "'note=it'\\''s'");
  CHECK(text::shell_word("$(reboot)") == "'$(reboot)'");
  CHECK(text::shell_word("~/x") == "'~/x'");
  CHECK(text::shell_word("a*") == "'a*'");
}

TEST_CASE("split_lines with LineEnd::kept gives the text back byte for byte, CRLF and a missing last newline too") {
  const std::string text = "a\r\n\nb\nlast";
  auto lines = text::split_lines(text, text::LineEnd::kept);
  CHECK(lines == std::vector<std::string_view>{"a\r\n", "\n", "b\n", "last"});
  std::string joined;
  for (auto l : lines) joined += l;
  CHECK(joined == text);
  CHECK(text::split_lines("", text::LineEnd::kept).empty());
  CHECK(text::split_lines("x\n", text::LineEnd::kept) == std::vector<std::string_view>{"x\n"});
}

TEST_CASE("split_lines with LineEnd::dropped keeps empty lines and drops one CR before each newline") {
  CHECK(text::split_lines("a\r\n\nb\r\r\nc") == std::vector<std::string_view>{"a", "", "b\r", "c"});
  CHECK(text::split_lines("x\n") == std::vector<std::string_view>{"x"});
  CHECK(text::split_lines("\n") == std::vector<std::string_view>{""});
  CHECK(text::split_lines("").empty());
}

TEST_CASE("split_lines with LineEnd::newline_dropped splits as std::getline does: carriage returns stay") {
  CHECK(text::split_lines("a\r\n\nb\nc", text::LineEnd::newline_dropped) ==
        std::vector<std::string_view>{"a\r", "", "b", "c"});
  CHECK(text::split_lines("x\n", text::LineEnd::newline_dropped) == std::vector<std::string_view>{"x"});
  CHECK(text::split_lines("", text::LineEnd::newline_dropped).empty());
}

TEST_CASE("split_lines with LineEnd::dropped drops a last line's CR even without a newline after it") {
  CHECK(text::split_lines("a\r") == std::vector<std::string_view>{"a"});
  CHECK(text::split_lines("a\nb\r\r") == std::vector<std::string_view>{"a", "b\r"});
}

// The loops split_lines replaced: std::getline on a string stream, and the
// same with one trailing CR popped from each line.
namespace {
std::vector<std::string> getline_lines(const std::string& text, bool pop_cr) {
  std::istringstream in(text);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (pop_cr && !line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> as_strings(const std::vector<std::string_view>& views) {
  return std::vector<std::string>(views.begin(), views.end());
}
}  // namespace

TEST_CASE("split_lines splits every text of CR, LF and x up to five bytes as getline did, CR popped or kept") {
  // All 3^0 + ... + 3^5 texts: empty, final newline or not, CRs anywhere.
  std::vector<std::string> texts = {""};
  for (std::size_t i = 0; i < texts.size() && texts[i].size() < 5; ++i)
    for (char c : {'\r', '\n', 'x'}) texts.push_back(texts[i] + c);
  REQUIRE(texts.size() == 364);
  for (const auto& t : texts) {
    CAPTURE(t);
    CHECK(as_strings(text::split_lines(t, text::LineEnd::newline_dropped)) == getline_lines(t, false));
    CHECK(as_strings(text::split_lines(t, text::LineEnd::dropped)) == getline_lines(t, true));
  }
}

TEST_CASE("first_line gives the first line that is not blank, without blanks and CR around it") {
  CHECK(text::first_line("\n  \r\n\t error: no GPU \r\nsecond\n") == "error: no GPU");
  CHECK(text::first_line("one\rtwo") == "one\rtwo");  // a CR inside a line is content
  CHECK(text::first_line(" \r\n\t\n") == "");
  CHECK(text::first_line("") == "");
}

TEST_CASE("output_lines keeps the non-empty lines without their trailing spaces and carriage returns") {
  CHECK(text::output_lines("E: one \r\n\n  \r\nW: two\nlast  ") ==
        std::vector<std::string>{"E: one", "W: two", "last"});
  CHECK(text::output_lines("").empty());
}
