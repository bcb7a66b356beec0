// resolve_plan on an in-memory machine, and the two ways a plan is shown:
// text for people and JSON for scripts.
#include <doctest/doctest.h>

#include "installer/manifest/manifest.hpp"
#include "installer/plan/plan_output.hpp"
#include "installer/planner/planner.hpp"
#include "support/fakes.hpp"

namespace doctest {
template <>
struct StringMaker<std::vector<std::string>> {
  static String convert(const std::vector<std::string>& lines) {
    std::string out = "{";
    for (const auto& l : lines) out += (out.size() > 1 ? ", \"" : "\"") + l + "\"";
    return (out + "}").c_str();
  }
};
}  // namespace doctest

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::MemoryFileSystem;

namespace {

const char* kHeader = R"([manifest]
name = "plan-test"
description = "plan tests"
schema_version = 1
)";

const char* kMotd = R"(
[[step]]
id = "motd"
kind = "file"
path = "/etc/motd"
content = "GPU ready\n"
)";

// A machine with accounts: alice is uid 1000, group alice 1000.
MemoryFileSystem machine() {
  MemoryFileSystem fs;
  fs.add_file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
  fs.add_file("/etc/group", "root:x:0:\nvideo:x:44:\nalice:x:1000:\n");
  fs.add_char_device("/dev/dxg");
  return fs;
}

struct Planned {
  Manifest manifest;
  Plan plan;
};

Planned plan_of(const std::string& steps, FileSystem& fs, const HostFacts& host = wslgpu::testing::fake_wsl_host()) {
  Manifest m = load_manifest(ManifestSource{"test.toml", std::string(kHeader) + steps, false}, {}, host);
  FakeProcessRunner runner;
  Plan p = resolve_plan(m, "test.toml", fs, runner, host);
  CHECK(runner.calls.empty());  // planning file and check steps runs nothing
  return {std::move(m), std::move(p)};
}

const PlannedStep& step(const Plan& plan, const std::string& id) {
  for (const auto& s : plan.steps)
    if (s.id == id) return s;
  FAIL("no step ", id);
  return plan.steps.front();
}

}  // namespace

TEST_CASE("a file step creates a missing file, showing it as a diff from /dev/null") {
  MemoryFileSystem fs = machine();
  auto [m, plan] = plan_of(kMotd, fs);
  const PlannedStep& s = step(plan, "motd");
  CHECK(s.index == 1);
  CHECK(s.kind == "file");
  CHECK(s.plan.verdict == Verdict::change);
  CHECK(s.plan.summary == "create /etc/motd");
  CHECK(s.plan.details == std::vector<std::string>{"--- /dev/null", "+++ /etc/motd", "@@ -0,0 +1 @@", "+GPU ready"});
  REQUIRE(s.plan.writes.size() == 1);
  CHECK(s.plan.writes[0].path == "/etc/motd");
  CHECK(*s.plan.writes[0].content == "GPU ready\n");
  CHECK(s.plan.writes[0].attrs.mode == 0644);
  REQUIRE(s.plan.changes.size() == 1);
  CHECK(s.plan.changes[0]["type"] == "file");
  CHECK(s.plan.changes[0]["action"] == "create");
  CHECK(s.plan.changes[0]["path"] == "/etc/motd");
  CHECK(s.plan.changes[0]["mode"] == "0644");
  CHECK(s.plan.fingerprint["file:/etc/motd"] == "absent");
  CHECK(plan.changes_pending());
  CHECK(fs.writes == 0);  // planning wrote nothing
  CHECK_FALSE(fs.stat("/etc/motd"));
}

