// `plan pytorch` on fake WSL2 machines: the family takes the layer for the
// mounted driver, and one plan lists the GPU profile's steps and then
// PyTorch's, with the vendor's wheels of the default release and what is
// not verified about them. The fake root is offline (the vendor's key and
// apt's simulation are refused, exit 3); the tests read the plan's text.
#include <doctest/doctest.h>

#include "harness.hpp"
#include "support/helpers.hpp"

using namespace wslgpu::blackbox;
using wslgpu::testing::contains;

namespace {


const char* kAmdDriver = "/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d/amdxc64.so";

// ROOT as `wsl --install` makes it today: Ubuntu 26.04, with NVIDIA's
// Windows driver mounted.
void as_ubuntu_2604_with_nvidia(const FakeWslRoot& root) {
  root.write("/etc/os-release", "PRETTY_NAME=\"Ubuntu 26.04.1 LTS\"\nID=ubuntu\nVERSION_ID=\"26.04\"\n"
                                "VERSION_CODENAME=resolute\n");
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
}

}  // namespace

TEST_CASE("plan pytorch on a WSL2 Ubuntu 24.04 AMD machine lists AMD's cp312 wheels of ROCm 7.2.4 after rocm's steps") {
  FakeWslRoot root;
  root.write(kAmdDriver, "");
  RunResult r = run_tool({"--root", root.path(), "plan", "pytorch"}, kOffline);
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);  // offline: rocm's key and apt's simulation are refused
  CHECK(first_line(r.out) ==
        "Profile pytorch-rocm, chosen because AMD's Windows driver is mounted "
        "(/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d).");
  const std::string base = "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.4/";
  for (const char* wheel : {"torch-2.9.1%2Brocm7.2.4.lw.git39497456", "torchvision-0.24.0%2Brocm7.2.4.gitb919bd0c",
                            "torchaudio-2.9.0%2Brocm7.2.4.gite3c6ee2b", "triton-3.5.1%2Brocm7.2.4.gita272dfa8"}) {
    CAPTURE(wheel);
    CHECK(contains(r.out, base + wheel + "-cp312-cp312-linux_x86_64.whl"));
  }
  CHECK(contains(r.out, "not verified: AMD publishes no hash for this wheel; TLS only"));
  CHECK(contains(r.out, "Chose torch_cp=cp312 (auto): the Python of Ubuntu 24.04"));
  // One plan: rocm's steps first, in rocm's order, then the layer's.
  auto at = [&](const std::string& id) { return r.out.find("  " + id + " "); };
  REQUIRE(at("rocminfo-gfx") != std::string::npos);
  REQUIRE(at("venv") != std::string::npos);
  CHECK(at("dxg") < at("rocm7"));
  CHECK(at("rocminfo-gfx") < at("python-venv"));
  CHECK(at("python-venv") < at("venv"));
  CHECK(at("venv") < at("torch"));
  CHECK(at("torch") < at("torch-smoke"));
  CHECK(contains(r.out, "/home/alice/.venvs/pytorch"));
  // The legacy step is skipped on a librocdxg release.
  CHECK(contains(r.out, "torch-legacy"));
}

TEST_CASE("plan pytorch-rocm refuses a ROCm release without a wheel row, naming the nearest one") {
  FakeWslRoot root;
  root.write(kAmdDriver, "");
  RunResult r = run_tool({"--root", root.path(), "--set", "rocm_version=6.3.4", "plan", "pytorch-rocm"}, kOffline);
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);
  CHECK(contains(r.out + r.err, "Use ROCm 6.4.2.1, the nearest release with AMD wheels for WSL: --set "
                                "rocm_version=6.4.2.1"));
  CHECK(contains(r.out + r.err, "6.3.4's PyTorch step copies /opt/rocm's runtime into torch/lib"));
  RunResult plain = run_tool({"--root", root.path(), "--set", "rocm_version=6.4.1", "plan", "pytorch-rocm"}, kOffline);
  CHECK(plain.exit_code == 3);
  CHECK(contains(plain.out + plain.err, "This profile has no PyTorch wheel row for ROCm 6.4.1. Use ROCm 6.4.2.1"));
  // A release with a row says nothing of rows.
  RunResult with_row = run_tool({"--root", root.path(), "plan", "pytorch-rocm"}, kOffline);
  CHECK_FALSE(contains(with_row.out + with_row.err, "wheel row"));
}

