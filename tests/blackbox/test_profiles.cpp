// The bundled profiles (manifests/*.toml, compiled in): each one loads and
// validates, and `plan rocm` / `plan cuda` on a fake WSL2 machine print the
// whole procedure, step by step, with the vendors' repositories and the
// version matrix. The fake root has no apt, so steps that need apt show as
// "cannot be planned" (refused): the plan says so instead of guessing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/host/host.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "support/gpg_keys.hpp"
#include "support/helpers.hpp"

using namespace wslgpu::blackbox;
using wslgpu::testing::contains;

namespace {

// A fake root is offline and has no apt: the vendors' keys cannot be fetched
// and apt's simulation cannot run, so those steps are refused and plan says
// so with exit 3, as install would refuse. The tests read the rest of the plan.
constexpr int kRefusedOffline = 3;

// The step lines of a text plan ("  1  check  dxg  verify  ..."), without
// their detail lines.
std::vector<std::string> step_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t i = line.find_first_not_of(' ');
    if (i == 2 || i == 3)
      if (std::isdigit(static_cast<unsigned char>(line[i]))) lines.push_back(line);
  }
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

wslgpu::HostFacts noble_host() {
  wslgpu::HostFacts h;
  h.kernel_release = "5.15.153.1-microsoft-standard-WSL2";
  h.wsl = "2";
  h.dxg = true;
  h.distro = "ubuntu";
  h.distro_version = "24.04";
  h.codename = "noble";
  h.arch = "amd64";
  h.user = "alice";
  return h;
}

// A signing key the plan can fetch from this machine (file:///), made by gpg
// for the test run, and its fingerprint: plan checks a key's fingerprint
// before it trusts it.
struct FakeKey {
  wslgpu::testing::TempDir dir;
  std::string url, fingerprint;
  FakeKey() {
    const auto& key = wslgpu::testing::test_key(0);
    dir.write("rocm.gpg.key", key.armoured);
    url = "file://" + dir.path() + "/rocm.gpg.key";
    fingerprint = key.fingerprint;
  }
  // "CA8B B472 … 1A69 3C5C verified", as the summary line shows it.
  std::string note() const {
    return fingerprint.substr(0, 4) + " " + fingerprint.substr(4, 4) + " … " + fingerprint.substr(32, 4) + " " +
           fingerprint.substr(36, 4) + " verified";
  }
};


RunResult plan(const FakeWslRoot& root, const std::string& profile, const std::vector<std::string>& sets = {}) {
  std::vector<std::string> args = {"--root", root.path()};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  args.push_back("plan");
  args.push_back(profile);
  return run_tool(args, kOffline);
}

// The start of the step line of an apt_repository step whose key could not
// be fetched through the refusing proxy (curl's own words follow).
std::string unreachable(const std::string& head, const std::string& url) {
  return head + "refused  could not reach " + url.substr(8, url.find('/', 8) - 8) +
         " to fetch the signing key (could not download " + url + " after 2 attempts: ";
}

bool starts_with(const std::string& text, const std::string& head) { return text.rfind(head, 0) == 0; }

const std::string kNoApt = "could not run: apt-get was not found in the target root";

// A snapshot without the tool's state folder (its lock, journal and caches).
std::map<std::string, Stamp> outside_state(std::map<std::string, Stamp> s) {
  std::erase_if(s, [](const auto& e) { return e.first.rfind("var/lib/wslgpu-setup", 0) == 0; });
  return s;
}

}  // namespace

TEST_CASE("every bundled profile loads, with every step kind known, and validate says ok") {
  FakeWslRoot root;
  const auto& all = wslgpu::bundled_manifests();
  REQUIRE(all.size() >= 3);
  std::vector<std::string> names;
  for (const auto& m : all) {
    CAPTURE(m.name);
    names.emplace_back(m.name);
    CHECK(m.path == "manifests/" + std::string(m.name) + ".toml");
    wslgpu::Manifest loaded;
    try {
      loaded = wslgpu::load_manifest(wslgpu::ManifestSource{std::string(m.path), std::string(m.content), true}, {},
                                     noble_host());
    } catch (const wslgpu::InputError& e) {
      FAIL("bundled profile ", m.name, " does not load: ", e.what());
    }
    CHECK(loaded.name == m.name);
    CHECK_FALSE(loaded.description.empty());
    CHECK_FALSE(loaded.steps.empty());
    RunResult r = run_tool({"--root", root.path(), "validate", std::string(m.name)}, kOffline);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    const std::size_t n = loaded.steps.size();
    CHECK(r.out == std::string(m.path) + ": ok (" + std::to_string(n) + (n == 1 ? " step)\n" : " steps)\n"));
  }
  CHECK(std::find(names.begin(), names.end(), "rocm") != names.end());
  CHECK(std::find(names.begin(), names.end(), "cuda") != names.end());
  CHECK(std::find(names.begin(), names.end(), "wslconfig") != names.end());
}

TEST_CASE("the rocm profile loads for every supported release and package choice") {
  for (const char* version : {"6.1.3", "6.3.4", "6.4.2.1", "6.4.3", "7.0.2", "7.1.0", "7.1.1", "7.2", "7.2.1", "7.2.2"})
    for (const char* package : {"rocm", "rocm-dev"}) {
      CAPTURE(version);
      CAPTURE(package);
      const auto& all = wslgpu::bundled_manifests();
      auto it = std::find_if(all.begin(), all.end(), [](const auto& m) { return m.name == "rocm"; });
      REQUIRE(it != all.end());
      CHECK_NOTHROW(wslgpu::load_manifest(wslgpu::ManifestSource{std::string(it->path), std::string(it->content), true},
                                          {{"rocm_version", version}, {"rocm_package", package}}, noble_host()));
    }
}

