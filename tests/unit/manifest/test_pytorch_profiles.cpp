// The bundled PyTorch layers as data: which wheels and which index each
// machine gets, read from the profiles themselves (manifests/pytorch-*.toml).
#include <doctest/doctest.h>

#include "installer/host/host.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

ManifestSource bundled(const std::string& name) {
  for (const auto& m : bundled_manifests())
    if (m.name == name) return {std::string(m.path), std::string(m.content), true};
  FAIL("no bundled profile " << name);
  return {};
}

HostFacts with_driver(const std::string& driver, const std::string& cuda) {
  HostFacts host = wslgpu::testing::fake_wsl_host();
  NvidiaDriverFacts facts{driver, cuda, "driver " + driver + ", CUDA " + cuda};
  host.nvidia_driver = std::make_shared<const LazyNvidiaDriver>([facts] { return facts; });
  return host;
}

}  // namespace

TEST_CASE("pytorch-cuda takes the cu130 index for a 58x driver, cu128 for a 57x one, and the row's torch") {
  Manifest m = load_manifest(bundled("pytorch-cuda"), {}, with_driver("581.57", "13.0"));
  CHECK(m.base_name == "cuda");
  CHECK(m.vars.at("torch_cuda") == "cu130");
  CHECK(m.vars.at("torch_version") == "2.14.1");
  CHECK(m.vars.at("torch_min_driver") == "580");
  Manifest older = load_manifest(bundled("pytorch-cuda"), {}, with_driver("572.83", "12.8"));
  CHECK(older.vars.at("torch_cuda") == "cu128");
  CHECK(older.vars.at("torch_version") == "2.11.0");
  // The base chose its toolkit from the same driver, in the same load.
  CHECK(older.vars.at("cuda_version") == "12.8");
  Manifest newest = load_manifest(bundled("pytorch-cuda"), {}, with_driver("596.36", "13.2"));
  CHECK(newest.vars.at("torch_cuda") == "cu132");
}

TEST_CASE("pytorch-cuda refuses a driver too old for every CUDA build, and says how to choose one") {
  try {
    load_manifest(bundled("pytorch-cuda"), {}, with_driver("551.86", "12.4"));
    FAIL("loaded");
  } catch (const Refusal& e) {
    CHECK(std::string(e.what()).find("torch_cuda") != std::string::npos);
  }
}

TEST_CASE("pytorch-rocm's default is ROCm 7.2.2's cp312 set from AMD's rocm-rel-7.2.2 folder on Ubuntu 24.04") {
  Manifest m = load_manifest(bundled("pytorch-rocm"), {}, wslgpu::testing::fake_wsl_host());
  CHECK(m.base_name == "rocm");
  CHECK(m.vars.at("rocm_version") == "7.2.2");
  CHECK(m.vars.at("torch_cp") == "cp312");
  CHECK(m.vars.at("torch_python") == "3.12");
  CHECK(m.vars.at("torch_dir") == "rocm-rel-7.2.2");
  CHECK(m.vars.at("torch_wheel") == "torch-2.9.1%2Brocm7.2.2.lw.git127a149a");
  // The legacy 7.2 release: its own set, and the libhsa step.
  Manifest legacy = load_manifest(bundled("pytorch-rocm"), {{"rocm_version", "7.2"}}, wslgpu::testing::fake_wsl_host());
  CHECK(legacy.vars.at("torch_dir") == "rocm-rel-7.2");
  CHECK(legacy.vars.at("rocm_wsl") == "legacy");
  // 6.4.2.1 uses the 6.4.2 folder and pins NumPy 1.26.4.
  Manifest six = load_manifest(bundled("pytorch-rocm"), {{"rocm_version", "6.4.2.1"}}, wslgpu::testing::fake_wsl_host());
  CHECK(six.vars.at("torch_dir") == "rocm-rel-6.4.2");
  CHECK(six.vars.at("torch_numpy") == "1.26.4");
  CHECK(six.vars.at("triton_wheel") == "pytorch_triton_rocm-3.2.0%2Brocm6.4.2.git7e948ebf");
}

TEST_CASE("pytorch-rocm on Ubuntu 22.04 takes the cp310 wheels") {
  HostFacts jammy = wslgpu::testing::fake_wsl_host();
  jammy.distro_version = "22.04";
  jammy.codename = "jammy";
  Manifest m = load_manifest(bundled("pytorch-rocm"), {{"rocm_version", "7.2.1"}}, jammy);
  CHECK(m.vars.at("torch_cp") == "cp310");
  CHECK(m.vars.at("torch_python") == "3.10");
}
