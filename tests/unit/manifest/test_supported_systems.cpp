// [guards.supported] and host facts that this machine does not have: the
// profiles say where the vendor publishes, and a value built from an empty
// fact names the fact instead of becoming "".
#include <doctest/doctest.h>

#include "installer/guards/guards.hpp"
#include "installer/manifest/manifest.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

const char* const kRocmLike = R"([manifest]
name = "vendor"
schema_version = 1

[vars]
rocm_version = "6.4.2.1"

[guards.supported]
publisher = "AMD publishes ROCm ${rocm_version} for WSL"
advice = "Install Ubuntu 24.04."
systems = [
  { distro = "ubuntu", versions = ["22.04"], when = "rocm_version < '6.2.3'" },
  { distro = "ubuntu", versions = ["22.04", "24.04"], when = "rocm_version >= '6.2.3'" },
]

[[step]]
id = "repo"
kind = "file"
path = "/etc/apt/sources.list.d/vendor.list"
content = "deb https://example.invalid/${rocm_version} ${host.codename} main\n"
)";

Manifest load_for_host(const std::string& text, const HostFacts& host, const Variables& sets = {},
                       LoadOptions options = {}) {
  return load_manifest(ManifestSource{"test.toml", text, false}, sets, host, options);
}

HostFacts debian12() {
  HostFacts h = testing::fake_wsl_host();
  h.distro = "debian";
  h.distro_version = "12";
  h.codename = "bookworm";
  return h;
}

std::vector<std::string> machine_refusals(const Manifest& m, const HostFacts& host, bool unsupported_distro = false) {
  testing::MemoryFileSystem fs;
  GuardOptions options;
  options.unsupported_distro = unsupported_distro;
  return guard_environment(host, m.guards, m.vars, fs, options);
}

}  // namespace

TEST_CASE("a supported Ubuntu release passes the supported-systems guard") {
  HostFacts h = testing::fake_wsl_host();  // Ubuntu 24.04
  Manifest m = load_for_host(kRocmLike, h);
  REQUIRE(m.guards.supported);
  CHECK(unsupported_system(h, *m.guards.supported, m.vars) == "");
  CHECK(machine_refusals(m, h).empty());
}

TEST_CASE("Debian is refused naming what was found, what is supported and what to do") {
  HostFacts h = debian12();
  Manifest m = load_for_host(kRocmLike, h);
  std::vector<std::string> refusals = machine_refusals(m, h);
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0] ==
        "this machine runs Debian 12 (bookworm), but AMD publishes ROCm 6.4.2.1 for WSL only on Ubuntu 22.04 and "
        "24.04. Install Ubuntu 24.04. (--unsupported-distro plans and installs anyway, at your own risk.)");
  CHECK(machine_refusals(m, h, true).empty());
}

TEST_CASE("the supported releases follow the manifest's variables") {
  HostFacts h = testing::fake_wsl_host();  // Ubuntu 24.04
  Manifest m = load_for_host(kRocmLike, h, {{"rocm_version", "6.1.3"}});
  CHECK(unsupported_system(h, *m.guards.supported, m.vars) ==
        "this machine runs Ubuntu 24.04 (noble), but AMD publishes ROCm 6.1.3 for WSL only on Ubuntu 22.04. "
        "Install Ubuntu 24.04. (--unsupported-distro plans and installs anyway, at your own risk.)");
  h.distro_version = "22.04";
  h.codename = "jammy";
  CHECK(unsupported_system(h, *m.guards.supported, m.vars) == "");
}

TEST_CASE("an empty host fact in a value names the fact and where it comes from, never \"\"") {
  HostFacts h = testing::fake_wsl_host();
  h.codename = "";  // an /etc/os-release without VERSION_CODENAME
  try {
    load_for_host(kRocmLike, h);
    FAIL("loaded without an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "test.toml:20:56: ${host.codename} is empty on this machine (it comes from VERSION_CODENAME in "
          "/etc/os-release), so step \"repo\" cannot be written");
  }
}

TEST_CASE("a step that is skipped loads even when a fact it uses is empty") {
  HostFacts h = testing::fake_wsl_host();
  h.codename = "";
  std::string text = std::string(kRocmLike) + "when = \"rocm_version >= '7.0'\"\n";
  Manifest m = load_for_host(text, h);
  CHECK(m.steps.size() == 1);
}

TEST_CASE("on an unsupported system, values built from its empty facts are a refusal, not a manifest error") {
  HostFacts h = debian12();
  h.codename = "";
  CHECK_THROWS_WITH_AS(
      load_for_host(kRocmLike, h),
      "this machine runs Debian 12, but AMD publishes ROCm 6.4.2.1 for WSL only on Ubuntu 22.04 and "
      "24.04. Install Ubuntu 24.04. (--unsupported-distro plans and installs anyway, at your own risk.)",
      Refusal);
  // Asked to go on anyway, the fact's own message is what is left to say.
  CHECK_THROWS_AS(load_for_host(kRocmLike, h, {}, LoadOptions{true, {}}), InputError);
}

TEST_CASE("the bundled profiles say where their vendor publishes") {
  for (const char* profile : {"rocm", "cuda"}) {
    CAPTURE(profile);
    Manifest m = load_manifest(find_manifest(profile), {}, testing::fake_wsl_host());
    REQUIRE(m.guards.supported);
    CHECK(m.guards.supported->systems.size() >= 1);
    CHECK(unsupported_system(debian12(), *m.guards.supported, m.vars).find("this machine runs Debian 12 (bookworm)") ==
          0);
    CHECK(unsupported_system(testing::fake_wsl_host(), *m.guards.supported, m.vars) == "");
  }
}