TEST_CASE("the profiles default to the vendors' repositories, and plan shows the values in use") {
  FakeWslRoot root;
  RunResult r = run_tool({"--root", root.path(), "plan", "rocm", "--output", "json"}, kOffline);
  REQUIRE(r.exit_code == kRefusedOffline);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["vars"]["rocm_repo"] == "https://repo.radeon.com/rocm/apt");
  CHECK(j["vars"]["amdgpu_repo"] == "https://repo.radeon.com/amdgpu");
  CHECK(j["vars"]["rocm_key_url"] == "https://repo.radeon.com/rocm/rocm.gpg.key");
  CHECK(j["vars"]["rocm_pin_origin"] == "repo.radeon.com");
  CHECK(j["vars"]["rocm_version"] == "7.2.4");  // auto, on the fake root's Ubuntu 24.04
  RunResult c = run_tool({"--root", root.path(), "plan", "cuda", "--output", "json"}, kOffline);
  REQUIRE(c.exit_code == kRefusedOffline);
  auto k = nlohmann::json::parse(c.out);
  CHECK(k["vars"]["cuda_repo"] == "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/");
  CHECK(k["vars"]["cuda_key_url"] ==
        "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/3bf863cc.pub");
  // auto, with no nvidia-smi in the fake root: the fallback row.
  CHECK(k["vars"]["cuda_version"] == "12.6");
  CHECK(k["vars"]["cuda_toolkit"] == "12-6");
  CHECK(k["choices"][0]["how"] == "fallback");
  CHECK(k["host"]["nvidia_smi"]["said"] == "/usr/lib/wsl/lib/nvidia-smi is missing");
}

// ---------------------------------------------------------------- plan rocm

