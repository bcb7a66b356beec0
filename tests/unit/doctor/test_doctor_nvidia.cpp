// doctor's NVIDIA checks (installer/doctor/checks_nvidia.cpp): the Windows
// driver's stubs, no Linux driver, the linker path, nvidia-smi, nvcc and
// the toolkit against the driver's CUDA, each proved ok and failing.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "doctor_fixture.hpp"
#include "findings.hpp"
#include "installer/doctor/doctor.hpp"
#include "installer/formats/ini.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/host/host.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

TEST_CASE("doctor nvidia: the checks apply only with the stubs mounted or an NVIDIA package installed") {
  {
    DoctorFixture m;
    CHECK_FALSE(lookup(m.diagnose(), "nvidia.stubs"));
  }
  {
    DoctorFixture m;
    m.packages["nvidia-driver-550"] = "550.54.14-0ubuntu1";
    auto findings = m.diagnose();
    CHECK(get(findings, "nvidia.stubs").status == FindingStatus::fail);
    CHECK(get(findings, "nvidia.linux-driver").status == FindingStatus::fail);
  }
}

TEST_CASE("doctor nvidia.stubs: libcuda.so.1 and nvidia-smi come from the Windows driver") {
  {
    DoctorFixture m;
    m.make_nvidia();
    auto f = get(m.diagnose(), "nvidia.stubs");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "libcuda.so.1 and nvidia-smi are in /usr/lib/wsl/lib (the Windows driver's stubs)");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.remove("/usr/lib/wsl/lib/libcuda.so.1");
    m.fs.remove("/usr/lib/wsl/lib/nvidia-smi");
    auto findings = m.diagnose();
    auto f = get(findings, "nvidia.stubs");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/usr/lib/wsl/lib has no libcuda.so.1 and nvidia-smi");
    CHECK(contains(f.cause, "a driver older than 465.89, or none, does not"));
    CHECK(contains(f.fix, "Never install a Linux NVIDIA driver inside WSL."));
    CHECK_FALSE(lookup(findings, "nvidia.smi"));  // nothing to run
  }
}

TEST_CASE("doctor nvidia.linux-driver: a Linux NVIDIA driver inside WSL fails with the purge command") {
  {
    DoctorFixture m;
    m.make_nvidia();
    auto f = get(m.diagnose(), "nvidia.linux-driver");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "no Linux NVIDIA driver package is installed");
  }
  for (const char* pkg : {"nvidia-driver-550", "nvidia-utils-550", "libnvidia-compute-550", "cuda-drivers",
                          "cuda-drivers-550", "nvidia-dkms-550", "nvidia-kernel-common-550"}) {
    DoctorFixture m;
    m.make_nvidia();
    m.packages[pkg] = "550.54.14-0ubuntu1";
    auto f = get(m.diagnose(), "nvidia.linux-driver");
    INFO(pkg);
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == std::string("a Linux NVIDIA driver is installed inside WSL: ") + pkg);
    CHECK(contains(f.cause, "GPU access blocked by the operating system"));
    CHECK(f.fix.rfind(std::string("sudo apt purge ") + pkg + " (", 0) == 0);
  }
}

TEST_CASE("doctor nvidia.linker-path: ld.so.conf.d or LD_LIBRARY_PATH, else libcuda.so cannot be opened") {
  {
    DoctorFixture m;
    m.make_nvidia();
    auto f = get(m.diagnose(), "nvidia.linker-path");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "/usr/lib/wsl/lib is on the dynamic linker's path (/etc/ld.so.conf.d/ld.wsl.conf)");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.remove("/etc/ld.so.conf.d/ld.wsl.conf");
    auto f = get(m.diagnose(), "nvidia.linker-path");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "/usr/lib/wsl/lib is on LD_LIBRARY_PATH for login shells (/etc/profile.d/wslgpu-cuda.sh)");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.add_file("/etc/ld.so.conf.d/ld.wsl.conf", "# /usr/lib/wsl/lib\n");
    m.fs.add_file("/etc/profile.d/wslgpu-cuda.sh", "export PATH=/usr/local/cuda/bin:$PATH\n");
    auto f = get(m.diagnose(), "nvidia.linker-path");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/usr/lib/wsl/lib is not on the dynamic linker's path");
    CHECK(contains(f.cause, "\"libcuda.so: cannot open shared object file\""));
    CHECK(contains(f.fix, "echo /usr/lib/wsl/lib | sudo tee /etc/ld.so.conf.d/ld.wsl.conf && sudo ldconfig"));
  }
}

TEST_CASE("doctor nvidia.ldconfig: the symbolic-link warning is harmless; libcuda copies elsewhere are not") {
  {
    DoctorFixture m;
    m.make_nvidia();
    auto f = get(m.diagnose(), "nvidia.ldconfig");
    CHECK(f.status == FindingStatus::ok);
    CHECK(contains(f.seen, "\"libcuda.so.1 is not a symbolic link\" warning is harmless"));
    CHECK(contains(f.cause, "the Windows driver mounts plain files in a read-only folder"));
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.add_file("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "elf");
    auto f = get(m.diagnose(), "nvidia.ldconfig");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "libcuda outside /usr/lib/wsl/lib: /usr/lib/x86_64-linux-gnu/libcuda.so.1");
    CHECK(contains(f.cause, "shadows the stub"));
    CHECK(contains(f.fix, "`dpkg -S /usr/lib/x86_64-linux-gnu/libcuda.so.1`"));
    CHECK(contains(f.fix, "The warning itself needs no fix."));
  }
}

