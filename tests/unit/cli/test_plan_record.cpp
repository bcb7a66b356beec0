// What a plan record (installer/cli/plan_record.hpp) keeps of the machine it
// was resolved on, and the machine it gives back (machine_as_recorded):
// `plan` asks today's profile about that machine, so that what the machine
// changed since is not listed as a changed default.
#include <doctest/doctest.h>

#include <memory>

#include "installer/cli/plan_record.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

nlohmann::json record_of(const HostFacts& host) {
  return plan_record(GlobalOptions{}, ManifestSource{"demo.toml", "", false}, Plan{}, host);
}

// The machine of fake_wsl_host() as it was before an upgrade: Ubuntu 22.04,
// an NVIDIA card whose driver nvidia-smi was asked about, user bob.
HostFacts before_the_upgrade() {
  HostFacts h = wslgpu::testing::fake_wsl_host();
  h.distro_version = "22.04";
  h.codename = "jammy";
  h.gpu_vendor = "nvidia";
  h.user = "bob";
  h.user_home = "/home/bob";
  h.user_uid = 1001;
  h.user_gid = 1001;
  auto driver = std::make_shared<LazyNvidiaDriver>([] {
    return NvidiaDriverFacts{"560.76", "12.6", "driver 560.76, CUDA 12.6"};
  });
  driver->get();
  h.nvidia_driver = driver;
  return h;
}

}  // namespace

TEST_CASE("a plan record gives back the machine it was resolved on, not today's") {
  const HostFacts then = before_the_upgrade();
  const HostFacts now = wslgpu::testing::fake_wsl_host();
  const HostFacts recorded = machine_as_recorded(now, record_of(then));
  CHECK(recorded.as_variables() == then.as_variables());
  CHECK(recorded.user_uid == 1001);
  CHECK(recorded.user_gid == 1001);
}

TEST_CASE("a plan record keeps no nvidia-smi answer when the profile never asked nvidia-smi") {
  HostFacts then = before_the_upgrade();
  then.nvidia_driver = std::make_shared<LazyNvidiaDriver>([] { return NvidiaDriverFacts{"1", "1", "never run"}; });
  const nlohmann::json record = record_of(then);
  for (const auto& name : lazy_host_fact_names()) {
    INFO(name);
    CHECK_FALSE(record["host_facts"].contains(name));
  }
  CHECK(record["host_facts"]["host.distro_version"] == "22.04");
  // Today's nvidia-smi, probed if today's profile asks, not an empty answer.
  HostFacts now = wslgpu::testing::fake_wsl_host();
  now.nvidia_driver = std::make_shared<LazyNvidiaDriver>([] { return NvidiaDriverFacts{"610.01", "13.2", "now"}; });
  CHECK(machine_as_recorded(now, record).nvidia_driver == now.nvidia_driver);
}

TEST_CASE("a plan record made before the host facts were kept gives its user and today's other facts") {
  nlohmann::json record = record_of(before_the_upgrade());
  record.erase("host_facts");
  const HostFacts now = wslgpu::testing::fake_wsl_host();
  const HostFacts recorded = machine_as_recorded(now, record);
  CHECK(recorded.user == "bob");
  CHECK(recorded.user_home == "/home/bob");
  CHECK(recorded.distro_version == "24.04");
  CHECK(recorded.codename == "noble");
  CHECK(recorded.gpu_vendor == "amd");

  record.erase("host_user");  // older still: today's user too
  CHECK(machine_as_recorded(now, record).as_variables() == now.as_variables());
}
