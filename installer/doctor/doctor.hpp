// installer/doctor/: the read-only diagnosis and the support bundle. Includes
// transaction/ and below.
//
// `wslgpu-setup doctor`: the troubleshooting trees of the source documents
// (and the failures users report most, ../shared/SEED-NOTES.md) as a
// read-only diagnosis. diagnose() reads the target through a FileSystem and
// runs the vendors' probes (nvidia-smi, nvcc, rocminfo, cmd.exe, wsl.exe,
// wslinfo) through a ProcessRunner, each with a timeout, because they are
// known to hang; a timeout is itself a finding. Nothing is ever written.
//
// Each finding has an id ("wsl.dxg"), a group (WSL, NVIDIA, AMD, PyTorch,
// TensorFlow, JAX, ONNX Runtime, Containers, Configuration, Windows), a
// status (ok, warn, fail), what was seen, the likely cause and the fix. Findings come in the order that explains the most:
// a missing /dev/dxg is reported before anything that needs the GPU, and
// every later GPU failure says that it follows from it. Vendor findings
// appear only when they apply: NVIDIA's when the driver stubs are mounted or
// an NVIDIA package is installed, AMD's when a ROCm or HSA package is
// installed or /opt/rocm exists; PyTorch's for one venv (--python, the one
// `install pytorch` recorded, or the default), read from its files;
// TensorFlow's, JAX's and ONNX Runtime's on NVIDIA for each framework's venv,
// which runs one short probe, since only the framework tells.
// docs/doctor.md lists every finding.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/filesystem.hpp"
#include "installer/host/host.hpp"
#include "installer/system/process.hpp"

namespace wslgpu {

enum class FindingStatus { ok, warn, fail };

// "ok", "warn", "fail"
const char* finding_status_name(FindingStatus status);

struct Finding {
  std::string id;     // stable, for scripts: "wsl.dxg", "nvidia.linux-driver"
  std::string group;  // "WSL", "NVIDIA", "AMD", "PyTorch", "TensorFlow", "JAX", "ONNX Runtime", "Containers", ...
  FindingStatus status = FindingStatus::ok;
  std::string seen;   // one line: what was found
  std::string cause;  // why it matters, or what it means ("" when there is nothing to say)
  std::string fix;    // what to do ("" for ok)
};

// What diagnose() reads. Tests fill it with fakes.
struct DoctorMachine {
  const FileSystem& fs;
  ProcessRunner& runner;
  HostFacts host;
  // Free bytes where the root lives (statvfs of its host path); nullopt when unknown.
  std::function<std::optional<std::uint64_t>()> free_disk_bytes;
  // The longest any one probe may take; vendor tools that hang are killed.
  std::chrono::milliseconds command_timeout{std::chrono::seconds(30)};
  // doctor --python: the target path of a venv's python (VENV/bin/python),
  // "" for the venv `install pytorch` recorded, else ~USER/.venvs/pytorch
  // (and each framework's, likewise).
  std::string python{};
  // doctor --image: a local container image to inspect (never pulled, never
  // run), "" for none.
  std::string image{};
  // Whether doctor runs as root: the venv's Python, when it must run, then
  // runs as the WSL user (runuser), never as root.
  bool as_root = false;
  // Seconds since the epoch, for key expiry; tests pin it.
  std::function<std::int64_t()> now = [] {
    return static_cast<std::int64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  };
};

// Runs every check that applies and returns the findings, grouped in the
// order WSL, NVIDIA, AMD, PyTorch, TensorFlow, JAX, ONNX Runtime,
// Containers, Configuration, Windows. Never throws for what it
// finds on the machine: an unreadable or malformed file is a finding.
std::vector<Finding> diagnose(const DoctorMachine& machine);

std::size_t count_findings(const std::vector<Finding>& findings, FindingStatus status);

// The findings for people: a heading per group, one line per finding
// ("  ok    ...", "  warn  ...", "  FAIL  ..."), the cause and "Fix: ..."
// under each finding that is not ok, and a closing "N failures, N warnings."
// COLOR adds ANSI colour to the status words (never the only signal).
// ONLY_PROBLEMS leaves ok findings out (-q).
std::string render_findings_text(const std::vector<Finding>& findings, bool color, bool only_problems = false);

// {"format_version": 1, "findings": [{id, group, status, seen, cause, fix}], "failures": N, "warnings": N}
nlohmann::ordered_json findings_to_json(const std::vector<Finding>& findings);

}  // namespace wslgpu