TEST_CASE("plan pytorch-rocm on Ubuntu 22.04 refuses 7.2.2, whose wheels are cp312 only, and names 7.2.1") {
  FakeWslRoot root;
  root.write(kAmdDriver, "");
  root.write("/etc/os-release",
             "NAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nVERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\n");
  RunResult r = run_tool({"--root", root.path(), "plan", "pytorch-rocm"}, kOffline);
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);
  CHECK(contains(r.out + r.err, "for Python 3.12 (cp312) only, and Ubuntu 22.04's Python is 3.10. Use Ubuntu 24.04, "
                                "or ROCm 7.2.1: --set rocm_version=7.2.1"));
}

TEST_CASE("install pytorch with both drivers mounted exits 2, naming the two layers") {
  FakeWslRoot root;
  root.write(kAmdDriver, "");
  root.write("/usr/lib/wsl/lib/libcuda.so.1", "");
  RunResult r = run_tool({"--root", root.path(), "plan", "pytorch"}, kOffline);
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "  sudo wslgpu-setup plan pytorch-cuda    # NVIDIA\n  sudo wslgpu-setup plan pytorch-rocm    # AMD\n"));
}

TEST_CASE("plan pytorch on Ubuntu 26.04 with NVIDIA's driver makes the venv with python3.14, no CUDA toolkit") {
  FakeWslRoot root;
  as_ubuntu_2604_with_nvidia(root);
  RunResult r = run_tool({"--root", root.path(), "plan", "pytorch"}, kOffline);
  INFO(r.out, r.err);
  CHECK(first_line(r.out).rfind("Profile pytorch-cuda, chosen because NVIDIA's Windows driver is mounted", 0) == 0);
  CHECK_FALSE(contains(r.out + r.err, "this machine runs Ubuntu 26.04"));  // supported, not refused
  CHECK(contains(r.out, "Chose torch_python=3.14 (auto): the Python of Ubuntu 26.04"));
  CHECK(contains(r.out, "python3.14-venv"));
  CHECK(contains(r.out, "create the virtual environment /home/alice/.venvs/pytorch with `/usr/bin/python3.14 -m venv`"));
  CHECK_FALSE(contains(r.out, " cuda-repo "));
  CHECK_FALSE(contains(r.out, " toolkit "));
  // Another Python by --set is the interpreter too, not only the wheels' tags.
  RunResult other = run_tool({"--root", root.path(), "--set", "torch_python=3.13", "plan", "pytorch"}, kOffline);
  INFO(other.out, other.err);
  CHECK(contains(other.out, "python3.13-venv"));
  CHECK(contains(other.out, "with `/usr/bin/python3.13 -m venv`"));
}

TEST_CASE("plan tensorflow on Ubuntu 26.04 is refused for Python 3.14 before any change, naming what works") {
  FakeWslRoot root;
  as_ubuntu_2604_with_nvidia(root);
  RunResult r = run_tool({"--root", root.path(), "plan", "tensorflow", "--detailed-exitcode"}, kOffline);
  INFO(r.out, r.err);
  CHECK(r.exit_code == 3);
  CHECK(contains(r.out + r.err, "TensorFlow 2.21.0 publishes wheels for Python 3.10 to 3.13"));
  CHECK(contains(r.out + r.err, "this venv's Python would be 3.14, the Python of ubuntu 26.04"));
  CHECK(contains(r.out + r.err, "`sudo wslgpu-setup install pytorch`"));
}
