#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "unit/steps/system_step_testing.hpp"
#include "support/build_paths.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const std::string kPath = "/mnt/c/Users/alice/.wslconfig";

struct WslconfigMachine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  WslconfigMachine() {
    host.user = "alice";
    host.user_uid = 1000;
    host.user_gid = 1000;
    host.windows_home = "/mnt/c/Users/alice";
    fs.add_dir("/mnt/c/Users/alice", 0777);
  }
  StepPlan plan(const Step& step) {
    StepContext ctx{fs, runner, host, "rocm"};
    return step.plan(ctx);
  }
};

const char* kMemory = R"(
kind = "wslconfig"
settings.wsl2 = { memory = "16GB" }
)";

}  // namespace

TEST_CASE("wslconfig: an existing value is replaced in place, keeping CRLF, BOM, comments and other keys") {
  WslconfigMachine m;
  const std::string before =
      "\xEF\xBB\xBF# Settings apply to every WSL 2 distribution\r\n"
      "[wsl2]\r\n"
      "; limit the VM\r\n"
      "memory = 4GB\r\n"
      "processors=8\r\n"
      "\r\n"
      "[experimental]\r\n"
      "sparseVhd=true\r\n";
  m.fs.add_file(kPath, before, 0777, 1000, 1000);
  auto plan = m.plan(*build_ok(kMemory));
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == kPath + "  [wsl2] memory 4GB -> 16GB");
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == kPath);
  CHECK(*plan.writes[0].content ==
        "\xEF\xBB\xBF# Settings apply to every WSL 2 distribution\r\n"
        "[wsl2]\r\n"
        "; limit the VM\r\n"
        "memory = 16GB\r\n"
        "processors=8\r\n"
        "\r\n"
        "[experimental]\r\n"
        "sparseVhd=true\r\n");
  CHECK(plan.writes[0].attrs.mode == 0777);
  CHECK(plan.writes[0].attrs.uid == 1000);
  REQUIRE(plan.notices.size() == 1);
  CHECK(plan.notices[0] == kPath +
                               " changed: run `wsl --shutdown` from Windows (PowerShell or cmd), then start the "
                               "distribution again, for the new settings to apply.");
  CHECK(m.fs.read(kPath) == before);  // plan changed nothing
  CHECK(m.fs.writes == 0);
}

TEST_CASE("wslconfig: a rerun after apply changes nothing") {
  WslconfigMachine m;
  m.fs.add_file(kPath, "[wsl2]\r\nmemory=4GB\r\n");
  auto step = build_ok(kMemory);
  carry_out_writes(m.fs, m.plan(*step));
  auto again = m.plan(*step);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.writes.empty());
  CHECK(again.notices.empty());
  CHECK(again.summary == kPath + " already has 1 setting as wanted");
}

