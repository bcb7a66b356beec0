// What nvidia-smi says about the driver: the two facts of its header, the
// driver's version and the newest CUDA release that driver supports. Inside
// WSL, /usr/lib/wsl/lib/nvidia-smi is the Windows driver's own copy, so both
// describe the Windows driver.
//
// Every layout nvidia-smi prints them in is read:
//   the table      | NVIDIA-SMI 590.57   Driver Version: 591.86   CUDA Version: 13.1 |
//   -q             Driver Version                            : 537.13
//                  CUDA Version                              : 12.2
//   --version      DRIVER version      : 580.95
//                  CUDA version        : 13.0
// Driver series 615 renames the two: "KMD Version" (the kernel-mode driver)
// and "CUDA UMD Version" (the user-mode driver's CUDA), and its --version
// keeps the old names with "Deprecated, see ..." as their value, which is
// not a version. A broken installation prints "CUDA Version: ERR!".
#pragma once
#include <string>

namespace wslgpu {

struct NvidiaSmiHeader {
  std::string driver_version;  // "591.86"; the KMD version on series 615; "" when not printed
  std::string cuda_version;    // "13.1"; the CUDA UMD version on series 615; "" when not printed or ERR!
  bool cuda_error = false;     // "CUDA Version: ERR!" (or the UMD's)

  bool empty() const { return driver_version.empty() && cuda_version.empty() && !cuda_error; }
};

// Reads the header facts from OUTPUT (standard output of nvidia-smi with no
// arguments, -q or --version). Lines that are not about them are ignored;
// when a fact is printed twice the first version wins.
NvidiaSmiHeader parse_nvidia_smi_header(const std::string& output);

}  // namespace wslgpu
