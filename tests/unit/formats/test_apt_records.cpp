// apt's other answers a package step reads: `apt-cache madison` (which
// versions can still be fetched), /var/lib/apt/extended_states (which
// packages were installed as dependencies), and a simulation's downgrades
// and "unmet dependencies" report, as apt 2.6 prints them (seen on the
// real-root tier's Debian 12 roots).
#include <doctest/doctest.h>

#include "installer/formats/apt_extended_states.hpp"
#include "installer/formats/apt_madison.hpp"
#include "installer/formats/apt_simulation.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

TEST_CASE("apt-cache madison gives each name's versions, newest first, once each") {
  auto v = parse_apt_madison(
      "cuda-toolkit-12-6 |   12.6.3-1 | file:/srv/testrepo/compute/cuda/repos/wsl-ubuntu/x86_64  Packages\n"
      "cuda-toolkit-12-6 |   12.6.2-1 | file:/srv/testrepo/compute/cuda/repos/wsl-ubuntu/x86_64  Packages\n"
      "cuda-toolkit-12-6 |   12.6.2-1 | https://mirror.invalid/other  Packages\n"
      "      rocm | 6.4.2.60402-120~24.04 | https://repo.radeon.com/rocm/apt/6.4.2 noble/main amd64 Packages\n"
      "N: Unable to locate package nosuch\n");
  REQUIRE(v.size() == 2);
  CHECK(v["cuda-toolkit-12-6"] == std::vector<std::string>{"12.6.3-1", "12.6.2-1"});
  CHECK(v["rocm"] == std::vector<std::string>{"6.4.2.60402-120~24.04"});
}

TEST_CASE("extended_states marks what apt installed as a dependency, and nothing else") {
  AptExtendedStates s = AptExtendedStates::parse(
      "Package: cuda-nvcc-12-2\nArchitecture: amd64\nAuto-Installed: 1\n\n"
      "Package: cuda-toolkit-12-2\nArchitecture: amd64\nAuto-Installed: 0\n\n"
      "Package: libc6\nArchitecture: i386\nAuto-Installed: 1\n");
  CHECK(s.is_auto("cuda-nvcc-12-2"));
  CHECK(s.is_auto("cuda-nvcc-12-2:amd64"));
  CHECK_FALSE(s.is_auto("cuda-toolkit-12-2"));
  CHECK_FALSE(s.is_auto("bash"));
  CHECK(s.is_auto("libc6:i386"));
  CHECK_THROWS_AS(AptExtendedStates::parse("Package x\n"), InputError);
}

TEST_CASE("a simulated downgrade is a downgrade, not an upgrade") {
  AptTransaction tx = parse_apt_simulation(
      "Inst cuda-toolkit-12-6 [12.6.3-1] (12.6.2-1 wslgpu-test:localhost [all]) []\n"
      "Inst cuda-nvcc-12-6 [12.6.2-1] (12.6.3-1 wslgpu-test:localhost [all])\n");
  REQUIRE(tx.actions.size() == 2);
  CHECK(tx.actions[0].kind == AptAction::Kind::downgrade);
  CHECK(tx.actions[0].old_version == "12.6.3-1");
  CHECK(tx.actions[0].version == "12.6.2-1");
  CHECK(std::string(apt_action_name(tx.actions[0].kind)) == "downgrade");
  CHECK(tx.actions[1].kind == AptAction::Kind::upgrade);
}

TEST_CASE("apt's unmet dependencies report names the exact versions a downgrade needs") {
  const char* report =
      "Some packages could not be installed. This may mean that you have\n"
      "requested an impossible situation or if you are using the unstable\n"
      "The following packages have unmet dependencies:\n"
      " cuda-toolkit-12-6 : Depends: cuda-nvcc-12-6 (= 12.6.2-1) but 12.6.3-1 is to be installed\n"
      "                     Depends: cuda-toolkit-12-6-config-common (= 12.6.2-1) but 12.6.3-1 is to be installed\n"
      " rocm : Depends: rocm-dev (>= 6.4) but it is not going to be installed\n"
      " other : PreDepends: libfoo:amd64 (= 2.0-1) but 3.0-1 is installed\n"
      "E: Unable to correct problems, you have held broken packages.\n";
  auto deps = apt_unmet_exact_dependencies(report);
  REQUIRE(deps.size() == 3);
  CHECK(deps[0].name == "cuda-nvcc-12-6");
  CHECK(deps[0].version == "12.6.2-1");
  CHECK(deps[1].name == "cuda-toolkit-12-6-config-common");
  CHECK(deps[2].name == "libfoo");
  CHECK(deps[2].version == "2.0-1");
}