TEST_CASE("a file step updates a file whose content differs, with a unified diff") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/motd", "old line\nkeep\n");
  auto [m, plan] = plan_of(R"(
[[step]]
id = "motd"
kind = "file"
path = "/etc/motd"
content = "new line\nkeep\n"
)",
                           fs);
  const PlannedStep& s = step(plan, "motd");
  CHECK(s.plan.verdict == Verdict::change);
  CHECK(s.plan.summary == "update /etc/motd");
  CHECK(s.plan.details ==
        std::vector<std::string>{"--- /etc/motd", "+++ /etc/motd", "@@ -1,2 +1,2 @@", "-old line", "+new line", " keep"});
  CHECK(s.plan.changes[0]["action"] == "update");
  CHECK(s.plan.changes[0]["diff"] == "--- /etc/motd\n+++ /etc/motd\n@@ -1,2 +1,2 @@\n-old line\n+new line\n keep\n");
  CHECK(fs.read("/etc/motd") == "old line\nkeep\n");
}

TEST_CASE("a file step is a no-op when content, mode and owner already match") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/motd", "GPU ready\n", 0644, 0, 0);
  auto [m, plan] = plan_of(kMotd, fs);
  const PlannedStep& s = step(plan, "motd");
  CHECK(s.plan.verdict == Verdict::noop);
  CHECK(s.plan.summary == "/etc/motd is as wanted");
  CHECK(s.plan.details.empty());
  CHECK(s.plan.writes.empty());
  CHECK(s.plan.changes.empty());
  CHECK_FALSE(plan.changes_pending());
}

TEST_CASE("a file step changes only the mode when only the mode differs") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/profile.d/rocm.sh", "export A=1\n", 0600);
  auto [m, plan] = plan_of(R"(
[[step]]
id = "profile"
kind = "file"
path = "/etc/profile.d/rocm.sh"
content = "export A=1\n"
mode = "0755"
)",
                           fs);
  const PlannedStep& s = step(plan, "profile");
  CHECK(s.plan.verdict == Verdict::change);
  CHECK(s.plan.summary == "update /etc/profile.d/rocm.sh");
  CHECK(s.plan.details == std::vector<std::string>{"mode 0600 -> 0755"});
  CHECK(s.plan.changes[0]["action"] == "attributes");
  CHECK(s.plan.changes[0]["mode"] == "0755");
  REQUIRE(s.plan.writes.size() == 1);
  CHECK(s.plan.writes[0].attrs.mode == 0755);
}

TEST_CASE("a file step changes the owner to the named user and group of the target") {
  MemoryFileSystem fs = machine();
  fs.add_file("/home/alice/.bashrc.d/rocm", "x\n", 0644, 0, 0);
  auto [m, plan] = plan_of(R"(
[[step]]
id = "user-file"
kind = "file"
path = "/home/alice/.bashrc.d/rocm"
content = "x\n"
owner = "alice"
group = "alice"
)",
                           fs);
  const PlannedStep& s = step(plan, "user-file");
  CHECK(s.plan.verdict == Verdict::change);
  CHECK(s.plan.details == std::vector<std::string>{"owner 0:0 -> 1000:1000"});
  REQUIRE(s.plan.writes.size() == 1);
  CHECK(s.plan.writes[0].attrs.uid == 1000);
  CHECK(s.plan.writes[0].attrs.gid == 1000);
}

TEST_CASE("a file step whose owner is not in the target's /etc/passwd is refused") {
  MemoryFileSystem fs = machine();
  auto [m, plan] = plan_of(R"(
[[step]]
id = "bob-file"
kind = "file"
path = "/home/bob/x"
content = "x\n"
owner = "bob"
)",
                           fs);
  const PlannedStep& s = step(plan, "bob-file");
  CHECK(s.plan.verdict == Verdict::refused);
  CHECK(s.plan.summary == "owner \"bob\" does not exist in /etc/passwd");
  CHECK(s.plan.writes.empty());
  CHECK(plan.changes_pending());
}

