// The nvidia-smi header parser against real outputs from
// the corpus's nvidia-smi/ (support/corpus.hpp; its SOURCES.md says where
// each came from), and what the lazily probed host facts say about each outcome.
#include <doctest/doctest.h>

#include "installer/formats/nvidia_smi.hpp"
#include "installer/host/nvidia_driver.hpp"
#include "support/corpus.hpp"

using namespace wslgpu;

namespace {

std::string corpus(const std::string& name) { return wslgpu::testing::corpus_file("nvidia-smi/" + name); }

ProcessResult ran(const std::string& out, int code = 0) {
  ProcessResult r;
  r.exit_code = code;
  r.out = out;
  return r;
}

}  // namespace

TEST_CASE("nvidia-smi's 2026 table header: the Windows driver's version, not the Linux shim's" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  NvidiaSmiHeader h = parse_nvidia_smi_header(corpus("ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt"));
  CHECK(h.driver_version == "591.86");  // NVIDIA-SMI 590.57 is the shim
  CHECK(h.cuda_version == "13.1");
  CHECK_FALSE(h.cuda_error);
}

TEST_CASE("nvidia-smi's 2022 (narrow) table header" * doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  NvidiaSmiHeader h = parse_nvidia_smi_header(corpus("ok-table-titanrtx-smi510.47.03-driver511.65-podman.txt"));
  CHECK(h.driver_version == "511.65");
  CHECK(h.cuda_version == "11.6");
}

TEST_CASE("nvidia-smi -q, inside WSL and inside a container on WSL" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  for (const char* name : {"ok-q-rtx4090-wddm-xwayland.txt", "ok-q-rtx4090-docker-on-wsl.txt"}) {
    CAPTURE(name);
    NvidiaSmiHeader h = parse_nvidia_smi_header(corpus(name));
    CHECK(h.driver_version == "537.13");
    CHECK(h.cuda_version == "12.2");
  }
}

TEST_CASE("driver series 615: KMD and CUDA UMD versions, past the deprecated names" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  NvidiaSmiHeader h = parse_nvidia_smi_header(corpus("ok-version-arm64-wsl-615-kmd-umd.txt"));
  CHECK(h.driver_version == "615.33");  // not 615.10, the nvidia-smi and NVML version
  CHECK(h.cuda_version == "13.4");
  CHECK_FALSE(h.cuda_error);
  // Its table header renames the two the same way (constructed: no complete
  // 615-series table captured under WSL was found, corpus/SOURCES.md).
  NvidiaSmiHeader t = parse_nvidia_smi_header(
      "| NVIDIA-SMI 615.10                 KMD Version: 615.33          CUDA UMD Version: 13.4   |\n");
  CHECK(t.driver_version == "615.33");
  CHECK(t.cuda_version == "13.4");
}

TEST_CASE("CUDA Version: ERR! leaves the CUDA version unknown and says so" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  NvidiaSmiHeader h = parse_nvidia_smi_header(corpus("partial-table-cuda-version-err-truncated.txt"));
  CHECK(h.driver_version == "546.80");
  CHECK(h.cuda_version.empty());
  CHECK(h.cuda_error);
  NvidiaDriverFacts f =
      nvidia_driver_from(ran(corpus("partial-table-cuda-version-err-truncated.txt")), std::chrono::seconds(10));
  CHECK(f.driver == "546.80");
  CHECK(f.cuda.empty());
  CHECK(f.said == "driver 546.80, CUDA Version: ERR!");
}

TEST_CASE("failing nvidia-smi outputs hold no header, and the facts say what it printed" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  for (const char* name :
       {"fail-nvml-gpu-access-blocked.txt", "fail-driver-not-loaded.txt", "fail-L-partial-wddm-plus-tcc-p40.txt"}) {
    CAPTURE(name);
    CHECK(parse_nvidia_smi_header(corpus(name)).empty());
  }
  NvidiaDriverFacts f =
      nvidia_driver_from(ran(corpus("fail-nvml-gpu-access-blocked.txt"), 255), std::chrono::seconds(10));
  CHECK(f.driver.empty());
  CHECK(f.cuda.empty());
  CHECK(f.said ==
        "nvidia-smi failed (exit 255): Failed to initialize NVML: GPU access blocked by the operating system");
}

TEST_CASE("the facts of a working nvidia-smi, a hung one and one that cannot run" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  NvidiaDriverFacts ok =
      nvidia_driver_from(ran(corpus("ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt")), std::chrono::seconds(10));
  CHECK(ok.driver == "591.86");
  CHECK(ok.cuda == "13.1");
  CHECK(ok.said == "driver 591.86, CUDA 13.1");

  ProcessResult hung;
  hung.timed_out = true;
  CHECK(nvidia_driver_from(hung, std::chrono::seconds(10)).said == "nvidia-smi did not answer within 10 s");
  ProcessResult missing;
  missing.not_found = true;
  CHECK(nvidia_driver_from(missing, std::chrono::seconds(10)).said == "/usr/lib/wsl/lib/nvidia-smi could not run");
  CHECK(nvidia_driver_from(ran("Some other text\n"), std::chrono::seconds(10)).said ==
        "nvidia-smi printed neither a driver nor a CUDA version");
}
