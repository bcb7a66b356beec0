#include <doctest/doctest.h>

#include <filesystem>

#include "installer/system/error.hpp"
#include "installer/system/process.hpp"
#include "installer/system/text.hpp"
#include "steps/files/profile_env.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

struct ProfileEnvMachine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  ProfileEnvMachine() {
    host.user = "alice";
    host.user_home = "/home/alice";
    host.user_uid = 1000;
    host.user_gid = 1000;
    fs.add_dir("/etc/profile.d");
    fs.add_dir("/home/alice", 0750);
  }
  StepPlan plan(const Step& step, const std::string& manifest = "rocm") {
    StepContext ctx{fs, runner, host, manifest};
    return step.plan(ctx);
  }
};

const char* kRocm = R"(
kind = "profile_env"
path_append = ["/opt/rocm/bin"]
path_prepend = ["/usr/local/cuda/bin", "/opt/cuda-tools"]
ld_library_path = ["/usr/lib/wsl/lib"]
env = { HSA_ENABLE_DXG_DETECTION = "1", HIP_VISIBLE_DEVICES = "0" }
)";

const char* kRocmUser = R"(
kind = "profile_env"
target = "user"
path_append = ["/opt/rocm/bin"]
env = { HSA_ENABLE_DXG_DETECTION = "1" }
)";

const std::string kBody =
    "case \":${PATH}:\" in *':/opt/rocm/bin:'*) ;; *) PATH=\"${PATH:+${PATH}:}\"'/opt/rocm/bin' ;; esac\n"
    "export PATH\n"
    "export HSA_ENABLE_DXG_DETECTION='1'\n";

const std::string kBlock =
    "# >>> wslgpu-setup rocm >>>\n"
    "# Managed by wslgpu-setup for the manifest \"rocm\"; edit the manifest, not this block.\n" +
    kBody + "# <<< wslgpu-setup rocm <<<\n";

// Runs SCRIPT with /bin/sh after writing it to a temporary folder, then
// prints what PRINT (shell words) expands to.
std::string run_sh(const std::string& script, const std::string& print) {
  TempDir dir;
  dir.write("env.sh", script);
  RealProcessRunner runner("/");
  Command c;
  c.argv = {"/bin/sh", "-c", ". \"$1\"; . \"$1\"; printf '%s' " + print, "sh", dir.path() + "/env.sh"};
  c.timeout = std::chrono::seconds(10);
  c.env = {{"PATH", "/usr/bin:/bin"}, {"MARK", dir.path() + "/pwned"}};
  ProcessResult r = runner.run(c);
  REQUIRE_MESSAGE(r.ok(), r.err);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/pwned"));
  return r.out;
}

}  // namespace

TEST_CASE("profile_env: target system writes /etc/profile.d/wslgpu-<manifest>.sh, mode 0644, owned by root") {
  ProfileEnvMachine m;
  auto plan = m.plan(*build_ok(kRocm));
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == "create /etc/profile.d/wslgpu-rocm.sh");
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == "/etc/profile.d/wslgpu-rocm.sh");
  CHECK(plan.writes[0].attrs.mode == 0644);
  CHECK(plan.writes[0].attrs.uid == 0);
  CHECK(
      *plan.writes[0].content ==
      "# Written by wslgpu-setup for the manifest \"rocm\"; the next run overwrites changes made here,\n"
      "# so edit the manifest instead.\n"
      "case \":${PATH}:\" in *':/opt/cuda-tools:'*) ;; *) PATH='/opt/cuda-tools'\"${PATH:+:${PATH}}\" ;; esac\n"
      "case \":${PATH}:\" in *':/usr/local/cuda/bin:'*) ;; *) PATH='/usr/local/cuda/bin'\"${PATH:+:${PATH}}\" ;; esac\n"
      "case \":${PATH}:\" in *':/opt/rocm/bin:'*) ;; *) PATH=\"${PATH:+${PATH}:}\"'/opt/rocm/bin' ;; esac\n"
      "export PATH\n"
      "case \":${LD_LIBRARY_PATH}:\" in *':/usr/lib/wsl/lib:'*) ;; *) "
      "LD_LIBRARY_PATH='/usr/lib/wsl/lib'\"${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}\" ;; esac\n"
      "export LD_LIBRARY_PATH\n"
      "export HSA_ENABLE_DXG_DETECTION='1'\n"
      "export HIP_VISIBLE_DEVICES='0'\n");
  CHECK(m.fs.writes == 0);
}

