// wslconfig's minimums (at_least), through the bundled wslconfig profile:
// values raised to them, larger ones kept, processors bounded by the CPUs
// Windows reports; and the profile on real .wslconfig files.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "installer/system/text.hpp"
#include "support/corpus.hpp"
#include "unit/steps/system_step_testing.hpp"
#include "unit/steps/windows/wslconfig_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

// The bundled wslconfig profile, loaded as `install wslconfig --set ...`
// would load it, and its one step planned on M.
StepPlan plan_profile(WslconfigMachine& m, const Variables& sets = {}) {
  Manifest manifest = load_manifest(find_manifest("wslconfig"), sets, m.host);
  REQUIRE(manifest.steps.size() == 1);
  return m.plan(*manifest.steps[0].step);
}

// Interop answers %NUMBER_OF_PROCESSORS% with COUNT.
void windows_has_cpus(WslconfigMachine& m, const std::string& count) {
  ProcessResult r;
  r.exit_code = 0;
  r.out = count + "\r\n";
  m.runner.on({"cmd.exe", "/c", "echo", "%NUMBER_OF_PROCESSORS%"}, r);
}

// A /proc/cpuinfo listing COUNT logical CPUs, as an x86 WSL VM shows it.
std::string cpuinfo(int count) {
  std::string out;
  for (int i = 0; i < count; ++i)
    out += "processor\t: " + std::to_string(i) + "\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen\n\n";
  return out;
}

const std::string kIssueFile = "[wsl2]\r\nmemory=48GB\r\nprocessors=16\r\nswap=0\r\n";

}  // namespace

TEST_CASE("wslconfig profile: --set memory=16GB on memory=48GB writes 16GB as asked, keeps processors 16 and swap 0") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, kIssueFile, 0644, 1000, 1000);
  auto plan = plan_profile(m, {{"memory", "16GB"}});
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == kWslconfigPath + "  [wsl2] memory 48GB -> 16GB");
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\nprocessors=16\r\nswap=0\r\n");
  CHECK(plan.details == std::vector<std::string>{"kept: processors 16 (above 8)", "--- " + kWslconfigPath,
                                                 "+++ " + kWslconfigPath, "@@ -1,4 +1,4 @@", " [wsl2]\r",
                                                 "-memory=48GB\r", "+memory=16GB\r", " processors=16\r", " swap=0\r"});
  CHECK(m.runner.calls.empty());  // nothing to raise: interop is not asked
}

TEST_CASE("wslconfig profile: without --set, larger memory and processors are kept, swap is left alone") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, kIssueFile, 0644, 1000, 1000);
  auto plan = plan_profile(m);
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.summary == kWslconfigPath + " already has 2 settings as wanted");
  CHECK(plan.details == std::vector<std::string>{"kept: memory 48GB (above 16GB)", "kept: processors 16 (above 8)"});
  CHECK(plan.writes.empty());
  CHECK(m.runner.calls.empty());
}

TEST_CASE("wslconfig profile: smaller values are raised to the minimums, within the logical CPUs interop reports") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, "[wsl2]\r\nmemory=4GB\r\nprocessors=2\r\nswap=0\r\n", 0644, 1000, 1000);
  windows_has_cpus(m, "16");
  auto plan = plan_profile(m);
  CHECK(plan.summary == kWslconfigPath + "  [wsl2] memory 4GB -> 16GB, [wsl2] processors 2 -> 8");
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\nprocessors=8\r\nswap=0\r\n");
  REQUIRE(!plan.details.empty());
  CHECK(plan.details[0] ==
        "processors: 8 fits: Windows has 16 logical CPUs, by %NUMBER_OF_PROCESSORS% through interop");
  REQUIRE(m.runner.calls.size() == 1);
  CHECK(m.runner.calls[0].argv == std::vector<std::string>{"cmd.exe", "/c", "echo", "%NUMBER_OF_PROCESSORS%"});
  CHECK(m.runner.calls[0].timeout == std::chrono::seconds(5));
}

