// PEP 440 versions and specifiers, PEP 508 requirements and markers
// (installer/formats/python_requirement.hpp), with the cases the specs
// themselves give and the ones PyTorch's wheels bring (local labels such as
// +cu130 and +rocm7.2.2.lw.git127a149a).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "installer/formats/python_requirement.hpp"

using namespace wslgpu;

namespace {

PythonVersion pep440(const std::string& text) {
  auto v = parse_python_version(text);
  INFO(text);
  REQUIRE(v.has_value());
  return *v;
}

VersionSpecifier specifier_of(const std::string& text) {
  std::string error;
  auto s = parse_version_specifier(text, error);
  INFO(text << ": " << error);
  REQUIRE(s.has_value());
  return *s;
}

std::string specifier_error(const std::string& text) {
  std::string error;
  CHECK_FALSE(parse_version_specifier(text, error).has_value());
  return error;
}

bool version_meets(const std::string& v, const std::string& spec, PreReleases pre = PreReleases::when_named) {
  return version_satisfies(pep440(v), specifier_of(spec), pre);
}

MarkerEnvironment cpython_env(int minor, const std::string& full = "") {
  PythonTarget t;
  t.minor = minor;
  return marker_environment(t, full);
}

bool marker_true(const std::string& marker, const std::vector<std::string>& extras = {},
           const MarkerEnvironment& env = cpython_env(12, "3.12.3")) {
  std::string error;
  auto m = parse_marker(marker, error);
  INFO(marker << ": " << error);
  REQUIRE(m.has_value());
  return marker_holds(*m, env, extras);
}

std::string marker_error(const std::string& marker) {
  std::string error;
  CHECK_FALSE(parse_marker(marker, error).has_value());
  return error;
}

PythonRequirement requirement_of(const std::string& line) {
  std::string error;
  auto r = parse_python_requirement(line, error);
  INFO(line << ": " << error);
  REQUIRE(r.has_value());
  return *r;
}

std::string requirement_error(const std::string& line) {
  std::string error;
  CHECK_FALSE(parse_python_requirement(line, error).has_value());
  return error;
}

}  // namespace

TEST_CASE("a name or a pip version that could be read as an option or a shell word is refused") {
  for (const char* ok : {"torch", "a", "pytorch_triton-rocm.x", "Torch2"}) CHECK_MESSAGE(valid_pep508_name(ok), ok);
  for (const char* bad : {"", "-x", "x-", "--index-url", "a b", "torch;rm", ".x"})
    CHECK_MESSAGE(!valid_pep508_name(bad), bad);
  for (const char* ok : {"2.14.1+cu130", "2.*", "1!2.0", "1.0rc1", "v1"}) CHECK_MESSAGE(valid_pip_version(ok), ok);
  for (const char* bad : {"", ".1", "-1", "1 2", "1;rm", ">=1", "+cu130"}) CHECK_MESSAGE(!valid_pip_version(bad), bad);
}

TEST_CASE("versions are read the permissive way PEP 440 allows and written normalized") {
  CHECK(pep440("1.0.0RC1").str() == "1.0.0rc1");
  CHECK(pep440(" v1.0 ").str() == "1.0");
  CHECK(pep440("1.0-1").str() == "1.0.post1");
  CHECK(pep440("1.0.alpha").str() == "1.0a0");
  CHECK(pep440("1.0-preview_2").str() == "1.0rc2");
  CHECK(pep440("1.0c3").str() == "1.0rc3");
  CHECK(pep440("1.0.r4").str() == "1.0.post4");
  CHECK(pep440("1.0-rev").str() == "1.0.post0");
  CHECK(pep440("1.0_DEV").str() == "1.0.dev0");
  CHECK(pep440("1!2.0b2.post3.dev4").str() == "1!2.0b2.post3.dev4");
  auto rocm = pep440("2.9.1+rocm7.2.2.lw.git127a149a");
  CHECK(rocm.release == std::vector<std::uint64_t>{2, 9, 1});
  CHECK(rocm.local == std::vector<std::string>{"rocm7", "2", "2", "lw", "git127a149a"});
  CHECK(rocm.text == "2.9.1+rocm7.2.2.lw.git127a149a");
  CHECK(pep440("1.0+Ubuntu-1_2").str() == "1.0+ubuntu.1.2");
  CHECK_FALSE(pep440("1.0").is_prerelease());
  CHECK(pep440("1.0.dev1").is_prerelease());
  CHECK(pep440("1.0b1").is_prerelease());
  for (const char* bad : {"", "not a version", "1.0+", "1..0", "1.0-", "1.0 1", "+cu130", "1.0++a", "-1",
                          "99999999999999999999.0"})
    CHECK_MESSAGE(!parse_python_version(bad).has_value(), bad);
}

