// The bundled TensorFlow, JAX and ONNX Runtime layers as data: which release
// each machine gets, and what is refused, read from the profiles themselves
// (manifests/{tensorflow,jax,onnxruntime}-{cuda,rocm}.toml).
#include <doctest/doctest.h>

#include "bundled_profiles.hpp"

using namespace wslgpu;

using wslgpu::testing::bundled;
using wslgpu::testing::refusals;
using wslgpu::testing::with_driver;

namespace {

// with_driver() on Ubuntu VERSION (CODENAME) instead of 24.04.
HostFacts ubuntu_with_driver(const std::string& version, const std::string& codename, const std::string& driver,
                             const std::string& cuda) {
  HostFacts host = with_driver(driver, cuda);
  host.distro_version = version;
  host.codename = codename;
  return host;
}

HostFacts jammy_with_driver(const std::string& driver, const std::string& cuda) {
  return ubuntu_with_driver("22.04", "jammy", driver, cuda);
}

HostFacts resolute_with_driver(const std::string& driver, const std::string& cuda) {
  return ubuntu_with_driver("26.04", "resolute", driver, cuda);
}

bool has(const std::vector<std::string>& reasons, const std::string& text) {
  for (const auto& r : reasons)
    if (r.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("tensorflow-cuda installs tensorflow[and-cuda] 2.21.0 for the distribution's Python, in its own venv") {
  HostFacts noble = with_driver("581.57", "13.0");
  Manifest m = load_manifest(bundled("tensorflow-cuda"), {}, noble);
  CHECK(m.base_name == "cuda-driver");
  CHECK(m.vars.at("tf_version") == "2.21.0");
  CHECK(m.vars.at("tf_python") == "3.12");
  CHECK(m.vars.at("venv") == "/home/alice/.venvs/tensorflow");
  CHECK(refusals(m, noble).empty());
  Manifest jammy = load_manifest(bundled("tensorflow-cuda"), {}, jammy_with_driver("581.57", "13.0"));
  CHECK(jammy.vars.at("tf_python") == "3.10");
}

TEST_CASE("tensorflow-cuda refuses a Windows driver older than TensorFlow's 528.33 for WSL, and a Python it has no wheel for") {
  HostFacts old = with_driver("527.41", "12.0");
  Manifest m = load_manifest(bundled("tensorflow-cuda"), {}, old);
  std::vector<std::string> reasons = refusals(m, old);
  REQUIRE(reasons.size() == 1);
  CHECK(has(reasons, "needs NVIDIA's Windows driver 528.33 or later for WSL"));
  HostFacts ok = with_driver("528.33", "12.0");
  CHECK(refusals(load_manifest(bundled("tensorflow-cuda"), {}, ok), ok).empty());
  // A Python outside 3.10 to 3.13, as versions: 3.9 and 3.14 are refused,
  // 3.13 is not ("3.9" < "3.10" as text would be false).
  CHECK(refusals(load_manifest(bundled("tensorflow-cuda"), {{"tf_python", "3.9"}}, ok), ok).size() == 1);
  CHECK(refusals(load_manifest(bundled("tensorflow-cuda"), {{"tf_python", "3.14"}}, ok), ok).size() == 1);
  CHECK(refusals(load_manifest(bundled("tensorflow-cuda"), {{"tf_python", "3.13"}}, ok), ok).empty());
}

TEST_CASE("jax-cuda takes JAX 0.11.2 with CUDA 13 on a 580 driver, 0.11.0's CUDA 12 before it, and 0.6.2 on Ubuntu 22.04") {
  Manifest m = load_manifest(bundled("jax-cuda"), {}, with_driver("581.57", "13.0"));
  CHECK(m.base_name == "cuda-driver");
  CHECK(m.vars.at("jax_build") == "0.11.2-cuda13");
  CHECK(m.vars.at("jax_version") == "0.11.2");
  CHECK(m.vars.at("jax_cuda") == "cuda13");
  CHECK(m.vars.at("jax_python") == "3.12");
  CHECK(m.vars.at("venv") == "/home/alice/.venvs/jax");
  Manifest older = load_manifest(bundled("jax-cuda"), {}, with_driver("572.83", "12.8"));
  CHECK(older.vars.at("jax_build") == "0.11.0-cuda12");
  CHECK(older.vars.at("jax_cuda") == "cuda12");
  HostFacts jammy = jammy_with_driver("581.57", "13.0");
  Manifest j = load_manifest(bundled("jax-cuda"), {}, jammy);
  CHECK(j.vars.at("jax_build") == "0.6.2-cuda12");
  CHECK(j.vars.at("jax_python") == "3.10");
  CHECK(refusals(j, jammy).empty());
}

TEST_CASE("jax-cuda refuses a driver before 525, and the newest JAX on Ubuntu 22.04's Python, naming what to do") {
  HostFacts old = with_driver("516.94", "11.7");
  Manifest m = load_manifest(bundled("jax-cuda"), {}, old);
  CHECK(m.vars.at("jax_build") == "none");
  // Only JAX refuses it: no CUDA toolkit of the cuda profile comes along.
  std::vector<std::string> reasons = refusals(m, old);
  REQUIRE(reasons.size() == 1);
  CHECK(has(reasons, "JAX's CUDA plugins need NVIDIA's driver 525 or later"));
  HostFacts jammy = jammy_with_driver("581.57", "13.0");
  Manifest forced = load_manifest(bundled("jax-cuda"), {{"jax_build", "0.11.0-cuda13"}}, jammy);
  reasons = refusals(forced, jammy);
  REQUIRE(reasons.size() == 1);
  CHECK(has(reasons, "JAX 0.11.0 has wheels for the Python of Ubuntu 24.04 to 26.04, and this is ubuntu 22.04"));
  // CUDA 13 chosen by hand on a 57x driver: refused, naming the CUDA 12 row.
  HostFacts r570 = with_driver("572.83", "12.8");
  reasons = refusals(load_manifest(bundled("jax-cuda"), {{"jax_build", "0.11.0-cuda13"}}, r570), r570);
  REQUIRE(reasons.size() == 1);
  CHECK(has(reasons, "--set jax_build=0.11.0-cuda12"));
}

TEST_CASE("onnxruntime-cuda takes the CUDA 13 build on a 580 driver, 1.26.0 (CUDA 12) on older ones, 1.23.0 on 3.10") {
  HostFacts noble = with_driver("581.57", "13.0");
  Manifest m = load_manifest(bundled("onnxruntime-cuda"), {}, noble);
  CHECK(m.base_name == "cuda-driver");
  CHECK(m.vars.at("ort_cuda") == "13");
  CHECK(m.vars.at("ort13_version") == "1.31.1");
  CHECK(m.vars.at("ort_min_driver") == "580");
  // A driver that runs CUDA 12 but not 13: the CUDA 12 line.
  HostFacts r570 = with_driver("572.83", "12.8");
  Manifest twelve = load_manifest(bundled("onnxruntime-cuda"), {}, r570);
  CHECK(twelve.vars.at("ort_cuda") == "12");
  CHECK(twelve.vars.at("ort_version") == "1.26.0");
  CHECK(refusals(twelve, r570).empty());
  // Asked for, on the newer driver too.
  CHECK(load_manifest(bundled("onnxruntime-cuda"), {{"ort_cuda", "12"}}, noble).vars.at("ort_min_driver") == "525");
  // CUDA 13 asked for on a 57x driver is refused, naming the floor.
  CHECK(has(refusals(load_manifest(bundled("onnxruntime-cuda"), {{"ort_cuda", "13"}}, r570), r570),
            "CUDA 13 build needs NVIDIA's Windows driver 580 or later"));
  CHECK(m.vars.at("venv") == "/home/alice/.venvs/onnxruntime");
  CHECK(refusals(m, noble).empty());
  Manifest jammy = load_manifest(bundled("onnxruntime-cuda"), {}, jammy_with_driver("581.57", "13.0"));
  CHECK(jammy.vars.at("ort_version") == "1.23.0");
  // The patch of the 1.23 line, which profiles.md names, by --set: still Python 3.10's row.
  HostFacts jammy_host = jammy_with_driver("581.57", "13.0");
  Manifest patched = load_manifest(bundled("onnxruntime-cuda"), {{"ort_version", "1.23.2"}}, jammy_host);
  CHECK(patched.vars.at("ort_version") == "1.23.2");
  CHECK(patched.vars.at("ort_python") == "3.10");
  CHECK(refusals(patched, jammy_host).empty());
  HostFacts old = with_driver("516.94", "11.7");
  CHECK(has(refusals(load_manifest(bundled("onnxruntime-cuda"), {}, old), old), "CUDA 12 build needs NVIDIA's Windows driver 525"));
}

TEST_CASE("tensorflow-rocm, jax-rocm and onnxruntime-rocm refuse on every machine, in AMD's words, naming install pytorch") {
  HostFacts amd = wslgpu::testing::fake_wsl_host();
  struct Want {
    const char* profile;
    const char* quote;
  };
  for (const Want& w : {Want{"tensorflow-rocm", "AMD publishes no TensorFlow for ROCm on WSL"},
                        Want{"jax-rocm", "The ROCm-supported version of JAX is not currently enabled or validated under WSL"},
                        Want{"onnxruntime-rocm", "MIGraphX and mGPU configuration are not currently supported by WSL"}}) {
    CAPTURE(w.profile);
    Manifest m = load_manifest(bundled(w.profile), {}, amd);
    std::vector<std::string> reasons = refusals(m, amd);
    REQUIRE(reasons.size() == 1);
    CHECK(has(reasons, w.quote));
    CHECK(has(reasons, "sudo wslgpu-setup install pytorch"));
  }
}

TEST_CASE("on Ubuntu 26.04 the frameworks with cp314 wheels take Python 3.14") {
  const HostFacts resolute = resolute_with_driver("591.86", "13.1");
  struct Case {
    const char* profile;
    const char* python_var;
  };
  for (const Case c : {Case{"pytorch-cuda", "torch_python"}, Case{"jax-cuda", "jax_python"},
                       Case{"onnxruntime-cuda", "ort_python"}}) {
    CAPTURE(c.profile);
    Manifest m = load_manifest(bundled(c.profile), {}, resolute);
    CHECK(m.vars.at(c.python_var) == "3.14");
    CHECK(refusals(m, resolute).empty());
  }
  Manifest jax = load_manifest(bundled("jax-cuda"), {}, resolute);
  CHECK(jax.vars.at("jax_build") == "0.11.2-cuda13");
  Manifest ort = load_manifest(bundled("onnxruntime-cuda"), {}, resolute);
  CHECK(ort.vars.at("ort_cuda") == "13");  // driver 591.86: the CUDA 13 build, cp314
  CHECK(ort.vars.at("ort_version") == "1.26.0");  // the CUDA 12 line's, kept for --set ort_cuda=12
}

TEST_CASE("tensorflow-cuda on Ubuntu 26.04 is refused for Python 3.14, naming what works there") {
  const HostFacts resolute = resolute_with_driver("591.86", "13.1");
  Manifest m = load_manifest(bundled("tensorflow-cuda"), {}, resolute);
  CHECK(m.vars.at("tf_python") == "3.14");
  std::vector<std::string> reasons = refusals(m, resolute);
  REQUIRE(reasons.size() == 1);
  CHECK(has(reasons, "publishes wheels for Python 3.10 to 3.13"));
  CHECK(has(reasons, "this venv's Python would be 3.14, the Python of ubuntu 26.04"));
  CHECK(has(reasons, "`sudo wslgpu-setup install pytorch`"));
  CHECK(has(reasons, "`wsl --install -d Ubuntu-24.04`"));
}