TEST_CASE("wslconfig profile: processors are raised at most to the logical CPUs Windows has") {
  {
    WslconfigMachine m;
    m.fs.add_file(kWslconfigPath, "[wsl2]\r\nprocessors=2\r\n");
    windows_has_cpus(m, "4");
    auto plan = plan_profile(m);
    CHECK(plan.summary == kWslconfigPath + "  [wsl2] memory (unset) -> 16GB, [wsl2] processors 2 -> 4");
    CHECK(*plan.writes[0].content == "[wsl2]\r\nprocessors=4\r\nmemory=16GB\r\n");
    CHECK(plan.details[0] ==
          "processors: 4, not 8: Windows has 4 logical CPUs, by %NUMBER_OF_PROCESSORS% through interop");
  }
  {
    WslconfigMachine m;  // already all there is
    m.fs.add_file(kWslconfigPath, "[wsl2]\r\nmemory=16GB\r\nprocessors=4\r\n");
    windows_has_cpus(m, "4");
    auto plan = plan_profile(m);
    CHECK(plan.verdict == Verdict::noop);
    CHECK(plan.details ==
          std::vector<std::string>{"kept: processors 4 (not raised to 8: Windows has 4 logical CPUs, by "
                                   "%NUMBER_OF_PROCESSORS% through interop)"});
  }
}

TEST_CASE("wslconfig profile: without interop, the CPUs in /proc/cpuinfo bound processors, and the plan says so") {
  WslconfigMachine m;  // interop is off: cmd.exe is not found
  m.fs.add_file(kWslconfigPath, "[wsl2]\r\nmemory=16GB\r\nprocessors=2\r\n");
  m.fs.add_file("/proc/cpuinfo", cpuinfo(6));
  auto plan = plan_profile(m);
  CHECK(plan.summary == kWslconfigPath + "  [wsl2] processors 2 -> 6");
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\nprocessors=6\r\n");
  CHECK(plan.details[0] ==
        "processors: 6, not 8: the WSL VM has 6 logical CPUs, by /proc/cpuinfo; Windows may have more, but "
        "`cmd.exe /c echo %NUMBER_OF_PROCESSORS%` was not found (is interop off?)");

  WslconfigMachine none;  // neither: the minimum is written, and the plan says it is unchecked
  none.fs.add_file(kWslconfigPath, "[wsl2]\r\nprocessors=2\r\n");
  auto unchecked = plan_profile(none);
  CHECK(*unchecked.writes[0].content == "[wsl2]\r\nprocessors=8\r\nmemory=16GB\r\n");
  CHECK(unchecked.details[0] ==
        "processors: 8 is written unchecked, as the logical CPUs could not be counted: `cmd.exe /c echo "
        "%NUMBER_OF_PROCESSORS%` was not found (is interop off?), and /proc/cpuinfo lists no processor");
}

TEST_CASE("wslconfig profile: a value WSL cannot read is kept as written, and the plan says why") {
  WslconfigMachine m;
  const std::string before = "[wsl2]\nmemory=16 GB\nprocessors=eight\n";
  m.fs.add_file(kWslconfigPath, before);
  auto plan = plan_profile(m);
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.details == std::vector<std::string>{
                            "kept: memory 16 GB (WSL cannot read it as a size such as 16GB, so it is left for you to "
                            "correct)",
                            "kept: processors eight (WSL cannot read it as a whole number such as 8, so it is left for "
                            "you to correct)"});
  CHECK(m.fs.read(kWslconfigPath) == before);
  CHECK(m.runner.calls.empty());
}

TEST_CASE("wslconfig profile: a --set value lower than the file's is written as given, with no kept line") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, kIssueFile);
  // The unit is written in capitals, as every size this step writes.
  auto plan = plan_profile(m, {{"memory", "8gb"}, {"processors", "4"}, {"swap", "8GB"}});
  CHECK(plan.summary ==
        kWslconfigPath + "  [wsl2] memory 48GB -> 8GB, [wsl2] processors 16 -> 4, [wsl2] swap 0 -> 8GB");
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=8GB\r\nprocessors=4\r\nswap=8GB\r\n");
  CHECK(plan.details == std::vector<std::string>{"--- " + kWslconfigPath, "+++ " + kWslconfigPath, "@@ -1,4 +1,4 @@",
                                                 " [wsl2]\r", "-memory=48GB\r", "-processors=16\r", "-swap=0\r",
                                                 "+memory=8GB\r", "+processors=4\r", "+swap=8GB\r"});
  CHECK(m.runner.calls.empty());  // a value given is not capped: nothing asks interop
}

