// What is installed in a Python virtual environment, read from its files
// without starting Python (a converged plan starts no interpreter):
//   VENV/pyvenv.cfg                                   the venv and its Python
//   VENV/lib/pythonX.Y/site-packages/NAME-VER.dist-info/METADATA   name, version
//   .../NAME-VER.dist-info/RECORD                     the files it installed
// The formats are the Python Packaging Authority's: "Recording installed
// projects" (dist-info, RECORD as CSV) and "Core metadata" (METADATA, an
// RFC 822 header), and the venv module's pyvenv.cfg (key = value lines).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

// pyvenv.cfg: "home = /usr/bin", "include-system-site-packages = false",
// "version = 3.12.3" (older venvs), "version_info = 3.12.3.final.0" (newer).
struct PyvenvCfg {
  std::string home;
  std::string version;  // "3.12.3", from version or version_info; "" when neither
  bool include_system_site_packages = false;
};
PyvenvCfg parse_pyvenv_cfg(std::string_view text);

// METADATA's Name and Version ("" when absent), every Requires-Dist
// (a PEP 508 requirement each, read by installer/formats/
// python_requirement.hpp), in order, with a folded one joined into one
// line, and every Provides-Extra as written. Only the header is read: it
// ends at the first empty line.
struct DistMetadata {
  std::string name;
  std::string version;
  std::vector<std::string> requires_dist;
  std::vector<std::string> provides_extra;
};
DistMetadata parse_metadata(std::string_view text);

// One RECORD row: "torch/lib/libhsa-runtime64.so,sha256=...,123". Paths are
// relative to site-packages and may leave it ("../../../bin/torchrun").
struct RecordEntry {
  std::string path;
  std::string hash;  // "sha256=<urlsafe base64>" or ""
  std::string size;  // "" when not given
};
// Parses RECORD's CSV (a field may be quoted, with "" for a quote; an
// unterminated quote takes the rest of the line). Empty lines are skipped.
std::vector<RecordEntry> parse_record(std::string_view text);

// The target path a RECORD row names: SITE_PACKAGES/PATH with '.' and '..'
// resolved as text ("../../../bin/torchrun" of VENV/lib/python3.12/
// site-packages is VENV/bin/torchrun). An absolute PATH stays as written.
std::string record_target(const std::string& site_packages, const std::string& path);

// An installed distribution of one site-packages folder.
struct InstalledDist {
  std::string name;       // METADATA's Name, as written
  std::string key;        // normalize_project_name(name): what to compare
  std::string version;    // METADATA's Version
  std::string dist_info;  // target path of its .dist-info folder
};

// The site-packages folders of the venv at VENV (target paths, usually one:
// VENV/lib/python3.12/site-packages); empty when there is none.
std::vector<std::string> venv_site_packages(const FileSystem& fs, const std::string& venv);

// Every *.dist-info folder of SITE_PACKAGES that holds a METADATA, sorted
// by key. A folder without METADATA (a half-removed install) is skipped.
std::vector<InstalledDist> installed_dists(const FileSystem& fs, const std::string& site_packages);

}  // namespace wslgpu
