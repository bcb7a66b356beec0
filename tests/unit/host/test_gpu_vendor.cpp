#include <doctest/doctest.h>

#include "installer/host/gpu_vendor.hpp"
#include "installer/host/host.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;

TEST_CASE("the Windows NVIDIA driver's stubs choose the cuda profile") {
  MemoryFileSystem fs;
  fs.add_file("/usr/lib/wsl/lib/libcuda.so.1", "");
  fs.add_file("/usr/lib/wsl/lib/libcuda.so", "");
  fs.add_file("/usr/lib/wsl/lib/nvidia-smi", "", 0755);
  fs.add_file("/usr/lib/wsl/lib/libdxcore.so", "");
  GpuEvidence e = detect_gpu_vendors(fs);
  CHECK(e.nvidia == std::vector<std::string>{"/usr/lib/wsl/lib/libcuda.so", "/usr/lib/wsl/lib/libcuda.so.1",
                                             "/usr/lib/wsl/lib/nvidia-smi"});
  CHECK(e.amd.empty());
  ProfileChoice c = choose_profile(e);
  CHECK(c.profile == "cuda");
  CHECK(c.why == "NVIDIA's Windows driver is mounted (/usr/lib/wsl/lib/libcuda.so)");
}

TEST_CASE("an AMD driver store folder chooses the rocm profile, by INF name or by the files inside") {
  SUBCASE("AMD's u0 INF naming") {
    MemoryFileSystem fs;
    fs.add_dir("/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d2e4f6a7b");
    ProfileChoice c = choose_profile(detect_gpu_vendors(fs));
    CHECK(c.profile == "rocm");
    CHECK(c.why == "AMD's Windows driver is mounted (/usr/lib/wsl/drivers/u0401234.inf_amd64_5b3a9c1d2e4f6a7b)");
  }
  SUBCASE("an INF of another name whose files are AMD's") {
    MemoryFileSystem fs;
    fs.add_file("/usr/lib/wsl/drivers/c0123456.inf_amd64_0f/amdxc64.so", "");
    CHECK(detect_gpu_vendors(fs).amd == std::vector<std::string>{"/usr/lib/wsl/drivers/c0123456.inf_amd64_0f"});
  }
}

TEST_CASE("amd64 in a driver folder's name is the architecture, not AMD") {
  MemoryFileSystem fs;
  fs.add_file("/usr/lib/wsl/drivers/nv_dispi.inf_amd64_8f2c/libcuda.so.1.1", "");
  fs.add_file("/usr/lib/wsl/drivers/iigd_dch.inf_amd64_77aa/libigd12umd64.so", "");
  GpuEvidence e = detect_gpu_vendors(fs);
  CHECK(e.amd.empty());
  CHECK(e.nvidia == std::vector<std::string>{"/usr/lib/wsl/drivers/nv_dispi.inf_amd64_8f2c"});
  CHECK(e.intel == std::vector<std::string>{"/usr/lib/wsl/drivers/iigd_dch.inf_amd64_77aa"});
  CHECK(choose_profile(e).profile == "cuda");
}

TEST_CASE("both vendors, or neither, choose no profile and say what was seen") {
  SUBCASE("both") {
    MemoryFileSystem fs;
    fs.add_file("/usr/lib/wsl/lib/libcuda.so.1", "");
    fs.add_dir("/usr/lib/wsl/drivers/u0401234.inf_amd64_ab");
    ProfileChoice c = choose_profile(detect_gpu_vendors(fs));
    CHECK(c.profile.empty());
    CHECK(c.why ==
          "both NVIDIA's (/usr/lib/wsl/lib/libcuda.so.1) and AMD's (/usr/lib/wsl/drivers/u0401234.inf_amd64_ab) "
          "Windows drivers are mounted, so it is not clear which GPU to set up");
  }
  SUBCASE("neither") {
    MemoryFileSystem fs;
    fs.add_dir("/usr/lib/wsl/lib");
    ProfileChoice c = choose_profile(detect_gpu_vendors(fs));
    CHECK(c.profile.empty());
    CHECK(c.why ==
          "no GPU driver under /usr/lib/wsl: neither NVIDIA's driver (/usr/lib/wsl/lib/libcuda.so*) nor AMD's "
          "(/usr/lib/wsl/drivers/) is mounted");
  }
  SUBCASE("only Intel's") {
    MemoryFileSystem fs;
    fs.add_dir("/usr/lib/wsl/drivers/iigd_dch.inf_amd64_77aa");
    ProfileChoice c = choose_profile(detect_gpu_vendors(fs));
    CHECK(c.profile.empty());
    CHECK(c.why.rfind("only Intel's Windows driver (/usr/lib/wsl/drivers/iigd_dch.inf_amd64_77aa)", 0) == 0);
  }
}

TEST_CASE("host.gpu_vendor comes from the same evidence") {
  MemoryFileSystem fs;
  fs.add_file("/usr/lib/wsl/drivers/u0401234.inf_amd64_ab/amdxc64.so", "");
  fs.add_file("/usr/lib/wsl/drivers/nv_dispi.inf_amd64_8f2c/nvapi64.dll", "");
  HostFacts h = probe_host(fs, "/", HostOptions{});
  CHECK(h.gpu_vendor == "nvidia");  // NVIDIA's stubs decide when both are there, as before
  CHECK(h.gpu_evidence.amd.size() == 1);
  CHECK(h.gpu_evidence.nvidia.size() == 1);
}
