// installer/manifest/: the manifest language (model, step keys, substitution,
// conditions, bundled profiles, the step-kind table). Includes plan/ and
// below.
//
// The manifest model: what a TOML profile says, checked and with ${var}
// substituted, before anything about the machine is known beyond its facts.
//
//   [manifest]  name, description, schema_version (= 1), requires (a
//               bundled profile this one is a layer on: compose.hpp)
//   [vars]      defaults, overridden by --set key=value
//   [matrix.V]  rows of variables, one chosen by V's value; V = "auto"
//               lets the table choose from the machine's facts
//   [[step]]    id, kind, name, optional when, and the kind's own keys
//   [guards]    refuse_packages, min_kernel, require_wsl2, require_dxg,
//               refuse_if, warn_if, supported
//
// docs/manifest.md describes every key. load_manifest() reports every error
// it finds (not just the first) as an InputError with FILE:LINE:COLUMN.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "installer/manifest/condition.hpp"
#include "installer/manifest/matrix.hpp"
#include "installer/host/host.hpp"
#include "installer/manifest/substitute.hpp"
#include "installer/manifest/supported_systems.hpp"
#include "installer/plan/plan.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

class Step;  // steps/step.hpp

struct ManifestStep {
  std::string id;
  std::string kind;
  std::string name;
  std::shared_ptr<const Condition> when;  // null: always
  SourcePos pos;                          // the [[step]] table
  std::shared_ptr<Step> step;             // the kind's own parsed configuration
  std::string origin;                     // the profile it is written in (a layer's base, or this one)
};

// A manifest's own refusal: when WHEN holds, install refuses with REASON
// (for example a ROCm release that shipped no WSL runtime).
struct ConditionalRefusal {
  std::shared_ptr<const Condition> when;
  std::string reason;
};

struct Guards {
  std::vector<ConditionalRefusal> refuse_if;
  std::vector<ConditionalRefusal> warn_if;  // the same, but install goes ahead and the plan says REASON
  std::vector<std::string> refuse_packages;  // extra patterns ("*-dkms" style globs)
  std::string min_kernel;                    // "" for no minimum
  bool require_wsl2 = true;
  bool require_dxg = false;
  std::optional<SupportedSystems> supported;  // [guards.supported]: where the vendor publishes
};

struct Manifest {
  std::string name;
  std::string description;
  std::int64_t schema_version = 1;
  std::string source;  // file path shown in messages
  Variables vars;      // [vars] with --set applied, host facts not included
  // Where each variable's value in force is written: its [vars] default, the
  // [matrix] row value that replaced it, or "--set NAME".
  std::map<std::string, SourcePos> var_where;
  // The [matrix] row behind each variable whose value one gives.
  std::map<std::string, MatrixRowRef> var_rows;
  // The variables the user gave with --set, and those whose value uses one:
  // steps may treat a value built from them as asked for explicitly.
  std::set<std::string> from_command_line;
  std::vector<ManifestStep> steps;
  Guards guards;
  // One per [matrix.VAR] table with an `auto` condition, in file order:
  // the row each one chose, and how.
  std::vector<VariableChoice> choices;
  // `requires = "rocm"`: the profile this one is a layer on
  // (installer/manifest/compose.hpp), its file and text as loaded, which
  // a transaction records so that undo reads the same.
  std::string base_name;
  std::string base_source;
  std::string base_text;
};

// The profile name a step acts under (StepContext::manifest_name: the
// /etc/profile.d/wslgpu-NAME.sh a profile_env step writes): the profile it
// is written in, so that the rocm steps of a layer on rocm are rocm's.
inline const std::string& step_manifest_name(const Manifest& m, const ManifestStep& s) {
  return s.origin.empty() ? m.name : s.origin;
}

// Where a manifest comes from: a bundled profile name or a path.
struct ManifestSource {
  ManifestSource() = default;
  ManifestSource(std::string display_, std::string text_, bool bundled_, std::string base_display_ = {},
                 std::string base_text_ = {})
      : display(std::move(display_)),
        text(std::move(text_)),
        bundled(bundled_),
        base_display(std::move(base_display_)),
        base_text(std::move(base_text_)) {}
  std::string display;  // "manifests/rocm.toml" or the path as given
  std::string text;
  bool bundled = false;
  // For a layer (`requires`): the required profile's file and text as a
  // transaction recorded them. Empty: the bundled profile of that name.
  std::string base_display;
  std::string base_text;
};

// Finds PROFILE_OR_FILE: a path (anything with a '/' or ending in .toml) is
// read from the running machine; else a bundled profile by name. Throws
// InputError naming the bundled profiles when neither exists.
ManifestSource find_manifest(const std::string& profile_or_file);

struct LoadOptions {
  // --unsupported-distro: a machine outside [guards.supported] is not
  // refused, so a value built from its facts is checked like any other.
  bool unsupported_distro = false;
  // [matrix.VAR] rows "auto" chose earlier (a transaction's journal): VAR ->
  // the value of its row. The same row is taken again, whatever the machine
  // says now, so that undo and resume act on the manifest that ran.
  std::map<std::string, std::string> chosen;
};

// Parses and checks SOURCE. OVERRIDES are --set values; HOST supplies the
// host.* variables. Throws InputError with every diagnostic found, or
// Refusal when the manifest cannot be read for HOST because HOST is not a
// system the manifest supports (its values would be built from facts such as
// an empty VERSION_CODENAME).
Manifest load_manifest(const ManifestSource& source, const Variables& overrides, const HostFacts& host,
                       const LoadOptions& options = {});

}  // namespace wslgpu
