// Doctor, TensorFlow group: what the TensorFlow probe of
// checks_frameworks.cpp printed means (tensorflow.gpu, tensorflow.gpu-arch),
// read by TensorFlow's own messages, each cited where it is matched.
#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "installer/doctor/checks_frameworks.hpp"
#include "installer/system/text.hpp"

namespace wslgpu::doctor::frameworks {
namespace {

const char* const kTfSymlinkStep =
    "tensorflow.org's step for a venv (tensorflow/docs site/en/install/pip.md, Linux, \"6. [GPU only] Virtual "
    "environment configuration\"), as the venv's owner: ";

std::string tf_symlink_fix(const Venv& v) {
  return std::string(kTfSymlinkStep) + "pushd $(dirname $(" + v.choice.python +
         " -c 'print(__import__(\"tensorflow\").__file__)')); ln -svf ../nvidia/*/lib/*.so* .; popd";
}

// "libcudnn.so.9" from TensorFlow's dso_loader ("Could not load dynamic library 'libcudnn.so.9'; dlerror: ...").
std::vector<std::string> tf_unloaded_libraries(const std::string& text) {
  static const std::regex unloaded(R"(Could not load dynamic library '([^']+)')");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), unloaded); it != std::sregex_iterator(); ++it)
    if (std::find(out.begin(), out.end(), (*it)[1].str()) == out.end()) out.push_back((*it)[1].str());
  return out;
}

// The venv's nvidia-* wheel that ships LIBRARY ("libcudnn.so.9" ->
// nvidia-cudnn-cu12, "libcublasLt.so.12" -> nvidia-cublas-cu12, "libcudart.so.12"
// -> nvidia-cuda-runtime-cu12): NVIDIA's wheels put libNAME in nvidia/NAME/lib
// and are named nvidia-NAME-cuMAJOR. nullptr when the venv has none of them.
const InstalledDist* tf_wheel_of(const Venv& v, const std::string& library) {
  std::string base = library.substr(0, library.find(".so"));
  if (base.rfind("lib", 0) == 0) base.erase(0, 3);
  if (base.size() > 2 && base.compare(base.size() - 2, 2, "Lt") == 0) base.erase(base.size() - 2);
  base = text::lower(base);
  if (base == "cudart") base = "cuda-runtime";
  if (base == "nvrtc" || base == "cupti") base = "cuda-" + base;
  for (const auto& d : v.dists)
    if (d.key.rfind("nvidia-" + base + "-cu", 0) == 0) return &d;
  return nullptr;
}

// Whether some nvidia/*/lib folder of the venv's site-packages holds LIBRARY.
bool tf_venv_has_library(const DoctorScan& scan, const Venv& v, const std::string& library) {
  for (const auto& sp : v.site_packages) {
    std::vector<std::string> wheels;
    try {
      wheels = scan.fs.list(sp + "/nvidia");
    } catch (const std::exception&) {
      continue;
    }
    for (const auto& w : wheels)
      if (scan.exists(sp + "/nvidia/" + w + "/lib/" + library)) return true;
  }
  return false;
}