TEST_CASE("plan rocm on a WSL2 Ubuntu 24.04 machine prints the whole procedure, in order, with its verdicts" *
          needs_root()) {
  FakeWslRoot root;
  REQUIRE_MESSAGE(root.dxg_is_device(), "only root can make /dev/dxg a character device");
  RunResult r = plan(root, "rocm");
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == kRefusedOffline);
  CHECK(r.err.empty());
  CHECK(
      contains(r.out, "Machine: WSL2 kernel 5.15.153.1-microsoft-standard-WSL2 · /dev/dxg ok · ubuntu 24.04 (noble)"));
  // The default release on 24.04, 7.2.4 (auto), is a librocdxg release:
  // AMD's three repositories (amdgpu/30.30.4, rocm/apt/7.2.4, graphics/7.2.3),
  // the standard runtime, and librocdxg's .deb with its pinned SHA-256.
  // Without apt in this fake root apt_install cannot be planned.
  // Offline, AMD's key cannot be fetched, so the repositories are refused.
  CHECK(contains(r.out, "Chose rocm_version=7.2.4 (auto): the newest release AMD calls production for WSL on Ubuntu "
                        "24.04\n"));
  auto lines = step_lines(r.out);
  REQUIRE(lines.size() == 36);
  const std::string key_url = "https://repo.radeon.com/rocm/rocm.gpg.key";
  CHECK(starts_with(lines[11], unreachable("  12  apt_repository  amdgpu-repo      ", key_url)));
  CHECK(starts_with(lines[12], unreachable("  13  apt_repository  rocm-repo        ", key_url)));
  CHECK(starts_with(lines[14], unreachable("  15  apt_repository  graphics-repo    ", key_url)));
  lines[11] = lines[12] = lines[14] = "(key)";
  CHECK(
      joined(lines) ==
      "   1  check           dxg              verify   /dev/dxg is a char_device\n"
      "   2  check           windows11        verify   Windows build is at least 22000\n"
      "   3  apt_remove      distro-hsa       no-op    none of libhsa-runtime64-1, libhsakmt1 is installed\n"
      "   4  apt_remove      distro-rocm      skipped  skipped: host.distro == 'ubuntu' && host.distro_version == "
      "'26.04' is false\n"
      "   5  apt_remove      legacy-rocm      skipped  skipped: rocm_wsl == 'core' is false\n"
      "   6  apt_remove      no-core          no-op    none of amdrocm* is installed\n"
      "   7  apt_remove      no-rocdxg-deb    skipped  skipped: rocm_wsl == 'core' && rocdxg_version == '' is false\n"
      "   8  file            no-amdgpu-src    skipped  skipped: rocm_wsl == 'core' is false\n"
      "   9  file            no-amdgpu-key    skipped  skipped: rocm_wsl == 'core' is false\n"
      "  10  file            no-amdgpu-gpg    skipped  skipped: rocm_wsl == 'core' is false\n"
      "  11  file            no-amdgpu-pin    skipped  skipped: rocm_wsl == 'core' is false\n"
      "(key)\n"
      "(key)\n"
      "  14  apt_repository  core-repo        skipped  skipped: rocm_wsl == 'core' is false\n"
      "(key)\n"
      "  16  file            no-graphics-src  skipped  skipped: graphics_dir == '' is false\n"
      "  17  file            no-graphics-key  skipped  skipped: graphics_dir == '' is false\n"
      "  18  file            no-graphics-gpg  skipped  skipped: graphics_dir == '' is false\n"
      "  19  file            no-graphics-pin  skipped  skipped: graphics_dir == '' is false\n"
      "  20  apt_update      lists            change   refresh package lists (never refreshed by wslgpu-setup)\n"
      "  21  apt_install     rocm             skipped  skipped: rocm_wsl == 'legacy' is false\n"
      "  22  apt_install     rocm7            refused  cannot be planned: `apt-cache madison` could not run: "
      "apt-cache was not found in the target root\n"
      "  23  apt_install     core             skipped  skipped: rocm_wsl == 'core' && rocm_gfx != '' is false\n"
      "  24  apt_install     core-all         skipped  skipped: rocm_wsl == 'core' && rocm_gfx == '' is false\n"
      "  25  download        rocdxg-download  change   download "
      "https://github.com/ROCm/librocdxg/releases/download/v1.2.2/rocdxg-roct_1.2.2_amd64.deb to "
      "/var/lib/wslgpu-setup/cache/rocdxg-roct_1.2.2_amd64.deb\n"
      "  26  deb_install     rocdxg           change   install the package in "
      "/var/lib/wslgpu-setup/cache/rocdxg-roct_1.2.2_amd64.deb (not there yet: an earlier step creates it)\n"
      "  27  check           rocdxg-lib       verify   `test -f /opt/rocm/lib/librocdxg.so` succeeds\n"
      "  28  profile_env     rocm-path        skipped  skipped: rocm_dxg_env != 'true' is false\n"
      "  29  profile_env     rocm-env         change   create /etc/profile.d/wslgpu-rocm.sh\n"
      "  30  file            dxg-services     change   create /etc/systemd/system.conf.d/wslgpu-rocm.conf\n"
      "  31  file            dxg-user-env     change   create /etc/environment.d/90-wslgpu-rocm.conf\n"
      "  32  file            no-dxg-services  skipped  skipped: rocm_dxg_env != 'true' is false\n"
      "  33  file            no-dxg-user-env  skipped  skipped: rocm_dxg_env != 'true' is false\n"
      "  34  user_groups     gpu-groups       skipped  skipped: add_gpu_groups == 'true' is false\n"
      "  35  check           rocm-links       skipped  skipped: rocm_wsl == 'core' is false\n"
      "  36  check           rocminfo-gfx     verify   `/bin/bash -lc 'exec /opt/rocm/bin/rocminfo'` succeeds and prints "
      "/gfx[0-9a-f]+/\n");
  // The pinned hash of rocdxg-roct_1.2.2_amd64.deb (../shared/VENDOR-FACTS.md).
  CHECK(contains(r.out, "sha256 28ded1254811192ebace1f76c0227580184af7b27ab2475fb9728295a702d541\n"));
  // No interop in this root: the Windows 11 check warns, it does not refuse.
  CHECK(contains(r.out, "warning: the Windows build is unknown ("));
  CHECK(contains(r.out,
                 "Check the network or the proxy (https_proxy), or pass --set rocm_key_url=file:///path/to/the/key "
                 "(a copy fetched elsewhere).\n"));
  CHECK(contains(
      r.out, "+case \":${PATH}:\" in *':/opt/rocm/bin:'*) ;; *) PATH=\"${PATH:+${PATH}:}\"'/opt/rocm/bin' ;; esac\n"));
  CHECK(contains(r.out, "+export HSA_ENABLE_DXG_DETECTION='1'\n"));
  // Beyond login shells: systemd's services, and its user services and sessions.
  CHECK(contains(r.out, "+++ /etc/systemd/system.conf.d/wslgpu-rocm.conf\n"));
  CHECK(contains(r.out, "+DefaultEnvironment=HSA_ENABLE_DXG_DETECTION=1\n"));
  CHECK(contains(r.out, "+++ /etc/environment.d/90-wslgpu-rocm.conf\n"));
  CHECK(contains(r.out, "+HSA_ENABLE_DXG_DETECTION=1\n"));
  CHECK(contains(r.out, "on failure: warn and go on\n"));
  CHECK(contains(r.out,
                 "\nPlan: 6 changes, 2 already done, 4 checks, 20 skipped, 4 refused. Nothing has been changed.\n"
                 "Install would stop before changing anything: fix what is refused above first.\n"));
}

TEST_CASE("plan rocm checks Windows 11 only for a librocdxg release") {
  // The refusal on Windows 10 is tested with a fake interop in
  // tests/unit/steps/test_check_windows.cpp; here, the legacy release plans no
  // Windows check at all.
  FakeWslRoot root;
  CHECK(step_lines(plan(root, "rocm", {"rocm_version=6.4.2.1"}).out).at(1) ==
        "   2  check           windows11        skipped  skipped: rocm_wsl == 'librocdxg' || rocm_wsl == 'core' is false");
}