TEST_CASE("wslconfig: values compare as WSL reads them (case of units and booleans, quotes)") {
  WslconfigMachine m;
  m.fs.add_file(kPath, "[WSL2]\nMemory=\"16gb\"\nlocalhostforwarding=True\n");
  auto plan = m.plan(*build_ok(R"(
kind = "wslconfig"
settings.wsl2 = { memory = "16GB", localhostForwarding = true }
)"));
  CHECK(plan.verdict == Verdict::noop);
}

TEST_CASE("wslconfig: a missing file is created with CRLF line endings, owned by the user") {
  WslconfigMachine m;
  auto plan = m.plan(*build_ok(R"(
kind = "wslconfig"
[settings.wsl2]
memory = "16GB"
processors = 8
swap = 0
[settings.experimental]
autoMemoryReclaim = "gradual"
)"));
  CHECK(plan.verdict == Verdict::change);
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content ==
        "[wsl2]\r\nmemory=16GB\r\nprocessors=8\r\nswap=0\r\n\r\n[experimental]\r\n"
        "autoMemoryReclaim=gradual\r\n");
  CHECK(plan.writes[0].attrs.uid == 1000);
  CHECK(plan.writes[0].attrs.gid == 1000);
  CHECK(plan.summary == kPath +
                            "  [wsl2] memory (unset) -> 16GB, [wsl2] processors (unset) -> 8, [wsl2] swap (unset) "
                            "-> 0, [experimental] autoMemoryReclaim (unset) -> gradual");
}

TEST_CASE("wslconfig: a UTF-16 file stops the plan with the file, line and what to do, and stays as it is") {
  WslconfigMachine m;
  std::string utf16("\xFF\xFE[\0w\0s\0l\0\x32\0]\0\r\0\n\0", 18);
  m.fs.add_file(kPath, utf16);
  auto step = build_ok(kMemory);
  CHECK_THROWS_WITH_AS(m.plan(*step),
                       "/mnt/c/Users/alice/.wslconfig:1: the file is saved as UTF-16, which WSL silently ignores, so "
                       "its settings have no effect. Save it as UTF-8 (in Notepad: File > Save as, Encoding UTF-8), "
                       "or set rewrite_utf16 = true in this step to let it be rewritten as UTF-8. Nothing was changed.",
                       StepFailure);
  CHECK(m.fs.read(kPath) == utf16);
  CHECK(m.fs.writes == 0);
}

TEST_CASE("wslconfig: with rewrite_utf16, a UTF-16 file is rewritten as UTF-8 with the edit") {
  WslconfigMachine m;
  std::string text = "[wsl2]\r\nmemory=4GB\r\n";
  std::string utf16 = "\xFF\xFE";
  for (char c : text) {
    utf16 += c;
    utf16 += '\0';
  }
  m.fs.add_file(kPath, utf16);
  auto plan = m.plan(*build_ok(R"(
kind = "wslconfig"
rewrite_utf16 = true
settings.wsl2 = { memory = "16GB" }
)"));
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\n");
  CHECK(plan.summary == kPath + " (rewritten as UTF-8: WSL ignores UTF-16)  [wsl2] memory 4GB -> 16GB");
}

TEST_CASE("wslconfig: a file that looks like UTF-16 but is not is bad input at 1:1, and stays as it is") {
  WslconfigMachine m;
  std::string broken("\xFF\xFE[\0w\0s", 7);  // an odd number of bytes after the byte-order mark
  m.fs.add_file(kPath, broken);
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(R"(
kind = "wslconfig"
rewrite_utf16 = true
settings.wsl2 = { memory = "16GB" }
)")),
                       "/mnt/c/Users/alice/.wslconfig:1:1: the file looks like UTF-16 but is not valid UTF-16, so it "
                       "cannot be rewritten safely; fix or remove it by hand. Nothing was changed.",
                       InputError);
  CHECK(m.fs.read(kPath) == broken);
  CHECK(m.fs.writes == 0);
}

TEST_CASE("wslconfig: a key outside any section stops the plan naming the file and line") {
  WslconfigMachine m;
  const std::string before = "memory=4GB\r\n[wsl2]\r\nprocessors=2\r\n";
  m.fs.add_file(kPath, before);
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kMemory)),
                       "/mnt/c/Users/alice/.wslconfig:1:1: key \"memory\" is outside any section; WSL ignores it: put "
                       "it under a [section] header\nWSL would misread this file, so it is left as it is: fix it by "
                       "hand, then run again. Nothing was changed.",
                       InputError);
  CHECK(m.fs.read(kPath) == before);
}

TEST_CASE("wslconfig: a key on the section's line stops the plan naming the file, line and column") {
  WslconfigMachine m;
  m.fs.add_file(kPath, "# mine\n[wsl2] memory=4GB\n");
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kMemory)),
                       "/mnt/c/Users/alice/.wslconfig:2:8: \"memory=4GB\" follows the section header on the same line; "
                       "WSL ignores it: put each key on its own line\nWSL would misread this file, so it is left as it "
                       "is: fix it by hand, then run again. Nothing was changed.",
                       InputError);
  CHECK(m.fs.writes == 0);
}

