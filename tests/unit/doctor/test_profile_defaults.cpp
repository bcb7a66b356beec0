// What doctor takes from the bundled profiles instead of a copy of its own:
// the defaults come out with the machine's facts put in, and a variable a
// profile does not have is a loud error, never a silent guess.
#include <doctest/doctest.h>

#include <stdexcept>

#include "installer/doctor/profile_defaults.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

TEST_CASE("bundled_default gives a profile's [vars] default with the host's facts substituted") {
  HostFacts host = wslgpu::testing::fake_wsl_host();
  host.user_home = "/home/bob";
  CHECK(doctor::bundled_default("pytorch-rocm", "venv", host) == "/home/bob/.venvs/pytorch");
  CHECK(doctor::bundled_default("pytorch-cuda", "venv", host) == "/home/bob/.venvs/pytorch");
  CHECK(doctor::bundled_default("containers-cuda", "docker_daemon_json", host) == "/etc/docker/daemon.json");
}

TEST_CASE("bundled_default throws for a variable or a profile that is not there") {
  HostFacts host = wslgpu::testing::fake_wsl_host();
  CHECK_THROWS_AS(doctor::bundled_default("containers-cuda", "no_such_variable", host), std::logic_error);
  CHECK_THROWS_AS(doctor::bundled_default("no-such-profile", "venv", host), std::logic_error);
}