TEST_CASE("versions are ordered as PEP 440 orders them, local labels last and numbers above words") {
  const std::vector<std::string> ascending = {
      "1.0.dev1", "1.0a1.dev1", "1.0a1",    "1.0a2",       "1.0b2",   "1.0rc1",       "1.0",      "1.0+abc",
      "1.0+abc.1", "1.0+2",     "1.0+10",   "1.0.post1.dev1", "1.0.post1", "1.1.dev1", "1.1",      "1.10",
      "2.14.1",   "2.14.1+cu126", "2.14.1+cu130", "1!0.1"};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    INFO(ascending[i] << " < " << ascending[i + 1]);
    CHECK(compare_python_versions(pep440(ascending[i]), pep440(ascending[i + 1])) < 0);
    CHECK(compare_python_versions(pep440(ascending[i + 1]), pep440(ascending[i])) > 0);
  }
  CHECK(compare_python_versions(pep440("1.0"), pep440("1.0.0")) == 0);
  CHECK(compare_python_versions(pep440("1.0+abc"), pep440("1.0+ABC")) == 0);
}

TEST_CASE("== ignores the local label unless it names one, so ==2.14.1 is met by a cu130 build") {
  CHECK(version_meets("2.14.1+cu130", "==2.14.1"));
  CHECK(version_meets("2.14.1", "==2.14.1.0"));
  CHECK(version_meets("2.14.1+cu130", "==2.14.1+cu130"));
  CHECK_FALSE(version_meets("2.14.1+cu130", "==2.14.1+cu126"));
  CHECK_FALSE(version_meets("2.14.1", "==2.14.1+cu126"));
  CHECK_FALSE(version_meets("2.14.1+cu130", "!=2.14.1"));
  CHECK(version_meets("2.14.1+cu130", "!=2.14.1+cu126"));
  CHECK(version_meets("2.14.3", "==2.14.*"));
  CHECK(version_meets("2.14", "==2.14.*"));
  CHECK(version_meets("2.14.0+cu130", "==2.14.*"));
  CHECK_FALSE(version_meets("2.15.0", "==2.14.*"));
  CHECK_FALSE(version_meets("2.1", "==2.14.*"));
  CHECK(version_meets("2.15.0", "!=2.14.*"));
  CHECK(version_meets("1.0rc1.post2", "==1.0rc1.*", PreReleases::allowed));
  CHECK(version_meets("1.0", "===1.0"));
  CHECK(version_meets("1.0", "===1.0 "));
  CHECK_FALSE(version_meets("1.0.0", "===1.0"));
}

TEST_CASE("~=, the ordered comparisons and their exceptions for pre-, post- and local releases") {
  CHECK(version_meets("2.3", "~=2.2"));
  CHECK_FALSE(version_meets("3.0", "~=2.2"));
  CHECK_FALSE(version_meets("2.1", "~=2.2"));
  CHECK(version_meets("1.4.9", "~=1.4.5"));
  CHECK_FALSE(version_meets("1.5.0", "~=1.4.5"));
  CHECK(version_meets("2.2.post4", "~=2.2.post3"));
  CHECK(version_meets("1.5", ">=1.0, <2"));
  CHECK_FALSE(version_meets("2.0", ">=1.0,<2"));
  CHECK(version_meets("1.0+local", "<=1.0"));
  CHECK(version_meets("1.0+local", ">=1.0"));
  CHECK_FALSE(version_meets("2.0rc1", "<2.0", PreReleases::allowed));  // <2.0 is not met by 2.0's own pre-release
  CHECK(version_meets("1.9rc1", "<2.0", PreReleases::allowed));
  CHECK(version_meets("2.0rc1", "<2.0rc2"));
  CHECK_FALSE(version_meets("1.0.post1", ">1.0"));  // >1.0 is not met by 1.0's post-release
  CHECK_FALSE(version_meets("1.0+local", ">1.0"));
  CHECK(version_meets("1.0.post2", ">1.0.post1"));
  CHECK(version_meets("1.1", ">1.0"));
}