TEST_CASE(
    "plan rocm with a key of the pinned fingerprint adds AMD's repositories with the key and pin 600, per release" *
    needs_root()) {
  FakeWslRoot root;
  REQUIRE_MESSAGE(root.dxg_is_device(), "only root can make /dev/dxg a character device");
  FakeKey key;
  // The state folder exists beforehand, so that what plan keeps there (the
  // fetched key, by its fingerprint) does not touch the rest of the root.
  root.write("/var/lib/wslgpu-setup/.keep", "");
  auto before = snapshot(root.path());
  RunResult r = plan(root, "rocm",
                     {"rocm_key_fingerprint=" + key.fingerprint, "rocm_key_url=" + key.url, "rocm_version=6.4.2.1"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == kRefusedOffline);
  auto lines = step_lines(r.out);
  REQUIRE(lines.size() == 36);
  CHECK(lines[11] ==
        "  12  apt_repository  amdgpu-repo      change   add /etc/apt/sources.list.d/amdgpu.sources, key "
        "amdgpu.asc (" +
            key.note() + "), pin 600");
  CHECK(lines[12] ==
        "  13  apt_repository  rocm-repo        change   add /etc/apt/sources.list.d/rocm.sources, key "
        "rocm.asc (" +
            key.note() + "), pin 600");
  CHECK(lines[14] == "  15  apt_repository  graphics-repo    skipped  skipped: graphics_dir != '' && (rocm_wsl == "
                    "'legacy' || rocm_wsl == 'librocdxg') is false");
  // AMD's layout up to 6.4.x: amdgpu/<version>/ubuntu and rocm/apt/<version>, suite = codename, main.
  for (const char* line :
       {"+URIs: https://repo.radeon.com/amdgpu/6.4.2.1/ubuntu\n", "+URIs: https://repo.radeon.com/rocm/apt/6.4.2.1\n",
        "+Suites: noble\n", "+Components: main\n", "+Architectures: amd64\n",
        "+Signed-By: /etc/apt/keyrings/amdgpu.asc\n", "+Signed-By: /etc/apt/keyrings/rocm.asc\n",
        "+++ /etc/apt/preferences.d/amdgpu.pref\n", "+++ /etc/apt/preferences.d/rocm.pref\n",
        "+Pin: release o=repo.radeon.com\n", "+Pin-Priority: 600\n"})
    CHECK_MESSAGE(contains(r.out, line), line);
  // The lists of the repositories it would add are read with apt, which this root lacks.
  CHECK(lines[20].rfind("  21  apt_install     rocm             refused  cannot be planned: could not read the package "
                       "lists of the repositories this plan would add, so the plan cannot say what would be installed. "
                       "`apt-get update` could not run",
                       0) == 0);
  CHECK(lines[20].size() > kNoApt.size());
  CHECK(lines[20].substr(lines[20].size() - kNoApt.size()) == kNoApt);
  // A release without a graphics repository removes none that is not there.
  CHECK(lines[15] == "  16  file            no-graphics-src  no-op    /etc/apt/sources.list.d/rocm-graphics.sources is "
                    "already absent");
  CHECK(contains(r.out,
                 "\nPlan: 4 changes, 8 already done, 2 checks, 21 skipped, 1 refused. Nothing has been changed.\n"));

  // 7.x: the amdgpu driver repository is versioned apart, and a graphics repository joins.
  RunResult seven = plan(root, "rocm", {"rocm_key_fingerprint=" + key.fingerprint, "rocm_key_url=" + key.url});
  INFO(seven.out);
  for (const char* line : {"+URIs: https://repo.radeon.com/amdgpu/30.30.4/ubuntu\n",
                           "+URIs: https://repo.radeon.com/rocm/apt/7.2.4\n",
                           "+URIs: https://repo.radeon.com/graphics/7.2.3/ubuntu\n",
                           "+++ /etc/apt/sources.list.d/rocm-graphics.sources\n"})
    CHECK_MESSAGE(contains(seven.out, line), line);
  CHECK(contains(plan(root, "rocm", {"rocm_key_fingerprint=" + key.fingerprint, "rocm_key_url=" + key.url,
                                     "rocm_version=7.2"})
                     .out,
                 "+URIs: https://repo.radeon.com/amdgpu/30.30/ubuntu\n"));

  auto after = snapshot(root.path());
  CHECK_MESSAGE(outside_state(before) == outside_state(after), snapshot_difference(before, after));
}

TEST_CASE("a key whose fingerprint is not the pinned one is refused, and install stops with exit 3" * needs_root()) {
  FakeWslRoot root;
  REQUIRE_MESSAGE(root.dxg_is_device(), "only root can make /dev/dxg a character device");
  FakeKey key;
  const std::string pinned = wslgpu::testing::test_key(1).fingerprint;
  root.write("/var/lib/wslgpu-setup/.keep", "");
  auto before = snapshot(root.path());
  RunResult r = plan(root, "rocm", {"rocm_key_fingerprint=" + pinned, "rocm_key_url=" + key.url});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == kRefusedOffline);
  auto lines = step_lines(r.out);
  REQUIRE(lines.size() == 36);
  CHECK(lines[12] == "  13  apt_repository  rocm-repo        refused  the key at " + key.url + " is " +
                        wslgpu::format_fingerprint(key.fingerprint) + ", not the pinned " +
                        wslgpu::format_fingerprint(pinned));
  RunResult i = run_tool({"--root", root.path(), "--set", "rocm_key_fingerprint=" + pinned, "--set",
                          "rocm_key_url=" + key.url, "install", "rocm", "--yes"},
                         kOffline);
  CHECK(i.exit_code == 3);
  CHECK(contains(i.err, "Nothing was changed (exit 3).\n"));
  auto after = snapshot(root.path());
  CHECK_MESSAGE(outside_state(before) == outside_state(after), snapshot_difference(before, after));
}

