// `when` conditions: parsing, operators, precedence, version comparison and
// what happens with names that are not defined.
#include <doctest/doctest.h>

#include <map>

#include "installer/manifest/condition.hpp"
#include "installer/system/error.hpp"
#include "installer/host/host.hpp"

using namespace wslgpu;

namespace {

const std::map<std::string, std::string> kValues = {
    {"host.gpu_vendor", "amd"},
    {"host.wsl", "2"},
    {"host.kernel", "5.15.153.1-microsoft-standard-WSL2"},
    {"host.dxg", "true"},
    {"host.codename", "noble"},
    {"rocm_version", "7.1"},
    {"yes_flag", "yes"},
    {"one_flag", "1"},
    {"no_flag", "false"},
    {"empty", ""},
};

std::optional<std::string> lookup(const std::string& name) {
  auto it = kValues.find(name);
  if (it == kValues.end()) return std::nullopt;
  return it->second;
}

bool eval(const std::string& text) {
  std::string error;
  std::size_t column = 0;
  auto c = Condition::parse(text, error, column);
  REQUIRE_MESSAGE(c, "does not parse: ", text, ": ", error);
  return c->evaluate(lookup);
}

// "MESSAGE at COLUMN" for a condition that must not parse.
std::string parse_error(const std::string& text) {
  std::string error;
  std::size_t column = 0;
  auto c = Condition::parse(text, error, column);
  if (c) return "(parsed)";
  return error + " at " + std::to_string(column);
}

}  // namespace

TEST_CASE("== and != compare text") {
  CHECK(eval("host.gpu_vendor == 'amd'"));
  CHECK_FALSE(eval("host.gpu_vendor == 'nvidia'"));
  CHECK(eval("host.gpu_vendor != \"nvidia\""));
  CHECK_FALSE(eval("host.codename != 'noble'"));
  CHECK(eval("empty == ''"));
  // Text, not versions: "7.1" and "7.10" differ, and so do "7.1" and "7.1.0".
  CHECK_FALSE(eval("rocm_version == '7.1.0'"));
}

TEST_CASE("< <= > >= compare dotted versions by their numeric parts") {
  CHECK(eval("'7.1' >= '7.0.2'"));
  CHECK(eval("rocm_version >= '7.0.2'"));
  CHECK(eval("rocm_version > 7.0"));  // a bare number is a literal
  CHECK(eval("rocm_version <= 7.1"));
  CHECK(eval("rocm_version >= 7.1"));
  CHECK_FALSE(eval("rocm_version < 7.1"));
  CHECK(eval("'6.4.10' > '6.4.9'"));  // numerically, not as text
  CHECK(eval("'6.4.2' < '6.4.2.1'"));
  CHECK(eval("host.kernel >= '5.10.60.1'"));
  CHECK(eval("'5.15.153.1-microsoft-standard-WSL2' >= '5.10.60.1'"));
  CHECK_FALSE(eval("host.kernel < '5.10.60.1'"));
  CHECK_FALSE(eval("'5.4.72-microsoft-standard-WSL2' >= '5.10.60.1'"));
}

TEST_CASE("compare_versions ignores leading zeros and stops at a suffix") {
  CHECK(compare_versions("7.1", "7.0.2") > 0);
  CHECK(compare_versions("5.15.153.1-microsoft-standard-WSL2", "5.10.60.1") > 0);
  CHECK(compare_versions("5.10.60.1", "5.15.153.1-microsoft-standard-WSL2") < 0);
  CHECK(compare_versions("5.10.016.3", "5.10.16.3") == 0);
  CHECK(compare_versions("5.15.153.1-microsoft-standard-WSL2", "5.15.153.1") == 0);
  CHECK(compare_versions("6.4.2", "6.4.2.1") < 0);
  CHECK(compare_versions("10.0", "9.9") > 0);
}

TEST_CASE("&& binds tighter than ||, ! tighter than both, and parentheses group") {
  // true || (false && false) is true; (true || false) && false would be false.
  CHECK(eval("host.wsl == '2' || host.wsl == '1' && host.dxg == 'false'"));
  CHECK_FALSE(eval("(host.wsl == '2' || host.wsl == '1') && host.dxg == 'false'"));
  // (!false) && true
  CHECK(eval("!no_flag && host.dxg"));
  // !(true && false)
  CHECK(eval("!(host.dxg && no_flag)"));
  CHECK_FALSE(eval("!host.dxg && no_flag"));
  CHECK(eval("!!host.dxg"));
  CHECK(eval("host.gpu_vendor == 'amd' && rocm_version >= '7.1'"));
}

TEST_CASE("a lone operand is true when it is true, yes or 1") {
  CHECK(eval("host.dxg"));
  CHECK(eval("yes_flag"));
  CHECK(eval("one_flag"));
  CHECK_FALSE(eval("no_flag"));
  CHECK_FALSE(eval("empty"));
  CHECK_FALSE(eval("host.codename"));
}

TEST_CASE("evaluating a name that is not defined is an input error naming it") {
  std::string error;
  std::size_t column = 0;
  auto c = Condition::parse("host.wsl == '2' && rocm_verison >= '7.1'", error, column);
  REQUIRE(c);
  try {
    c->evaluate(lookup);
    FAIL("evaluated with an undefined name");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::bad_input);
    CHECK(std::string(e.what()) == "condition refers to \"rocm_verison\", which is not defined");
  }
}

TEST_CASE("&& and || do not evaluate their right side when the left decides") {
  // An undefined name on the right is never looked up.
  CHECK_FALSE(eval("no_flag && undefined_name == 'x'"));
  CHECK(eval("host.dxg || undefined_name == 'x'"));
}

TEST_CASE("names() lists every name, so the loader can check them") {
  std::string error;
  std::size_t column = 0;
  auto c = Condition::parse("!(a == 'x' || host.wsl >= 2) && b", error, column);
  REQUIRE(c);
  std::set<std::string> names;
  c->names(names);
  CHECK(names == std::set<std::string>{"a", "b", "host.wsl"});
  CHECK(c->text() == "!(a == 'x' || host.wsl >= 2) && b");
}

TEST_CASE("syntax errors say what is wrong and at which offset") {
  CHECK(parse_error("") == "the condition is empty at 0");
  CHECK(parse_error("host.wsl == '2' &&") ==
        "the condition ends too early: expected a name, a quoted string or a number after \"&&\" at 18");
  CHECK(parse_error("host.wsl = '2'") == "unexpected \"=\" (compare with \"==\") at 9");
  CHECK(parse_error("a & b") == "unexpected \"&\" (write \"&&\") at 2");
  CHECK(parse_error("a and b") == "unexpected \"and\" (write && || and ! to combine conditions) at 2");
  CHECK(parse_error("a == 'x' b") == "unexpected \"b\" (an operator such as == or && is missing before it) at 9");
  CHECK(parse_error("(a || b") == "this \"(\" is never closed at 0");
  CHECK(parse_error("a == 'x") == "unterminated string at 5");
  CHECK(parse_error("a == )") == "expected a name, a quoted string or a number after \"==\", not \")\" at 5");
  CHECK(parse_error("a == b == c") == "unexpected \"==\" at 7");
  CHECK(parse_error("a # b") == "unexpected character '#' at 2");
}
