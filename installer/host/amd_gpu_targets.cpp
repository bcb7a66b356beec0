#include "installer/host/amd_gpu_targets.hpp"

#include "installer/system/text.hpp"

namespace wslgpu {

// Sources, one per column:
//   gfx: AMD, "AMD GPU specifications" (rocm.docs.amd.com, reference/
//     gpu-arch-specs.html; ROCm/ROCm docs/reference/gpu-arch-specs.rst),
//     the "LLVM target name" column of its Radeon PRO, Radeon and Ryzen APU
//     tabs (for an APU, its "Graphics model" column is the model: Windows
//     names the graphics, not the processor). The RDNA2 rows (RX 6950 XT to
//     RX 6800, PRO W6800, PRO V620) are from that page's earlier revision,
//     and W6800 and V620 also from AMD's "System requirements (Linux)"
//     (ROCm/rocm-install-on-linux docs/reference/system-requirements.rst,
//     "LLVM target" column), which gives the same target for every model
//     both list. Only models whose target is among those AMD's ROCm 10.0
//     documentation names (gfx950 to gfx1153) are here; Instinct
//     accelerators have no Windows driver to run WSL on.
//   wsl: AMD's ROCm 10.0 support data (os-support.yaml), its WSL entries:
//     Radeon AI PRO R9700 and R9700S, RX 9070 XT, 9070 GRE, 9070, 9060 XT,
//     9060, PRO W7900 (and Dual Slot), W7800 (and 48GB), RX 7900 XTX, XT,
//     GRE, PRO W7700, RX 7800 XT, and the Ryzen AI Max and Ryzen AI 9 APUs
//     (gfx1150, gfx1151, gfx1152; on Ubuntu 24.04 and 26.04 only). It has
//     no WSL entry for RX 7700 XT, RX 7700, RX 7600, RX 9060 XT LP, RX 9050,
//     PRO W6800, PRO V620 or AI PRO R9600D.
const std::vector<AmdGpuTarget>& amd_gpu_targets() {
  static const std::vector<AmdGpuTarget> rows = {
      // Radeon PRO
      {"Radeon AI PRO R9700S", "gfx1201", true, false},
      {"Radeon AI PRO R9700", "gfx1201", true, false},
      {"Radeon AI PRO R9600D", "gfx1201", false, false},
      {"Radeon PRO V710", "gfx1101", false, false},
      {"Radeon PRO W7900 Dual Slot", "gfx1100", true, false},
      {"Radeon PRO W7900", "gfx1100", true, false},
      {"Radeon PRO W7800 48GB", "gfx1100", true, false},
      {"Radeon PRO W7800", "gfx1100", true, false},
      {"Radeon PRO W7700", "gfx1101", true, false},
      {"Radeon PRO W6800", "gfx1030", false, false},
      {"Radeon PRO V620", "gfx1030", false, false},
      // Radeon
      {"Radeon RX 9070 XT", "gfx1201", true, false},
      {"Radeon RX 9070 GRE", "gfx1201", true, false},
      {"Radeon RX 9070", "gfx1201", true, false},
      {"Radeon RX 9060 XT LP", "gfx1200", false, false},
      {"Radeon RX 9060 XT", "gfx1200", true, false},
      {"Radeon RX 9060", "gfx1200", true, false},
      {"Radeon RX 9050", "gfx1200", false, false},
      {"Radeon RX 7900 XTX", "gfx1100", true, false},
      {"Radeon RX 7900 XT", "gfx1100", true, false},
      {"Radeon RX 7900 GRE", "gfx1100", true, false},
      {"Radeon RX 7800 XT", "gfx1101", true, false},
      {"Radeon RX 7700 XT", "gfx1101", false, false},
      {"Radeon RX 7700", "gfx1101", false, false},
      {"Radeon RX 7600", "gfx1102", false, false},
      {"Radeon RX 6950 XT", "gfx1030", false, false},
      {"Radeon RX 6900 XT", "gfx1030", false, false},
      {"Radeon RX 6800 XT", "gfx1030", false, false},
      {"Radeon RX 6800", "gfx1030", false, false},
      // Ryzen APUs, by their graphics model
      {"Radeon 8060S", "gfx1151", true, true},  // Ryzen AI Max+ PRO 395
      {"Radeon 890M", "gfx1150", true, true},   // Ryzen AI 9 HX 375
      {"Radeon 860M", "gfx1152", true, true},   // Ryzen AI 7 350
      {"Radeon 780M", "gfx1103", false, true},  // Ryzen 7 7840U, Ryzen 9 270
  };
  return rows;
}

std::string normalized_gpu_name(std::string_view name) {
  std::string s = text::lower(name);
  // Trademark marks, as Windows writes them and as UTF-8 signs.
  for (const char* mark : {"(tm)", "(r)", "\xE2\x84\xA2", "\xC2\xAE"}) {
    const std::string m = mark;
    for (auto at = s.find(m); at != std::string::npos; at = s.find(m, at)) s.replace(at, m.size(), " ");
  }
  std::string words;
  for (std::size_t i = 0; i < s.size();) {
    while (i < s.size() && text::is_space(s[i])) ++i;
    std::size_t start = i;
    while (i < s.size() && !text::is_space(s[i])) ++i;
    if (i > start) words += (words.empty() ? "" : " ") + s.substr(start, i - start);
  }
  if (words.rfind("amd ", 0) == 0) words.erase(0, 4);
  const std::string graphics = " graphics";
  if (words.size() > graphics.size() && words.compare(words.size() - graphics.size(), graphics.size(), graphics) == 0)
    words.erase(words.size() - graphics.size());
  return words;
}

const AmdGpuTarget* amd_gpu_target(std::string_view name) {
  const std::string wanted = normalized_gpu_name(name);
  if (wanted.empty()) return nullptr;
  for (const auto& row : amd_gpu_targets())
    if (normalized_gpu_name(row.model) == wanted) return &row;
  return nullptr;
}

}  // namespace wslgpu
