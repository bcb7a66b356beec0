// wslconfig and wslconf: the Windows-side .wslconfig and /etc/wsl.conf edited
// in place (line endings, BOM, comments and other keys kept), their keys
// checked against Microsoft's documentation, the Windows home found through
// interop, and undo. The minimums (at_least) and the real files:
// test_wslconfig_minimums.cpp.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "support/build_paths.hpp"
#include "unit/steps/system_step_testing.hpp"
#include "unit/steps/windows/wslconfig_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

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
  m.fs.add_file(kWslconfigPath, before, 0777, 1000, 1000);
  auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == kWslconfigPath + "  [wsl2] memory 4GB -> 16GB");
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == kWslconfigPath);
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
  CHECK(plan.notices[0] == kWslconfigPath +
                               " changed: run `wsl --shutdown` from Windows (PowerShell or cmd), then start the "
                               "distribution again, for the new settings to apply.");
  CHECK(m.fs.read(kWslconfigPath) == before);  // plan changed nothing
  CHECK(m.fs.writes == 0);
}

TEST_CASE("wslconfig: a rerun after apply changes nothing") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, "[wsl2]\r\nmemory=4GB\r\n");
  auto step = build_ok(kWslconfigMemoryStep);
  carry_out_writes(m.fs, m.plan(*step));
  auto again = m.plan(*step);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.writes.empty());
  CHECK(again.notices.empty());
  CHECK(again.summary == kWslconfigPath + " already has 1 setting as wanted");
}

TEST_CASE("wslconfig: values compare as WSL reads them (case of units and booleans, quotes)") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, "[WSL2]\nMemory=\"16gb\"\nlocalhostforwarding=True\n");
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
  CHECK(plan.summary == kWslconfigPath +
                            "  [wsl2] memory (unset) -> 16GB, [wsl2] processors (unset) -> 8, [wsl2] swap (unset) "
                            "-> 0, [experimental] autoMemoryReclaim (unset) -> gradual");
}

TEST_CASE("wslconfig: a UTF-16 file stops the plan with the file, line and what to do, and stays as it is") {
  WslconfigMachine m;
  std::string utf16("\xFF\xFE[\0w\0s\0l\0\x32\0]\0\r\0\n\0", 18);
  m.fs.add_file(kWslconfigPath, utf16);
  auto step = build_ok(kWslconfigMemoryStep);
  CHECK_THROWS_WITH_AS(m.plan(*step),
                       "/mnt/c/Users/alice/.wslconfig:1: the file is saved as UTF-16, which WSL silently ignores, so "
                       "its settings have no effect. Save it as UTF-8 (in Notepad: File > Save as, Encoding UTF-8), "
                       "or set rewrite_utf16 = true in this step to let it be rewritten as UTF-8. Nothing was changed.",
                       StepFailure);
  CHECK(m.fs.read(kWslconfigPath) == utf16);
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
  m.fs.add_file(kWslconfigPath, utf16);
  auto plan = m.plan(*build_ok(R"(
kind = "wslconfig"
rewrite_utf16 = true
settings.wsl2 = { memory = "16GB" }
)"));
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content == "[wsl2]\r\nmemory=16GB\r\n");
  CHECK(plan.summary == kWslconfigPath + " (rewritten as UTF-8: WSL ignores UTF-16)  [wsl2] memory 4GB -> 16GB");
}

TEST_CASE("wslconfig: a file that looks like UTF-16 but is not is bad input at 1:1, and stays as it is") {
  WslconfigMachine m;
  std::string broken("\xFF\xFE[\0w\0s", 7);  // an odd number of bytes after the byte-order mark
  m.fs.add_file(kWslconfigPath, broken);
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(R"(
kind = "wslconfig"
rewrite_utf16 = true
settings.wsl2 = { memory = "16GB" }
)")),
                       "/mnt/c/Users/alice/.wslconfig:1:1: the file looks like UTF-16 but is not valid UTF-16, so it "
                       "cannot be rewritten safely; fix or remove it by hand. Nothing was changed.",
                       InputError);
  CHECK(m.fs.read(kWslconfigPath) == broken);
  CHECK(m.fs.writes == 0);
}

TEST_CASE("wslconfig: a key outside any section stops the plan naming the file and line") {
  WslconfigMachine m;
  const std::string before = "memory=4GB\r\n[wsl2]\r\nprocessors=2\r\n";
  m.fs.add_file(kWslconfigPath, before);
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kWslconfigMemoryStep)),
                       "/mnt/c/Users/alice/.wslconfig:1:1: key \"memory\" is outside any section; WSL ignores it: put "
                       "it under a [section] header\nWSL would misread this file, so it is left as it is: fix it by "
                       "hand, then run again. Nothing was changed.",
                       InputError);
  CHECK(m.fs.read(kWslconfigPath) == before);
}