TEST_CASE("wslconfig: with [wsl2] written twice, a present key is set where it is, a new key goes to the last block") {
  WslconfigMachine m;
  m.fs.add_file(kPath, "[wsl2]\nmemory=4GB\n\n[experimental]\nsparseVhd=true\n\n[wsl2]\nprocessors=2\n");
  auto plan = m.plan(*build_ok(R"(
kind = "wslconfig"
settings.wsl2 = { memory = "16GB", swap = "8GB" }
)"));
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content ==
        "[wsl2]\nmemory=16GB\n\n[experimental]\nsparseVhd=true\n\n[wsl2]\nprocessors=2\nswap=8GB\n");
  CHECK(plan.details[0] ==
        "note: [wsl2] appears on lines 1, 7; a key already present is set where it is, a new key goes into the last "
        "one");
}

TEST_CASE("wslconfig: a key written twice is set on both lines and the plan says so") {
  WslconfigMachine m;
  m.fs.add_file(kPath, "[wsl2]\nmemory=4GB\nmemory=2GB\n");
  auto plan = m.plan(*build_ok(kMemory));
  CHECK(*plan.writes[0].content == "[wsl2]\nmemory=16GB\nmemory=16GB\n");
  CHECK(plan.details[0] == "note: memory appears 2 times in [wsl2]; every occurrence is set");
}

TEST_CASE("wslconfig: plan, apply and undo leave the file byte for byte as it was") {
  WslconfigMachine m;
  m.fs.add_file(kPath, "\xEF\xBB\xBF[wsl2]\r\n# keep me\r\nmemory=4GB\r\n", 0755, 1000, 1000);
  auto before = snapshot(m.fs);
  auto plan = m.plan(*build_ok(kMemory));
  carry_out_writes(m.fs, plan);
  CHECK(m.fs.read(kPath) != std::get<4>(before.at(kPath)));
  restore_writes(m.fs, plan, before);
  CHECK(snapshot(m.fs) == before);
}

TEST_CASE("wslconfig: undo of a file that did not exist removes it") {
  WslconfigMachine m;
  auto before = snapshot(m.fs);
  auto plan = m.plan(*build_ok(kMemory));
  carry_out_writes(m.fs, plan);
  CHECK(m.fs.stat(kPath));
  restore_writes(m.fs, plan, before);
  CHECK(snapshot(m.fs) == before);
}

TEST_CASE("wslconfig: each key is checked by type against Microsoft's documentation") {
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { memory = "16 GB" }
)") == "m.toml:3:28: [wsl2] memory must be a size such as \"16GB\" or \"512MB\" (a number of bytes, or with the unit "
       "B, KB, MB, GB or TB)");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { processors = "eight" }
)") == "m.toml:3:32: [wsl2] processors must be a whole number such as 8");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { guiApplications = "yes" }
)") == "m.toml:3:37: [wsl2] guiApplications must be true or false");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { kernel = "/boot/vmlinuz" }
)") == "m.toml:3:28: [wsl2] kernel must be an absolute Windows path such as \"C:\\\\temp\\\\kernel\"");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { networkingMode = "tunnel" }
)") == "m.toml:3:36: [wsl2] networkingMode must be one of \"none\", \"nat\", \"bridged\", \"mirrored\", "
       "\"virtioproxy\"");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.experimental = { dnsTunnelingIpAddress = "10.0.0.300" }
)") == "m.toml:3:51: [experimental] dnsTunnelingIpAddress must be an IPv4 address such as \"10.255.255.254\"");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { kernelCommandLine = "a\nb" }
)") == "m.toml:3:39: [wsl2] kernelCommandLine must be one line of text (no line breaks or control characters)");
}

