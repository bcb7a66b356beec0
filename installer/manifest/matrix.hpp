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
//
// When a row depends on the machine (the CUDA toolkit on what the Windows
// driver supports), the selector's table also holds how to choose it:
//
//   [matrix.cuda_version]
//   auto = "host.nvidia_cuda >= cuda_version"   # a condition, tried row by row
//   auto_why = "the newest toolkit the driver supports (nvidia-smi: ${host.nvidia_smi})"
//   fallback = "12.6"                           # the row when none holds
//   fallback_why = "nvidia-smi names no CUDA release of this table (${host.nvidia_smi})"
//
// With the selector's value "auto", the rows are tried in file order, with
// the selector holding the row's value and the row's columns its values; the
// first for which the condition holds is taken, else the fallback; with
// neither, plan and install refuse. The selector then holds the row's value.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "installer/manifest/substitute.hpp"
#include "installer/plan/plan.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

// What "auto" chooses from, and what it chose.
struct MatrixMachine {
  Variables host;                              // host.* facts (the lazily probed ones included, once probed)
  std::map<std::string, std::string> recorded;  // selector -> the row a transaction chose: taken again
};
// The row a variable's value in force comes from: the selected row of a
// selector (COLUMN false), or the row whose column replaced its default.
struct MatrixRowRef {
  std::string header;  // [matrix.rocm_version."7.2.2"]
  SourcePos pos;       // the row's key in its header
  bool column = false;
};

struct MatrixChoices {
  // One per selector with an `auto` condition, in file order; `why` is
  // the table's text unsubstituted (it may use variables not resolved yet),
  // WHY_POS where it is written.
  std::vector<VariableChoice> choices;
  std::vector<SourcePos> why_pos;
  std::string refusal;  // "auto" found no row and there is no fallback: why, and what to do
  // The selectors REFUSAL is about, and the columns of their rows: no row
  // gave any of them a value.
  std::set<std::string> unresolved;
  // Per variable, the row behind its value (selectors with a row, and the
  // columns that row gave).
  std::map<std::string, MatrixRowRef> rows;
};

// Applies ROOT's [matrix] (if any) to RAW, the variables' unresolved texts
// after --set (OVERRIDES): the matching row's columns replace their
// defaults, and WHERE then points at the row's values. A selector whose
// value is "auto" first takes the row its table's `auto` chooses on
// MACHINE. Problems are added to DIAGNOSTICS at FILE:LINE:COLUMN.
void apply_matrix(const toml::table& root, const std::string& file, const Variables& overrides, Variables& raw,
                  std::map<std::string, SourcePos>& where, std::vector<Diagnostic>& diagnostics,
                  const MatrixMachine& machine = {}, MatrixChoices* chosen = nullptr);

}  // namespace wslgpu
