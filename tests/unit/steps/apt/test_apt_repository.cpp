// apt_repository: the key pinned by its OpenPGP fingerprint, and the sources
// that vendor installers left behind, reused or taken over. The keys are
// made by gpg at test time (tests/support/gpg_keys.hpp); the leftover files
// are the ones ../shared/VENDOR-FACTS.md lists under "What earlier installs
// leave behind". Nothing here runs apt.
#include <doctest/doctest.h>

#include <filesystem>

#include "installer/formats/openpgp.hpp"
#include "installer/plan/overlay_filesystem.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"
#include "support/gpg_keys.hpp"
#include "support/helpers.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const std::string kRocmUri = "https://repo.radeon.com/rocm/apt/6.4.2";
const std::string kAmdgpuUri = "https://repo.radeon.com/amdgpu/6.4.2/ubuntu";
const std::string kCudaUri = "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/";
const std::string kCudaList = "/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list";
const std::string kCudaKeyring = "/usr/share/keyrings/cuda-archive-keyring.gpg";
// Nothing listens there: a plan that tried the network would fail fast.
const std::string kUnreachable = "https://127.0.0.1:1/key";

const TestKey& pinned() { return test_key(0); }
const TestKey& other() { return test_key(1); }

std::string short_fpr(const std::string& f) {
  return f.substr(0, 4) + " " + f.substr(4, 4) + " … " + f.substr(32, 4) + " " + f.substr(36, 4);
}

struct World {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  World() { host.arch = "amd64"; }
};

// AMD's rocm repository as the profile writes it, keyed by KEY_LINE.
std::string rocm_step(const std::string& key_lines, const std::string& repo = "rocm",
                      const std::string& uri = kRocmUri) {
  return "kind = \"apt_repository\"\nrepo_name = \"" + repo + "\"\nuris = [\"" + uri +
         "\"]\nsuites = [\"noble\"]\ncomponents = [\"main\"]\narchitectures = [\"amd64\"]\n" + key_lines +
         "pin_origin = \"repo.radeon.com\"\npin_priority = 600\n";
}

std::string by_file(const std::string& path, const std::string& fpr) {
  return "key_file = \"" + path + "\"\nkey_fingerprint = \"" + fpr + "\"\n";
}

std::string cuda_step(const std::string& key_lines) {
  return "kind = \"apt_repository\"\nrepo_name = \"cuda-wsl-ubuntu\"\nuris = [\"" + kCudaUri +
         "\"]\nsuites = [\"/\"]\n" + key_lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::vector<std::string> write_list(const StepPlan& p) {
  std::vector<std::string> out;
  for (const auto& w : p.writes) out.push_back((w.content ? "write " : "remove ") + w.path);
  return out;
}

// What amdgpu-install leaves: its two lists, the key they name, AMD's pin,
// all conffiles of the amdgpu-install package.
void plant_amdgpu_install(MemoryFileSystem& fs, const std::string& keyring_bytes) {
  fs.add_file("/etc/apt/sources.list.d/amdgpu.list", "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] " +
                                                         kAmdgpuUri +
                                                         " noble main\n"
                                                         "#deb-src [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] " +
                                                         kAmdgpuUri + " noble main\n");
  fs.add_file("/etc/apt/sources.list.d/rocm.list",
              "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] " + kRocmUri + " noble main\n");
  fs.add_file("/etc/apt/keyrings/rocm.gpg", keyring_bytes);
  fs.add_file("/etc/apt/preferences.d/repo-radeon-pin-600",
              "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n");
  fs.add_file("/var/lib/dpkg/info/amdgpu-install.conffiles",
              "/etc/apt/preferences.d/repo-radeon-pin-600\n/etc/apt/sources.list.d/amdgpu.list\n"
              "/etc/apt/sources.list.d/rocm.list\n");
  fs.add_file("/var/lib/dpkg/info/amdgpu-install.list",
              "/etc/apt/preferences.d/repo-radeon-pin-600\n/etc/apt/sources.list.d/amdgpu.list\n"
              "/etc/apt/sources.list.d/rocm.list\n/usr/bin/amdgpu-install\n");
}

// What NVIDIA's cuda-keyring package leaves: its list (a conffile when
// LIST_IS_CONFFILE) and its binary keyring.
void plant_cuda_keyring(MemoryFileSystem& fs, const std::string& keyring_bytes, bool list_is_conffile = true) {
  fs.add_file(kCudaList, "deb [signed-by=" + kCudaKeyring + "] " + kCudaUri + " /\n");
  fs.add_file(kCudaKeyring, keyring_bytes);
  if (list_is_conffile) fs.add_file("/var/lib/dpkg/info/cuda-keyring.conffiles", kCudaList + "\n");
  fs.add_file("/var/lib/dpkg/info/cuda-keyring.list", "/.\n/etc\n" + kCudaList + "\n" + kCudaKeyring + "\n");
}

}  // namespace

// ------------------------------------------------------------ key_fingerprint

