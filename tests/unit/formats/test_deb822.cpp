#include <doctest/doctest.h>

#include "installer/formats/deb822.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

TEST_CASE("deb822 parses stanzas separated by blank lines, with comments skipped") {
  auto stanzas = parse_deb822(
      "# ROCm\n"
      "Types: deb\n"
      "URIs: https://repo.radeon.com/rocm/apt/6.4.2\n"
      "Suites: noble\n"
      "Components: main\n"
      "\n\n"
      "Types: deb\r\n"
      "URIs: https://repo.radeon.com/amdgpu/6.4.2/ubuntu\r\n",
      "rocm.sources");
  REQUIRE(stanzas.size() == 2);
  CHECK(stanzas[0].get("URIs") == "https://repo.radeon.com/rocm/apt/6.4.2");
  CHECK(stanzas[0].line == 2);
  CHECK(stanzas[1].get("uris") == "https://repo.radeon.com/amdgpu/6.4.2/ubuntu");  // names compare case-insensitively
  CHECK(stanzas[1].line == 8);
  CHECK_FALSE(stanzas[1].get("Suites"));
}

TEST_CASE("deb822 keeps continuation lines, including the dot lines of an inline key") {
  std::string text =
      "Types: deb\n"
      "Signed-By:\n"
      " -----BEGIN PGP PUBLIC KEY BLOCK-----\n"
      " .\n"
      " mQINBF\n"
      " -----END PGP PUBLIC KEY BLOCK-----\n";
  auto stanzas = parse_deb822(text, "x.sources");
  REQUIRE(stanzas.size() == 1);
  CHECK(stanzas[0].get("Signed-By") ==
        "\n-----BEGIN PGP PUBLIC KEY BLOCK-----\n.\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----");
  CHECK(format_deb822(stanzas) == text);
}

TEST_CASE("deb822 writes fields in order, one blank line between stanzas") {
  Deb822Stanza a;
  a.set("Types", "deb");
  a.set("URIs", "https://example.org/debian");
  a.set("Suites", "bookworm");
  a.set("Types", "deb deb-src");  // replaced in place
  Deb822Stanza b;
  b.set("Package", "*");
  b.set("Pin-Priority", "600");
  CHECK(format_deb822({a, b}) ==
        "Types: deb deb-src\nURIs: https://example.org/debian\nSuites: bookworm\n\nPackage: *\nPin-Priority: 600\n");
  CHECK(a.erase("suites"));
  CHECK_FALSE(a.erase("Suites"));
  CHECK(format_deb822({a}) == "Types: deb deb-src\nURIs: https://example.org/debian\n");
}

TEST_CASE("deb822 reports a line that is not a field with its file and line") {
  CHECK_THROWS_WITH_AS(parse_deb822("Types: deb\nthis is not a field\n", "/etc/apt/sources.list.d/x.sources"),
                       "/etc/apt/sources.list.d/x.sources:2:1: \"this is not a field\" is not a \"Field: value\" line",
                       InputError);
  CHECK_THROWS_WITH_AS(parse_deb822(" leading continuation\n", "f"),
                       "f:1:1: a continuation line (starting with a space) comes before any field", InputError);
}

// Found by tests/fuzz/fuzz_deb822.cpp: a continuation line ending in "\r\r\n"
// kept one '\r' in the value, which format_deb822() then wrote as a CRLF line
// end, so the text no longer parsed back to the same value.
TEST_CASE("deb822 drops trailing carriage returns of continuation lines, as of first lines") {
  auto stanzas = parse_deb822("Description: first\r\r\n second\r\r\n third \r\n", "f");
  REQUIRE(stanzas.size() == 1);
  CHECK(stanzas[0].get("Description") == "first\nsecond\nthird");
  auto again = parse_deb822(format_deb822(stanzas), "f");
  REQUIRE(again.size() == 1);
  CHECK(again[0].get("Description") == stanzas[0].get("Description"));
}

TEST_CASE("split_words splits on any whitespace") {
  CHECK(split_words("  amd64\tarm64\n i386 ") == std::vector<std::string>{"amd64", "arm64", "i386"});
  CHECK(split_words("").empty());
}