void tf_gpu(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p) {
  const std::string version = v.dist("tensorflow") ? v.dist("tensorflow")->version : "";
  const std::string gpu_marker = "PhysicalDevice(name='/physical_device:GPU:";
  std::size_t gpus = 0;
  for (auto at = p.out.find(gpu_marker); at != std::string::npos; at = p.out.find(gpu_marker, at + 1)) ++gpus;
  if (gpus > 0) {
    scan.add("tensorflow.gpu", kTfGroup, FindingStatus::ok,
             "TensorFlow " + version + " lists " + std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s") +
                 " (tf.config.list_physical_devices('GPU'))");
    return;
  }
  if (!has_line(p.out, "[]")) {
    probe_gave_nothing(scan, fw, v, p, "`import tensorflow`");
    return;
  }
  const std::string seen = "TensorFlow " + version + " lists no GPU: tf.config.list_physical_devices('GPU') is []";
  const std::vector<std::string> unloaded = tf_unloaded_libraries(p.all);
  const std::string dlopen = line_from(p.all, "Cannot dlopen some GPU libraries.");
  const bool nvidia_wheels = v.has_prefixed("nvidia-");
  bool cudnn_unloaded = false;
  for (const auto& lib : unloaded) cudnn_unloaded = cudnn_unloaded || lib.rfind("libcudnn", 0) == 0;
  const std::string named = unloaded.empty() ? "" : " (it cannot load " + join_words(unloaded) + ")";

  if (cudnn_unloaded && !v.dist("nvidia-cudnn-cu12")) {
    scan.add("tensorflow.gpu", kTfGroup, FindingStatus::fail, seen + named,
             "TensorFlow's loader did not find cuDNN (\"" +
                 line_from(p.all, "Could not load dynamic library 'libcudnn") +
                 "\"), and the venv has no nvidia-cudnn-cu12 wheel: TensorFlow skips registering the GPU and runs "
                 "on the CPU." +
                 scan.dxg_note(),
             as_owner(v) + " nvidia-cudnn-cu12 (as the venv's owner), or " + install_fix(fw) + ".");
    return;
  }
  // cuInit failing is the driver, not the wheels: TensorFlow goes on to
  // "Cannot dlopen some GPU libraries" as well, and the symlink fix would
  // change nothing. Under WSL the driver is the Windows one's
  // /usr/lib/wsl/lib/libcuda.so.1 (NVIDIA's CUDA on WSL guide), and a toolkit
  // stub or Linux driver used instead fails the same way (jax-ml/jax#7600).
  const std::string cuinit = line_from(p.all, "failed call to cuInit");
  if (!cuinit.empty()) {
    scan.add("tensorflow.gpu", kTfGroup, FindingStatus::fail, seen,
             "TensorFlow says \"" + cuinit +
                 "\": the CUDA driver did not start, so no GPU library is loaded. Under WSL the driver is the "
                 "Windows driver's /usr/lib/wsl/lib/libcuda.so.1 over /dev/dxg (nvidia.stubs, nvidia.linker-path "
                 "and wsl.dxg above say whether they are there and found); a toolkit stub or a Linux driver's "
                 "libcuda fails this way too (jax-ml/jax#7600)." +
                 scan.dxg_note(),
             "Fix the NVIDIA findings above first (on Windows: NVIDIA's current driver, then `wsl --shutdown`); "
             "the venv needs no change.");
    return;
  }
  // A wheel recorded in the venv whose library file is gone (an install or
  // removal stopped part way, files deleted): the symlink step would link
  // nothing, so the fix is to reinstall that wheel. The libraries are those
  // TensorFlow names; a TensorFlow that names none (2.16 and later log the
  // loader's lines only at a higher verbosity) is asked for cuDNN's,
  // libcudnn.so.MAJOR of the venv's nvidia-cudnn-cu12.
  std::vector<std::string> wanted = unloaded;
  const InstalledDist* cudnn_wheel = v.dist("nvidia-cudnn-cu12");
  if (wanted.empty() && !dlopen.empty() && cudnn_wheel)
    wanted.push_back("libcudnn.so." + cudnn_wheel->version.substr(0, cudnn_wheel->version.find('.')));
  for (const auto& lib : wanted) {
    const InstalledDist* wheel = tf_wheel_of(v, lib);
    if (!wheel || tf_venv_has_library(scan, v, lib)) continue;
    scan.add("tensorflow.gpu", kTfGroup, FindingStatus::fail, seen + named,
             (unloaded.empty() ? "TensorFlow says \"Cannot dlopen some GPU libraries\"" : "TensorFlow cannot load " + lib) +
                 ", and " + wheel->name + " " + wheel->version +
                 " is recorded in the venv (its dist-info is there), but no nvidia/*/lib folder of " +
                 join_words(v.site_packages, ", ") + " holds " + lib +
                 ": the wheel is incomplete (an install or removal that stopped part way, or files deleted), "
                 "so tensorflow.org's symlink step would link nothing." +
                 scan.dxg_note(),
             as_owner(v) + " --force-reinstall --no-deps \"" + wheel->name + "==" + wheel->version +
                 "\" (as the venv's owner), or " + install_fix(fw) + ".");
    return;
  }
  if (!dlopen.empty() || !unloaded.empty()) {
    if (nvidia_wheels) {
      scan.add("tensorflow.gpu", kTfGroup, FindingStatus::fail, seen + named,
               "TensorFlow says \"Cannot dlopen some GPU libraries ... Skipping registering GPU devices\": the "
               "nvidia-* wheels of tensorflow[and-cuda] are in the venv, but the loader does not find them "
               "(tensorflow/tensorflow#63362; with TensorFlow 2.21.0 in a WSL venv, #117538: \"The path variables "
               "fixed the problem\"). doctor runs Python without LD_LIBRARY_PATH, as an IDE or a service starts "
               "it." +
                   scan.dxg_note(),
               tf_symlink_fix(v) + "; or " + install_fix(fw) + ".");
      return;
    }
    scan.add(
        "tensorflow.gpu", kTfGroup, FindingStatus::fail, seen + named,
        "TensorFlow says \"Cannot dlopen some GPU libraries\", and the venv has none of the nvidia-* wheels "
        "(CUDA, cuDNN) that tensorflow[and-cuda] installs: plain `pip install tensorflow` runs on the CPU "
        "only under WSL (tensorflow/docs site/en/install/pip.md, Windows WSL2: `pip install "
        "tensorflow[and-cuda]`)." +
            scan.dxg_note(),
        as_owner(v) + " \"tensorflow[and-cuda]==" + version + "\" (as the venv's owner), or " + install_fix(fw) + ".");
    return;
  }
  const std::string no_driver = line_from(p.all, "Could not find cuda drivers on your machine");
  if (!no_driver.empty()) {
    scan.add("tensorflow.gpu", kTfGroup, FindingStatus::fail, seen,
             "TensorFlow says \"" + no_driver +
                 "\": it did not load libcuda.so.1, the Windows driver's /usr/lib/wsl/lib/libcuda.so.1 "
                 "(nvidia.stubs and nvidia.linker-path above say whether it is there and found), or it is a build "
                 "without CUDA." +
                 scan.dxg_note(),
             "Fix the NVIDIA findings above first; then " + as_owner(v) + " \"tensorflow[and-cuda]==" + version +
                 "\" (as the venv's owner), or " + install_fix(fw) + ".");
    return;
  }
  scan.add("tensorflow.gpu", kTfGroup, FindingStatus::fail,
           seen + (last_words(p.all).empty() ? "" : ": " + last_words(p.all)),
           "TensorFlow registered no GPU and gave none of the messages doctor knows." + scan.dxg_note(),
           "Run `TF_CPP_MIN_LOG_LEVEL=0 " + v.choice.python +
               " -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"` to see its log; " +
               install_fix(fw) + " reinstalls it.");
}

// The GPU's compute capability against TensorFlow's kernels, from the
// device it creates for one op. Not shown when no GPU was listed.
void tf_gpu_arch(DoctorScan& scan, const Venv& v, const Probe& p) {
  static const std::regex no_kernels(
      R"(TensorFlow was not built with CUDA kernel binaries compatible with compute capability ([0-9]+)\.([0-9]+))");
  std::smatch m;
  if (std::regex_search(p.all, m, no_kernels)) {
    const std::string cc = m[1].str() + "." + m[2].str();
    const std::string ptx = line_from(p.all, "LLVM ERROR: PTX version");
    if (!ptx.empty() || std::stoi(m[1].str()) >= 10) {
      scan.add("tensorflow.gpu-arch", kTfGroup, FindingStatus::fail,
               "TensorFlow has no kernels for this GPU's compute capability " + cc +
                   (std::stoi(m[1].str()) >= 10 ? " (Blackwell)" : ""),
               "TensorFlow says \"TensorFlow was not built with CUDA kernel binaries compatible with compute "
               "capability " +
                   cc + "\"" + (ptx.empty() ? "" : ", then \"" + ptx + "\"") +
                   ": the released wheels, built with CUDA 12.5, have neither code for it nor PTX new enough to be "
                   "compiled for it (tensorflow/tensorflow#97387; #111958: no fix in a released wheel).",
               "No released TensorFlow wheel runs on this GPU yet (tensorflow/tensorflow#111958). Run the model on "
               "the CPU, or use PyTorch, whose cu13x wheels build compute capability 12.0: sudo wslgpu-setup "
               "install pytorch.");
      return;
    }
    scan.add("tensorflow.gpu-arch", kTfGroup, FindingStatus::warn,
             "TensorFlow compiles its kernels for compute capability " + cc + " from PTX at first use",
             "TensorFlow says \"TensorFlow was not built with CUDA kernel binaries compatible with compute "
             "capability " +
                 cc +
                 "\": its wheels carry PTX only for the newest architecture they support "
                 "(tensorflow/docs site/en/install/pip.md: \"Packages do not contain PTX code except for the latest "
                 "supported CUDA architecture\"), so the first run compiles every kernel it uses, which TensorFlow "
                 "says \"could take 30 minutes or longer\".",
             "Let one run finish: the driver keeps the compiled kernels (~/.nv/ComputeCache). A TensorFlow release "
             "built for this GPU avoids it.");
    return;
  }
  static const std::regex op_result(R"((^|\n)16(\.0)?\r?(\n|$))");
  if (std::regex_search(p.out, op_result)) {
    scan.add("tensorflow.gpu-arch", kTfGroup, FindingStatus::ok,
             "TensorFlow ran an op on GPU:0 with its own kernels for this GPU");
    return;
  }
  if (p.result.timed_out) {
    scan.add("tensorflow.gpu-arch", kTfGroup, FindingStatus::warn,
             "TensorFlow listed the GPU, but one op on it did not finish within " + scan.timeout_text(),
             "Compiling kernels from PTX at first use is the usual reason; doctor cannot tell.",
             "Run `" + v.choice.python +
                 " -c \"import tensorflow as tf; print(tf.reduce_sum(tf.random.normal([1000, 1000])))\"` "
                 "(tensorflow.org's own check) and wait for it.");
    return;
  }
  scan.add("tensorflow.gpu-arch", kTfGroup, FindingStatus::fail,
           "TensorFlow listed the GPU, but one op on it failed" +
               (last_words(p.all).empty() ? "" : ": " + last_words(p.all)),
           "The GPU is registered, yet TensorFlow cannot run on it." + scan.dxg_note(),
           "Run the op by hand with TF_CPP_MIN_LOG_LEVEL=0 to see TensorFlow's log; sudo wslgpu-setup install "
           "tensorflow-cuda reinstalls it.");
}

}  // namespace

void classify_tensorflow(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p) {
  const std::size_t before = scan.findings.size();
  tf_gpu(scan, fw, v, p);
  if (scan.findings.size() > before && scan.findings.back().status == FindingStatus::ok) tf_gpu_arch(scan, v, p);
}

}  // namespace wslgpu::doctor::frameworks