TEST_CASE("wslconfig: an unknown key or section is an error with a suggestion, unless allow_unknown") {
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl2 = { memroy = "16GB" }
)") == "m.toml:3:19: unknown key \"memroy\" in [wsl2] (did you mean \"memory\"?); set allow_unknown = true to write "
       "it anyway");
  CHECK(build_errors(R"(
kind = "wslconfig"
settings.wsl = { memory = "16GB" }
)") == "m.toml:3:10: unknown section [wsl] (did you mean [wsl2]?); set allow_unknown = true to write it anyway");
  WslconfigMachine m;
  auto plan = m.plan(*build_ok(R"(
kind = "wslconfig"
allow_unknown = true
settings.wsl2 = { futureKey = 3 }
settings.preview = { thing = true }
)"));
  CHECK(*plan.writes[0].content == "[wsl2]\r\nfutureKey=3\r\n\r\n[preview]\r\nthing=true\r\n");
}

TEST_CASE("wslconfig: settings must be a table of sections") {
  CHECK(build_errors("kind = \"wslconfig\"\n") ==
        "m.toml:1:1: this step needs the key \"settings\", a table of sections such as settings.wsl2 = { memory = "
        "\"16GB\" }");
  CHECK(build_errors("kind = \"wslconfig\"\nsettings = { wsl2 = \"16GB\" }\n") ==
        "m.toml:2:21: \"settings.wsl2\" must be a table of keys such as { key = \"value\" }, not a string");
}

TEST_CASE("wslconfig: Windows paths are written with escaped backslashes, and choices in Microsoft's spelling") {
  WslconfigMachine m;
  auto plan = m.plan(*build_ok(R"(
kind = "wslconfig"
settings.wsl2 = { swapFile = 'C:\temp\swap.vhdx', networkingMode = "Mirrored", vmIdleTimeout = 60000 }
settings.experimental = { ignoredPorts = [3000, 9000] }
)"));
  CHECK(*plan.writes[0].content ==
        "[wsl2]\r\nswapFile=C:\\\\temp\\\\swap.vhdx\r\nnetworkingMode=mirrored\r\n"
        "vmIdleTimeout=60000\r\n\r\n[experimental]\r\nignoredPorts=3000,9000\r\n");
}

TEST_CASE("wslconfig: without a Windows home, interop finds it with 5-second timeouts") {
  WslconfigMachine m;
  m.host.windows_home = "";
  m.fs.add_file("/mnt/c/Windows/System32/cmd.exe", "MZ");
  ProcessResult echo;
  echo.exit_code = 0;
  echo.out =
      "'\\\\wsl.localhost\\Debian\\root'\r\nCMD.EXE was started with the above path as the current directory.\r\n"
      "C:\\Users\\alice\r\n";
  m.runner.on({"/mnt/c/Windows/System32/cmd.exe"}, echo);
  ProcessResult conv;
  conv.exit_code = 0;
  conv.out = "/mnt/c/Users/alice\n";
  m.runner.on({"wslpath"}, conv);
  auto plan = m.plan(*build_ok(kMemory));
  CHECK(plan.verdict == Verdict::change);
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == kPath);
  REQUIRE(m.runner.calls.size() == 2);
  CHECK(m.runner.calls[0].argv ==
        std::vector<std::string>{"/mnt/c/Windows/System32/cmd.exe", "/c", "echo", "%USERPROFILE%"});
  CHECK(m.runner.calls[0].timeout == std::chrono::seconds(5));
  CHECK(m.runner.calls[1].argv == std::vector<std::string>{"wslpath", "-u", "C:\\Users\\alice"});
  CHECK(m.runner.calls[1].timeout == std::chrono::seconds(5));
}

TEST_CASE("wslconfig: the folder interop found is remembered by the install, and a later plan asks nothing") {
  const std::string cmd = "/mnt/c/Windows/System32/cmd.exe";
  const std::string memory = "/var/lib/wslgpu-setup/windows-home";
  WslconfigMachine m;
  m.host.windows_home_guessed = true;
  m.fs.add_file(cmd, "MZ");
  m.fs.add_dir("/mnt/d/Users/bob");
  ProcessResult echo;
  echo.exit_code = 0;
  echo.out = "D:\\Users\\bob\r\n";
  m.runner.on({cmd}, echo);
  ProcessResult conv;
  conv.exit_code = 0;
  conv.out = "/mnt/d/Users/bob\n";
  m.runner.on({"wslpath"}, conv);
  auto first = m.plan(*build_ok(kMemory));
  CHECK(m.runner.calls.size() == 2);
  REQUIRE(first.remember.size() == 1);  // for the install to keep, not a change of the machine
  CHECK(first.remember[0].path == memory);
  CHECK(*first.remember[0].content == "/mnt/d/Users/bob\n");
  CHECK(first.verdict == Verdict::change);

  // What the install kept: the next plan uses it and runs nothing.
  m.fs.add_file(memory, "/mnt/d/Users/bob\n");
  m.runner.calls.clear();
  auto later = m.plan(*build_ok(kMemory));
  CHECK(m.runner.calls.empty());
  REQUIRE(later.writes.size() == 1);
  CHECK(later.writes[0].path == "/mnt/d/Users/bob/.wslconfig");
  CHECK(later.remember.empty());

  // Only while it is a folder under /mnt/*/Users/: otherwise interop is asked again.
  for (const char* bad : {"/mnt/d/Users/gone\n", "/etc\n", "/mnt/d/Users/bob/../../../etc\n", "/mnt/d/Users\n", ""}) {
    m.fs.add_file(memory, bad);
    m.runner.calls.clear();
    auto again = m.plan(*build_ok(kMemory));
    CHECK_MESSAGE(m.runner.calls.size() == 2, bad);
    CHECK(again.remember.size() == 1);
  }
  // --windows-home still wins over the memory.
  m.fs.add_file(memory, "/mnt/d/Users/bob\n");
  m.host.windows_home_guessed = false;
  CHECK(m.plan(*build_ok(kMemory)).writes[0].path == kPath);
}

TEST_CASE("wslconfig: when interop hangs or is off, the step refuses and asks for --windows-home") {
  WslconfigMachine m;
  m.host.windows_home = "";
  ProcessResult hung;
  hung.timed_out = true;
  hung.exit_code = 137;
  m.runner.on({"cmd.exe"}, hung);
  auto plan = m.plan(*build_ok(kMemory));
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary ==
        "cannot find the Windows profile folder (%USERPROFILE%) for .wslconfig: pass --windows-home "
        "/mnt/c/Users/NAME");
  REQUIRE(plan.details.size() == 2);
  CHECK(plan.details[0] == "`cmd.exe /c echo %USERPROFILE%` did not answer within 5 s");
  CHECK(plan.details[1] == "no --windows-home was given and no single user folder was found under /mnt/*/Users");
  CHECK(plan.writes.empty());
}

