// A host's facts as host.NAME variables and back (HostFacts::as_variables,
// HostFacts::with_variables): a transaction's record keeps the variables,
// and `plan` asks today's profile about the machine they describe.
#include <doctest/doctest.h>

#include <memory>

#include "installer/host/host.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

// Every fact set, each to a value no default has, nvidia-smi's and
// Windows' answers probed.
HostFacts every_fact_set() {
  HostFacts h;
  h.kernel_release = "6.6.87.2-microsoft-standard-WSL2";
  h.wsl = "2";
  h.dxg = true;
  h.wsl_lib = true;
  h.gpu_vendor = "nvidia";
  h.distro = "ubuntu";
  h.distro_version = "22.04";
  h.codename = "jammy";
  h.arch = "arm64";
  h.user = "bob";
  h.user_home = "/home/bob";
  h.windows_home = "/mnt/c/Users/bob";
  h.docker_desktop = true;
  h.docker_ce = "5:28.1.1-1~ubuntu.22.04~jammy";
  h.systemd = true;
  auto driver = std::make_shared<LazyNvidiaDriver>([] {
    return NvidiaDriverFacts{"591.86", "13.1", "driver 591.86, CUDA 13.1"};
  });
  driver->get();
  h.nvidia_driver = driver;
  auto gpus = std::make_shared<LazyWindowsGpus>([] {
    WindowsGpuFacts w;
    w.answer = WindowsGpuAnswer::answered;
    w.amd_gpu = "AMD Radeon RX 9070 XT";
    w.amd_gfx = "gfx1201";
    w.amd_windows_driver = "32.0.21041.1000";
    w.amd_igpu = true;
    w.said = "AMD Radeon RX 9070 XT (gfx1201), Windows driver 32.0.21041.1000, beside the integrated AMD Radeon(TM) "
             "Graphics";
    return w;
  });
  gpus->get();
  h.windows_gpus = gpus;
  return h;
}

}  // namespace

TEST_CASE("every fact a host's variables name reads back from them") {
  const HostFacts then = every_fact_set();
  const HostFacts now = HostFacts{}.with_variables(then.as_variables());
  CHECK(now.as_variables() == then.as_variables());
  // A fact added to as_variables() and not to with_variables() fails here:
  // every value differs from a default HostFacts'.
  for (const auto& fact : HostFacts{}.as_variables()) {
    const std::string& name = fact.first;  // (clang 14 cannot capture a structured binding in INFO's lambda)
    INFO(name);
    CHECK(then.as_variables().at(name) != fact.second);
  }
}

TEST_CASE("a recorded nvidia-smi answer is taken as probed, without running nvidia-smi") {
  HostFacts now = wslgpu::testing::fake_wsl_host();
  bool ran = false;
  now.nvidia_driver = std::make_shared<LazyNvidiaDriver>([&] {
    ran = true;
    return NvidiaDriverFacts{"610.01", "13.2", "driver 610.01, CUDA 13.2"};
  });
  HostFacts then = now.with_variables({{"host.nvidia_driver", "560.76"},
                                       {"host.nvidia_cuda", "12.6"},
                                       {"host.nvidia_smi", "driver 560.76, CUDA 12.6"}});
  then.probe_lazy_facts();
  CHECK(then.as_variables().at("host.nvidia_cuda") == "12.6");
  CHECK(then.as_variables().at("host.nvidia_driver") == "560.76");
  CHECK_FALSE(ran);
}

TEST_CASE("facts the variables do not name stay as they are") {
  const HostFacts now = wslgpu::testing::fake_wsl_host();
  const HostFacts then = now.with_variables({{"host.distro_version", "22.04"}, {"host.codename", "jammy"}});
  CHECK(then.distro_version == "22.04");
  CHECK(then.codename == "jammy");
  CHECK(then.distro == now.distro);
  CHECK(then.user == now.user);
  CHECK(then.user_uid == now.user_uid);  // no host.NAME variable: never recorded as one
  CHECK(then.gpu_vendor == now.gpu_vendor);
  // No nvidia-smi answer recorded: today's probe, if a profile asks.
  CHECK(then.nvidia_driver == now.nvidia_driver);
}

TEST_CASE("host.distro_folder is the distribution and its version without dots, as vendors name repository folders") {
  HostFacts h;
  h.distro = "ubuntu";
  h.distro_version = "26.04";
  CHECK(h.as_variables().at("host.distro_folder") == "ubuntu2604");
  h.distro = "debian";
  h.distro_version = "13";
  CHECK(h.as_variables().at("host.distro_folder") == "debian13");
  h.distro.clear();
  CHECK(h.as_variables().at("host.distro_folder").empty());
}

TEST_CASE("a recorded Windows GPU answer is taken as probed, without asking Windows") {
  HostFacts now = wslgpu::testing::fake_wsl_host();
  bool ran = false;
  now.windows_gpus = std::make_shared<LazyWindowsGpus>([&] {
    ran = true;
    return WindowsGpuFacts{};
  });
  HostFacts then = now.with_variables({{"host.amd_gfx", "gfx1100"}, {"host.amd_igpu", "false"}});
  then.probe_lazy_facts();
  CHECK(then.as_variables().at("host.amd_gfx") == "gfx1100");
  CHECK(then.as_variables().at("host.amd_igpu") == "false");
  CHECK_FALSE(ran);
}

TEST_CASE("before Windows is asked, every Windows GPU fact is empty, host.amd_igpu too") {
  HostFacts h = wslgpu::testing::fake_wsl_host();
  h.windows_gpus = std::make_shared<LazyWindowsGpus>([] { return windows_gpu_facts({}); });
  CHECK(h.as_variables().at("host.amd_igpu").empty());
  CHECK(h.unprobed_lazy_fact_names().size() == lazy_host_fact_names().size());
  h.probe_lazy_facts({"host.amd_gpu"});
  CHECK(h.as_variables().at("host.amd_igpu") == "false");
  CHECK(h.as_variables().at("host.windows_gpus") == "Windows lists no video controller");
  CHECK(h.unprobed_lazy_fact_names() == nvidia_fact_names());
}

TEST_CASE("probing the facts a manifest names runs only their group's program") {
  HostFacts h = wslgpu::testing::fake_wsl_host();
  int nvidia_runs = 0, windows_runs = 0;
  h.nvidia_driver = std::make_shared<LazyNvidiaDriver>([&] {
    ++nvidia_runs;
    return NvidiaDriverFacts{};
  });
  h.windows_gpus = std::make_shared<LazyWindowsGpus>([&] {
    ++windows_runs;
    return WindowsGpuFacts{};
  });
  h.probe_lazy_facts({"host.nvidia_cuda"});
  CHECK(nvidia_runs == 1);
  CHECK(windows_runs == 0);
  h.probe_lazy_facts({"host.amd_gfx", "host.nvidia_driver"});
  CHECK(nvidia_runs == 1);  // once per command
  CHECK(windows_runs == 1);
}