TEST_CASE("plan rocm --set rocm_version=7.0.2 refuses the machine with the reason: no WSL runtime was shipped" *
          needs_root()) {
  FakeWslRoot root;
  REQUIRE_MESSAGE(root.dxg_is_device(), "only root can make /dev/dxg a character device");
  RunResult r = plan(root, "rocm", {"rocm_version=7.0.2"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == kRefusedOffline);
  CHECK(contains(r.out,
                 "\n\nrefused by the manifest (rocm_wsl == 'none'): ROCm 7.0.x shipped no WSL runtime (\"Unable to "
                 "locate package hsa-runtime-rocr4wsl-amdgpu\"). Use 7.2.4 (librocdxg, Windows 11) or 7.2 (the last "
                 "legacy release): --set rocm_version=7.2.4\n\n"));
  auto lines = step_lines(r.out);
  REQUIRE(lines.size() == 36);
  CHECK(lines[11] == "  12  apt_repository  amdgpu-repo      skipped  skipped: rocm_wsl == 'legacy' || rocm_wsl == "
                    "'librocdxg' is false");
  CHECK(lines[20] == "  21  apt_install     rocm             skipped  skipped: rocm_wsl == 'legacy' is false");
  CHECK(lines[21] == "  22  apt_install     rocm7            skipped  skipped: rocm_wsl == 'librocdxg' is false");
  CHECK(contains(r.out, ", the machine itself refused. Nothing has been changed.\n"));

  // install stops there, exit 3, before anything.
  RunResult i =
      run_tool({"--root", root.path(), "--set", "rocm_version=7.0.2", "install", "rocm", "--yes"}, kOffline);
  CHECK(i.exit_code == 3);
  CHECK(i.err.rfind("error: refused by the manifest (rocm_wsl == 'none'): ROCm 7.0.x shipped no WSL runtime", 0) ==
        0);
  CHECK(contains(i.err, "Nothing was changed (exit 3).\n"));

  // 7.1.x (a preview), the releases before WSL support, plain 6.4.2 and a
  // release without a row are refused too, each with what to use instead.
  CHECK(contains(plan(root, "rocm", {"rocm_version=7.1.1"}).out,
                 "refused by the manifest (rocm_wsl == 'none'): ROCm 7.1.x supports WSL only as a preview (librocdxg "
                 "had to be built from source). Use 7.2.4 (librocdxg, Windows 11) or 7.2 (the last legacy release): "
                 "--set rocm_version=7.2.4\n"));
  CHECK(contains(plan(root, "rocm", {"rocm_version=6.0.2"}).out,
                 "refused by the manifest (rocm_wsl == 'unlisted' && rocm_version < '6.1.3'): ROCm 6.0.2 predates WSL "
                 "support (6.1.3). Leave rocm_version at auto (7.2.4 on Ubuntu 22.04 and 24.04, the ROCm Core "
                 "SDK's 10.0.0 on 26.04), or use 6.4.2.1 on Windows 10: --set rocm_version=6.4.2.1\n"));
  CHECK(contains(plan(root, "rocm", {"rocm_version=6.4.2"}).out,
                 "refused by the manifest (rocm_wsl == 'none'): plain 6.4.2 lacks hsa-runtime-rocr4wsl-amdgpu; "
                 "6.4.2.1 has it: --set rocm_version=6.4.2.1\n"));
  CHECK(contains(plan(root, "rocm", {"rocm_version=7.1.0"}).out,
                 "ROCm 7.1.0 has no row in this profile's release matrix (manifests/rocm.toml)"));
}

TEST_CASE("plan rocm --set rocm_version=7.2.1 uses amdgpu/30.30.1 and sets dxg detection system-wide" * needs_root()) {
  FakeWslRoot root;
  REQUIRE_MESSAGE(root.dxg_is_device(), "only root can make /dev/dxg a character device");
  RunResult r = plan(root, "rocm", {"rocm_version=7.2.1"});
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == kRefusedOffline);
  CHECK_FALSE(contains(r.out, "refused by the manifest"));
  auto lines = step_lines(r.out);
  REQUIRE(lines.size() == 36);
  CHECK(lines[20] == "  21  apt_install     rocm             skipped  skipped: rocm_wsl == 'legacy' is false");
  // apt-cache runs chrooted into the root, which only root can do.
  CHECK(lines[21] == "  22  apt_install     rocm7            refused  cannot be planned: `apt-cache madison` could not run: "
                     "apt-cache was not found in the target root");
  CHECK(lines[28] == "  29  profile_env     rocm-env         change   create /etc/profile.d/wslgpu-rocm.sh");
  CHECK(contains(r.out, "amdgpu_dir=30.30.1"));
  CHECK(contains(r.out, "+export HSA_ENABLE_DXG_DETECTION='1'\n"));
}

TEST_CASE("plan rocm on Ubuntu 22.04 skips removing the distribution's ROCm 5.7 runtime") {
  FakeWslRoot root;
  root.write("/etc/os-release", "NAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nVERSION_CODENAME=jammy\nID=ubuntu\n");
  RunResult r = plan(root, "rocm");
  REQUIRE(r.exit_code == kRefusedOffline);
  auto lines = step_lines(r.out);
  REQUIRE(lines.size() == 36);
  CHECK(lines[2] ==
        "   3  apt_remove      distro-hsa       skipped  skipped: host.distro == 'ubuntu' && "
        "host.distro_version == '24.04' is false");
  // 24.04 plans it.
  FakeWslRoot noble;
  CHECK(step_lines(plan(noble, "rocm").out).at(2) ==
        "   3  apt_remove      distro-hsa       no-op    none of libhsa-runtime64-1, libhsakmt1 is installed");
}

// ---------------------------------------------------------------- plan cuda

