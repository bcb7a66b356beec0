// A profile that builds on another: `requires = "rocm"` in [manifest].
//
//   [manifest]
//   name = "pytorch-rocm"
//   requires = "rocm"      # a bundled profile: its steps run first
//
// The two are one manifest: one plan with every step of both, one
// transaction, one journal. The layer may use every variable of the
// profile it requires, add its own, add columns to that profile's [matrix]
// rows (a wheel per ROCm release), add steps after its steps, and add
// guards. It may not change what the required profile says: a variable,
// matrix value or guard both define is an error at the layer's key, so that
// `plan rocm` and the rocm half of `plan pytorch-rocm` can never differ.
// A required profile may not itself require one (one level: a layer, and
// what it stands on).
#pragma once
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "installer/system/error.hpp"

namespace wslgpu {

// Moves LAYER's [vars], [matrix], [[step]] and [guards] into BASE, and
// LAYER's [manifest] in place of BASE's. BASE's steps stay first. Nodes keep
// the source region they were parsed with, so positions name their own file
// (toml_pos prefers a node's own path). Conflicts are added to DIAGNOSTICS
// at LAYER's key; BASE_NAME names the required profile in them.
void compose_layer(toml::table& base, toml::table& layer, const std::string& base_name,
                   std::vector<Diagnostic>& diagnostics);

}  // namespace wslgpu
