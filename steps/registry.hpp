// The step kinds, by name. Adding a kind: write steps/<kind>.{hpp,cpp}, then
// add one line to the table in registry.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

struct StepKind {
  std::string name;     // "apt_install"
  std::string summary;  // one line for `wslgpu-setup kinds` and the docs
  // Reads the kind's keys (reporting problems through KEYS) and returns the step.
  std::shared_ptr<Step> (*make)(StepKeys& keys);
};

const std::vector<StepKind>& step_kinds();

// The kind named NAME, or nullptr.
const StepKind* find_step_kind(const std::string& name);

// The known name closest to NAME when it is a likely typo, else "".
std::string suggest(const std::string& name, const std::vector<std::string>& known);

}  // namespace wslgpu
