// dpkg's version order and the version a manifest asks for (a glob or a
// relation), with the cases dpkg's own documentation gives and the shapes
// of AMD's and NVIDIA's versions.
#include <doctest/doctest.h>

#include "installer/formats/deb_version.hpp"

using namespace wslgpu;

namespace {

VersionSpec spec(const std::string& text) {
  std::string error;
  auto s = VersionSpec::parse(text, error);
  REQUIRE_MESSAGE(s, error);
  return *s;
}

}  // namespace

TEST_CASE("compare_deb_versions orders as dpkg --compare-versions does") {
  CHECK(compare_deb_versions("1.0", "1.0") == 0);
  CHECK(compare_deb_versions("1.0-0", "1.0") == 0);   // an empty revision is 0
  CHECK(compare_deb_versions("1.0~rc1", "1.0") < 0);  // '~' sorts before the end
  CHECK(compare_deb_versions("1.0~~", "1.0~") < 0);
  CHECK(compare_deb_versions("1.0a", "1.0") > 0);     // letters after the end
  CHECK(compare_deb_versions("1.0+b1", "1.0a") > 0);  // non-letters after letters
  CHECK(compare_deb_versions("1:0.1", "2.0") > 0);    // the epoch first
  CHECK(compare_deb_versions("1.10", "1.9") > 0);     // numbers as numbers
  CHECK(compare_deb_versions("1.01", "1.1") == 0);
  CHECK(compare_deb_versions("12.6.3-1", "12.6.2-1") > 0);
  CHECK(compare_deb_versions("1.0-1", "1.0-2") < 0);
  CHECK(compare_deb_versions("7.2.1.70201-81~24.04", "6.4.2.60402-120~24.04") > 0);
  CHECK(compare_deb_versions("6.4.2.60402-120~22.04", "6.4.2.60402-120~24.04") < 0);
}

TEST_CASE("is_deb_version accepts what dpkg does") {
  CHECK(is_deb_version("7.2.1.70201-81~24.04"));
  CHECK(is_deb_version("1:6.12.12.60402-2164967.22.04"));
  CHECK_FALSE(is_deb_version(""));
  CHECK_FALSE(is_deb_version("a1.0"));
  CHECK_FALSE(is_deb_version("1.0-"));
  CHECK_FALSE(is_deb_version("x:1.0"));
  CHECK_FALSE(is_deb_version("1.0 beta"));
}

TEST_CASE("a version glob matches the version without its epoch unless it names one") {
  VersionSpec release = spec("7.2.1.*");
  CHECK(release.matches("7.2.1.70201-81~24.04"));
  CHECK(release.matches("1:7.2.1.70201-81~24.04"));
  CHECK_FALSE(release.matches("7.2.10.1-1"));
  CHECK_FALSE(release.matches("6.4.2.60402-120~24.04"));
  CHECK(spec("12.6.2-?").matches("12.6.2-1"));
  CHECK(spec("1:7.2*").matches("1:7.2.1"));
  CHECK_FALSE(spec("1:7.2*").matches("7.2.1"));
  CHECK(spec("12.6.3-1").matches("12.6.3-1"));  // no wildcard: exactly that version
  CHECK_FALSE(spec("12.6.3-1").matches("12.6.3-10"));
}

TEST_CASE("a version relation compares as Depends does") {
  CHECK(spec(">= 7.2.1~").matches("7.2.1.70201-81~24.04"));
  CHECK(spec(">= 7.2.1~").matches("7.2.1"));
  CHECK_FALSE(spec(">= 7.2.1~").matches("7.2.0.70200-1"));
  CHECK(spec("<< 7").matches("6.4.2.60402-120~24.04"));
  CHECK_FALSE(spec("<< 7").matches("7.0"));
  CHECK(spec("=12.6.3-1").matches("12.6.3-1"));
  CHECK(spec(">>12.6.2-1").matches("12.6.3-1"));
  CHECK(spec("<= 12.6.2-1").matches("12.6.2-1"));
  CHECK(spec(">= 7.2.1~").text() == ">= 7.2.1~");
}

TEST_CASE("a version spec that is neither a glob nor a relation is refused with the reason") {
  std::string error;
  CHECK_FALSE(VersionSpec::parse("", error));
  CHECK(error == "a version is empty");
  CHECK_FALSE(VersionSpec::parse(">=", error));
  CHECK(error == "\">=\" needs a version after it");
  CHECK_FALSE(VersionSpec::parse(">= latest", error));
  CHECK(error == "\"latest\" is not a Debian version");
  CHECK_FALSE(VersionSpec::parse("7.2 or 6.4", error));
  CHECK(error ==
        "\"7.2 or 6.4\" is neither a version pattern (letters, digits, . + ~ - : and the wildcards * ?) nor a "
        "relation such as \">= 7.2.1~\"");
}
