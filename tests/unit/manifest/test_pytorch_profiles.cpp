// The bundled PyTorch layers as data: which wheels and which index each
// machine gets, read from the profiles themselves (manifests/pytorch-*.toml).
#include <doctest/doctest.h>

#include "bundled_profiles.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

using wslgpu::testing::bundled;
using wslgpu::testing::refusals;
using wslgpu::testing::with_driver;

TEST_CASE("pytorch-cuda takes the cu130 index for a 58x driver, cu128 for a 57x one, and the row's torch") {
  Manifest m = load_manifest(bundled("pytorch-cuda"), {}, with_driver("581.57", "13.0"));
  CHECK(m.base_name == "cuda-driver");
  CHECK(m.vars.at("torch_cuda") == "cu130");
  CHECK(m.vars.at("torch_version") == "2.14.1");
  CHECK(m.vars.at("torch_min_driver") == "580");
  Manifest older = load_manifest(bundled("pytorch-cuda"), {}, with_driver("572.83", "12.8"));
  CHECK(older.vars.at("torch_cuda") == "cu128");
  CHECK(older.vars.at("torch_version") == "2.11.0");
  // No CUDA toolkit is chosen: the wheels bring their runtime.
  CHECK_FALSE(older.vars.count("cuda_version"));
  Manifest newest = load_manifest(bundled("pytorch-cuda"), {}, with_driver("596.36", "13.2"));
  CHECK(newest.vars.at("torch_cuda") == "cu132");
}

TEST_CASE("pytorch-cuda refuses a driver too old for every CUDA build, naming the driver to install") {
  HostFacts host = with_driver("551.86", "12.4");
  Manifest m = load_manifest(bundled("pytorch-cuda"), {}, host);
  CHECK(m.vars.at("torch_cuda") == "none");
  std::vector<std::string> reasons = refusals(m, host);
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0].find("install NVIDIA's driver 580 or later (560.76 at least, for cu126)") != std::string::npos);
}

TEST_CASE("pytorch-rocm's default is ROCm 7.2.4's cp312 set from AMD's rocm-rel-7.2.4 folder on Ubuntu 24.04") {
  Manifest m = load_manifest(bundled("pytorch-rocm"), {}, wslgpu::testing::fake_wsl_host());
  CHECK(m.base_name == "rocm");
  CHECK(m.vars.at("rocm_version") == "7.2.4");
  CHECK(m.vars.at("torch_cp") == "cp312");
  CHECK(m.vars.at("torch_python") == "3.12");
  CHECK(m.vars.at("torch_dir") == "rocm-rel-7.2.4");
  CHECK(m.vars.at("torch_wheel") == "torch-2.9.1%2Brocm7.2.4.lw.git39497456");
  Manifest previous = load_manifest(bundled("pytorch-rocm"), {{"rocm_version", "7.2.2"}}, wslgpu::testing::fake_wsl_host());
  CHECK(previous.vars.at("torch_wheel") == "torch-2.9.1%2Brocm7.2.2.lw.git127a149a");
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