TEST_CASE("pre-releases satisfy a specifier only when it names one, or when the caller allows them") {
  CHECK_FALSE(version_meets("2.0rc1", ">=1.0"));
  CHECK(version_meets("2.0rc1", ">=1.0", PreReleases::allowed));
  CHECK(version_meets("2.0rc2", ">=2.0rc1"));
  CHECK(version_meets("2.0rc1", "==2.0rc1"));
  CHECK_FALSE(version_meets("2.1.dev3", ""));
  CHECK(version_meets("2.1.dev3", "", PreReleases::allowed));
  CHECK(specifier_of(">=2.0rc1").names_prerelease());
  CHECK_FALSE(specifier_of(">=2.0, !=2.1rc1").names_prerelease());
}

TEST_CASE("a malformed version specifier says which clause is wrong and why") {
  CHECK(specifier_of(" >= 1.0 , < 2 ").str() == ">=1.0, <2");
  CHECK(specifier_of("").clauses.empty());
  CHECK(specifier_error("~=1") == "\"~=1\": ~= needs a version of two or more numbers, such as ~=1.0");
  CHECK(specifier_error(">=1.0, >=") == "\">=\": no version after >=");
  CHECK(specifier_error("=>1.0") ==
        "\"=>1.0\": a version specifier starts with ==, !=, >=, <=, >, <, ~= or ===");
  CHECK(specifier_error("1.0") == "\"1.0\": a version specifier starts with ==, !=, >=, <=, >, <, ~= or ===");
  CHECK(specifier_error("<1.0+cu130") == "\"<1.0+cu130\": a local label (+cu130...) goes with == and != only");
  CHECK(specifier_error(">=1.0.*") == "\">=1.0.*\": .* goes with == and != only");
  CHECK(specifier_error("==one") == "\"==one\": \"one\" is not a PEP 440 version");
  CHECK(specifier_error(">=1.0,,<2") == "\">=1.0,,<2\": an empty clause between commas");
}

TEST_CASE("markers compare versions as versions, other values as text, for CPython on x86_64 Linux") {
  CHECK(marker_true("python_version >= \"3.9\""));  // as text, "3.12" < "3.9"
  CHECK_FALSE(marker_true("python_version < '3.10'"));
  CHECK_FALSE(marker_true("sys_platform == \"win32\""));
  CHECK(marker_true("platform_system == \"Windows\" or platform_machine == \"x86_64\""));
  CHECK(marker_true("(os_name == \"nt\" or sys_platform == \"linux\") and python_full_version < \"3.13\""));
  CHECK_FALSE(marker_true("os_name == \"nt\" or sys_platform == \"linux\" and python_full_version >= \"3.13\""));
  CHECK(marker_true("\"linux\" in sys_platform"));
  CHECK(marker_true("platform_machine not in \"arm64 aarch64\""));
  CHECK(marker_true("implementation_name == \"cpython\" and platform_python_implementation == 'CPython'"));
  CHECK(marker_true("sys.platform == 'linux'"));  // the older dotted spelling
  CHECK(marker_true("python_full_version >= \"3.12.1\""));
  // Without the venv's full version, "3.12" stands for 3.12.0.
  CHECK_FALSE(marker_true("python_full_version >= \"3.12.1\"", {}, cpython_env(12)));
  CHECK(marker_true("python_full_version == \"3.12.0\"", {}, cpython_env(12)));
  CHECK(marker_true("platform_release == ''"));  // unknown from a venv's files
}

TEST_CASE("extra markers hold only for a requested extra, its name compared normalized") {
  CHECK_FALSE(marker_true("extra == \"test\""));
  CHECK(marker_true("extra == \"test\"", {"test"}));
  CHECK(marker_true("extra == \"Dev_Tools\"", {"docs", "dev-tools"}));
  CHECK(marker_true("extra != \"test\""));
  CHECK_FALSE(marker_true("sys_platform == 'linux' and extra == 'test'", {"docs"}));
}