TEST_CASE("profile_env: the written shell orders PATH as listed and adds nothing twice when sourced twice") {
  ProfileEnvMachine m;
  auto plan = m.plan(*build_ok(kRocm));
  CHECK(run_sh(*plan.writes[0].content, "\"$PATH|$LD_LIBRARY_PATH|$HSA_ENABLE_DXG_DETECTION\"") ==
        "/usr/local/cuda/bin:/opt/cuda-tools:/usr/bin:/bin:/opt/rocm/bin|/usr/lib/wsl/lib|1");
}

TEST_CASE("profile_env: a rerun after apply changes nothing") {
  ProfileEnvMachine m;
  auto step = build_ok(kRocm);
  carry_out_writes(m.fs, m.plan(*step));
  auto again = m.plan(*step);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.writes.empty());
  CHECK(again.summary == "/etc/profile.d/wslgpu-rocm.sh is as wanted");
}

TEST_CASE("profile_env: values holding $(...), backquotes and quotes stay text in the written shell") {
  ProfileEnvMachine m;
  auto plan = m.plan(*build_ok(R"T(
kind = "profile_env"
path_append = ["/opt/it's $(touch x)"]
env = { A = "$(touch \"$MARK\")", B = "`touch \"$MARK\"`", C = "it's \"quoted\" $HOME $${MARK}; touch \"$MARK\"" }
)T"));
  const std::string& sh = *plan.writes[0].content;
  CHECK(sh.find("export A='$(touch \"$MARK\")'\n") != std::string::npos);
  CHECK(sh.find("export C='it'\\''s \"quoted\" $HOME ${MARK}; touch \"$MARK\"'\n") != std::string::npos);
  CHECK(run_sh(sh, "\"$A|$B|$C|$PATH\"") ==
        "$(touch \"$MARK\")|`touch \"$MARK\"`|it's \"quoted\" $HOME ${MARK}; touch \"$MARK\"|/usr/bin:/bin:/opt/it's "
        "$(touch x)");
}

TEST_CASE("profile_env's quoting, text::shell_quote, closes and reopens around a quote") {
  CHECK(text::shell_quote("a'b") == "'a'\\''b'");
  CHECK(text::shell_quote("") == "''");
}

TEST_CASE("profile_env: target user appends a managed block to ~/.bashrc, keeping its mode and owner") {
  ProfileEnvMachine m;
  const std::string before = "# ~/.bashrc\nalias ll='ls -l'\n";
  m.fs.add_file("/home/alice/.bashrc", before, 0600, 1000, 1000);
  auto plan = m.plan(*build_ok(kRocmUser));
  CHECK(plan.summary == "add a managed block to /home/alice/.bashrc");
  REQUIRE(plan.writes.size() == 1);
  CHECK(*plan.writes[0].content == before + "\n" + kBlock);
  CHECK(plan.writes[0].attrs.mode == 0600);
  CHECK(plan.writes[0].attrs.uid == 1000);
  CHECK(plan.writes[0].attrs.gid == 1000);
}

TEST_CASE("profile_env: a ~/.bashrc without a final newline gets one before the block") {
  ProfileEnvMachine m;
  m.fs.add_file("/home/alice/.bashrc", "alias ll='ls -l'", 0644, 1000, 1000);
  auto plan = m.plan(*build_ok(kRocmUser));
  CHECK(*plan.writes[0].content == "alias ll='ls -l'\n\n" + kBlock);
}

TEST_CASE("profile_env: a missing ~/.bashrc is created for the user") {
  ProfileEnvMachine m;
  auto plan = m.plan(*build_ok(kRocmUser));
  CHECK(plan.summary == "create /home/alice/.bashrc");
  CHECK(*plan.writes[0].content == kBlock);
  CHECK(plan.writes[0].attrs.uid == 1000);
  CHECK(plan.writes[0].attrs.mode == 0644);
}

TEST_CASE("profile_env: the managed block is replaced in place and the rest of ~/.bashrc is kept") {
  ProfileEnvMachine m;
  const std::string head = "# top\n";
  const std::string tail = "\n# after the block\nexport EDITOR=vi\n";
  m.fs.add_file("/home/alice/.bashrc",
                head + "# >>> wslgpu-setup rocm >>>\nexport OLD=1\n# <<< wslgpu-setup rocm <<<\n" + tail, 0644, 1000,
                1000);
  auto step = build_ok(kRocmUser);
  auto plan = m.plan(*step);
  CHECK(plan.summary == "update the managed block in /home/alice/.bashrc");
  CHECK(*plan.writes[0].content == head + kBlock + tail);
  carry_out_writes(m.fs, plan);
  CHECK(m.plan(*step).verdict == Verdict::noop);
  CHECK(m.plan(*step).summary == "the managed block in /home/alice/.bashrc is as wanted");
}

TEST_CASE("profile_env: another manifest's block is left alone") {
  ProfileEnvMachine m;
  const std::string other = "# >>> wslgpu-setup cuda >>>\nexport X=1\n# <<< wslgpu-setup cuda <<<\n";
  m.fs.add_file("/home/alice/.bashrc", other, 0644, 1000, 1000);
  auto plan = m.plan(*build_ok(kRocmUser));
  CHECK(*plan.writes[0].content == other + "\n" + kBlock);
}

TEST_CASE("profile_env: a marker found twice stops the plan naming the file and line, and nothing changes") {
  ProfileEnvMachine m;
  const std::string before = kBlock + "echo hi\n" + kBlock;
  m.fs.add_file("/home/alice/.bashrc", before, 0644, 1000, 1000);
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kRocmUser)),
                       "/home/alice/.bashrc:8:1: the marker \"# >>> wslgpu-setup rocm >>>\" appears again (first on line "
                       "1), so the managed block is ambiguous. Remove the stray marker (or the extra block) by hand, "
                       "then run again. Nothing was changed.",
                       InputError);
  CHECK(m.fs.read("/home/alice/.bashrc") == before);
  CHECK(m.fs.writes == 0);
}

