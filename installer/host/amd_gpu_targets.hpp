// Which gfx target (LLVM's name for a GPU's instruction set: gfx1201) an AMD
// GPU is, from its model name as Windows reports it ("AMD Radeon RX 9070
// XT"), so that the target is known before ROCm runs: inside WSL nothing
// names a discrete GPU's target until ROCm works (rocminfo), and the driver
// store folders under /usr/lib/wsl/drivers/ do not name the model.
//
// The table cites AMD's own lists (amd_gpu_targets.cpp): the LLVM target
// of each model from AMD's GPU specifications, and whether AMD lists the
// model for WSL. A model the table does not hold has no target here (""),
// never a guess from its family: a profile then installs ROCm for every
// target.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace wslgpu {

struct AmdGpuTarget {
  const char* model;  // as AMD's table writes it: "Radeon RX 9070 XT", "Radeon 8060S"
  const char* gfx;    // "gfx1201"
  bool wsl;           // AMD lists it for WSL
  bool integrated;    // the graphics of a Ryzen APU
};

// Every row of the table.
const std::vector<AmdGpuTarget>& amd_gpu_targets();

// NAME as the table compares it: lower case, without "(TM)", "(R)", the
// leading "AMD " and a trailing " Graphics", blanks collapsed:
// "AMD Radeon(TM) 8060S Graphics" -> "radeon 8060s".
std::string normalized_gpu_name(std::string_view name);

// The row whose model is NAME (normalized on both sides: an exact model
// match, so "Radeon RX 9070" never answers for "Radeon RX 9070 XT"), or
// nullptr when the table has none.
const AmdGpuTarget* amd_gpu_target(std::string_view name);

}  // namespace wslgpu