TEST_CASE("plan cuda on a WSL2 machine with NVIDIA's driver stubs prints the toolkit-only procedure" * needs_root()) {
  FakeWslRoot root;
  REQUIRE_MESSAGE(root.dxg_is_device(), "only root can make /dev/dxg a character device");
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "fake libcuda stub\n");
  RunResult r = plan(root, "cuda");
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == kRefusedOffline);
  CHECK(contains(r.out, " · GPU driver nvidia · "));
  auto offline = step_lines(r.out);
  REQUIRE(offline.size() == 9);
  CHECK(starts_with(
      offline[4],
      unreachable("  5  apt_repository  cuda-repo   ",
                  "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/3bf863cc.pub")));
  offline[4] = "(key)";
  // cuda-driver's checks and library path first, then the toolkit's steps.
  CHECK(joined(offline) ==
        "  1  check           dxg         verify   /dev/dxg is a char_device\n"
        "  2  check           libcuda     verify   /usr/lib/wsl/lib/libcuda.so.1 exists\n"
        "  3  profile_env     driver-env  change   create /etc/profile.d/wslgpu-cuda-driver.sh\n"
        "  4  check           nvidia-smi  verify   `/usr/lib/wsl/lib/nvidia-smi -L` succeeds and prints /GPU "
        "[0-9]+:/\n"
        "(key)\n"
        "  6  apt_update      lists       change   refresh package lists (never refreshed by wslgpu-setup)\n"
        "  7  apt_install     toolkit     refused  cannot be planned: `apt-get -s install` " +
            kNoApt +
            "\n"
            "  8  profile_env     cuda-env    change   create /etc/profile.d/wslgpu-cuda.sh\n"
            "  9  check           nvcc        verify   `/usr/local/cuda/bin/nvcc --version` succeeds and prints "
            "/release [0-9]+/\n");
  CHECK(contains(r.out,
                 "+case \":${PATH}:\" in *':/usr/local/cuda/bin:'*) ;; *) "
                 "PATH='/usr/local/cuda/bin'\"${PATH:+:${PATH}}\" ;; esac\n"));
  CHECK(contains(r.out, "LD_LIBRARY_PATH='/usr/lib/wsl/lib'"));
  CHECK(contains(r.out, "\nPlan: 3 changes, 0 already done, 4 checks, 2 refused. Nothing has been changed.\n"));

  FakeKey key;
  RunResult k = plan(root, "cuda", {"cuda_key_fingerprint=" + key.fingerprint, "cuda_key_url=" + key.url});
  INFO(k.out);
  REQUIRE(k.exit_code == kRefusedOffline);
  auto lines = step_lines(k.out);
  REQUIRE(lines.size() == 9);
  CHECK(lines[4] ==
        "  5  apt_repository  cuda-repo   change   add /etc/apt/sources.list.d/cuda-wsl-ubuntu.sources, key "
        "cuda-wsl-ubuntu.asc (" +
            key.note() + "), pin 600");
  CHECK(contains(k.out,
                 "+URIs: https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/\n"
                 "                                          +Suites: /\n"));
  CHECK(lines[6].rfind("  7  apt_install     toolkit     refused  cannot be planned: could not read the package lists",
                       0) == 0);
}

TEST_CASE("plan cuda without the Windows driver's libcuda stub says the check would fail") {
  FakeWslRoot root;
  RunResult r = plan(root, "cuda");
  REQUIRE(r.exit_code == kRefusedOffline);
  CHECK(step_lines(r.out).at(1) == "  2  check           libcuda     verify   /usr/lib/wsl/lib/libcuda.so.1 exists");
  CHECK(contains(r.out, "would fail: /usr/lib/wsl/lib/libcuda.so.1 does not exist\n"));
}

TEST_CASE("plan cuda says which toolkit cuda_version = auto chose and why; a release not in the table is an error") {
  FakeWslRoot root;
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "fake libcuda stub\n");
  RunResult r = plan(root, "cuda");
  INFO(r.out, r.err);
  REQUIRE(r.exit_code == kRefusedOffline);
  CHECK(contains(r.out, " · nvidia-smi: /usr/lib/wsl/lib/nvidia-smi is missing · "));
  CHECK(contains(r.out,
                 "\nChose cuda_version=12.6 (fallback): nvidia-smi names no CUDA release of this table that the driver "
                 "supports (/usr/lib/wsl/lib/nvidia-smi is missing); 12.6 runs on every driver from 525\n"));
  RunResult set = plan(root, "cuda", {"cuda_version=13.0"});
  CHECK(set.exit_code == kRefusedOffline);
  CHECK(contains(set.out, " · cuda_toolkit=13-0 · cuda_version=13.0\n"));
  CHECK_FALSE(contains(set.out, "\nChose "));  // the Variables line says it
  // A release the table does not have is refused, naming those it has.
  RunResult bad =
      run_tool({"--root", root.path(), "--set", "cuda_version=12.7", "plan", "cuda", "--detailed-exitcode"}, kOffline);
  CHECK(bad.exit_code == 3);
  CHECK(contains(bad.out, "CUDA 12.7 is not a toolkit this profile knows for WSL (13.3, 13.2, 13.1, 13.0, 12.9, 12.8, "
                          "12.6, 12.5, 12.4, 12.3, 12.2, 12.1, 12.0; there is no 12.7)."));
  // Profiles that do not name the driver's facts never run nvidia-smi.
  CHECK_FALSE(contains(plan(root, "rocm").out, "nvidia-smi:"));
}