TEST_CASE("a file step with state = absent removes the file, and is a no-op when it is gone") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/apt/sources.list.d/old.list", "deb x y z\n");
  auto [m, plan] = plan_of(R"(
[[step]]
id = "old"
kind = "file"
path = "/etc/apt/sources.list.d/old.list"
state = "absent"

[[step]]
id = "gone"
kind = "file"
path = "/etc/apt/sources.list.d/never.list"
state = "absent"
)",
                           fs);
  CHECK(step(plan, "old").plan.verdict == Verdict::change);
  CHECK(step(plan, "old").plan.summary == "remove /etc/apt/sources.list.d/old.list");
  CHECK(step(plan, "old").plan.changes[0]["action"] == "remove");
  CHECK_FALSE(step(plan, "old").plan.writes[0].content);
  CHECK(step(plan, "gone").plan.verdict == Verdict::noop);
  CHECK(step(plan, "gone").plan.summary == "/etc/apt/sources.list.d/never.list is already absent");
}

TEST_CASE("a step whose when condition is false is skipped and not probed") {
  MemoryFileSystem fs = machine();
  auto [m, plan] = plan_of(R"(
[[step]]
id = "nvidia-only"
kind = "file"
path = "/etc/motd"
content = "CUDA\n"
when = "host.gpu_vendor == 'nvidia'"

[[step]]
id = "amd-only"
kind = "file"
path = "/etc/issue"
content = "ROCm\n"
when = "host.gpu_vendor == 'amd' && host.kernel >= '5.10.60.1'"
)",
                           fs);
  const PlannedStep& skipped = step(plan, "nvidia-only");
  CHECK(skipped.plan.verdict == Verdict::skipped);
  CHECK(skipped.plan.summary == "skipped: host.gpu_vendor == 'nvidia' is false");
  CHECK(skipped.plan.writes.empty());
  CHECK(skipped.plan.fingerprint.empty());
  CHECK(step(plan, "amd-only").plan.verdict == Verdict::change);
  CHECK(plan.count(Verdict::skipped) == 1);
}

TEST_CASE("a later step sees the file an earlier step would write") {
  MemoryFileSystem fs = machine();
  auto [m, plan] = plan_of(R"(
[[step]]
id = "write"
kind = "file"
path = "/etc/wslgpu/marker"
content = "ready\n"

[[step]]
id = "exists"
kind = "check"
path = "/etc/wslgpu/marker"
type = "file"
contains_line = "ready"

[[step]]
id = "same-again"
kind = "file"
path = "/etc/wslgpu/marker"
content = "ready\n"
)",
                           fs);
  CHECK(step(plan, "write").plan.verdict == Verdict::change);
  const PlannedStep& check = step(plan, "exists");
  CHECK(check.plan.verdict == Verdict::verify);
  CHECK(check.plan.details == std::vector<std::string>{"holds (with the changes above)"});
  CHECK(step(plan, "same-again").plan.verdict == Verdict::noop);
  CHECK(fs.writes == 0);  // the overlay kept it all in memory
  CHECK_FALSE(fs.stat("/etc/wslgpu/marker"));
}

TEST_CASE("check steps verify now what they can and defer commands to install") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/wsl.conf", "[boot]\nsystemd=true\n");
  auto [m, plan] = plan_of(R"(
[[step]]
id = "dxg"
kind = "check"
path = "/dev/dxg"
type = "char_device"
mode = "0666"

[[step]]
id = "libcuda"
kind = "check"
path = "/usr/lib/wsl/lib/libcuda.so.1"
on_fail = "warn"
advice = "Update the Windows NVIDIA driver."

[[step]]
id = "kernel"
kind = "check"
kernel_min = "5.10.60.1"

[[step]]
id = "kernel-new"
kind = "check"
kernel_min = "6.6"

[[step]]
id = "systemd"
kind = "check"
path = "/etc/wsl.conf"
contains_line = "systemd=false"

[[step]]
id = "rocminfo"
kind = "check"
command = ["rocminfo"]
output_matches = "gfx[0-9]+"
)",
                           fs);
  for (const auto& s : plan.steps) CHECK(s.plan.verdict == Verdict::verify);
  CHECK(step(plan, "dxg").plan.summary == "/dev/dxg is a char_device with mode 0666");
  CHECK(step(plan, "dxg").plan.details == std::vector<std::string>{"holds (with the changes above)"});
  CHECK(step(plan, "dxg").plan.fingerprint["check:/dev/dxg is a char_device with mode 0666"] == "holds");
  CHECK(step(plan, "libcuda").plan.details ==
        std::vector<std::string>{"would fail: /usr/lib/wsl/lib/libcuda.so.1 does not exist", "on failure: warn and go on"});
  CHECK(step(plan, "kernel").plan.summary == "kernel release is at least 5.10.60.1");
  CHECK(step(plan, "kernel").plan.details == std::vector<std::string>{"holds (with the changes above)"});
  CHECK(step(plan, "kernel-new").plan.details ==
        std::vector<std::string>{"would fail: the kernel is 5.15.153.1-microsoft-standard-WSL2, older than 6.6"});
  CHECK(step(plan, "systemd").plan.details ==
        std::vector<std::string>{"would fail: /etc/wsl.conf has no line \"systemd=false\""});
  CHECK(step(plan, "rocminfo").plan.summary == "`rocminfo` succeeds and prints /gfx[0-9]+/");
  CHECK(step(plan, "rocminfo").plan.details == std::vector<std::string>{"runs during install, after the steps before it"});
  CHECK(plan.count(Verdict::verify) == 6);
  CHECK_FALSE(plan.changes_pending());  // checks alone change nothing
}

