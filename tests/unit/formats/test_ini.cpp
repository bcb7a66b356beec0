#include <doctest/doctest.h>

#include "installer/system/error.hpp"
#include "installer/formats/ini.hpp"

using namespace wslgpu;

TEST_CASE("ini: parsing and printing an untouched document gives back the same bytes") {
  const std::string text =
      "\xEF\xBB\xBF# Settings apply across all Linux distros\r\n"
      "[wsl2]\r\n"
      "  memory = 4GB   \r\n"
      "; a comment in the Windows style\r\n"
      "\r\n"
      "[experimental]\r\n"
      "sparseVhd=true";
  IniDocument doc = IniDocument::parse(text, "/c/.wslconfig");
  CHECK(doc.str() == text);
  CHECK(doc.crlf());
  CHECK(doc.get("WSL2", "Memory") == "4GB");
  CHECK(doc.sections() == std::vector<std::string>{"wsl2", "experimental"});
}

TEST_CASE("ini: setting a present key replaces only its value and keeps CRLF, BOM, comments and spacing") {
  IniDocument doc = IniDocument::parse("\xEF\xBB\xBF[wsl2]\r\n# memory\r\nmemory = 4GB\r\nprocessors=2\r\n", "f");
  doc.set("wsl2", "memory", "16GB");
  CHECK(doc.str() == "\xEF\xBB\xBF[wsl2]\r\n# memory\r\nmemory = 16GB\r\nprocessors=2\r\n");
}

TEST_CASE("ini: a new key goes after the last non-blank line of its section, before the blank line") {
  IniDocument doc = IniDocument::parse("[wsl2]\nmemory=4GB\n\n[experimental]\nsparseVhd=true\n", "f");
  doc.set("wsl2", "swap", "0");
  CHECK(doc.str() == "[wsl2]\nmemory=4GB\nswap=0\n\n[experimental]\nsparseVhd=true\n");
}

TEST_CASE("ini: a missing section is appended after a blank line") {
  IniDocument doc = IniDocument::parse("[wsl2]\nmemory=4GB\n", "f");
  doc.set("experimental", "sparseVhd", "true");
  CHECK(doc.str() == "[wsl2]\nmemory=4GB\n\n[experimental]\nsparseVhd=true\n");
}

TEST_CASE("ini: an empty document gets the section and the key, with the line endings asked for") {
  IniDocument doc = IniDocument::parse("", "f");
  doc.use_crlf(true);
  doc.set("wsl2", "memory", "8GB");
  CHECK(doc.str() == "[wsl2]\r\nmemory=8GB\r\n");
}

TEST_CASE("ini: with a section written twice, a present key is set where it is and a new key goes to the last block") {
  const std::string text = "[wsl2]\nmemory=4GB\n[experimental]\nsparseVhd=true\n[wsl2]\nprocessors=2\n";
  IniDocument doc = IniDocument::parse(text, "f");
  CHECK(doc.section_lines("wsl2") == std::vector<std::uint32_t>{1, 5});
  doc.set("wsl2", "memory", "16GB");
  doc.set("wsl2", "swap", "0");
  CHECK(doc.str() == "[wsl2]\nmemory=16GB\n[experimental]\nsparseVhd=true\n[wsl2]\nprocessors=2\nswap=0\n");
}

TEST_CASE("ini: a key written twice is set on every line, so neither old value survives") {
  IniDocument doc = IniDocument::parse("[wsl2]\nmemory=4GB\nMEMORY = 2GB\n", "f");
  CHECK(doc.values("wsl2", "memory") == std::vector<std::string>{"4GB", "2GB"});
  CHECK(doc.line_of("wsl2", "memory") == 3);
  doc.set("wsl2", "memory", "16GB");
  CHECK(doc.str() == "[wsl2]\nmemory=16GB\nMEMORY = 16GB\n");
}

TEST_CASE("ini: a file without a final newline keeps it that way") {
  IniDocument doc = IniDocument::parse("[boot]\nsystemd=false", "f");
  doc.set("boot", "systemd", "true");
  CHECK(doc.str() == "[boot]\nsystemd=true");
}

TEST_CASE("ini: erase removes every line of the key") {
  IniDocument doc = IniDocument::parse("[wsl2]\nswap=0\nmemory=1GB\nswap=2GB\n", "f");
  CHECK(doc.erase("wsl2", "swap"));
  CHECK_FALSE(doc.erase("wsl2", "swap"));
  CHECK(doc.str() == "[wsl2]\nmemory=1GB\n");
}