TEST_CASE("apt_repository takes the key whose fingerprint is pinned, armoured as .asc, binary as .gpg") {
  World w;
  w.fs.add_file("/srv/rocm.asc", pinned().armoured);
  w.fs.add_file("/srv/rocm.gpg", pinned().binary);
  // gpg's grouping, in lower case: the same fingerprint.
  std::string spaced = format_fingerprint(pinned().fingerprint);
  for (char& c : spaced) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  StepPlan p = build_ok(rocm_step(by_file("/srv/rocm.asc", spaced)))->plan(w.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "add /etc/apt/sources.list.d/rocm.sources, key rocm.asc (" + short_fpr(pinned().fingerprint) +
                         " verified), pin 600");
  CHECK(write_list(p) == std::vector<std::string>{"write /etc/apt/keyrings/rocm.asc",
                                                  "write /etc/apt/sources.list.d/rocm.sources",
                                                  "write /etc/apt/preferences.d/rocm.pref"});
  CHECK(p.writes[0].content == pinned().armoured);
  CHECK(p.details.back().rfind(
            "key " + format_fingerprint(pinned().fingerprint) + " (ed25519, Test Key 0 <t0@example.invalid>, expires ",
            0) == 0);
  CHECK(w.fs.writes == 0);

  StepPlan binary = build_ok(rocm_step(by_file("/srv/rocm.gpg", pinned().fingerprint)))->plan(w.ctx);
  CHECK(binary.writes.at(0).path == "/etc/apt/keyrings/rocm.gpg");
  CHECK(binary.writes.at(0).content == pinned().binary);

  carry_out_writes(w.fs, p);
  StepPlan again = build_ok(rocm_step(by_file("/srv/rocm.asc", spaced)))->plan(w.ctx);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.summary == "apt repository \"rocm\" is as wanted");
}

TEST_CASE("apt_repository writes only the binary key of a file that also holds its armour, as AMD's packages.gpg does") {
  World w;
  w.fs.add_file("/srv/packages.gpg", pinned().binary + pinned().armoured);
  const std::string step = "kind = \"apt_repository\"\nrepo_name = \"rocm\"\nuris = [\"file:/srv/core/ubuntu2404/\"]\n"
                           "suites = [\"stable\"]\ncomponents = [\"main\"]\n" +
                           by_file("/srv/packages.gpg", pinned().fingerprint) +
                           "pin_origin = \"AMD ROCm\"\npin_priority = 600\n";
  StepPlan p = build_ok(step)->plan(w.ctx);
  INFO(p.summary << "\n" << joined(p.details));
  REQUIRE(p.verdict == Verdict::change);
  CHECK(p.writes.at(0).path == "/etc/apt/keyrings/rocm.gpg");
  CHECK(p.writes.at(0).content == pinned().binary);
  CHECK(contains(joined(p.details), "only the binary key is written"));
  // The origin is two words, and the pin names it whole.
  CHECK(p.writes.at(2).path == "/etc/apt/preferences.d/rocm.pref");
  CHECK(contains(*p.writes.at(2).content, "Pin: release o=AMD ROCm\n"));

  SUBCASE("and the armoured key an earlier run wrote for the same repository goes") {
    w.fs.add_file("/etc/apt/keyrings/rocm.asc", pinned().armoured);
    w.fs.add_file("/etc/apt/sources.list.d/rocm.sources",
                  "Types: deb\nURIs: " + kRocmUri + "\nSuites: noble\nComponents: main\nSigned-By: /etc/apt/keyrings/rocm.asc\n");
    StepPlan switched = build_ok(step)->plan(w.ctx);
    CHECK(write_list(switched) == std::vector<std::string>{"remove /etc/apt/keyrings/rocm.asc",
                                                           "write /etc/apt/keyrings/rocm.gpg",
                                                           "write /etc/apt/sources.list.d/rocm.sources",
                                                           "write /etc/apt/preferences.d/rocm.pref"});
  }
  SUBCASE("unless another source still names it") {
    w.fs.add_file("/etc/apt/keyrings/rocm.asc", pinned().armoured);
    w.fs.add_file("/etc/apt/sources.list.d/mine.sources",
                  "Types: deb\nURIs: https://example.invalid/x\nSuites: noble\nComponents: main\n"
                  "Signed-By: /etc/apt/keyrings/rocm.asc\n");
    StepPlan kept = build_ok(step)->plan(w.ctx);
    for (const auto& line : write_list(kept)) CHECK(line != "remove /etc/apt/keyrings/rocm.asc");
  }
}

TEST_CASE("apt_repository refuses a pin origin that apt would read as another one: commas, line breaks, edge spaces") {
  for (const std::string origin : {"AMD, ROCm", " AMD ROCm", "AMD ROCm ", "AMD\\tROCm"}) {
    INFO(origin);
    CHECK(contains(build_errors("kind = \"apt_repository\"\nrepo_name = \"rocm\"\nuris = [\"file:/srv/x/\"]\n"
                               "suites = [\"stable\"]\nkey_file = \"/k\"\nkey_sha256 = \"" +
                               std::string(64, 'a') + "\"\npin_origin = \"" + origin + "\"\npin_priority = 600\n"),
                   "without commas, tabs, line breaks or spaces at either end"));
  }
}

TEST_CASE("apt_repository refuses a key with another fingerprint, naming both and where the key came from") {
  World w;
  w.fs.add_file("/srv/rocm.asc", other().armoured);
  StepPlan p = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)))->plan(w.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary == "the key file /srv/rocm.asc is " + format_fingerprint(other().fingerprint) + ", not the pinned " +
                         format_fingerprint(pinned().fingerprint));
  CHECK(p.details == std::vector<std::string>{
                         "The key was not used. Either the server sent another key (a proxy or a mirror may serve its "
                         "own), or the vendor has moved to a new key: compare with the fingerprint the vendor "
                         "publishes, then correct key_fingerprint."});
  CHECK(p.writes.empty());
}