TEST_CASE("profile_env: a second end marker alone is reported too") {
  ProfileEnvMachine m;
  m.fs.add_file("/home/alice/.bashrc", kBlock + "# <<< wslgpu-setup rocm <<<\n");
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kRocmUser)),
                       "/home/alice/.bashrc:7:1: the marker \"# <<< wslgpu-setup rocm <<<\" appears again (first on line "
                       "6), so the managed block is ambiguous. Remove the stray marker (or the extra block) by hand, "
                       "then run again. Nothing was changed.",
                       InputError);
}

TEST_CASE("profile_env: an orphaned start marker stops the plan") {
  ProfileEnvMachine m;
  const std::string before = "a\n# >>> wslgpu-setup rocm >>>\nexport X=1\n";
  m.fs.add_file("/home/alice/.bashrc", before);
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kRocmUser)),
                       "/home/alice/.bashrc:2:1: the marker \"# >>> wslgpu-setup rocm >>>\" has no closing \"# <<< "
                       "wslgpu-setup rocm <<<\" after it. Remove the stray marker (or the extra block) by hand, then "
                       "run again. Nothing was changed.",
                       InputError);
  CHECK(m.fs.read("/home/alice/.bashrc") == before);
}

TEST_CASE("profile_env: an orphaned end marker stops the plan") {
  ProfileEnvMachine m;
  m.fs.add_file("/home/alice/.bashrc", "a\nb\n# <<< wslgpu-setup rocm <<<\r\n");
  CHECK_THROWS_WITH_AS(m.plan(*build_ok(kRocmUser)),
                       "/home/alice/.bashrc:3:1: the marker \"# <<< wslgpu-setup rocm <<<\" has no opening \"# >>> "
                       "wslgpu-setup rocm >>>\" before it. Remove the stray marker (or the extra block) by hand, then "
                       "run again. Nothing was changed.",
                       InputError);
}

TEST_CASE("profile_env: an end marker before its start marker stops the plan") {
  ProfileEnvMachine m;
  m.fs.add_file("/home/alice/.bashrc", "# <<< wslgpu-setup rocm <<<\nx\n# >>> wslgpu-setup rocm >>>\n");
  CHECK_THROWS_WITH_AS(
      m.plan(*build_ok(kRocmUser)),
      "/home/alice/.bashrc:1:1: the marker \"# <<< wslgpu-setup rocm <<<\" comes before its opening "
      "marker on line 3. Remove the stray marker (or the extra block) by hand, then run again. Nothing "
      "was changed.",
      InputError);
}