TEST_CASE("wslconfig: interop is asked before the /mnt/*/Users guess, and --windows-home before both") {
  const std::string cmd = "/mnt/c/Windows/System32/cmd.exe";
  auto interop_says_bob = [&](WslconfigMachine& m) {
    m.fs.add_file(cmd, "MZ");
    m.fs.add_dir("/mnt/d/Users/bob");
    ProcessResult echo;
    echo.exit_code = 0;
    echo.out = "D:\\Users\\bob\r\n";
    m.runner.on({cmd}, echo);
    ProcessResult conv;
    conv.exit_code = 0;
    conv.out = "/mnt/d/Users/bob\n";
    m.runner.on({"wslpath"}, conv);
  };
  {
    WslconfigMachine m;  // the probe guessed alice from the one folder it saw; interop knows better
    m.host.windows_home_guessed = true;
    interop_says_bob(m);
    auto plan = m.plan(*build_ok(kMemory));
    REQUIRE(plan.writes.size() == 1);
    CHECK(plan.writes[0].path == "/mnt/d/Users/bob/.wslconfig");
  }
  {
    WslconfigMachine m;  // interop is off: the guess is used
    m.host.windows_home_guessed = true;
    auto plan = m.plan(*build_ok(kMemory));
    REQUIRE(plan.writes.size() == 1);
    CHECK(plan.writes[0].path == kPath);
    REQUIRE(m.runner.calls.size() == 1);
    CHECK(m.runner.calls[0].argv[0] == "cmd.exe");
  }
  {
    WslconfigMachine m;  // --windows-home: nothing is asked
    m.host.windows_home_guessed = false;
    interop_says_bob(m);
    auto plan = m.plan(*build_ok(kMemory));
    REQUIRE(plan.writes.size() == 1);
    CHECK(plan.writes[0].path == kPath);
    CHECK(m.runner.calls.empty());
  }
}