TEST_CASE("apt_repository refuses a key file that holds other keys besides the pinned one") {
  World w;
  w.fs.add_file("/srv/both.gpg", pinned().binary + other().binary);
  StepPlan p = build_ok(rocm_step(by_file("/srv/both.gpg", pinned().fingerprint)))->plan(w.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary ==
        "the key file /srv/both.gpg holds other keys besides the pinned " + format_fingerprint(pinned().fingerprint));
  CHECK(p.details == std::vector<std::string>{"It also holds " + format_fingerprint(other().fingerprint) +
                                              ", and apt would accept a signature by any key in the file. The keys "
                                              "were not used: point key_file at a file with the vendor's key alone."});
}

TEST_CASE("apt_repository refuses a key file the OpenPGP reader cannot read, with the reader's reason") {
  World w;
  w.fs.add_file("/srv/page.html", "<html><body>Access denied</body></html>\n");
  StepPlan p = build_ok(rocm_step(by_file("/srv/page.html", pinned().fingerprint)))->plan(w.ctx);
  CHECK(p.verdict == Verdict::refused);
  std::string reason;
  try {
    read_openpgp_keys("<html><body>Access denied</body></html>\n");
  } catch (const OpenPgpError& e) {
    reason = e.what();
  }
  REQUIRE_FALSE(reason.empty());
  CHECK(p.summary == "the key file /srv/page.html is not an OpenPGP public key: " + reason);
  CHECK(p.details == std::vector<std::string>{"The key was not used. Check that key_file names the key itself (a "
                                              "proxy's or a server's error page is not a key)."});
}

TEST_CASE("apt_repository caches a fetched key by its fingerprint and checks the cached copy on every plan") {
  TempDir root, elsewhere;
  elsewhere.write("rocm.gpg.key", pinned().armoured);
  RootedFileSystem disk(root.path());
  OverlayFileSystem overlay(disk);
  FakeProcessRunner runner;
  HostFacts host;
  host.arch = "amd64";
  StepContext ctx{overlay, runner, host, "test"};
  const std::string url = "file://" + elsewhere.path() + "/rocm.gpg.key";
  auto step = build_ok(rocm_step("key_url = \"" + url + "\"\nkey_fingerprint = \"" + pinned().fingerprint + "\"\n"));
  const std::string cached = root.path() + "/var/lib/wslgpu-setup/cache/keys/" + pinned().fingerprint + ".key";

  StepPlan p = step->plan(ctx);
  REQUIRE(p.verdict == Verdict::change);
  CHECK(p.writes.at(0).content == pinned().armoured);
  CHECK(std::filesystem::exists(cached));
  CHECK_FALSE(std::filesystem::exists(cached + ".fetched"));
  CHECK_FALSE(std::filesystem::exists(root.path() + "/etc/apt"));

  // The vendor's server is gone: the cached copy is enough.
  std::filesystem::remove(elsewhere.path() + "/rocm.gpg.key");
  CHECK(step->plan(ctx).writes.at(0).content == pinned().armoured);

  // A cached copy that is not the pinned key is fetched again, and the
  // fetched one is checked too.
  root.write("var/lib/wslgpu-setup/cache/keys/" + pinned().fingerprint + ".key", other().armoured);
  elsewhere.write("rocm.gpg.key", other().armoured);
  StepPlan tampered = step->plan(ctx);
  CHECK(tampered.verdict == Verdict::refused);
  CHECK(tampered.summary == "the key at " + url + " is " + format_fingerprint(other().fingerprint) +
                                ", not the pinned " + format_fingerprint(pinned().fingerprint));
  CHECK_FALSE(std::filesystem::exists(cached + ".fetched"));
  elsewhere.write("rocm.gpg.key", pinned().armoured);
  CHECK(step->plan(ctx).verdict == Verdict::change);
  CHECK(wslgpu::RootedFileSystem("/").read(cached) == pinned().armoured);
}

TEST_CASE("apt_repository takes a key whose old signing subkey expired, since its primary key signs") {
  // NVIDIA's container-toolkit key (github.com/NVIDIA/libnvidia-container
  // issue 171): the primary key never expires and signs; subkey
  // 6ED91CA3AC1160CD expired in 2021. Fetched from key_url, like the profile.
  const TestKey& nvidia = test_key(3);
  REQUIRE(nvidia.subkey_expired_at == 1623801600);
  TempDir root, elsewhere;
  elsewhere.write("nvidia.gpg", nvidia.armoured);
  RootedFileSystem disk(root.path());
  OverlayFileSystem overlay(disk);
  FakeProcessRunner runner;
  HostFacts host;
  host.arch = "amd64";
  StepContext ctx{overlay, runner, host, "test"};
  const std::string url = "file://" + elsewhere.path() + "/nvidia.gpg";
  auto step = build_ok(rocm_step("key_url = \"" + url + "\"\nkey_fingerprint = \"" + nvidia.fingerprint + "\"\n"));

  StepPlan p = step->plan(ctx);
  REQUIRE(p.verdict == Verdict::change);
  CHECK(p.writes.at(0).content == nvidia.armoured);
  const std::string subkey = nvidia.expired_subkey.substr(24, 4) + " " + nvidia.expired_subkey.substr(28, 4) + " " +
                             nvidia.expired_subkey.substr(32, 4) + " " + nvidia.expired_subkey.substr(36, 4);
  CHECK(p.details.back() ==
        "subkey " + subkey + " expired on 2021-06-16; apt verifies with the primary key, which can sign");
  CHECK(contains(joined(p.details), "Expired Subkey <t3@example.invalid>, does not expire) from " + url));
  CHECK_FALSE(contains(joined(p.details), "no key in this file can sign"));

  // The cached copy is good enough: the expired subkey does not send the
  // plan back to the network.
  std::filesystem::remove(elsewhere.path() + "/nvidia.gpg");
  CHECK(step->plan(ctx).writes.at(0).content == nvidia.armoured);
}