TEST_CASE("a malformed marker names the column and what was expected there") {
  CHECK(marker_error("python_version >= ") ==
        "column 19 of the marker \"python_version >= \": expected a marker variable (python_version, sys_platform, "
        "...) or a quoted string");
  CHECK(marker_error("pyton_version == '3'") ==
        "column 1 of the marker \"pyton_version == '3'\": \"pyton_version\" is not a marker variable (python_version, "
        "sys_platform, platform_machine, extra, ...)");
  CHECK(marker_error("os_name = 'posix'") ==
        "column 9 of the marker \"os_name = 'posix'\": expected a comparison (==, !=, <, <=, >, >=, ~=, ===, in, not "
        "in)");
  CHECK(marker_error("os_name == 'posix") ==
        "column 12 of the marker \"os_name == 'posix\": the string has no closing '");
  CHECK(marker_error("(os_name == 'posix'") ==
        "column 20 of the marker \"(os_name == 'posix'\": expected \")\"");
  CHECK(marker_error("os_name == 'posix' xor 1") ==
        "column 20 of the marker \"os_name == 'posix' xor 1\": expected \"and\", \"or\" or the end of the marker");
  std::string deep = std::string(40, '(') + "os_name == 'posix'" + std::string(40, ')');
  CHECK(marker_error(deep) == "column 33 of the marker \"" + deep + "\": parentheses nest more than 32 deep");
}

TEST_CASE("a requirement is read with its extras, its specifier in either spelling, its URL and its marker") {
  auto r = requirement_of("requests [security,tests] >= 2.8.1, == 2.8.* ; python_version < \"2.7\"");
  CHECK(r.name == "requests");
  CHECK(r.extras == std::vector<std::string>{"security", "tests"});
  CHECK(r.specifier.str() == ">=2.8.1, ==2.8.*");
  CHECK(r.url.empty());
  REQUIRE(r.marker.has_value());
  CHECK_FALSE(requirement_applies(r, cpython_env(12)));

  auto old = requirement_of("numpy (>=1.22,<3)");
  CHECK(old.name == "numpy");
  CHECK(old.specifier.str() == ">=1.22, <3");
  CHECK_FALSE(old.marker.has_value());
  CHECK(requirement_applies(old, cpython_env(12)));

  auto bare = requirement_of("filelock");
  CHECK(bare.specifier.clauses.empty());

  auto url = requirement_of("pip @ https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee ; os_name == 'posix'");
  CHECK(url.url == "https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee");
  CHECK(requirement_applies(url, cpython_env(12)));

  // A dependency only for Windows does not apply here.
  auto windows = requirement_of("pywin32>=300; sys_platform == \"win32\"");
  CHECK(windows.name == "pywin32");
  CHECK_FALSE(requirement_applies(windows, cpython_env(12)));
  // One for an extra applies when the extra is asked for.
  auto extra = requirement_of("pytest; extra == 'test'");
  CHECK_FALSE(requirement_applies(extra, cpython_env(12)));
  CHECK(requirement_applies(extra, cpython_env(12), {"test"}));
}

TEST_CASE("a malformed requirement says what is wrong at which column") {
  CHECK(requirement_error("-bad") ==
        "column 1 of the requirement \"-bad\": expected a distribution name (letters, digits, '.', '_' and '-', "
        "starting and ending with a letter or digit)");
  CHECK(requirement_error("name [a") == "column 8 of the requirement \"name [a\": expected \",\" or \"]\" in the extras");
  CHECK(requirement_error("name >=1.0 junk") ==
        "column 6 of the requirement \"name >=1.0 junk\": \">=1.0 junk\": \"1.0 junk\" is not a PEP 440 version");
  CHECK(requirement_error("name @ https://x/y.whl junk") ==
        "column 24 of the requirement \"name @ https://x/y.whl junk\": expected \";\" and a marker after the URL");
  CHECK(requirement_error("name (>=1.0") ==
        "column 6 of the requirement \"name (>=1.0\": the version specifier has no closing \")\"");
  CHECK(requirement_error("name; os_name ==") ==
        "column 7 of the requirement \"name; os_name ==\": column 11 of the marker \"os_name ==\": expected a marker "
        "variable (python_version, sys_platform, ...) or a quoted string");
}
