// apt_repository's files: the deb822 source, the key as .asc or .gpg and the
// pin, as plan writes; a key pinned by key_sha256; key_url fetched during
// plan; and its keys checked together. The fingerprint pin and the sources
// already there: test_apt_repository.cpp.
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
const std::string kArmouredKey = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBFake\n-----END PGP PUBLIC KEY BLOCK-----\n";
}

TEST_CASE("apt_repository writes a deb822 source, the checked key as .asc and a pin, all as file writes") {
  MemoryFileSystem fs;
  fs.add_file("/srv/rocm.gpg.key", kArmouredKey);
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  auto step = make_step("apt_repository",
                        "repo_name = \"rocm\"\nuris = [\"https://repo.radeon.com/rocm/apt/6.4.2\"]\nsuites = [\"noble\"]\n"
                        "components = [\"main\"]\narchitectures = [\"amd64\"]\nkey_file = \"/srv/rocm.gpg.key\"\n"
                        "key_sha256 = \"" + sha256_hex(kArmouredKey) + "\"\npin_origin = \"repo.radeon.com\"\npin_priority = 600\n");
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  std::string digest = sha256_hex(kArmouredKey);
  CHECK(p.summary == "add /etc/apt/sources.list.d/rocm.sources, key rocm.asc (sha256 " + digest.substr(0, 4) + "…" +
                         digest.substr(62) + "), pin 600");
  REQUIRE(p.writes.size() == 3);
  CHECK(p.writes[0].path == "/etc/apt/keyrings/rocm.asc");
  CHECK(p.writes[0].content == kArmouredKey);
  CHECK(p.writes[1].path == "/etc/apt/sources.list.d/rocm.sources");
  CHECK(p.writes[1].content == "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2\nSuites: noble\n"
                               "Components: main\nArchitectures: amd64\nSigned-By: /etc/apt/keyrings/rocm.asc\n");
  CHECK(p.writes[2].path == "/etc/apt/preferences.d/rocm.pref");
  CHECK(p.writes[2].content == "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n");
  for (const auto& w : p.writes) CHECK(w.attrs.mode == 0644);
  CHECK(fs.writes == 0);
  CHECK(runner.calls.empty());

  for (const auto& w : p.writes) fs.write_atomic(w.path, *w.content, w.attrs);
  StepPlan again = step->plan(ctx);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.summary == "apt repository \"rocm\" is as wanted");
}

TEST_CASE("apt_repository keeps a binary key as .gpg and refuses a key whose hash differs") {
  MemoryFileSystem fs;
  std::string binary("\x99\x02\x0d\x04", 4);
  fs.add_file("/srv/key.gpg", binary);
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  std::string common = "repo_name = \"cuda\"\nuris = [\"https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/\"]\n"
                       "suites = [\"/\"]\nkey_file = \"/srv/key.gpg\"\n";
  StepPlan p = make_step("apt_repository", common + "key_sha256 = \"" + sha256_hex(binary) + "\"\n")->plan(ctx);
  REQUIRE(p.writes.size() == 2);
  CHECK(p.writes[0].path == "/etc/apt/keyrings/cuda.gpg");
  CHECK(p.writes[1].content == "Types: deb\nURIs: https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/\n"
                               "Suites: /\nSigned-By: /etc/apt/keyrings/cuda.gpg\n");
  std::string wrong(64, '0');
  CHECK_THROWS_WITH_AS(make_step("apt_repository", common + "key_sha256 = \"" + wrong + "\"\n")->plan(ctx),
                       ("the key file /srv/key.gpg has SHA-256 " + sha256_hex(binary) + ", but key_sha256 says " + wrong +
                        "; the key was not used. Check where the file came from, or correct key_sha256.")
                           .c_str(),
                       StepFailure);
}

TEST_CASE("apt_repository fetches key_url into the state directory's cache during plan") {
  TempDir root, elsewhere;
  elsewhere.write("rocm.gpg.key", kArmouredKey);
  RootedFileSystem disk(root.path());
  OverlayFileSystem overlay(disk);
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{overlay, runner, host, "test"};
  auto step = make_step("apt_repository", "repo_name = \"rocm\"\nuris = [\"https://repo.radeon.com/rocm/apt/6.4.2\"]\n"
                                          "suites = [\"noble\"]\ncomponents = [\"main\"]\nkey_url = \"file://" +
                                              elsewhere.path() + "/rocm.gpg.key\"\nkey_sha256 = \"" +
                                              sha256_hex(kArmouredKey) + "\"\n");
  StepPlan p = step->plan(ctx);
  CHECK(p.writes.at(0).content == kArmouredKey);
  CHECK(std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup/cache/keys/" + sha256_hex(kArmouredKey) + ".key"));
  CHECK_FALSE(std::filesystem::exists(root.path() + "/etc/apt"));
}

TEST_CASE("apt_repository manifest keys are checked together") {
  std::vector<Diagnostic> diags;
  make_step("apt_repository",
            "repo_name = \"ROCm repo\"\nuris = [\"https://x/\"]\nsuites = [\"noble\"]\nkey_url = \"http://x/key\"\n"
            "key_file = \"/k\"\nkey_sha256 = \"zz\"\npin_origin = \"repo.radeon.com\"\n",
            diags);
  std::vector<std::string> messages;
  for (const auto& d : diags) messages.push_back(d.str());
  CHECK(messages == std::vector<std::string>{
                        "test.toml:2:13: \"repo_name\" must be lowercase letters, digits, '.', '_' and '-' (it names files in "
                        "/etc/apt), not \"ROCm repo\"",
                        "test.toml:4:10: step kind \"apt_repository\" needs the key \"components\" (such as [\"main\"]) "
                        "unless every suite is a flat repository path ending in \"/\"",
                        "test.toml:6:12: give either \"key_url\" or \"key_file\", not both",
                        "test.toml:5:11: \"http://x/key\" is plain HTTP, which anyone on the way can tamper with; use an "
                        "https:// URL, or set insecure_http = true if the server offers nothing else (the SHA-256 check "
                        "still applies)",
                        "test.toml:7:14: \"key_sha256\" must be 64 hexadecimal digits (the output of `sha256sum`)",
                        "test.toml:8:14: \"pin_origin\" and \"pin_priority\" go together: give both or neither"});
}