TEST_CASE("apt_repository warns when the primary key cannot sign and every signing subkey has expired") {
  const TestKey& stale = test_key(4);
  World w;
  w.fs.add_file("/srv/key.asc", stale.armoured);
  StepPlan p = build_ok(rocm_step(by_file("/srv/key.asc", stale.fingerprint)))->plan(w.ctx);
  REQUIRE(p.verdict == Verdict::change);
  const std::string subkey = stale.expired_subkey.substr(24, 4) + " " + stale.expired_subkey.substr(28, 4) + " " +
                             stale.expired_subkey.substr(32, 4) + " " + stale.expired_subkey.substr(36, 4);
  const std::string primary = stale.fingerprint.substr(24, 4) + " " + stale.fingerprint.substr(28, 4) + " " +
                              stale.fingerprint.substr(32, 4) + " " + stale.fingerprint.substr(36, 4);
  CHECK(p.details.back() == "no key in this file can sign: the primary key " + primary +
                                " is not a signing key (its self-signature's key flags have no S) and every signing "
                                "subkey has expired (subkey " +
                                subkey +
                                " expired on 2021-06-16): apt will reject the repository's signatures until the "
                                "vendor publishes the key with a signing subkey that has not expired");
  CHECK_FALSE(contains(joined(p.details), "apt verifies with the primary key"));

  SUBCASE("but not when another signing subkey is still valid") {
    const TestKey& renewed = test_key(5);
    w.fs.add_file("/srv/renewed.asc", renewed.armoured);
    StepPlan q = build_ok(rocm_step(by_file("/srv/renewed.asc", renewed.fingerprint)))->plan(w.ctx);
    REQUIRE(q.verdict == Verdict::change);
    const std::string old = renewed.expired_subkey.substr(24, 4) + " " + renewed.expired_subkey.substr(28, 4) + " " +
                            renewed.expired_subkey.substr(32, 4) + " " + renewed.expired_subkey.substr(36, 4);
    CHECK(q.details.back() ==
          "subkey " + old + " expired on 2021-06-16; apt verifies with a signing subkey that has not expired");
    CHECK_FALSE(contains(joined(q.details), "no key in this file can sign"));
  }
}

TEST_CASE("apt_repository says plainly when the key's server cannot be reached, and what to pass instead") {
  TempDir root;
  RootedFileSystem disk(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{disk, runner, host, "test"};
  std::vector<Diagnostic> diags;
  auto step =
      build_step(rocm_step("key_url = \"${rocm_key_url}\"\nkey_fingerprint = \"" + pinned().fingerprint + "\"\n"),
                 diags, {{"rocm_key_url", kUnreachable}});
  REQUIRE(diags.empty());
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary.rfind("could not reach 127.0.0.1 to fetch the signing key (could not download " + kUnreachable +
                            " after 2 attempts: ",
                        0) == 0);
  CHECK(p.details == std::vector<std::string>{"Check the network or the proxy (https_proxy), or pass --set "
                                              "rocm_key_url=file:///path/to/the/key (a copy fetched elsewhere)."});

  auto missing = build_ok(
      rocm_step("key_url = \"file:///nowhere/rocm.gpg.key\"\nkey_fingerprint = \"" + pinned().fingerprint + "\"\n"));
  StepPlan m = missing->plan(ctx);
  CHECK(m.verdict == Verdict::refused);
  CHECK(m.summary ==
        "could not read the signing key (could not download file:///nowhere/rocm.gpg.key: cannot read "
        "/nowhere/rocm.gpg.key: No such file or directory)");
  CHECK(m.details ==
        std::vector<std::string>{"Check the path, or point key_url at a copy of the key (file:///path/to/the/key)."});
  CHECK_FALSE(std::filesystem::exists(root.path() + "/var/lib/wslgpu-setup/cache/keys/" + pinned().fingerprint +
                                      ".key.fetched"));
}

TEST_CASE("apt_repository needs exactly one of key_fingerprint and key_sha256, each well formed") {
  const std::string head =
      "kind = \"apt_repository\"\nrepo_name = \"rocm\"\nuris = [\"https://x/\"]\nsuites = [\"/\"]\nkey_file = \"/k\"\n";
  CHECK(build_errors(head) ==
        "m.toml:1:1: step kind \"apt_repository\" needs the key \"key_fingerprint\" (the 40 hexadecimal digits the "
        "vendor publishes for its signing key) or \"key_sha256\"");
  CHECK(build_errors(head + "key_fingerprint = \"" + pinned().fingerprint + "\"\nkey_sha256 = \"" +
                     std::string(64, 'a') + "\"\n") ==
        "m.toml:7:14: give either \"key_fingerprint\" or \"key_sha256\", not both (the fingerprint is the better pin: "
        "it survives the vendor re-issuing the key file)");
  CHECK(build_errors(head + "key_fingerprint = \"CA8B B472 7A47\"\n") ==
        "m.toml:6:19: \"key_fingerprint\" must be 40 hexadecimal digits (spaces allowed), the OpenPGP v4 fingerprint, "
        "not \"CA8B B472 7A47\"");
  CHECK(build_errors(head + "key_fingerprint = \"\"\n") ==
        "m.toml:6:19: \"key_fingerprint\" is empty: give the signing key's fingerprint as the vendor publishes it (40 "
        "hexadecimal digits; `gpg --show-keys KEYFILE` prints it)");
  CHECK(build_errors(head + "key_sha256 = \"\"\n") ==
        "m.toml:6:14: \"key_sha256\" is empty: give the key file's SHA-256 (64 hexadecimal digits, the output of "
        "`sha256sum`), or pin the key by its fingerprint with \"key_fingerprint\"");
  CHECK(build_errors(head + "key_fingerprint = \"CA8BB4727A47B4D09B4EE8969386B48A1A693C5C\"\n").empty());
}