TEST_CASE("wslconfig: a Windows home that does not exist refuses instead of creating folders") {
  WslconfigMachine m;
  m.host.windows_home = "/mnt/c/Users/alcie";
  auto plan = m.plan(*build_ok(kMemory));
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary == "the Windows profile folder /mnt/c/Users/alcie does not exist; check --windows-home");
  CHECK(plan.writes.empty());
}

TEST_CASE("wslconf: /etc/wsl.conf is edited with the same engine, keeping its mode and other sections") {
  WslconfigMachine m;
  const std::string before = "[user]\ndefault=alice\n";
  m.fs.add_file("/etc/wsl.conf", before, 0640);
  auto step = build_ok(R"(
kind = "wslconf"
settings.boot = { systemd = true }
settings.gpu = { enabled = true }
)");
  auto snap = snapshot(m.fs);
  auto plan = m.plan(*step);
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == "/etc/wsl.conf");
  CHECK(*plan.writes[0].content == "[user]\ndefault=alice\n\n[boot]\nsystemd=true\n\n[gpu]\nenabled=true\n");
  CHECK(plan.writes[0].attrs.mode == 0640);
  CHECK(plan.notices.at(0) ==
        "/etc/wsl.conf changed: run `wsl --terminate <distro>` (or `wsl --shutdown`) from "
        "Windows, then start the distribution again, for the new settings to apply.");
  carry_out_writes(m.fs, plan);
  CHECK(m.plan(*step).verdict == Verdict::noop);
  restore_writes(m.fs, plan, snap);
  CHECK(snapshot(m.fs) == snap);
}

TEST_CASE("wslconf: a new /etc/wsl.conf uses LF and is owned by root") {
  WslconfigMachine m;
  auto plan = m.plan(*build_ok("kind = \"wslconf\"\nsettings.interop = { appendWindowsPath = false }\n"));
  CHECK(*plan.writes[0].content == "[interop]\nappendWindowsPath=false\n");
  CHECK(plan.writes[0].attrs.uid == 0);
  CHECK(plan.writes[0].attrs.mode == 0644);
}

TEST_CASE("wslconf: keys are checked against wsl.conf's sections, not .wslconfig's") {
  CHECK(build_errors("kind = \"wslconf\"\nsettings.wsl2 = { memory = \"8GB\" }\n") ==
        "m.toml:2:10: unknown section [wsl2]; set allow_unknown = true to write it anyway");
  CHECK(build_errors("kind = \"wslconf\"\nsettings.boot = { systemd = \"on\" }\n") ==
        "m.toml:2:29: [boot] systemd must be true or false");
}

// ------------------------------------------------- minimums (at_least)

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
  m.fs.add_file(kPath, kIssueFile, 0644, 1000, 1000);
  auto plan = plan_profile(m, {{"memory", "16GB"}});
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == kPath + "  [wsl2] memory 48GB -> 16GB");
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\nprocessors=16\r\nswap=0\r\n");
  CHECK(plan.details == std::vector<std::string>{"kept: processors 16 (above 8)", "--- " + kPath, "+++ " + kPath,
                                                 "@@ -1,4 +1,4 @@", " [wsl2]\r", "-memory=48GB\r", "+memory=16GB\r",
                                                 " processors=16\r", " swap=0\r"});
  CHECK(m.runner.calls.empty());  // nothing to raise: interop is not asked
}

TEST_CASE("wslconfig profile: without --set, larger memory and processors are kept, swap is left alone") {
  WslconfigMachine m;
  m.fs.add_file(kPath, kIssueFile, 0644, 1000, 1000);
  auto plan = plan_profile(m);
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.summary == kPath + " already has 2 settings as wanted");
  CHECK(plan.details == std::vector<std::string>{"kept: memory 48GB (above 16GB)", "kept: processors 16 (above 8)"});
  CHECK(plan.writes.empty());
  CHECK(m.runner.calls.empty());
}

