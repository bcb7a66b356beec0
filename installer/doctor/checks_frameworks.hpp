// What the framework checks of doctor share: the venv a framework is
// checked in, what its probe printed, the table of frameworks, and the
// helpers every classifier uses. checks_frameworks.cpp chooses the venvs and
// runs the probes; checks_tensorflow.cpp, checks_jax.cpp and
// checks_onnxruntime.cpp each read one framework's output.
#pragma once

#include <string>
#include <vector>

#include "installer/doctor/checks.hpp"
#include "installer/formats/python_dist.hpp"

namespace wslgpu::doctor::frameworks {

inline constexpr const char* kTfGroup = "TensorFlow";
inline constexpr const char* kJaxGroup = "JAX";
inline constexpr const char* kOrtGroup = "ONNX Runtime";

struct Venv {
  VenvChoice choice;
  std::vector<std::string> site_packages;
  std::vector<InstalledDist> dists;  // of every site-packages folder, the first of each key
  std::string python_version;        // pyvenv.cfg's, "" when unknown

  const InstalledDist* dist(const std::string& key) const {
    for (const auto& d : dists)
      if (d.key == key) return &d;
    return nullptr;
  }
  bool has_prefixed(const std::string& prefix) const {
    for (const auto& d : dists)
      if (d.key.rfind(prefix, 0) == 0) return true;
    return false;
  }
};

// What a probe printed, as the classifiers read it.
struct Probe {
  ProcessResult result;
  std::string out;  // standard output
  std::string all;  // standard output and error
};

struct Framework {
  const char* name;      // "tensorflow": the ids' prefix and the default venv's folder
  const char* group;     // "TensorFlow"
  const char* profile;   // "tensorflow-cuda": its transactions and default venv
  const char* dists[2];  // the dist-info keys that mean it is installed; the first is shown
  const char* probe;
  const char* main_id;  // the finding a probe that did not run is reported as
  const char* by_hand;  // the vendor's own check, for the user to run
  void (*classify)(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p);
};

// "sudo wslgpu-setup install PROFILE": the fix that rebuilds the venv.
std::string install_fix(const Framework& fw);
// "VENV/bin/python -m pip install": what the venv's owner runs.
std::string as_owner(const Venv& v);
// The first line of TEXT containing NEEDLE, from NEEDLE on, trimmed; "" when none.
std::string line_from(const std::string& text, const std::string& needle);
// Whether a line of TEXT, trimmed, is WHOLE.
bool has_line(const std::string& text, const std::string& whole);
// The last two lines of TEXT that mean something (a traceback's last line
// names the error; the frameworks' log noise is left out), joined for a
// one-line message.
std::string last_words(const std::string& text);
// A probe that printed nothing to classify: it timed out, did not start or
// failed; reported as FW's main finding, WHAT naming what was asked.
void probe_gave_nothing(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p, const std::string& what);

// Each framework's classifier, in its own file: the findings its probe's output means.
void classify_tensorflow(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p);
void classify_jax(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p);
void classify_onnxruntime(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p);

}  // namespace wslgpu::doctor::frameworks
