// deb_install: a .deb inspected in plan (its files, no kernel modules),
// installed with dpkg and purged by undo; by path or downloaded by url.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "installer/formats/sha256.hpp"
#include "installer/manifest/step_keys.hpp"
#include "installer/manifest/step_kind.hpp"
#include "installer/plan/overlay_filesystem.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/process.hpp"
#include "installer/undo/undo_store.hpp"
#include "steps/apt/apt_freshness.hpp"
#include "steps/step.hpp"
#include "support/fakes.hpp"
#include "unit/steps/apt/apt_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

std::string build_deb(const TempDir& work, const std::string& dir, const std::string& out_host) {
  RealProcessRunner runner("/");
  Command cmd;
  cmd.argv = {"dpkg-deb", "--root-owner-group", "--build", work.path() + "/" + dir, out_host};
  cmd.in_root = false;
  cmd.timeout = std::chrono::seconds(60);
  ProcessResult r = runner.run(cmd);
  REQUIRE_MESSAGE(r.ok(), r.err);
  return out_host;
}

}  // namespace

TEST_CASE("deb_install lists a package's files in plan, installs it with dpkg and undo purges it") {
  TempDir work, root;
  work.write("kr/DEBIAN/control", "Package: cuda-keyring\nVersion: 1.1-1\nArchitecture: all\nMaintainer: t <t@x>\n"
                                  "Depends: gpgv\nDescription: t\n");
  work.write("kr/usr/share/keyrings/cuda-archive-keyring.gpg", "KEY");
  work.write("kr/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list", "deb x /\n");
  std::filesystem::create_directories(root.path() + "/var/cache/debs");
  build_deb(work, "kr", root.path() + "/var/cache/debs/cuda-keyring_1.1-1_all.deb");
  root.write("var/lib/dpkg/status", status_text({{"gpgv", "2.2.40-1.1"}}));
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto step = make_step("deb_install", "path = \"/var/cache/debs/cuda-keyring_1.1-1_all.deb\"\n");
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "install cuda-keyring 1.1-1 from /var/cache/debs/cuda-keyring_1.1-1_all.deb (2 files)");
  CHECK(p.changes == nlohmann::json::parse(R"([{"type":"package","action":"install","name":"cuda-keyring","version":"1.1-1"}])"));
  CHECK(p.details.at(0) == "depends: gpgv");
  CHECK(p.details.at(1) == "files:");
  std::vector<std::string> files(p.details.begin() + 2, p.details.end());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"  /etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list",
                                          "  /usr/share/keyrings/cuda-archive-keyring.gpg"});
  CHECK(runner.calls.empty());

  runner.on({"dpkg", "--force-confdef"}, [&](const Command&) {
    root.write("var/lib/dpkg/status", status_text({{"gpgv", "2.2.40-1.1"}, {"cuda-keyring", "1.1-1"}}));
    return ok();
  });
  runner.on({"dpkg", "--purge"}, ok());
  auto data = step->apply(ctx, p);
  REQUIRE(runner.calls.size() == 1);
  CHECK(runner.calls[0].argv ==
        Argv{"dpkg", "--force-confdef", "--force-confold", "-i", "/var/cache/debs/cuda-keyring_1.1-1_all.deb"});
  CHECK(runner.calls[0].env == kAptEnv);
  CHECK(data == nlohmann::json::parse(R"({"name":"cuda-keyring","version":"1.1-1","previous_version":null})"));
  CHECK(step->plan(ctx).verdict == Verdict::noop);

  step->undo(ctx, data);
  REQUIRE(runner.calls.size() == 2);
  CHECK(runner.calls[1].argv == Argv{"dpkg", "--purge", "cuda-keyring"});
}