TEST_CASE("plan_to_json carries the format version, whether changes are pending, and every step") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/issue", "same\n");
  auto [m, plan] = plan_of(std::string(kMotd) + R"(
[[step]]
id = "issue"
kind = "file"
path = "/etc/issue"
content = "same\n"

[[step]]
id = "dxg"
kind = "check"
path = "/dev/dxg"
)",
                           fs);
  nlohmann::json j = plan_to_json(plan);
  CHECK(j["format_version"] == 1);
  CHECK(j["changes_pending"] == true);
  CHECK(j["manifest"]["name"] == "plan-test");
  CHECK(j["manifest"]["source"] == "test.toml");
  CHECK(j["host"]["codename"] == "noble");
  REQUIRE(j["steps"].size() == 3);
  CHECK(j["steps"][0]["id"] == "motd");
  CHECK(j["steps"][0]["kind"] == "file");
  CHECK(j["steps"][0]["action"] == "change");
  CHECK(j["steps"][0]["index"] == 1);
  REQUIRE(j["steps"][0]["changes"].size() == 1);
  CHECK(j["steps"][0]["changes"][0]["path"] == "/etc/motd");
  CHECK(j["steps"][1]["action"] == "no-op");
  CHECK(j["steps"][1]["changes"].empty());
  CHECK(j["steps"][2]["kind"] == "check");
  CHECK(j["steps"][2]["action"] == "verify");
  CHECK(j["counts"]["change"] == 1);
  CHECK(j["counts"]["no-op"] == 1);
  CHECK(j["counts"]["verify"] == 1);
}

TEST_CASE("plan_to_json says no changes are pending on a converged machine") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/motd", "GPU ready\n");
  auto [m, plan] = plan_of(kMotd, fs);
  nlohmann::json j = plan_to_json(plan);
  CHECK(j["changes_pending"] == false);
  CHECK(j["steps"][0]["action"] == "no-op");
}

TEST_CASE("the text plan lists each step with its verdict, the diff and a summary line") {
  MemoryFileSystem fs = machine();
  auto [m, plan] = plan_of(std::string(kMotd) + R"(
[[step]]
id = "dxg"
kind = "check"
path = "/dev/dxg"
)",
                           fs);
  std::string text = render_plan_text(plan, TextStyle{false, false}, "sudo wslgpu-setup install ./test.toml");
  CHECK(text.find("wslgpu-setup " WSLGPU_VERSION " · profile plan-test (plan tests) · root / · user alice\n") == 0);
  CHECK(text.find("Machine: WSL2 kernel 5.15.153.1-microsoft-standard-WSL2 · /dev/dxg ok · ubuntu 24.04 (noble)") !=
        std::string::npos);
  CHECK(text.find("  1  file   motd  change   create /etc/motd\n") != std::string::npos);
  CHECK(text.find("+GPU ready\n") != std::string::npos);
  CHECK(text.find("  2  check  dxg   verify   /dev/dxg exists\n") != std::string::npos);
  CHECK(text.find("Plan: 1 change, 0 already done, 1 check. Nothing has been changed.\n") != std::string::npos);
  CHECK(text.find("Run `sudo wslgpu-setup install ./test.toml` to apply it.\n") != std::string::npos);
}

