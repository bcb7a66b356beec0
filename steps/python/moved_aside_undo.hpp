// Journals written before the venv undo store (steps/python/venv_snapshot.hpp)
// recorded a python_packages step's undo as files moved aside inside the
// venv, VENV/.wslgpu-setup-undo/ID/ with its moves.json: such a transaction
// is still rolled back the way it was made, by uninstalling what pip put in
// and renaming the old files back. Nothing writes that form any more.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "steps/step.hpp"

namespace wslgpu {

void undo_moved_aside(StepContext& ctx, const std::string& venv, const std::string& owner, const std::string& site,
                      const nlohmann::json& data);

}  // namespace wslgpu