// ----------------------------------------------------------- plan wslconfig

TEST_CASE("plan wslconfig keeps a larger memory and processors the user chose, and says so; --set still wins") {
  FakeWslRoot root;
  const std::string mine = "# tuned by hand\r\n[wsl2]\r\nmemory=48GB\r\nprocessors=16\r\nswap=0\r\n";
  root.write("/mnt/c/Users/alice/.wslconfig", mine);
  auto before = snapshot(root.path());
  RunResult r = run_tool(
      {"--root", root.path(), "--windows-home", "/mnt/c/Users/alice", "plan", "wslconfig", "--detailed-exitcode"});
  INFO(r.out, r.err);
  CHECK(r.exit_code == 0);  // nothing to change
  CHECK(joined(step_lines(r.out)) ==
        "  1  wslconfig  wsl-resources  no-op    /mnt/c/Users/alice/.wslconfig already has 2 settings as wanted\n");
  const std::string indent(40, ' ');
  CHECK(
      contains(r.out, "\n" + indent + "kept: memory 48GB (above 16GB)\n" + indent + "kept: processors 16 (above 8)\n"));
  CHECK(contains(r.out, "Variables: memory=16GB · processors=8 · swap=(empty)\n"));

  RunResult set = run_tool({"--root", root.path(), "--windows-home", "/mnt/c/Users/alice", "--set", "memory=16GB",
                            "plan", "wslconfig", "--output", "json"});
  REQUIRE(set.exit_code == 0);
  auto step = nlohmann::json::parse(set.out)["steps"][0];
  CHECK(step["action"] == "change");
  CHECK(step["summary"] == "/mnt/c/Users/alice/.wslconfig  [wsl2] memory 48GB -> 16GB");
  CHECK(step["details"][0] == "kept: processors 16 (above 8)");
  CHECK(step["changes"][0] == nlohmann::json::parse(R"({"type": "setting", "path": "/mnt/c/Users/alice/.wslconfig",
      "section": "wsl2", "key": "memory", "from": "48GB", "to": "16GB"})"));
  auto after = snapshot(root.path());
  CHECK_MESSAGE(outside_state(before) == outside_state(after), snapshot_difference(before, after));
}

// ---------------------------------------------------------------- the machine

TEST_CASE("install on WSL1 is refused with exit 3 and the reasons; --not-wsl lifts only the machine guards" *
          needs_root()) {
  FakeWslRoot root;
  root.write("/proc/sys/kernel/osrelease", "4.4.0-19041-Microsoft\n");
  std::filesystem::remove(root.path() + "/dev/dxg");
  root.write("/var/lib/wslgpu-setup/.keep", "");
  auto before = snapshot(root.path());
  RunResult r = run_tool({"--root", root.path(), "install", "cuda", "--yes"}, kOffline);
  CHECK(r.exit_code == 3);
  CHECK(
      r.err.rfind("error: refused by guard wsl2: this distribution runs under WSL1 (kernel 4.4.0-19041-Microsoft), "
                  "which has no GPU support.\n  Convert it from Windows: wsl --set-version <distro> 2\n"
                  "error: refused by guard kernel: the WSL kernel is 4.4.0-19041-Microsoft, older than 5.10.60.1, "
                  "the minimum for GPU access.\n  Update it from Windows: wsl --update, then wsl --shutdown.\n"
                  "error: refused by guard dxg: /dev/dxg is missing, so the GPU is not shared with this distribution.\n"
                  "  On Windows: update the GPU driver, then run wsl --update and wsl --shutdown.\n",
                  0) == 0);
  CHECK(contains(r.err, "Nothing was changed (exit 3).\n"));
  auto after = snapshot(root.path());
  CHECK_MESSAGE(outside_state(before) == outside_state(after), snapshot_difference(before, after));

  RunResult n = plan(root, "cuda", {});
  CHECK(contains(n.out, "Machine: WSL1 kernel 4.4.0-19041-Microsoft · /dev/dxg missing"));
  RunResult nw = run_tool({"--root", root.path(), "--not-wsl", "plan", "cuda"}, kOffline);
  CHECK_FALSE(contains(nw.out, "refused by guard"));
}

TEST_CASE("plan and install rocm on a Debian machine refuse before any change, naming what is supported") {
  FakeWslRoot root;
  root.write("/etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n"
                                "VERSION_CODENAME=bookworm\n");
  root.write("/var/lib/wslgpu-setup/.keep", "");
  auto before = outside_state(snapshot(root.path()));
  RunResult plan = run_tool({"--root", root.path(), "plan", "rocm", "--detailed-exitcode"});
  CHECK(plan.exit_code == 3);
  CHECK(contains(plan.out, "this machine runs Debian 12 (bookworm), but AMD publishes ROCm 7.2.4 for WSL only on "
                           "Ubuntu 22.04 and 24.04. From Windows, install a supported distribution (`wsl --install -d "
                           "Ubuntu-24.04`) and run wslgpu-setup there."));
  CHECK(contains(plan.out, "Chose rocm_version=7.2.4 (fallback): AMD publishes ROCm for WSL on Ubuntu 22.04, 24.04 "
                           "and 26.04 only (this is debian 12)"));
  RunResult install = run_tool({"--root", root.path(), "install", "rocm", "--yes"});
  CHECK(install.exit_code == 3);
  CHECK(contains(install.err, "error: this machine runs Debian 12 (bookworm)"));
  RunResult cuda = run_tool({"--root", root.path(), "plan", "cuda", "--detailed-exitcode"});
  CHECK(cuda.exit_code == 3);
  CHECK(contains(cuda.out, "NVIDIA's CUDA on WSL is documented (CUDA release notes; Canonical's CUDA on WSL page) "
                           "only on Ubuntu 22.04, 24.04 and 26.04."));
  CHECK(snapshot_difference(before, outside_state(snapshot(root.path()))).empty());
}

