// The step kinds the manifest language knows, by name. The loader reads this
// table; steps/registry.cpp defines it, the one list of kinds in the code
// (adding a kind: write steps/<domain>/<kind>.{hpp,cpp}, then add one line
// to the table there; `kinds`, the loader's suggestions and the docs check
// all read it). Declared here, below steps/, so that the manifest layer never
// includes a step kind.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "installer/manifest/step_keys.hpp"

namespace wslgpu {

class Step;  // steps/step.hpp: the one interface every kind implements

struct StepKind {
  std::string name;     // "apt_install"
  std::string summary;  // one line for `wslgpu-setup kinds` and the docs
  // Reads the kind's keys (reporting problems through KEYS) and returns the step.
  std::shared_ptr<Step> (*make)(StepKeys& keys);
};

const std::vector<StepKind>& step_kinds();

// The kind named NAME, or nullptr.
const StepKind* find_step_kind(const std::string& name);

}  // namespace wslgpu