TEST_CASE("the plan install shows before it applies says neither that nothing changed nor what to run") {
  MemoryFileSystem fs = machine();
  auto [m, plan] = plan_of(kMotd, fs);
  std::string text = render_plan_text(plan, TextStyle{false, false}, "");
  CHECK(text.find("Plan: 1 change, 0 already done, 0 checks.\n") != std::string::npos);
  CHECK(text.find("Nothing has been changed") == std::string::npos);
  CHECK(text.find("Run `") == std::string::npos);
}

TEST_CASE("the text plan has no colour codes without colour, and colours verdicts and diffs with it") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/motd", "old\n");
  auto [m, plan] = plan_of(kMotd, fs);
  std::string plain = render_plan_text(plan, TextStyle{false, false}, "x");
  CHECK(plain.find('\x1b') == std::string::npos);
  std::string coloured = render_plan_text(plan, TextStyle{true, false}, "x");
  CHECK(coloured.find("\x1b[33mchange  \x1b[0m") != std::string::npos);
  CHECK(coloured.find("\x1b[31m-old\x1b[0m") != std::string::npos);
  CHECK(coloured.find("\x1b[32m+GPU ready\x1b[0m") != std::string::npos);
  // Without the codes, the coloured text is the plain text.
  std::string stripped;
  for (std::size_t i = 0; i < coloured.size(); ++i) {
    if (coloured[i] == '\x1b') {
      i = coloured.find('m', i);
      continue;
    }
    stripped += coloured[i];
  }
  CHECK(stripped == plain);
}

TEST_CASE("the text plan of a converged machine says so") {
  MemoryFileSystem fs = machine();
  fs.add_file("/etc/motd", "GPU ready\n");
  auto [m, plan] = plan_of(kMotd, fs);
  std::string text = render_plan_text(plan, TextStyle{false, false}, "x");
  CHECK(text.find("Plan: 0 changes, 1 already done, 0 checks. Nothing has been changed.\n") != std::string::npos);
  CHECK(text.find("The machine already matches this profile.\n") != std::string::npos);
}

TEST_CASE("the text plan shortens long details unless verbose") {
  MemoryFileSystem fs = machine();
  std::string content;
  for (int i = 0; i < 60; ++i) content += "line " + std::to_string(i) + "\\n";
  auto [m, plan] = plan_of(R"(
[[step]]
id = "big"
kind = "file"
path = "/etc/big.conf"
content = ")" + content + "\"\n",
                           fs);
  std::string shortened = render_plan_text(plan, TextStyle{false, false}, "x");
  CHECK(shortened.find("… 23 more lines (-v shows all)\n") != std::string::npos);
  CHECK(shortened.find("+line 59\n") == std::string::npos);
  std::string verbose = render_plan_text(plan, TextStyle{false, true}, "x");
  CHECK(verbose.find("more lines") == std::string::npos);
  CHECK(verbose.find("+line 59\n") != std::string::npos);
}

TEST_CASE("a file step sees a user that an earlier step of the same plan adds to /etc/passwd") {
  MemoryFileSystem fs;
  fs.add_file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  fs.add_file("/etc/group", "root:x:0:\n");
  Planned p = plan_of(R"(
[[step]]
id = "early-owner"
kind = "file"
path = "/etc/early"
content = "x\n"
owner = "root"

[[step]]
id = "passwd"
kind = "file"
path = "/etc/passwd"
content = "root:x:0:0:root:/root:/bin/bash\nbob:x:1001:1001::/home/bob:/bin/sh\n"

[[step]]
id = "bobs"
kind = "file"
path = "/etc/bobs"
content = "b\n"
owner = "bob"
)",
                      fs);
  // The users read for the first step are forgotten once a planned write
  // touches /etc/passwd, so the third step finds bob.
  CHECK(step(p.plan, "bobs").plan.verdict == Verdict::change);
  REQUIRE(step(p.plan, "bobs").plan.writes.size() == 1);
  CHECK(step(p.plan, "bobs").plan.writes[0].attrs.uid == 1001);
}