TEST_CASE("wslconfig profile: smaller values are raised to the minimums, within the logical CPUs interop reports") {
  WslconfigMachine m;
  m.fs.add_file(kPath, "[wsl2]\r\nmemory=4GB\r\nprocessors=2\r\nswap=0\r\n", 0644, 1000, 1000);
  windows_has_cpus(m, "16");
  auto plan = plan_profile(m);
  CHECK(plan.summary == kPath + "  [wsl2] memory 4GB -> 16GB, [wsl2] processors 2 -> 8");
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
    m.fs.add_file(kPath, "[wsl2]\r\nprocessors=2\r\n");
    windows_has_cpus(m, "4");
    auto plan = plan_profile(m);
    CHECK(plan.summary == kPath + "  [wsl2] memory (unset) -> 16GB, [wsl2] processors 2 -> 4");
    CHECK(*plan.writes[0].content == "[wsl2]\r\nprocessors=4\r\nmemory=16GB\r\n");
    CHECK(plan.details[0] ==
          "processors: 4, not 8: Windows has 4 logical CPUs, by %NUMBER_OF_PROCESSORS% through interop");
  }
  {
    WslconfigMachine m;  // already all there is
    m.fs.add_file(kPath, "[wsl2]\r\nmemory=16GB\r\nprocessors=4\r\n");
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
  m.fs.add_file(kPath, "[wsl2]\r\nmemory=16GB\r\nprocessors=2\r\n");
  m.fs.add_file("/proc/cpuinfo", cpuinfo(6));
  auto plan = plan_profile(m);
  CHECK(plan.summary == kPath + "  [wsl2] processors 2 -> 6");
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\nprocessors=6\r\n");
  CHECK(plan.details[0] ==
        "processors: 6, not 8: the WSL VM has 6 logical CPUs, by /proc/cpuinfo; Windows may have more, but "
        "`cmd.exe /c echo %NUMBER_OF_PROCESSORS%` was not found (is interop off?)");

  WslconfigMachine none;  // neither: the minimum is written, and the plan says it is unchecked
  none.fs.add_file(kPath, "[wsl2]\r\nprocessors=2\r\n");
  auto unchecked = plan_profile(none);
  CHECK(*unchecked.writes[0].content == "[wsl2]\r\nprocessors=8\r\nmemory=16GB\r\n");
  CHECK(unchecked.details[0] ==
        "processors: 8 is written unchecked, as the logical CPUs could not be counted: `cmd.exe /c echo "
        "%NUMBER_OF_PROCESSORS%` was not found (is interop off?), and /proc/cpuinfo lists no processor");
}

TEST_CASE("wslconfig profile: a value WSL cannot read is kept as written, and the plan says why") {
  WslconfigMachine m;
  const std::string before = "[wsl2]\nmemory=16 GB\nprocessors=eight\n";
  m.fs.add_file(kPath, before);
  auto plan = plan_profile(m);
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.details == std::vector<std::string>{
                            "kept: memory 16 GB (WSL cannot read it as a size such as 16GB, so it is left for you to "
                            "correct)",
                            "kept: processors eight (WSL cannot read it as a whole number such as 8, so it is left for "
                            "you to correct)"});
  CHECK(m.fs.read(kPath) == before);
  CHECK(m.runner.calls.empty());
}

TEST_CASE("wslconfig profile: a --set value lower than the file's is written as given, with no kept line") {
  WslconfigMachine m;
  m.fs.add_file(kPath, kIssueFile);
  // The unit is written in capitals, as every size this step writes.
  auto plan = plan_profile(m, {{"memory", "8gb"}, {"processors", "4"}, {"swap", "8GB"}});
  CHECK(plan.summary == kPath + "  [wsl2] memory 48GB -> 8GB, [wsl2] processors 16 -> 4, [wsl2] swap 0 -> 8GB");
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=8GB\r\nprocessors=4\r\nswap=8GB\r\n");
  CHECK(plan.details == std::vector<std::string>{"--- " + kPath, "+++ " + kPath, "@@ -1,4 +1,4 @@", " [wsl2]\r",
                                                 "-memory=48GB\r", "-processors=16\r", "-swap=0\r", "+memory=8GB\r",
                                                 "+processors=4\r", "+swap=8GB\r"});
  CHECK(m.runner.calls.empty());  // a value given is not capped: nothing asks interop
}