// ------------------------------------------------------------ adoption: reuse

TEST_CASE("an exact cuda-keyring entry with the pinned key is reused as it is: no source, no key, no network") {
  World w;
  plant_cuda_keyring(w.fs, pinned().binary);
  auto step =
      build_ok(cuda_step("key_url = \"" + kUnreachable + "\"\nkey_fingerprint = \"" + pinned().fingerprint + "\"\n"));
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary ==
        "configured by cuda-keyring (" + kCudaList + "), key " + short_fpr(pinned().fingerprint) + " verified");
  CHECK(p.details ==
        std::vector<std::string>{"reuses " + kCudaList + ":1, signed by the pinned key " +
                                 format_fingerprint(pinned().fingerprint) + "; writes no source or key of its own"});
  CHECK(p.writes.empty());
  CHECK(p.fingerprint.contains("file:" + kCudaList));
  CHECK(p.fingerprint.contains("file:" + kCudaKeyring));
  CHECK(w.runner.calls.empty());
}

TEST_CASE("a deb822 stanza holding the pinned key inline is reused too") {
  World w;
  std::string field;
  std::size_t pos = 0;
  const std::string& armour = pinned().armoured;
  while (pos < armour.size()) {
    std::size_t nl = armour.find('\n', pos);
    std::string line = armour.substr(pos, nl - pos);
    field += " " + (line.empty() ? std::string(".") : line) + "\n";
    pos = nl + 1;
  }
  w.fs.add_file("/etc/apt/sources.list.d/nvidia.sources",
                "Types: deb\nURIs: " + kCudaUri + "\nSuites: /\nSigned-By:\n" + field);
  StepPlan p =
      build_ok(cuda_step("key_url = \"" + kUnreachable + "\"\nkey_fingerprint = \"" + pinned().fingerprint + "\"\n"))
          ->plan(w.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary ==
        "configured by /etc/apt/sources.list.d/nvidia.sources, key " + short_fpr(pinned().fingerprint) + " verified");
}

TEST_CASE("reuse removes this step's own earlier source, which would now conflict with the vendor's") {
  World w;
  plant_cuda_keyring(w.fs, pinned().binary);
  w.fs.add_file("/etc/apt/sources.list.d/cuda-wsl-ubuntu.sources",
                "Types: deb\nURIs: " + kCudaUri + "\nSuites: /\nSigned-By: /etc/apt/keyrings/cuda-wsl-ubuntu.asc\n");
  w.fs.add_file("/etc/apt/keyrings/cuda-wsl-ubuntu.asc", pinned().armoured);
  auto step =
      build_ok(cuda_step("key_url = \"" + kUnreachable + "\"\nkey_fingerprint = \"" + pinned().fingerprint + "\"\n"));
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "configured by cuda-keyring (" + kCudaList + "), key " + short_fpr(pinned().fingerprint) +
                         " verified; remove the duplicate /etc/apt/sources.list.d/cuda-wsl-ubuntu.sources");
  CHECK(write_list(p) == std::vector<std::string>{"remove /etc/apt/sources.list.d/cuda-wsl-ubuntu.sources",
                                                  "remove /etc/apt/keyrings/cuda-wsl-ubuntu.asc"});
}

TEST_CASE("a vendor entry whose keyring holds another key, or more keys, is taken over instead of reused") {
  World w;
  w.fs.add_file("/srv/cuda.pub", pinned().armoured);
  plant_cuda_keyring(w.fs, pinned().binary + other().binary);
  auto step = build_ok(cuda_step(by_file("/srv/cuda.pub", pinned().fingerprint)));
  StepPlan p = step->plan(w.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.details.at(0) == "not reused as it is: its keyring also holds " + format_fingerprint(other().fingerprint) +
                               ", which apt would accept as signers too");
  CHECK(p.summary == "add /etc/apt/sources.list.d/cuda-wsl-ubuntu.sources, key cuda-wsl-ubuntu.asc (" +
                         short_fpr(pinned().fingerprint) + " verified); replaces " + kCudaList + " (cuda-keyring)");
  // The keyring is a plain file of the package (not a conffile): it stays.
  CHECK(write_list(p) == std::vector<std::string>{"remove " + kCudaList, "write /etc/apt/keyrings/cuda-wsl-ubuntu.asc",
                                                  "write /etc/apt/sources.list.d/cuda-wsl-ubuntu.sources"});
  std::string text = joined(p.details);
  CHECK(text.find("keeps " + kCudaKeyring + ": a file of cuda-keyring, which dpkg would put back\n") !=
        std::string::npos);
  CHECK(text.find("cuda-keyring stays installed; its list is removed, and dpkg keeps a deleted conffile deleted on "
                  "upgrade\n") != std::string::npos);
  CHECK(p.notices.empty());

  World wrong;
  wrong.fs.add_file("/srv/cuda.pub", pinned().armoured);
  plant_cuda_keyring(wrong.fs, other().binary);
  StepPlan q = build_ok(cuda_step(by_file("/srv/cuda.pub", pinned().fingerprint)))->plan(wrong.ctx);
  CHECK(q.details.at(0) == "not reused as it is: its key is " + format_fingerprint(other().fingerprint) +
                               ", not the pinned " + format_fingerprint(pinned().fingerprint));
}