TEST_CASE("ini: a key outside any section is an error naming the file and line") {
  CHECK_THROWS_WITH_AS(IniDocument::parse("# top\nmemory=8GB\n[wsl2]\n", "/mnt/c/Users/a/.wslconfig"),
                       "/mnt/c/Users/a/.wslconfig:2:1: key \"memory\" is outside any section; WSL ignores it: put it "
                       "under a [section] header",
                       InputError);
}

TEST_CASE("ini: a key on its section's line is an error naming the file, line and column") {
  CHECK_THROWS_WITH_AS(IniDocument::parse("[wsl2] memory=8GB processors=8\n", "f"),
                       "f:1:8: \"memory=8GB processors=8\" follows the section header on the same line; WSL ignores "
                       "it: put each key on its own line",
                       InputError);
}

TEST_CASE("ini: a comment after a section header is fine") {
  IniDocument doc = IniDocument::parse("[wsl2] # the VM\nmemory=8GB\n", "f");
  CHECK(doc.get("wsl2", "memory") == "8GB");
}

TEST_CASE("ini: a line that is not a comment, section or key is an error, and all errors are reported") {
  try {
    IniDocument::parse("[wsl2\nmemory 8GB\n", "f");
    FAIL("no error");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK(e.diagnostics()[0].str() == "f:1:1: section header \"[wsl2\" has no closing ]");
    CHECK(e.diagnostics()[1].str() == "f:2:1: \"memory 8GB\" is not a comment, a [section] or a key = value line");
  }
}

TEST_CASE("ini: UTF-16 text is refused by parse") {
  std::string utf16("\xFF\xFE[\0w\0", 6);
  CHECK(looks_like_utf16(utf16));
  CHECK_FALSE(looks_like_utf16("[wsl2]\n"));
  CHECK_THROWS_WITH_AS(IniDocument::parse(utf16, "f"),
                       "f:1:1: the file is saved as UTF-16, which WSL silently ignores; save it as UTF-8", InputError);
}

TEST_CASE("ini: UTF-16 little-endian with a BOM decodes to UTF-8, accents and surrogate pairs included") {
  // "[a]\r\nk=é😀"
  std::string le("\xFF\xFE[\0a\0]\0\r\0\n\0k\0=\0\xE9\0\x3D\xD8\x00\xDE", 22);
  CHECK(utf16_to_utf8(le) == std::string("[a]\r\nk=\xC3\xA9\xF0\x9F\x98\x80"));
}

TEST_CASE("ini: UTF-16 big-endian with a BOM, and little-endian without one, decode") {
  CHECK(utf16_to_utf8(std::string("\xFE\xFF\0[\0a\0]", 8)) == "[a]");
  CHECK(utf16_to_utf8(std::string("[\0a\0]\0", 6)) == "[a]");
}

TEST_CASE("ini: invalid UTF-16 is not decoded") {
  CHECK_FALSE(utf16_to_utf8(std::string("\xFF\xFE[\0a", 5)));         // odd length
  CHECK_FALSE(utf16_to_utf8(std::string("\xFF\xFE\x00\xDC[\0", 6)));  // lone low surrogate
  CHECK_FALSE(utf16_to_utf8(std::string("\xFF\xFE\x3D\xD8[\0", 6)));  // high surrogate without its pair
}

TEST_CASE("a switch is off for \"false\" in any case and for 0, as WSL reads it") {
  CHECK(wslgpu::ini_says_false("false"));
  CHECK(wslgpu::ini_says_false("False"));
  CHECK(wslgpu::ini_says_false("0"));
  CHECK_FALSE(wslgpu::ini_says_false("true"));
  CHECK_FALSE(wslgpu::ini_says_false("1"));
  CHECK_FALSE(wslgpu::ini_says_false(""));
}

// Found by tests/fuzz/fuzz_ini.cpp: every line took the first line's ending,
// so a CRLF .wslconfig with one line saved by a Unix editor (or the reverse)
// changed on lines the edit never touched.
TEST_CASE("ini: each line keeps its own line ending, also when mixed, and new lines take the first line's") {
  const std::string text = "[wsl2]\r\nmemory=4GB\nswap=0\r\n# note\n[experimental]\nsparseVhd=true\r";
  IniDocument doc = IniDocument::parse(text, "f");
  CHECK(doc.str() == text);
  doc.set("wsl2", "processors", "2");
  doc.set("wsl2", "memory", "8GB");
  CHECK(doc.str() == "[wsl2]\r\nmemory=8GB\nswap=0\r\n# note\nprocessors=2\r\n[experimental]\nsparseVhd=true\r");
  doc.set("boot", "systemd", "true");
  CHECK(doc.str() ==
        "[wsl2]\r\nmemory=8GB\nswap=0\r\n# note\nprocessors=2\r\n[experimental]\nsparseVhd=true\r\n\r\n"
        "[boot]\r\nsystemd=true\r\n");
}
