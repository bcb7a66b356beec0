// Helpers shared by the tests of the system step kinds (user_groups,
// profile_env, wslconfig, wslconf, command): build a step from TOML the way
// the manifest loader does, carry out a plan's file writes the way the
// runner does, and restore the files it backed up, so that a test can prove
// that plan, apply and undo leave the files byte for byte as they were.
#pragma once
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <toml++/toml.h>

#include "installer/manifest/step_keys.hpp"
#include "installer/manifest/step_kind.hpp"
#include "steps/step.hpp"
#include "support/fakes.hpp"

namespace wslgpu::testing {

// One [[step]] table's keys, as TOML text, built into its step. The
// diagnostics of the kind's parser land in DIAGNOSTICS.
inline std::shared_ptr<Step> build_step(const std::string& toml_text, std::vector<Diagnostic>& diagnostics,
                                        const Variables& vars = {}) {
  toml::table table = toml::parse(std::string_view(toml_text), std::string_view("m.toml"));
  std::string kind = table["kind"].value_or(std::string());
  const StepKind* k = find_step_kind(kind);
  REQUIRE_MESSAGE(k != nullptr, "unknown kind " << kind);
  StepKeys keys(table, "m.toml", kind, vars, diagnostics);
  for (const char* common : {"id", "kind", "name", "when"}) keys.mark_common(common);
  auto step = k->make(keys);
  keys.finish();
  return step;
}

// The diagnostics of building TOML_TEXT, one per line, as a user sees them.
inline std::string build_errors(const std::string& toml_text) {
  std::vector<Diagnostic> d;
  build_step(toml_text, d);
  std::string out;
  for (const auto& x : d) out += (out.empty() ? "" : "\n") + x.str();
  return out;
}

// A step that must build without a diagnostic.
inline std::shared_ptr<Step> build_ok(const std::string& toml_text) {
  std::vector<Diagnostic> d;
  auto step = build_step(toml_text, d);
  std::string all;
  for (const auto& x : d) all += x.str() + "\n";
  REQUIRE_MESSAGE(d.empty(), all);
  return step;
}

// Every node of a MemoryFileSystem: type, mode, owner and content.
using Snapshot = std::map<std::string, std::tuple<FileType, std::uint32_t, std::uint32_t, std::uint32_t, std::string>>;

inline Snapshot snapshot(const MemoryFileSystem& fs) {
  Snapshot out;
  for (const auto& [path, node] : fs.nodes())
    out[path] = {node.info.type, node.info.mode, node.info.uid, node.info.gid, node.content};
  return out;
}

// What the runner does with a plan's writes.
inline void carry_out_writes(FileSystem& fs, const StepPlan& plan) {
  for (const auto& w : plan.writes) {
    if (w.content)
      fs.write_atomic(w.path, *w.content, w.attrs);
    else
      fs.remove(w.path);
  }
}

// What the runner's undo does with them: each file as it was in BEFORE, or
// absent when it did not exist.
inline void restore_writes(FileSystem& fs, const StepPlan& plan, const Snapshot& before) {
  for (const auto& w : plan.writes) {
    auto it = before.find(w.path);
    if (it == before.end()) {
      fs.remove(w.path);
    } else {
      const auto& [type, mode, uid, gid, content] = it->second;
      fs.write_atomic(w.path, content, FileAttrs{mode, uid, gid});
    }
  }
}

}  // namespace wslgpu::testing
