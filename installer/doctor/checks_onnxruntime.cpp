// Doctor, ONNX Runtime group: what the ONNX Runtime probe of
// checks_frameworks.cpp printed means (onnxruntime.provider,
// onnxruntime.cudnn): which provider a session got, before and after
// onnxruntime.preload_dlls(), and why not CUDA.
#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "installer/doctor/checks_frameworks.hpp"

namespace wslgpu::doctor::frameworks {
namespace {

// The first provider of the line "LABEL ['A', 'B']" the probe printed, "" when there is none.
std::string first_provider(const std::string& out, const std::string& label) {
  static const std::regex first(R"(\[\s*'([A-Za-z]+)')");
  const std::string line = line_from(out, label);
  std::smatch m;
  if (line.rfind(label, 0) != 0 || !std::regex_search(line, m, first)) return "";
  return m[1].str();
}

}  // namespace

void classify_onnxruntime(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p) {
  const std::string version = v.dist("onnxruntime-gpu")->version;
  const std::string session = first_provider(p.out, "session:");
  const std::string preloaded = first_provider(p.out, "after preload_dlls:");
  if (session.empty()) {
    probe_gave_nothing(scan, fw, v, p, "an ONNX Runtime session");
    return;
  }
  if (session == "CUDAExecutionProvider") {
    scan.add("onnxruntime.provider", kOrtGroup, FindingStatus::ok,
             "ONNX Runtime " + version + ": a session asking for CUDA runs on CUDAExecutionProvider");
    scan.add("onnxruntime.cudnn", kOrtGroup, FindingStatus::ok, "ONNX Runtime's CUDA provider loads cuDNN");
    return;
  }
  static const std::regex cudnn(R"((libcudnn[^:\s]*): cannot open shared object file)");
  std::smatch m;
  const bool cudnn_missing = std::regex_search(p.all, m, cudnn);
  const std::string cudnn_lib = cudnn_missing ? m[1].str() : "";
  const std::string load_error = line_from(p.all, "Failed to load library libonnxruntime_providers_cuda.so");
  static const std::regex require(R"(Failed to create CUDAExecutionProvider\.( Require cuDNN \S+ and CUDA \S+?\.\*)?)");
  const std::string created = std::regex_search(p.all, m, require) ? m[0].str() : "";
  const std::string quoted =
      (load_error.empty() ? "" : " ORT says \"" + load_error + "\"") +
      (created.empty() ? "" : std::string(load_error.empty() ? " ORT says \"" : ", then \"") + created + "\"") +
      (load_error.empty() && created.empty() ? "" : ".");
  const std::string seen = "ONNX Runtime " + version + ": a session asking for CUDA runs on " + session;

  if (preloaded == "CUDAExecutionProvider") {
    scan.add("onnxruntime.provider", kOrtGroup, FindingStatus::warn,
             seen + " unless the program calls onnxruntime.preload_dlls() first",
             "ORT's CUDA provider loads CUDA and cuDNN by name, and the loader does not look in the venv's nvidia "
             "wheels." +
                 quoted +
                 " onnxruntime.preload_dlls() (ORT 1.21 and later) loads them from the wheels, and then the "
                 "session gets CUDA (microsoft/onnxruntime#24719); a program that does not call it falls back to "
                 "the CPU without an error (#23059).",
             "Call onnxruntime.preload_dlls() before creating a session (or import torch first, which loads "
             "them), or " +
                 install_fix(fw) + ".");
    scan.add("onnxruntime.cudnn", kOrtGroup, FindingStatus::ok,
             "ONNX Runtime's CUDA provider loads cuDNN after onnxruntime.preload_dlls()");
    return;
  }
  const bool can_preload = p.out.find("after preload_dlls:") != std::string::npos;
  if (cudnn_missing) {
    const InstalledDist* wheel = v.dist("nvidia-cudnn-cu12");
    std::string why, fix;
    if (!wheel) {
      why = " The venv has no nvidia-cudnn-cu12 wheel.";
      fix = as_owner(v) + " nvidia-cudnn-cu12 (as the venv's owner), or " + install_fix(fw) + ".";
    } else if (!can_preload) {
      why = " nvidia-cudnn-cu12 " + wheel->version + " is in the venv, but the loader does not look there, and ORT " +
            version + " has no onnxruntime.preload_dlls() (1.21 and later).";
      fix = as_owner(v) +
            " --upgrade onnxruntime-gpu (as the venv's owner) and call onnxruntime.preload_dlls() before creating a "
            "session (microsoft/onnxruntime#24719), or " +
            install_fix(fw) + ".";
    } else if (wheel->version.rfind("9.", 0) != 0) {
      why = " nvidia-cudnn-cu12 " + wheel->version + " is in the venv, not the cuDNN 9 ORT needs.";
      fix = as_owner(v) + " \"nvidia-cudnn-cu12>=9,<10\" (as the venv's owner), or " + install_fix(fw) + ".";
    } else {
      why = " nvidia-cudnn-cu12 " + wheel->version +
            " is in the venv, and even onnxruntime.preload_dlls() did not load it.";
      fix = install_fix(fw) + " (a venv whose ORT, CUDA and cuDNN wheels match).";
    }
    scan.add("onnxruntime.cudnn", kOrtGroup, FindingStatus::fail,
             "ONNX Runtime's CUDA provider cannot load cuDNN: " + cudnn_lib + " is not found",
             "ORT's CUDA provider (libonnxruntime_providers_cuda.so) needs cuDNN; without it the provider is not "
             "created and sessions fall back to the CPU (microsoft/onnxruntime#25609)." +
                 quoted + why,
             fix);
    scan.add("onnxruntime.provider", kOrtGroup, FindingStatus::fail, seen,
             "ORT fell back to the CPU because its CUDA provider cannot load cuDNN (onnxruntime.cudnn).",
             "See onnxruntime.cudnn.");
    return;
  }
  scan.add("onnxruntime.cudnn", kOrtGroup, FindingStatus::ok, "ONNX Runtime reported no missing cuDNN");
  scan.add("onnxruntime.provider", kOrtGroup, FindingStatus::fail, seen,
           "ORT created no CUDA provider and fell back to the CPU, as it does by default (microsoft/onnxruntime"
           "#23059, maintainer: \"it will fall back to CPU by default. Then you can use session.get_providers() to "
           "check\")." +
               (quoted.empty() ? " " + last_words(p.all) : quoted) +
               " That onnxruntime.get_available_providers() lists CUDAExecutionProvider proves nothing: it lists "
               "the providers ORT was built with, not the ones that work." +
               scan.dxg_note(),
           "Run a session with onnxruntime.set_default_logger_severity(0) to see ORT's reason; " + install_fix(fw) +
               " installs ORT with the CUDA 12 and cuDNN 9 wheels it needs.");
}

}  // namespace wslgpu::doctor::frameworks