TEST_CASE("deb_install refuses a package that ships a DKMS module, in plan and in apply") {
  TempDir work, root;
  work.write("d/DEBIAN/control", "Package: amdgpu-dkms\nVersion: 1:6.12.12\nArchitecture: all\nMaintainer: t <t@x>\nDescription: t\n");
  work.write("d/usr/src/amdgpu-6.12.12/dkms.conf", "PACKAGE_NAME=amdgpu\n");
  std::filesystem::create_directories(root.path() + "/tmp");
  build_deb(work, "d", root.path() + "/tmp/amdgpu-dkms.deb");
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto step = make_step("deb_install", "path = \"/tmp/amdgpu-dkms.deb\"\n");
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary == "refused: amdgpu-dkms ships a DKMS module source (/usr/src/amdgpu-6.12.12/dkms.conf)");
  CHECK_THROWS_AS(step->apply(ctx, p), Refusal);
  CHECK(runner.calls.empty());
}

TEST_CASE("deb_install with url downloads into the cache during plan, checked, to show the package") {
  TempDir work, root;
  work.write("p/DEBIAN/control", "Package: amdgpu-install\nVersion: 6.4.60402-1\nArchitecture: all\nMaintainer: t <t@x>\nDescription: t\n");
  work.write("p/usr/bin/amdgpu-install", "#!/bin/sh\n");
  std::string deb = build_deb(work, "p", work.path() + "/amdgpu-install_6.4.60402-1_all.deb");
  std::ifstream in(deb, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  std::string sha = sha256_hex(bytes);
  auto step = make_step("deb_install", "url = \"file://" + deb + "\"\nsha256 = \"" + sha + "\"\n");
  StepPlan p = step->plan(ctx);
  std::string cached = "/var/lib/wslgpu-setup/cache/" + sha.substr(0, 16) + "-amdgpu-install_6.4.60402-1_all.deb";
  CHECK(p.summary == "install amdgpu-install 6.4.60402-1 from " + cached + " (1 file)");
  CHECK(p.details.back() == "  /usr/bin/amdgpu-install");
  CHECK(std::filesystem::exists(root.path() + cached));
}

TEST_CASE("deb_install whose path an earlier step creates says so in plan") {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  StepPlan p = make_step("deb_install", "path = \"/var/lib/wslgpu-setup/cache/x.deb\"\n")->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "install the package in /var/lib/wslgpu-setup/cache/x.deb (not there yet: an earlier step creates it)");
}

TEST_CASE("deb_install needs exactly one of path and url") {
  std::vector<Diagnostic> diags;
  make_step("deb_install", "", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message == "step kind \"deb_install\" needs the key \"path\" or \"url\"");
  diags.clear();
  make_step("deb_install", "path = \"/x.deb\"\nurl = \"https://x/y.deb\"\nsha256 = \"" + std::string(64, 'a') + "\"\n", diags);
  REQUIRE_FALSE(diags.empty());
  CHECK(diags[0].message == "give either \"path\" or \"url\", not both");
}

TEST_CASE("deb_install installs again a package that an earlier step of the same plan removes") {
  TempDir work, root;
  work.write("r/DEBIAN/control", "Package: rocdxg-roct\nVersion: 1.2.2\nArchitecture: amd64\nMaintainer: t <t@x>\n"
                                 "Description: t\n");
  work.write("r/opt/rocm/lib/librocdxg.so", "ELF");
  std::filesystem::create_directories(root.path() + "/var/cache/debs");
  build_deb(work, "r", root.path() + "/var/cache/debs/rocdxg-roct_1.2.2_amd64.deb");
  root.write("var/lib/dpkg/status", status_text({{"rocdxg-roct", "1.2.2"}}));
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto step = make_step("deb_install", "path = \"/var/cache/debs/rocdxg-roct_1.2.2_amd64.deb\"\n");
  CHECK(step->plan(ctx).summary == "rocdxg-roct 1.2.2 is already installed");
  // An apt_remove before it in the plan takes it away (rocm's legacy-rocdxg).
  ctx.made_by_earlier_steps[StepContext::kPackagesRemovedByEarlierSteps]["rocdxg-roct"] = "1.2.2";
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "install rocdxg-roct 1.2.2 from /var/cache/debs/rocdxg-roct_1.2.2_amd64.deb (1 file)");
}