TEST_CASE("wslconfig: a key on the section's line stops the plan naming the file, line and column") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, "# mine\n[wsl2] memory=4GB\n");
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kWslconfigMemoryStep)),
                       "/mnt/c/Users/alice/.wslconfig:2:8: \"memory=4GB\" follows the section header on the same line; "
                       "WSL ignores it: put each key on its own line\nWSL would misread this file, so it is left as it "
                       "is: fix it by hand, then run again. Nothing was changed.",
                       InputError);
  CHECK(m.fs.writes == 0);
}

TEST_CASE("wslconfig: with [wsl2] written twice, a present key is set where it is, a new key goes to the last block") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, "[wsl2]\nmemory=4GB\n\n[experimental]\nsparseVhd=true\n\n[wsl2]\nprocessors=2\n");
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
  m.fs.add_file(kWslconfigPath, "[wsl2]\nmemory=4GB\nmemory=2GB\n");
  auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
  CHECK(*plan.writes[0].content == "[wsl2]\nmemory=16GB\nmemory=16GB\n");
  CHECK(plan.details[0] == "note: memory appears 2 times in [wsl2]; every occurrence is set");
}

TEST_CASE("wslconfig: plan, apply and undo leave the file byte for byte as it was") {
  WslconfigMachine m;
  m.fs.add_file(kWslconfigPath, "\xEF\xBB\xBF[wsl2]\r\n# keep me\r\nmemory=4GB\r\n", 0755, 1000, 1000);
  auto before = snapshot(m.fs);
  auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
  carry_out_writes(m.fs, plan);
  CHECK(m.fs.read(kWslconfigPath) != std::get<4>(before.at(kWslconfigPath)));
  restore_writes(m.fs, plan, before);
  CHECK(snapshot(m.fs) == before);
}

TEST_CASE("wslconfig: undo of a file that did not exist removes it") {
  WslconfigMachine m;
  auto before = snapshot(m.fs);
  auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
  carry_out_writes(m.fs, plan);
  CHECK(m.fs.stat(kWslconfigPath));
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
  auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
  CHECK(plan.verdict == Verdict::change);
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == kWslconfigPath);
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
  auto first = m.plan(*build_ok(kWslconfigMemoryStep));
  CHECK(m.runner.calls.size() == 2);
  REQUIRE(first.remember.size() == 1);  // for the install to keep, not a change of the machine
  CHECK(first.remember[0].path == memory);
  CHECK(*first.remember[0].content == "/mnt/d/Users/bob\n");
  CHECK(first.verdict == Verdict::change);

  // What the install kept: the next plan uses it and runs nothing.
  m.fs.add_file(memory, "/mnt/d/Users/bob\n");
  m.runner.calls.clear();
  auto later = m.plan(*build_ok(kWslconfigMemoryStep));
  CHECK(m.runner.calls.empty());
  REQUIRE(later.writes.size() == 1);
  CHECK(later.writes[0].path == "/mnt/d/Users/bob/.wslconfig");
  CHECK(later.remember.empty());

  // Only while it is a folder under /mnt/*/Users/: otherwise interop is asked again.
  for (const char* bad : {"/mnt/d/Users/gone\n", "/etc\n", "/mnt/d/Users/bob/../../../etc\n", "/mnt/d/Users\n", ""}) {
    m.fs.add_file(memory, bad);
    m.runner.calls.clear();
    auto again = m.plan(*build_ok(kWslconfigMemoryStep));
    CHECK_MESSAGE(m.runner.calls.size() == 2, bad);
    CHECK(again.remember.size() == 1);
  }
  // --windows-home still wins over the memory.
  m.fs.add_file(memory, "/mnt/d/Users/bob\n");
  m.host.windows_home_guessed = false;
  CHECK(m.plan(*build_ok(kWslconfigMemoryStep)).writes[0].path == kWslconfigPath);
}

TEST_CASE("wslconfig: when interop hangs or is off, the step refuses and asks for --windows-home") {
  WslconfigMachine m;
  m.host.windows_home = "";
  ProcessResult hung;
  hung.timed_out = true;
  hung.exit_code = 137;
  m.runner.on({"cmd.exe"}, hung);
  auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
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
    auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
    REQUIRE(plan.writes.size() == 1);
    CHECK(plan.writes[0].path == "/mnt/d/Users/bob/.wslconfig");
  }
  {
    WslconfigMachine m;  // interop is off: the guess is used
    m.host.windows_home_guessed = true;
    auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
    REQUIRE(plan.writes.size() == 1);
    CHECK(plan.writes[0].path == kWslconfigPath);
    REQUIRE(m.runner.calls.size() == 1);
    CHECK(m.runner.calls[0].argv[0] == "cmd.exe");
  }
  {
    WslconfigMachine m;  // --windows-home: nothing is asked
    m.host.windows_home_guessed = false;
    interop_says_bob(m);
    auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
    REQUIRE(plan.writes.size() == 1);
    CHECK(plan.writes[0].path == kWslconfigPath);
    CHECK(m.runner.calls.empty());
  }
}

TEST_CASE("wslconfig: a Windows home that does not exist refuses instead of creating folders") {
  WslconfigMachine m;
  m.host.windows_home = "/mnt/c/Users/alcie";
  auto plan = m.plan(*build_ok(kWslconfigMemoryStep));
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