TEST_CASE("a vendor keyring holding an expired copy of the pinned key is taken over, with the current key") {
  const TestKey& renewed = test_key(2);
  REQUIRE(renewed.expired_at > 0);
  World w;
  w.fs.add_file("/srv/cuda.pub", renewed.armoured);
  plant_cuda_keyring(w.fs, renewed.expired_binary);
  StepPlan p = build_ok(cuda_step(by_file("/srv/cuda.pub", renewed.fingerprint)))->plan(w.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.details.at(0) ==
        "not reused as it is: its copy of the pinned key expired on 2020-12-31 (the vendor's "
        "current file extends it)");
  CHECK(write_list(p) == std::vector<std::string>{"remove " + kCudaList, "write /etc/apt/keyrings/cuda-wsl-ubuntu.asc",
                                                  "write /etc/apt/sources.list.d/cuda-wsl-ubuntu.sources"});
  CHECK(p.writes.at(1).content == renewed.armoured);

  // The current copy is reused as it is.
  World current;
  plant_cuda_keyring(current.fs, renewed.binary);
  StepPlan q =
      build_ok(cuda_step("key_url = \"" + kUnreachable + "\"\nkey_fingerprint = \"" + renewed.fingerprint + "\"\n"))
          ->plan(current.ctx);
  CHECK(q.verdict == Verdict::noop);
}

TEST_CASE("a vendor list that is not a conffile is taken over with a warning: dpkg would put it back") {
  World w;
  w.fs.add_file("/srv/cuda.pub", pinned().armoured);
  plant_cuda_keyring(w.fs, other().binary, /*list_is_conffile=*/false);
  StepPlan p = build_ok(cuda_step(by_file("/srv/cuda.pub", pinned().fingerprint)))->plan(w.ctx);
  const std::string note = kCudaList +
                           " is a file of cuda-keyring, not a conffile: dpkg puts it back when cuda-keyring is "
                           "upgraded or reinstalled, and apt then refuses its sources again (\"Conflicting values set "
                           "for option Signed-By\"). Remove the package (sudo apt remove cuda-keyring) if it is not "
                           "needed.";
  CHECK(p.notices == std::vector<std::string>{note});
  CHECK(joined(p.details).find(note + "\n") != std::string::npos);
}

// ------------------------------------------------------------ adoption: take-over

TEST_CASE("the rocm profile's two repositories take over what amdgpu-install left: lists, keyring and pin") {
  World w;
  w.fs.add_file("/srv/rocm.asc", pinned().armoured);
  plant_amdgpu_install(w.fs, other().binary);  // amdgpu-install's copy of the key: any bytes do
  const Snapshot before = snapshot(w.fs);
  auto amdgpu = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint), "amdgpu", kAmdgpuUri));
  auto rocm = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)));

  StepPlan a = amdgpu->plan(w.ctx);
  CHECK(a.verdict == Verdict::change);
  CHECK(a.summary == "add /etc/apt/sources.list.d/amdgpu.sources, key amdgpu.asc (" + short_fpr(pinned().fingerprint) +
                         " verified), pin 600; replaces /etc/apt/sources.list.d/amdgpu.list (amdgpu-install)");
  // The old entries go before the new source comes (the runner writes in
  // this order and undoes in reverse); the keyring stays, rocm.list still
  // names it; AMD's pin gives way to the step's own, of the same origin.
  CHECK(write_list(a) == std::vector<std::string>{"remove /etc/apt/sources.list.d/amdgpu.list",
                                                  "write /etc/apt/keyrings/amdgpu.asc",
                                                  "write /etc/apt/sources.list.d/amdgpu.sources",
                                                  "remove /etc/apt/preferences.d/repo-radeon-pin-600",
                                                  "write /etc/apt/preferences.d/amdgpu.pref"});
  std::string text = joined(a.details);
  CHECK(text.find("replaces /etc/apt/sources.list.d/amdgpu.list (amdgpu-install):\n"
                  "remove /etc/apt/sources.list.d/amdgpu.list\n"
                  "--- /etc/apt/sources.list.d/amdgpu.list\n") != std::string::npos);
  CHECK(text.find("-deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] " + kAmdgpuUri + " noble main\n") !=
        std::string::npos);
  CHECK(text.find("amdgpu-install stays installed; its list is removed, and dpkg keeps a deleted conffile deleted on "
                  "upgrade\n") != std::string::npos);
  CHECK(text.find("keeps /etc/apt/keyrings/rocm.gpg: other sources still name it\n") != std::string::npos);
  CHECK(text.find("replaces /etc/apt/preferences.d/repo-radeon-pin-600 (amdgpu-install) with "
                  "/etc/apt/preferences.d/amdgpu.pref, which pins the same origin:\n") != std::string::npos);
  // The runner's report carries the removed file's diff.
  bool diff_recorded = false;
  for (const auto& c : a.changes)
    if (c.value("path", "") == "/etc/apt/sources.list.d/amdgpu.list")
      diff_recorded = c.value("diff", "").find("-deb [arch=amd64") != std::string::npos;
  CHECK(diff_recorded);
  CHECK(w.fs.writes == 0);
  carry_out_writes(w.fs, a);

  StepPlan r = rocm->plan(w.ctx);
  CHECK(r.summary == "add /etc/apt/sources.list.d/rocm.sources, key rocm.asc (" + short_fpr(pinned().fingerprint) +
                         " verified), pin 600; replaces /etc/apt/sources.list.d/rocm.list (amdgpu-install)");
  // Now nothing names the old keyring: it goes too, after the list.
  CHECK(write_list(r) ==
        std::vector<std::string>{"remove /etc/apt/sources.list.d/rocm.list", "remove /etc/apt/keyrings/rocm.gpg",
                                 "write /etc/apt/keyrings/rocm.asc", "write /etc/apt/sources.list.d/rocm.sources",
                                 "write /etc/apt/preferences.d/rocm.pref"});
  CHECK(joined(r.details).find("removes /etc/apt/keyrings/rocm.gpg, the key of the replaced entries (not from a "
                               "package)\n") != std::string::npos);
  carry_out_writes(w.fs, r);

  // Converged: neither step changes anything more, and neither needs dpkg's lists.
  CHECK(amdgpu->plan(w.ctx).verdict == Verdict::noop);
  CHECK(rocm->plan(w.ctx).verdict == Verdict::noop);

  // Undo, as the runner does it (last step first), gives every planted byte back.
  restore_writes(w.fs, r, before);
  restore_writes(w.fs, a, before);
  CHECK(snapshot(w.fs) == before);
}