TEST_CASE("doctor nvidia.smi: a listed GPU is ok; blocked, failing and hanging nvidia-smi each say why") {
  {
    DoctorFixture m;
    m.make_nvidia();
    auto f = get(m.diagnose(), "nvidia.smi");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "nvidia-smi -L: GPU 0: NVIDIA GeForce RTX 4090");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.packages["libnvidia-compute-550"] = "550.54.14-0ubuntu1";
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi", "-L"}] =
        output("Failed to initialize NVML: GPU access blocked by the operating system\n", 255);
    auto findings = m.diagnose();
    auto f = get(findings, "nvidia.smi");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "nvidia-smi: Failed to initialize NVML: GPU access blocked by the operating system");
    CHECK(contains(f.cause, "A Linux NVIDIA driver inside WSL"));
    CHECK(f.fix == "sudo apt purge libnvidia-compute-550, then run `wsl --shutdown` on Windows.");
    CHECK_FALSE(lookup(findings, "windows.nvidia-driver"));  // no version from a failing nvidia-smi
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi", "-L"}] =
        output("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", 9);
    auto f = get(m.diagnose(), "nvidia.smi");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen ==
          "nvidia-smi -L failed (exit 9): NVIDIA-SMI has failed because it couldn't communicate with "
          "the NVIDIA driver.");
    CHECK(contains(f.fix, "update the NVIDIA driver"));
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi", "-L"}] = timed_out();
    auto findings = m.diagnose();
    auto f = get(findings, "nvidia.smi");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "nvidia-smi -L did not answer within 12 s");
    // a hanging nvidia-smi is not asked a second time
    for (const auto& c : m.runner.calls) CHECK(c.argv != std::vector<std::string>{"/usr/lib/wsl/lib/nvidia-smi"});
  }
}

TEST_CASE("doctor nvidia.nvcc: the toolkit's nvcc is ok; missing, broken or the distribution's one is not") {
  {
    DoctorFixture m;
    m.make_nvidia();
    auto f = get(m.diagnose(), "nvidia.nvcc");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "nvcc 12.6 (/usr/local/cuda/bin/nvcc)");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.remove("/usr/local/cuda/bin/nvcc");
    auto f = get(m.diagnose(), "nvidia.nvcc");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "nvcc not found: the CUDA toolkit is not installed");
    CHECK(contains(f.fix, "sudo wslgpu-setup install cuda"));
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/local/cuda/bin/nvcc", "--version"}] = output("", 127, "error while loading shared libraries\n");
    auto f = get(m.diagnose(), "nvidia.nvcc");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "/usr/local/cuda/bin/nvcc --version failed (exit 127): error while loading shared libraries");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/local/cuda/bin/nvcc", "--version"}] = timed_out();
    CHECK(get(m.diagnose(), "nvidia.nvcc").seen == "/usr/local/cuda/bin/nvcc --version did not answer within 12 s");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.fs.remove("/usr/local/cuda/bin/nvcc");
    m.fs.add_file("/usr/bin/nvcc", "elf", 0755);
    m.packages["nvidia-cuda-toolkit"] = "12.0.140~12.0.1-4build4";
    m.outputs[{"/usr/bin/nvcc", "--version"}] = output("Cuda compilation tools, release 12.0, V12.0.140\n");
    auto f = get(m.diagnose(), "nvidia.nvcc");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "nvcc 12.0 is the distribution's nvidia-cuda-toolkit");
  }
}

TEST_CASE("doctor nvidia.cuda-driver: a toolkit newer than the driver's CUDA warns, one it cannot run fails" *
          doctest::test_suite(wslgpu::testing::kCorpusSuite)) {
  {
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi"}] = output(corpus_nvidia_smi("ok-q-rtx4090-wddm-xwayland.txt"));
    auto f = get(m.diagnose(), "nvidia.cuda-driver");  // nvcc 12.6 on driver 537.13 (CUDA 12.2)
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "the CUDA 12.6 toolkit is newer than the CUDA 12.2 NVIDIA's Windows driver 537.13 supports");
    CHECK(contains(f.cause, "minor-version compatibility (driver 525 or later for CUDA 12.x)"));
    CHECK(f.fix ==
          "On Windows, update NVIDIA's driver, then run `wsl --shutdown`; or install the toolkit this driver "
          "supports: sudo wslgpu-setup install cuda (cuda_version=auto chooses it).");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi"}] = output(corpus_nvidia_smi("ok-q-rtx4090-wddm-xwayland.txt"));
    m.outputs[{"/usr/local/cuda/bin/nvcc", "--version"}] = output("Cuda compilation tools, release 13.0, V13.0.88\n");
    auto f = get(m.diagnose(), "nvidia.cuda-driver");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "the CUDA 13.0 toolkit needs a newer Windows driver than 537.13 (it supports CUDA 12.2)");
    CHECK(f.cause ==
          "CUDA 13.x programs need NVIDIA's driver 580 or later on Windows (minor-version compatibility); "
          "with this driver they fail to start.");
    CHECK(f.fix ==
          "On Windows, install NVIDIA's driver 580 or later, then run `wsl --shutdown`; or install the "
          "toolkit this driver supports: sudo wslgpu-setup install cuda (cuda_version=auto chooses it).");
  }
  {
    DoctorFixture m;
    m.make_nvidia();
    m.outputs[{"/usr/lib/wsl/lib/nvidia-smi"}] =
        output(corpus_nvidia_smi("ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt"));
    CHECK(get(m.diagnose(), "nvidia.cuda-driver").status == FindingStatus::ok);
  }
}
