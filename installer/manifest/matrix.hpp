// [matrix]: per-value defaults for a manifest's variables, so that a vendor's
// release table (which repository, which runtime, which .deb and hash per
// release) is data in the profile, not code.
//
//   [vars]
//   rocm_version = "7.2.1"
//   amdgpu_dir = ""            # every column is declared here, with the
//   rocm_wsl = "none"          # value for a release without a row
//
//   # AMD's 7.2.1 release notes (source cited per row)
//   [matrix.rocm_version."7.2.1"]
//   amdgpu_dir = "30.30.1"
//   rocm_wsl = "librocdxg"
//
// `[matrix.SELECTOR]` names a variable of [vars]; each key under it is one
// value of that variable (compared as text, exactly), and its table gives
// columns: variables of [vars] whose default that row replaces when the
// selector has that value. A value given with --set wins over the row. Row
// values are strings, numbers or booleans and may use ${...} like any
// variable. The selector itself must be a plain value (no ${...}), so that
// the row is known before the variables are resolved.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "installer/manifest/substitute.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

// Applies ROOT's [matrix] (if any) to RAW, the variables' unresolved texts
// after --set (OVERRIDES): the matching row's columns replace their
// defaults, and WHERE then points at the row's values. Problems are added to
// DIAGNOSTICS at FILE:LINE:COLUMN.
void apply_matrix(const toml::table& root, const std::string& file, const Variables& overrides, Variables& raw,
                  std::map<std::string, SourcePos>& where, std::vector<Diagnostic>& diagnostics);

}  // namespace wslgpu