TEST_CASE("wslconfig profile: with no .wslconfig, the file gets the memory minimum and no processors or swap line") {
  WslconfigMachine m;
  auto plan = plan_profile(m);
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == kWslconfigPath + "  [wsl2] memory (unset) -> 16GB");
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\n");
  CHECK(plan.writes[0].attrs.uid == 1000);
  CHECK(plan.details[0] ==
        "kept: processors unset (WSL's default, all of Windows' logical CPUs, is never fewer than 8 would give)");
  CHECK(m.runner.calls.empty());
}

TEST_CASE("wslconfig: a minimum compares sizes in bytes, whatever the unit, and reads the value WSL reads") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath,
                "[wsl2]\nmemory=\"20480mb\"   # mine\nswap=17179869184\ndefaultVhdSize=1T\n\n[wsl2]\nmemory=1GB\n");
  auto plan = m.plan(*build_ok(R"(
kind = "wslconfig"
settings.wsl2 = { memory = { at_least = "16GB" }, swap = { at_least = "16384MB" }, defaultVhdSize = { at_least = 1099511627776 } }
)"));
  CHECK(plan.verdict == Verdict::noop);
  // WSL reads the first memory and warns about the second; swap and defaultVhdSize are equal, so not "above".
  CHECK(plan.details == std::vector<std::string>{"kept: memory 20480mb (above 16GB)"});
}

TEST_CASE("wslconfig: a value followed by a # comment equals the same value, so the line is left as it is") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, "[wsl2]\nmemory=16GB     # for PyTorch\n");
  auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
  CHECK(plan.verdict == Verdict::noop);
}

TEST_CASE("wslconfig: a value that comes out empty from a variable leaves the key as the file has it") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, "[wsl2]\nswap=0\n");
  std::vector<Diagnostic> d;
  auto step = build_step(R"(
kind = "wslconfig"
settings.wsl2 = { swap = "${swap}", memory = "16GB" }
)",
                         d, {{"swap", ""}});
  REQUIRE(d.empty());
  auto plan = m.plan(*step);
  CHECK(*plan.writes[0].content == "[wsl2]\nswap=0\nmemory=16GB\n");
  CHECK(build_errors("kind = \"wslconfig\"\nsettings.wsl2 = { swap = \"\" }\n") ==
        "m.toml:2:26: [wsl2] swap must be a size such as \"16GB\" or \"512MB\" (a number of bytes, or with the unit B, "
        "KB, MB, GB or TB)");
}

TEST_CASE("wslconfig: at_least is checked when the manifest loads, with FILE:LINE:COLUMN") {
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { memory = { at_lest = "16GB" } }
)") == "m.toml:3:30: unknown key \"at_lest\" in the value of [wsl2] memory (did you mean \"at_least\"?); a value is "
       "written as it is, or as { at_least = VALUE }");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { memory = { } }
)") == "m.toml:3:28: [wsl2] memory { } needs at_least, such as { at_least = \"16GB\" }, or write the value itself");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { guiApplications = { at_least = true } }
)") == "m.toml:3:37: [wsl2] guiApplications cannot have at_least: it applies to sizes and counts (such as memory and "
       "processors); write the value itself");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { memory = { at_least = "lots" } }
)") == "m.toml:3:41: [wsl2] memory at_least must be a size such as \"16GB\" or \"512MB\" (a number of bytes, or with "
       "the unit B, KB, MB, GB or TB)");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { memory = { at_least = "0GB" } }
)") == "m.toml:3:41: [wsl2] memory at_least must be a size WSL reads, such as \"16GB\" (a zero is 0 alone)");
}

// ------------------------------------------ real files (the corpus)