TEST_CASE("wslconfig profile: with no .wslconfig, the file gets the memory minimum and no processors or swap line") {
  WslconfigMachine m;
  auto plan = plan_profile(m);
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == kPath + "  [wsl2] memory (unset) -> 16GB");
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\n");
  CHECK(plan.writes[0].attrs.uid == 1000);
  CHECK(plan.details[0] ==
        "kept: processors unset (WSL's default, all of Windows' logical CPUs, is never fewer than 8 would give)");
  CHECK(m.runner.calls.empty());
}

TEST_CASE("wslconfig: a minimum compares sizes in bytes, whatever the unit, and reads the value WSL reads") {
  WslconfigMachine m;
  m.fs.add_file(kPath,
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
  m.fs.add_file(kPath, "[wsl2]\nmemory=16GB     # for PyTorch\n");
  auto plan = m.plan(*build_ok(kMemory));
  CHECK(plan.verdict == Verdict::noop);
}

TEST_CASE("wslconfig: a value that comes out empty from a variable leaves the key as the file has it") {
  WslconfigMachine m;
  m.fs.add_file(kPath, "[wsl2]\nswap=0\n");
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

// ------------------------------------------ real files (../shared/corpus)

namespace {

// A .wslconfig someone published (../shared/corpus/wslconfig/SOURCES.md
// says where each came from), read where it is: the corpus is test data of
// the project, not part of this repository. A missing file fails the test.
std::string corpus_file(const std::string& name) {
  const std::string path = std::string(wslgpu::testing::kSourceDir) + "/../shared/corpus/wslconfig/" + name;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read the corpus file " << path
                                                            << "; the tests need ../shared/corpus next to "
                                                               "the source folder");
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// TEXT split after each '\n', so that line endings stay part of the lines.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

}  // namespace

TEST_CASE("wslconfig profile on real files: raised lines change, every other line stays byte for byte") {
  WslconfigMachine m;
  const std::string before = corpus_file("semicolon-comment-long-hash-comments.wslconfig");
  m.fs.add_file(kPath, before, 0644, 1000, 1000);
  windows_has_cpus(m, "12");
  auto plan = plan_profile(m);
  CHECK(plan.summary == kPath + "  [wsl2] memory 4GB -> 16GB, [wsl2] processors 4 -> 8");
  REQUIRE(plan.writes.size() == 1);
  auto old_lines = lines_of(before);
  auto new_lines = lines_of(*plan.writes[0].content);
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
  const std::string small = corpus_file("crlf-kernelcommandline-spaced-value-has-equals.wslconfig");
  crlf.fs.add_file(kPath, small);
  auto raised = plan_profile(crlf);
  REQUIRE(raised.writes.size() == 1);
  CHECK(small == "[wsl2]\r\nmemory=1GB\r\nkernelCommandLine = vsyscall=emulate\r\n");
  CHECK(*raised.writes[0].content == "[wsl2]\r\nmemory=16GB\r\nkernelCommandLine = vsyscall=emulate\r\n");
  CHECK(crlf.runner.calls.empty());  // processors unset: nothing to raise, interop not asked
}

TEST_CASE("wslconfig profile on real files: larger values are kept and the file is not touched") {
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
    const std::string before = corpus_file(c.file);
    m.fs.add_file(kPath, before, 0644, 1000, 1000);
    auto plan = plan_profile(m);
    CHECK(plan.verdict == Verdict::noop);
    CHECK(plan.details == c.details);
    CHECK(plan.writes.empty());
    CHECK(m.fs.read(kPath) == before);
    CHECK(m.runner.calls.empty());
  }
}