TEST_CASE("an apt step that cannot be planned (no apt in the root) still names the packages it is for") {
  MemoryFileSystem fs = machine();
  fs.add_file("/var/lib/dpkg/status",
              "Package: libhsakmt1\nStatus: install ok installed\nArchitecture: amd64\nVersion: 5.7.0-1build1\n\n");
  const HostFacts host = wslgpu::testing::fake_wsl_host();
  Manifest m = load_manifest(ManifestSource{"test.toml", std::string(kHeader) + R"(
[[step]]
id = "old-hsa"
kind = "apt_remove"
packages = ["libhsakmt1", "libhsa-runtime64-1"]

[[step]]
id = "rocm"
kind = "apt_install"
packages = ["rocm", "rocminfo"]
versions = { rocm = "7.2.2.*" }
replaces = ["hsa-runtime-rocr4wsl-amdgpu"]
)",
                                                   false},
                             {}, host);
  FakeProcessRunner runner;  // runs nothing: apt-get and apt-cache are "not found"
  Plan plan = resolve_plan(m, "test.toml", fs, runner, host);
  const PlannedStep& remove = step(plan, "old-hsa");
  CHECK(remove.plan.verdict == Verdict::refused);
  CHECK(remove.plan.summary ==
        "cannot be planned: `apt-get -s remove` could not run: apt-get was not found in the target root");
  CHECK(remove.plan.details ==
        std::vector<std::string>{"would remove whichever of libhsakmt1, libhsa-runtime64-1 is installed"});
  const PlannedStep& install = step(plan, "rocm");
  CHECK(install.plan.verdict == Verdict::refused);
  CHECK(install.plan.summary ==
        "cannot be planned: `apt-cache madison` could not run: apt-cache was not found in the target root");
  CHECK(install.plan.details ==
        std::vector<std::string>{"would install rocm 7.2.2.*, rocminfo, in place of installed packages matching "
                                 "hsa-runtime-rocr4wsl-amdgpu"});
  // The text plan shows it under the step's line, in the details' column.
  CHECK(render_plan_text(plan, TextStyle{false, false}, "")
            .find("cannot be planned: `apt-cache madison` could not run: apt-cache was not found in the target root\n" +
                  std::string(36, ' ') + "would install rocm 7.2.2.*, rocminfo") != std::string::npos);
}

TEST_CASE("the plan's machine line says what Windows listed, once a profile asked, and its JSON holds the facts") {
  MemoryFileSystem fs = machine();
  HostFacts host = wslgpu::testing::fake_wsl_host();
  host.windows_gpus = std::make_shared<const LazyWindowsGpus>(
      [] { return windows_gpu_facts({{"AMD Radeon RX 7900 XTX", "32.0.21041.1000", 0}}); });
  {
    auto [m, plan] = plan_of(kMotd, fs, host);
    CHECK(render_plan_text(plan, TextStyle{false, false}, "x").find("Windows GPU") == std::string::npos);
    CHECK_FALSE(plan_to_json(plan)["host"].contains("windows_gpus"));
  }
  host.windows_gpus->get();
  auto [m, plan] = plan_of(kMotd, fs, host);
  CHECK(render_plan_text(plan, TextStyle{false, false}, "x")
            .find(" · Windows GPU: AMD Radeon RX 7900 XTX (gfx1100), Windows driver 32.0.21041.1000 · ") !=
        std::string::npos);
  nlohmann::json j = plan_to_json(plan);
  CHECK(j["host"]["windows_gpus"]["amd_gfx"] == "gfx1100");
  CHECK(j["host"]["windows_gpus"]["amd_igpu"] == false);
}
