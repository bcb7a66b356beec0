// Values of .wslconfig read as WSL reads them (steps/wsl_values.hpp): the
// comment and quoting rules of its parser, and its sizes and counts.
#include <doctest/doctest.h>

#include "steps/windows/wsl_values.hpp"

using namespace wslgpu;

TEST_CASE("a # outside double quotes starts a comment; inside them it is part of the value") {
  CHECK(without_trailing_comment("32GB     # Customize WSL memory size") == "32GB");
  CHECK(without_trailing_comment("\"a # b\"  # note") == "\"a # b\"");
  CHECK(without_trailing_comment("x\\#y # z") == "x\\#y");
  CHECK(without_trailing_comment("  8  ") == "8");
}

TEST_CASE("wsl_value removes quotes and replaces escapes, and refuses what WSL skips") {
  CHECK(wsl_value("\"16GB\"") == std::optional<std::string>("16GB"));
  CHECK(wsl_value("sysctl.net.ipv4.ping_group_range=\\\"0 2147483647\\\"") ==
        std::optional<std::string>("sysctl.net.ipv4.ping_group_range=\"0 2147483647\""));
  CHECK(wsl_value("C:\\\\temp\\\\swap.vhdx") == std::optional<std::string>("C:\\temp\\swap.vhdx"));
  CHECK(wsl_value("\"open") == std::nullopt);
  CHECK(wsl_value("C:\\temp") == std::optional<std::string>("C:\temp"));  // \t is a tab to WSL
  CHECK(wsl_value("C:\\Users") == std::nullopt);                          // \U is no escape: WSL skips the line
}

TEST_CASE("sizes are bytes with binary units, one or two letters, in any case") {
  CHECK(wsl_size_bytes("16GB") == std::optional<std::uint64_t>(16ull << 30));
  CHECK(wsl_size_bytes("16gb") == std::optional<std::uint64_t>(16ull << 30));
  CHECK(wsl_size_bytes("64G") == std::optional<std::uint64_t>(64ull << 30));
  CHECK(wsl_size_bytes("5700MB") == std::optional<std::uint64_t>(5700ull << 20));
  CHECK(wsl_size_bytes("512k") == std::optional<std::uint64_t>(512ull << 10));
  CHECK(wsl_size_bytes("1TB") == std::optional<std::uint64_t>(1ull << 40));
  CHECK(wsl_size_bytes("17825792000") == std::optional<std::uint64_t>(17825792000ull));
  CHECK(wsl_size_bytes("100B") == std::optional<std::uint64_t>(100ull));
  CHECK(wsl_size_bytes("0") == std::optional<std::uint64_t>(0ull));
}

TEST_CASE("what WSL does not take as a size is no size here either") {
  for (const char* bad :
       {"", "16 GB", "GB", "1.5GB", "16GiB", "16GBB", "0GB", "00", "99999999999999999999", "16777216TB"}) {
    CAPTURE(bad);
    CHECK(wsl_size_bytes(bad) == std::nullopt);
  }
}

TEST_CASE("counts read as WSL reads integers: decimal, 0x hexadecimal, leading-zero octal") {
  CHECK(wsl_count("8") == std::optional<std::uint64_t>(8));
  CHECK(wsl_count("0x10") == std::optional<std::uint64_t>(16));
  CHECK(wsl_count("010") == std::optional<std::uint64_t>(8));
  CHECK(wsl_count("0") == std::optional<std::uint64_t>(0));
  for (const char* bad : {"", "eight", "8 cores", "-1", "4294967296"}) {
    CAPTURE(bad);
    CHECK(wsl_count(bad) == std::nullopt);
  }
}
