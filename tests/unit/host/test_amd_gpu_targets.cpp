// The table from an AMD GPU's model name to its gfx target
// (installer/host/amd_gpu_targets.hpp): names as Windows writes them, exact
// model matches only, and no target for a model the table lacks.
#include <doctest/doctest.h>

#include <set>

#include "installer/host/amd_gpu_targets.hpp"

using namespace wslgpu;

namespace {

std::string gfx_of_name(const std::string& name) {
  const AmdGpuTarget* row = amd_gpu_target(name);
  return row ? row->gfx : "";
}

}  // namespace

TEST_CASE("a model's name as Windows writes it gives its gfx target, trademarks and case aside") {
  CHECK(gfx_of_name("AMD Radeon RX 9070 XT") == "gfx1201");
  CHECK(gfx_of_name("AMD Radeon(TM) RX 7900 XTX") == "gfx1100");
  CHECK(gfx_of_name("amd radeon rx 7800 xt") == "gfx1101");
  CHECK(gfx_of_name("  AMD   Radeon RX 9060 XT ") == "gfx1200");
  CHECK(gfx_of_name("AMD Radeon AI PRO R9700") == "gfx1201");
  CHECK(gfx_of_name("AMD Radeon PRO W7900") == "gfx1100");
  CHECK(gfx_of_name("AMD Radeon(TM) 8060S Graphics") == "gfx1151");
  CHECK(gfx_of_name("AMD Radeon\xE2\x84\xA2 890M Graphics") == "gfx1150");
}

TEST_CASE("a model is matched whole: a shorter model never answers for a longer one") {
  CHECK(gfx_of_name("AMD Radeon RX 9070") == "gfx1201");
  CHECK(amd_gpu_target("AMD Radeon RX 9070 XT")->model == std::string("Radeon RX 9070 XT"));
  CHECK(amd_gpu_target("AMD Radeon RX 9060 XT LP")->wsl == false);
  CHECK(amd_gpu_target("AMD Radeon RX 9060 XT")->wsl == true);
  CHECK(amd_gpu_target("AMD Radeon RX 7900") == nullptr);
  CHECK(amd_gpu_target("AMD Radeon RX 7900 XTX Special Edition") == nullptr);
}

TEST_CASE("a model the table lacks, a generic name or no name has no target") {
  CHECK(amd_gpu_target("AMD Radeon RX 6600") == nullptr);
  CHECK(amd_gpu_target("AMD Radeon(TM) Graphics") == nullptr);
  CHECK(amd_gpu_target("NVIDIA GeForce RTX 4090") == nullptr);
  CHECK(amd_gpu_target("") == nullptr);
  CHECK(amd_gpu_target("(TM)") == nullptr);
}

TEST_CASE("AMD's WSL list and the APUs are marked as AMD lists them") {
  CHECK(amd_gpu_target("AMD Radeon RX 7900 XTX")->wsl);
  CHECK_FALSE(amd_gpu_target("AMD Radeon RX 7700 XT")->wsl);
  CHECK_FALSE(amd_gpu_target("AMD Radeon RX 7600")->wsl);
  CHECK(amd_gpu_target("AMD Radeon(TM) 8060S Graphics")->integrated);
  CHECK_FALSE(amd_gpu_target("AMD Radeon RX 9070 XT")->integrated);
}

TEST_CASE("every row is a distinct model with a gfx target AMD's ROCm 10.0 documentation names") {
  const std::set<std::string> documented = {"gfx950",  "gfx942",  "gfx90a",  "gfx908",  "gfx1201",
                                            "gfx1200", "gfx1100", "gfx1101", "gfx1102", "gfx1103",
                                            "gfx1030", "gfx1151", "gfx1150", "gfx1152", "gfx1153"};
  std::set<std::string> models;
  for (const auto& row : amd_gpu_targets()) {
    const std::string model = row.model;  // (clang 14 cannot capture a structured binding in INFO's lambda)
    INFO(model);
    CHECK(documented.count(row.gfx) == 1);
    CHECK(models.insert(normalized_gpu_name(model)).second);
    CHECK(amd_gpu_target(model) == &row);
  }
}
