// What is in a venv that a transaction created, but that the transaction
// did not put there: the user's own distributions (`pip install
// transformers`) and files (notes.txt, a model, a checkout) added since.
// A rollback must never delete those: they are drift, named before
// anything is undone (steps/python/python_venv.cpp), and with --force the
// venv is moved aside rather than removed.
//
// What the transaction made: the venv's skeleton as `python -m venv` left
// it (the files no RECORD names: pyvenv.cfg, bin/python, the activate
// scripts; and its distributions, pip), recorded by python_venv when it
// created the venv, and the distributions its later python_packages steps
// left (their "after" sets, passed through StepContext::made_by_later_steps).
// Every file a distribution's RECORD names is that distribution's; a file
// no RECORD names and the skeleton lacks is the user's. Bytecode caches
// (__pycache__) are no one's: Python rebuilds them.
#pragma once
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

// The venv's skeleton: its distributions' keys and its files (relative to
// the venv) that no RECORD names, as python_venv records them right after
// `python -m venv`.
struct VenvSkeleton {
  std::set<std::string> dists;
  std::set<std::string> loose_files;

  nlohmann::json to_json() const;
  static VenvSkeleton from_json(const nlohmann::json& json);
};
VenvSkeleton venv_skeleton(const FileSystem& fs, const std::string& venv);

struct VenvAdditions {
  std::vector<std::string> dists;  // "transformers 4.50.0"
  std::vector<std::string> files;  // relative to the venv: "notes.txt"
  bool empty() const { return dists.empty() && files.empty(); }
  // "transformers 4.50.0, requests 2.31.0 and 2 files (notes.txt, data/x.csv)"
  std::string text() const;
};

// What VENV holds now that neither SKELETON nor the distributions MADE
// (keys) account for.
VenvAdditions venv_additions(const FileSystem& fs, const std::string& venv, const VenvSkeleton& skeleton,
                             const std::set<std::string>& made);

// Where a rollback moves VENV when it holds additions: VENV.kept-by-rollback,
// or VENV.kept-by-rollback-2, -3 ... when that is taken.
std::string moved_aside_path(const FileSystem& fs, const std::string& venv);

}  // namespace wslgpu
