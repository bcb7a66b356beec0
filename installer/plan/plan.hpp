// installer/plan/: the plan model, its output, and the overlay plans are made
// against. Includes the folders below it (system/ to net/).
//
// A plan: what an install would do, step by step, resolved against the
// current machine and immutable once made. `plan` prints it; `install` runs
// it. Each step's part says its verdict, a one-line summary for people, the
// detail lines (a diff, a package list), a machine-readable list of changes
// and the facts it probed, so that a saved plan can later prove the machine
// has not moved under it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/filesystem.hpp"
#include "installer/host/host.hpp"

namespace wslgpu {

enum class Verdict {
  noop,     // already as wanted: nothing to do
  change,   // apply would change the machine
  refused,  // a guard forbids it: install stops before any change
  verify,   // a check: reads only, run in its place during install
  skipped,  // its `when` condition is false
};

const char* verdict_name(Verdict v);

// A file a step would write (CONTENT set) or remove (CONTENT empty). The
// runner carries these out atomically, backing up what it replaces, so that
// steps whose effect is a file need no apply or undo code of their own.
struct FileWrite {
  std::string path;
  std::optional<std::string> content;
  FileAttrs attrs;
};

struct StepPlan {
  Verdict verdict = Verdict::noop;
  std::string summary;                 // one line: "add /etc/profile.d/wslgpu-rocm.sh"
  std::vector<std::string> details;    // further lines: diff, package list, current check result
  nlohmann::json changes = nlohmann::json::array();  // [{"type": "file", "path": ..., ...}]
  nlohmann::json fingerprint = nlohmann::json::object();  // facts probed: {"file:/etc/x": "sha256:..."}
  std::vector<FileWrite> writes;       // file effects, applied by the runner
  std::vector<std::string> notices;    // told to the user after apply ("log in again ...")
  bool irreversible = false;           // apply cannot be undone (a command without undo)
};

// How a variable of a [choose.VAR] table got its value, for the plan's
// header: "cuda_version = 13.1 (auto): the newest toolkit ...".
struct VariableChoice {
  std::string variable;  // "cuda_version"
  std::string value;     // the row chosen: "13.1"
  std::string how;       // "auto", "fallback", "set" (--set), "default" ([vars]), "recorded" (a journal's)
  std::string why;       // the table's explanation for auto and fallback, else ""
};

struct PlannedStep {
  std::size_t index = 0;  // 1-based position in the manifest
  std::string id;
  std::string kind;
  std::string name;
  StepPlan plan;
};

struct Plan {
  std::string manifest_name;
  std::string manifest_description;
  std::string source;  // "rocm (bundled)" or the file path
  std::map<std::string, std::string> vars;
  HostFacts host;
  std::vector<PlannedStep> steps;
  std::vector<std::string> refusals;  // guards on the machine itself (installer/guards/guards.hpp)
  std::vector<std::string> warnings;  // the manifest's warn_if that hold: install goes ahead, and says so
  std::vector<VariableChoice> choices;

  bool changes_pending() const;
  bool refused() const;
  std::size_t count(Verdict v) const;
};

}  // namespace wslgpu