TEST_CASE("plan rocm on Ubuntu 26.04 chooses the ROCm Core SDK, the only ROCm AMD publishes there, changing nothing") {
  FakeWslRoot root;
  root.write("/etc/os-release", "PRETTY_NAME=\"Ubuntu 26.04.1 LTS\"\nID=ubuntu\nVERSION_ID=\"26.04\"\n"
                                "VERSION_CODENAME=resolute\n");
  root.write("/var/lib/wslgpu-setup/.keep", "");
  auto before = outside_state(snapshot(root.path()));
  RunResult r = run_tool({"--root", root.path(), "plan", "rocm", "--output", "json"}, kOffline);
  INFO(r.out, r.err);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["vars"]["rocm_version"] == "10.0.0");
  CHECK(j["vars"]["rocm_wsl"] == "core");
  CHECK(j["vars"]["rocm_core_repo"] == "https://stable.repo.amd.com/rocm/core/packages/ubuntu2604/");
  RunResult text = run_tool({"--root", root.path(), "plan", "rocm"}, kOffline);
  CHECK(contains(text.out, "Chose rocm_version=10.0.0 (auto): the newest release AMD calls production for WSL on "
                           "Ubuntu 26.04\n"));
  CHECK_FALSE(contains(text.out, "this machine runs Ubuntu 26.04"));
  // Its known WSL problems, before anything changes.
  CHECK(contains(text.out, "warning: ROCm 10.0.0 on WSL: a field report of 10.0.0 on WSL"));
  // Ubuntu's own ROCm 7.1 goes, then any legacy release, before the Core SDK's repository and package.
  auto lines = step_lines(text.out);
  REQUIRE(lines.size() == 36);
  CHECK(lines[3] == "   4  apt_remove      distro-rocm      no-op    none of libamdhip64-7, libhsa-runtime64-1 is "
                    "installed");
  CHECK(lines[4] == "   5  apt_remove      legacy-rocm      no-op    none of rocm-core, hsa-runtime-rocr4wsl-amdgpu is "
                    "installed");
  CHECK(starts_with(lines[13], "  14  apt_repository  core-repo        refused  could not reach stable.repo.amd.com"));
  CHECK(starts_with(lines[23], "  24  apt_install     core-all         refused  cannot be planned"));
  CHECK(contains(text.out, "would install amdrocm10.0 10.0.0-*, in place of installed packages matching amdrocm*"));
  CHECK(contains(text.out, "+case \":${PATH}:\" in *':/opt/rocm/core-10.0/bin:'*)"));
  CHECK_FALSE(contains(text.out, "HSA_ENABLE_DXG_DETECTION='1'"));
  // With the GPU's target known, its package alone.
  RunResult gfx = run_tool({"--root", root.path(), "--set", "rocm_gfx=gfx1201", "plan", "rocm"}, kOffline);
  CHECK(contains(gfx.out, "would install amdrocm10.0-gfx1201 10.0.0-*"));
  // A legacy release there is refused, naming the Core SDK.
  RunResult legacy = run_tool({"--root", root.path(), "--set", "rocm_version=7.2.4", "plan", "rocm"}, kOffline);
  CHECK(contains(legacy.out + legacy.err, "this machine runs Ubuntu 26.04 (resolute), but AMD publishes ROCm 7.2.4 "
                                          "for WSL only on Ubuntu 22.04 and 24.04."));
  CHECK(contains(legacy.out + legacy.err, "On Ubuntu 26.04 AMD publishes only its ROCm Core SDK: leave rocm_version "
                                          "at auto there (10.0.0), or --set rocm_version=10.1.0."));
  CHECK(snapshot_difference(before, outside_state(snapshot(root.path()))).empty());
}

TEST_CASE("a Debian machine without VERSION_CODENAME is refused as unsupported, never with an empty suite") {
  FakeWslRoot root;
  root.write("/etc/os-release", "ID=debian\nVERSION_ID=\"13\"\n");
  RunResult r = run_tool({"--root", root.path(), "plan", "rocm"});
  CHECK(r.exit_code == 3);
  CHECK(r.err == "error: this machine runs Debian 13, but AMD publishes ROCm 7.2.4 for WSL only on Ubuntu 22.04 and "
                 "24.04. From Windows, install a supported distribution (`wsl --install -d Ubuntu-24.04`) and run "
                 "wslgpu-setup there. On Ubuntu 26.04 AMD publishes only its ROCm Core SDK: leave rocm_version at "
                 "auto there (10.0.0), or --set rocm_version=10.1.0. (--unsupported-distro plans and installs "
                 "anyway, at your own risk.)\n");
  RunResult anyway = run_tool({"--root", root.path(), "--unsupported-distro", "plan", "rocm"});
  CHECK(anyway.exit_code == 2);
  CHECK(contains(anyway.err, ": ${host.codename} is empty on this machine (it comes from VERSION_CODENAME in "
                             "/etc/os-release), so step \"amdgpu-repo\" cannot be written"));
  CHECK_FALSE(contains(anyway.err, "\"\""));
}