TEST_CASE("profile_env: a value cannot forge a marker line") {
  CHECK(build_errors(R"(
kind = "profile_env"
target = "user"
env = { A = "x\n# <<< wslgpu-setup rocm <<<" }
)") == "m.toml:4:13: the value of A must be one line without control characters");
}

TEST_CASE("profile_env: variable names and folders are checked when the manifest loads") {
  CHECK(build_errors("kind = \"profile_env\"\nenv = { \"1BAD\" = \"x\" }\n") ==
        "m.toml:2:9: \"1BAD\" is not a valid environment variable name (letters, digits and '_', not starting with a "
        "digit)");
  CHECK(build_errors("kind = \"profile_env\"\nenv = { \"A;rm\" = \"x\" }\n") ==
        "m.toml:2:9: \"A;rm\" is not a valid environment variable name (letters, digits and '_', not starting with a "
        "digit)");
  CHECK(build_errors("kind = \"profile_env\"\nenv = { PATH = \"/x\" }\n") ==
        "m.toml:2:9: set PATH through \"path_append\" or \"path_prepend\", which keep what is there, not through "
        "\"env\"");
  CHECK(build_errors("kind = \"profile_env\"\npath_append = [\"bin\"]\n") ==
        "m.toml:2:15: \"bin\" in \"path_append\" must be an absolute folder such as \"/opt/rocm/bin\"");
  CHECK(build_errors("kind = \"profile_env\"\nld_library_path = [\"/a:/b\"]\n") ==
        "m.toml:2:19: \"/a:/b\" in \"ld_library_path\" must not hold ':', which separates folders in the list");
  CHECK(build_errors("kind = \"profile_env\"\n") ==
        "m.toml:1:8: a profile_env step needs at least one of \"path_append\", \"path_prepend\", \"ld_library_path\", "
        "\"library_path\" and \"env\"");
  CHECK(build_errors("kind = \"profile_env\"\nenv = { LIBRARY_PATH = \"/x\" }\n") ==
        "m.toml:2:9: set LIBRARY_PATH through \"library_path\", which keep what is there, not through \"env\"");
}

TEST_CASE("profile_env: library_path puts a folder on the linker's search path, as torch.compile's -lcuda needs") {
  ProfileEnvMachine m;
  auto plan = m.plan(*build_ok("kind = \"profile_env\"\nlibrary_path = [\"/usr/lib/wsl/lib\"]\n"));
  REQUIRE(plan.writes.size() == 1);
  REQUIRE(plan.writes[0].content);
  CHECK(plan.writes[0].content->find("case \":${LIBRARY_PATH}:\" in *':/usr/lib/wsl/lib:'*) ;; *) "
                                     "LIBRARY_PATH='/usr/lib/wsl/lib'\"${LIBRARY_PATH:+:${LIBRARY_PATH}}\" ;; esac\n"
                                     "export LIBRARY_PATH\n") != std::string::npos);
}

TEST_CASE("profile_env: target user without a user refuses") {
  ProfileEnvMachine m;
  m.host.user = "";
  auto plan = m.plan(*build_ok(kRocmUser));
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary == "no user to provision for target = \"user\": pass --user NAME");
}

TEST_CASE("profile_env: target user refuses when the home folder does not exist") {
  ProfileEnvMachine m;
  m.host.user_home = "/home/nobody";
  auto plan = m.plan(*build_ok(kRocmUser));
  CHECK(plan.verdict == Verdict::refused);
  CHECK(plan.summary == "the home folder /home/nobody of alice does not exist");
}

TEST_CASE("profile_env: plan, apply and undo leave ~/.bashrc byte for byte as it was, mode and owner too") {
  ProfileEnvMachine m;
  m.fs.add_file("/home/alice/.bashrc", "# mine\r\nexport PS1='$ '", 0640, 1000, 1001);
  auto before = snapshot(m.fs);
  auto plan = m.plan(*build_ok(kRocmUser));
  carry_out_writes(m.fs, plan);
  CHECK(m.fs.read("/home/alice/.bashrc") != "# mine\r\nexport PS1='$ '");
  restore_writes(m.fs, plan, before);
  CHECK(snapshot(m.fs) == before);
}

TEST_CASE("profile_env: plan, apply and undo of the profile.d file removes it again") {
  ProfileEnvMachine m;
  auto before = snapshot(m.fs);
  auto plan = m.plan(*build_ok(kRocm));
  carry_out_writes(m.fs, plan);
  CHECK(m.fs.stat("/etc/profile.d/wslgpu-rocm.sh"));
  restore_writes(m.fs, plan, before);
  CHECK(snapshot(m.fs) == before);
}