TEST_CASE("a .list that also holds an unrelated entry keeps it, and every other line, byte for byte") {
  World w;
  w.fs.add_file("/srv/rocm.asc", pinned().armoured);
  const std::string mixed =
      "# my repositories\r\n"
      "deb [arch=amd64 trusted=yes] " +
      kRocmUri +
      "/ noble main\r\n"
      "deb https://x.example/tools noble main   # keep\r\n";
  w.fs.add_file("/etc/apt/sources.list.d/mine.list", mixed, 0640, 0, 4);
  StepPlan p = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)))->plan(w.ctx);
  CHECK(p.details.at(0) ==
        "not reused as it is: /etc/apt/sources.list.d/mine.list:2 says trusted=yes, which turns "
        "apt's signature check off");
  REQUIRE(p.writes.size() == 4);
  CHECK(p.writes[0].path == "/etc/apt/sources.list.d/mine.list");
  CHECK(p.writes[0].content == "# my repositories\r\ndeb https://x.example/tools noble main   # keep\r\n");
  CHECK(p.writes[0].attrs.mode == 0640);  // its mode and owner stay
  CHECK(p.writes[0].attrs.gid == 4);
  CHECK(p.summary.find("; replaces /etc/apt/sources.list.d/mine.list (not from a package)") != std::string::npos);

  // The same file as a conffile of a package: it stays as edited on upgrade.
  w.fs.add_file("/var/lib/dpkg/info/my-repos.conffiles", "/etc/apt/sources.list.d/mine.list\n");
  StepPlan owned = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)))->plan(w.ctx);
  CHECK(joined(owned.details)
            .find("my-repos stays installed; its list is edited, and dpkg keeps an edited conffile as it is on "
                  "upgrade\n") != std::string::npos);
}

TEST_CASE("a .list to take an entry from that holds a line apt rejects is bad input at FILE:LINE:COLUMN") {
  World w;
  w.fs.add_file("/srv/rocm.asc", pinned().armoured);
  const std::string broken = "deb [arch=amd64 trusted=yes] " + kRocmUri + "/ noble main\n  deb https://x.example/r\n";
  w.fs.add_file("/etc/apt/sources.list.d/mine.list", broken);
  auto step = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)));
  CHECK_THROWS_WITH_AS(step->plan(w.ctx),
                       "/etc/apt/sources.list.d/mine.list:2:3: no suite after the URI\napt rejects this line, and the "
                       "file holds an entry this step replaces: fix the line by hand (or remove it), then run again. "
                       "Nothing was changed.",
                       InputError);
  CHECK(w.fs.read("/etc/apt/sources.list.d/mine.list") == broken);
}

TEST_CASE("a deb822 stanza naming the repository is taken over; one listing more than it is refused") {
  World w;
  w.fs.add_file("/srv/rocm.asc", pinned().armoured);
  w.fs.add_file("/etc/apt/sources.list.d/vendors.sources",
                "Types: deb\nURIs: https://x.example/tools\nSuites: noble\nComponents: main\n\n"
                "# AMD ROCm\nTypes: deb deb-src\nURIs: " +
                    kRocmUri +
                    "\nSuites: noble\nComponents: main extra\n"
                    "Signed-By: /etc/apt/keyrings/old-rocm.gpg\n");
  w.fs.add_file("/etc/apt/keyrings/old-rocm.gpg", other().binary);
  StepPlan p = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)))->plan(w.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(write_list(p) == std::vector<std::string>{
                             "write /etc/apt/sources.list.d/vendors.sources", "remove /etc/apt/keyrings/old-rocm.gpg",
                             "write /etc/apt/keyrings/rocm.asc", "write /etc/apt/sources.list.d/rocm.sources",
                             "write /etc/apt/preferences.d/rocm.pref"});
  CHECK(p.writes[0].content == "Types: deb\nURIs: https://x.example/tools\nSuites: noble\nComponents: main\n");
  std::string text = joined(p.details);
  CHECK(text.find("/etc/apt/sources.list.d/vendors.sources:7-11 also fetches extra, which the new source does not\n") !=
        std::string::npos);
  CHECK(text.find("/etc/apt/sources.list.d/vendors.sources:7-11 is a deb-src entry; the new source fetches binary "
                  "packages only\n") != std::string::npos);

  World both;
  both.fs.add_file("/srv/rocm.asc", pinned().armoured);
  both.fs.add_file("/etc/apt/sources.list.d/vendors.sources",
                   "Types: deb\nURIs: " + kRocmUri + "\nSuites: noble jammy\nComponents: main\n");
  StepPlan q = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)))->plan(both.ctx);
  CHECK(q.verdict == Verdict::refused);
  CHECK(q.summary == "the stanza at /etc/apt/sources.list.d/vendors.sources:1-4 also lists " + kRocmUri +
                         " jammy, which this step does not replace");
  CHECK(q.details ==
        std::vector<std::string>{"Move " + kRocmUri +
                                 " into a stanza of its own (or remove it from that one), then plan again."});
  CHECK(q.writes.empty());
}