namespace {

// A .wslconfig someone published (the corpus's wslconfig/SOURCES.md says
// where each came from), read where it is (support/corpus.hpp): test data
// of the project, not part of this repository.
std::string corpus_wslconfig(const std::string& name) { return wslgpu::testing::corpus_file("wslconfig/" + name); }

// TEXT split after each '\n', so that line endings stay part of the lines.
std::vector<std::string> lines_with_endings(const std::string& text) {
  std::vector<std::string> out;
  for (auto line : text::split_lines(text, text::LineEnd::kept)) out.emplace_back(line);
  return out;
}

}  // namespace

TEST_CASE("wslconfig profile on real files: raised lines change, every other line stays byte for byte" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  WslconfigMachine m;
  const std::string before = corpus_wslconfig("semicolon-comment-long-hash-comments.wslconfig");
  m.fs.add_file(kWslconfigPath, before, 0644, 1000, 1000);
  windows_has_cpus(m, "12");
  auto plan = plan_profile(m);
  CHECK(plan.summary == kWslconfigPath + "  [wsl2] memory 4GB -> 16GB, [wsl2] processors 4 -> 8");
  REQUIRE(plan.writes.size() == 1);
  auto old_lines = lines_with_endings(before);
  auto new_lines = lines_with_endings(*plan.writes[0].content);
  REQUIRE(new_lines.size() == old_lines.size());
  for (std::size_t i = 0; i < old_lines.size(); ++i) {
    CAPTURE(i);
    if (old_lines[i] == "processors=4\n")
      CHECK(new_lines[i] == "processors=8\n");
    else if (old_lines[i] == "memory=4GB\n")
      CHECK(new_lines[i] == "memory=16GB\n");
    else
      CHECK(new_lines[i] == old_lines[i]);  // swap=4GB among them: swap is not the profile's to change
  }

  WslconfigMachine crlf;
  const std::string small = corpus_wslconfig("crlf-kernelcommandline-spaced-value-has-equals.wslconfig");
  crlf.fs.add_file(kWslconfigPath, small);
  auto raised = plan_profile(crlf);
  REQUIRE(raised.writes.size() == 1);
  CHECK(small == "[wsl2]\r\nmemory=1GB\r\nkernelCommandLine = vsyscall=emulate\r\n");
  CHECK(*raised.writes[0].content == "[wsl2]\r\nmemory=16GB\r\nkernelCommandLine = vsyscall=emulate\r\n");
  CHECK(crlf.runner.calls.empty());  // processors unset: nothing to raise, interop not asked
}

TEST_CASE("wslconfig profile on real files: larger values are kept and the file is not touched" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  struct Case {
    const char* file;
    std::vector<std::string> details;
  };
  const std::vector<Case> cases = {
      {"long-commented-kernel-experimental-no-eol.wslconfig",
       {"kept: memory 48GB (above 16GB)", "kept: processors 32 (above 8)"}},
      {"crlf-general-section-spaced-negative-timeouts.wslconfig",  // memory=32GB followed by a # comment
       {"kept: memory 32GB (above 16GB)",
        "kept: processors unset (WSL's default, all of Windows' logical CPUs, is never fewer than 8 would give)"}},
      {"memory-unit-G-kernelcommandline-dropcache.wslconfig",  // memory=64G: WSL's one-letter unit
       {"kept: memory 64G (above 16GB)",
        "kept: processors unset (WSL's default, all of Windows' logical CPUs, is never fewer than 8 would give)"}},
      {"crlf-networkingmode-under-experimental.wslconfig",
       {"kept: memory 24GB (above 16GB)", "kept: processors 10 (above 8)"}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    WslconfigMachine m;
    const std::string before = corpus_wslconfig(c.file);
    m.fs.add_file(kWslconfigPath, before, 0644, 1000, 1000);
    auto plan = plan_profile(m);
    CHECK(plan.verdict == Verdict::noop);
    CHECK(plan.details == c.details);
    CHECK(plan.writes.empty());
    CHECK(m.fs.read(kWslconfigPath) == before);
    CHECK(m.runner.calls.empty());
  }
}
