// How a plan is shown: aligned text for people (coloured on a terminal) and
// one JSON document for scripts. The JSON carries format_version so that a
// script can tell when its shape changes.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "installer/plan/plan.hpp"

namespace wslgpu {

struct TextStyle {
  bool color = false;
  bool verbose = false;  // every detail line, however many
};

// APPLY_COMMAND: what `plan` tells the user to run to apply exactly this
// plan (every option that shaped it, quoted for a shell). Empty when install
// shows the plan it is about to apply: then no "Nothing has been changed"
// and no command to run.
std::string render_plan_text(const Plan& plan, const TextStyle& style, const std::string& apply_command);

inline constexpr int kPlanFormatVersion = 1;

nlohmann::json plan_to_json(const Plan& plan);

// What the transaction keeps for undo before its first change, and what it
// cannot keep: "Keeps 412 MB for undo (rocm 7.2.2 and 6 more), ..." ("" when
// nothing). Part of the plan's text; also what install says when it refuses
// a plan with gaps.
std::string undo_store_text(const Plan& plan);
// The same for --output json: {"bytes", "keeps": [...], "missing": [...]}.
nlohmann::json undo_store_json(const Plan& plan);

// ANSI colour helpers shared by every text output; plain when !style.color.
std::string paint(const TextStyle& style, const char* code, const std::string& text);

}  // namespace wslgpu