TEST_CASE("entries of the same URI with another suite, and disabled ones, are left alone") {
  World w;
  w.fs.add_file("/srv/rocm.asc", pinned().armoured);
  w.fs.add_file("/etc/apt/sources.list.d/rocm-jammy.list",
                "deb [signed-by=/etc/apt/keyrings/rocm.gpg] " + kRocmUri + " jammy main\n");
  w.fs.add_file("/etc/apt/sources.list.d/off.sources",
                "Enabled: no\nTypes: deb\nURIs: " + kRocmUri + "\nSuites: noble\nComponents: main\n");
  w.fs.add_file("/etc/apt/keyrings/rocm.gpg", other().binary);
  w.fs.add_file("/etc/apt/preferences.d/repo-radeon-pin-600",
                "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n");
  StepPlan p = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)))->plan(w.ctx);
  CHECK(p.summary == "add /etc/apt/sources.list.d/rocm.sources, key rocm.asc (" + short_fpr(pinned().fingerprint) +
                         " verified), pin 600");
  CHECK(write_list(p) == std::vector<std::string>{"write /etc/apt/keyrings/rocm.asc",
                                                  "write /etc/apt/sources.list.d/rocm.sources",
                                                  "write /etc/apt/preferences.d/rocm.pref"});
}

TEST_CASE("a source in sources.list itself is taken over and the file stays, with its comments") {
  World w;
  w.fs.add_file("/srv/rocm.asc", pinned().armoured);
  w.fs.add_file("/etc/apt/sources.list",
                "# Ubuntu sources have moved to /etc/apt/sources.list.d/ubuntu.sources\n"
                "deb [arch=amd64] " +
                    kRocmUri + " noble main\n");
  StepPlan p = build_ok(rocm_step(by_file("/srv/rocm.asc", pinned().fingerprint)))->plan(w.ctx);
  REQUIRE_FALSE(p.writes.empty());
  CHECK(p.writes[0].path == "/etc/apt/sources.list");
  CHECK(p.writes[0].content == "# Ubuntu sources have moved to /etc/apt/sources.list.d/ubuntu.sources\n");
  CHECK(p.details.at(0) ==
        "not reused as it is: /etc/apt/sources.list:2 names no Signed-By key, so any key apt trusts "
        "may sign it");
}

TEST_CASE("apt_repository refuses a key bound with SHA-1 where the target's apt verifies with sqv, changing nothing") {
  // NVIDIA's wsl-ubuntu key 3BF863CC on Ubuntu 26.04 / Debian forky: apt's
  // sqv refuses its SHA-1 binding since 2026-02-01
  // (github.com/NVIDIA/cuda-repo-management/issues/44).
  const TestKey& sha1 = test_key(6);
  World w;
  w.fs.add_file("/srv/key.asc", sha1.armoured);
  auto step = build_ok(cuda_step(by_file("/srv/key.asc", sha1.fingerprint)));
  // gpgv (no sqv): the key is taken.
  CHECK(step->plan(w.ctx).verdict == Verdict::change);
  w.fs.add_file("/usr/bin/sqv", "", 0755);
  w.fs.add_file("/usr/share/apt/default-sequoia.config",
                "[hash_algorithms]\nsha1.second_preimage_resistance = 2026-02-01\n");
  StepPlan p = step->plan(w.ctx);
  REQUIRE(p.verdict == Verdict::refused);
  CHECK(contains(p.summary, "apt on this machine would refuse repository \"cuda-wsl-ubuntu\": the key " +
                                format_fingerprint(sha1.fingerprint) + " is bound to its user ID by a SHA1 "
                                "self-signature, which sqv's policy (/usr/share/apt/default-sequoia.config: "
                                "sha1.second_preimage_resistance = 2026-02-01) no longer trusts since 2026-02-01"));
  CHECK(contains(joined(p.details), "the tool does not change this machine's signature policy"));
  CHECK(p.writes.empty());
  // A key bound with a stronger hash is taken on the same machine.
  const TestKey& good = pinned();
  w.fs.add_file("/srv/good.asc", good.armoured);
  CHECK(build_ok(cuda_step(by_file("/srv/good.asc", good.fingerprint)))->plan(w.ctx).verdict == Verdict::change);
}

TEST_CASE("apt_repository's advice comes with the refusal of a key the target's apt would refuse, and only then") {
  const TestKey& sha1 = test_key(6);
  World w;
  w.fs.add_file("/srv/key.asc", sha1.armoured);
  const std::string advice = "advice = \"The frameworks need no toolkit: install pytorch.\"\n";
  auto step = build_ok(cuda_step(by_file("/srv/key.asc", sha1.fingerprint) + advice));
  StepPlan taken = step->plan(w.ctx);  // gpgv: no refusal, no advice
  CHECK(taken.verdict == Verdict::change);
  CHECK_FALSE(contains(joined(taken.details), "The frameworks need no toolkit"));
  w.fs.add_file("/usr/bin/sqv", "", 0755);
  w.fs.add_file("/usr/share/apt/default-sequoia.config",
                "[hash_algorithms]\nsha1.second_preimage_resistance = 2026-02-01\n");
  StepPlan p = step->plan(w.ctx);
  REQUIRE(p.verdict == Verdict::refused);
  REQUIRE(p.details.size() >= 2);
  CHECK(p.details[1] == "The frameworks need no toolkit: install pytorch.");
}
