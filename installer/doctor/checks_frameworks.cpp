// Doctor, TensorFlow, JAX and ONNX Runtime groups: the field failures of
// each framework on NVIDIA under WSL2, where the NVIDIA checks apply.
//
// Which venv: with `doctor --python VENV/bin/python`, that one, for every
// framework installed in it; else, per framework, the `venv` of the newest
// committed transaction of its profile (tensorflow-cuda, jax-cuda,
// onnxruntime-cuda), else its profile's default (~USER/.venvs/tensorflow,
// ~USER/.venvs/jax, ~USER/.venvs/onnxruntime): the rule of the PyTorch
// checks (choose_venv, checks_pytorch.cpp). A framework is checked only when
// its *.dist-info is in the venv; no venv at all is not a finding, since
// these profiles are opt-in.
//
// Unlike torch's, these frameworks' failures show in no file: only the
// framework tells whether it reached the GPU (its devices, its session's
// providers) and why not (its loader's messages). So each runs one short
// probe (the kProbe texts below, in one place) in the venv's Python, as the
// WSL user, with the machine's timeout, in the runner's clean environment
// (no LD_LIBRARY_PATH, as an IDE or a service starts Python), and its
// standard output and error are classified by the vendors' own messages,
// each cited where it is matched.
#include <algorithm>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "installer/doctor/checks.hpp"
#include "installer/doctor/profile_defaults.hpp"
#include "installer/formats/python_dist.hpp"
#include "installer/host/nvidia_driver.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"

namespace wslgpu::doctor {

// A namespace of its own: the core is a unity build, and the other check
// files' unnamed namespaces share its translation unit.
namespace frameworks {
namespace {

// ---------------------------------------------------------------- the probes

// TensorFlow: tensorflow.org's own check (tensorflow/docs site/en/install/
// pip.md, "Verify the GPU setup"), then one op on the first GPU, which makes
// TensorFlow create the device and so say whether it has kernels for it.
constexpr const char* kTensorflowProbe = R"py(import tensorflow as tf
gpus = tf.config.list_physical_devices('GPU')
print(gpus, flush=True)
if gpus:
    with tf.device('/GPU:0'):
        print(float(tf.reduce_sum(tf.ones([4, 4]))), flush=True)
)py";

// JAX: its devices, [CudaDevice(id=0)], or [CpuDevice(id=0)] after it fell
// back to the CPU (jax-ml/jax docs/installation.md uses the same call).
constexpr const char* kJaxProbe = R"py(import jax
print(jax.devices(), flush=True)
)py";

// ONNX Runtime: a session that asks for CUDA, then the CPU, and what it got
// (get_providers(): microsoft/onnxruntime#23059); then the same after
// onnxruntime.preload_dlls() (ORT 1.21 and later), which loads CUDA and
// cuDNN from the venv's nvidia wheels (#24719). The model is one Identity
// node (IR 8, opset 13) written as protobuf bytes, so that the onnx package
// is not needed; ORT 1.30 loads and runs it.
constexpr const char* kOnnxruntimeProbe = R"py(import onnxruntime as ort
def f(n, b): return bytes([n << 3 | 2, len(b)]) + b
t = f(2, f(1, b'\x08\x01' + f(2, f(1, b'\x08\x01'))))
g = f(1, f(1, b'x') + f(2, b'y') + f(4, b'Identity')) + f(2, b'g') + f(11, f(1, b'x') + t) + f(12, f(1, b'y') + t)
m = b'\x08\x08' + f(7, g) + f(8, b'\x10\x0d')
p = ['CUDAExecutionProvider', 'CPUExecutionProvider']
print('session:', ort.InferenceSession(m, providers=p).get_providers(), flush=True)
if hasattr(ort, 'preload_dlls'):
    ort.preload_dlls()
    print('after preload_dlls:', ort.InferenceSession(m, providers=p).get_providers(), flush=True)
)py";

// ---------------------------------------------------------------- the frameworks

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
  void (*classify)(DoctorScan& scan, const Venv& v, const Probe& p);
};

std::string install_fix(const Framework& fw) { return std::string("sudo wslgpu-setup install ") + fw.profile; }

// The first line of TEXT containing NEEDLE, from NEEDLE on, trimmed; "" when none.
std::string line_from(const std::string& text, const std::string& needle) {
  for (std::string_view line : text::split_lines(text, text::LineEnd::newline_dropped)) {
    auto at = line.find(needle);
    if (at != std::string_view::npos) return std::string(text::trim(line.substr(at)));
  }
  return "";
}

bool has_line(const std::string& text, const std::string& whole) {
  for (std::string_view line : text::split_lines(text, text::LineEnd::newline_dropped))
    if (text::trim(line) == whole) return true;
  return false;
}

// Log lines that never mean a problem: TensorFlow's and XLA's double
// registration of the cuDNN, cuFFT and cuBLAS factories
// (tensorflow/tensorflow#62075, openxla/xla#20803) and their start-up notes.
bool is_noise(const std::string& line) {
  for (const char* n :
       {"Unable to register cu", "Attempting to register factory", "oneDNN custom operations", "cpu_feature_guard",
        "This TensorFlow binary is optimized", "All log messages before absl::InitializeLog()"})
    if (line.find(n) != std::string::npos) return true;
  return false;
}

// The last two lines of TEXT that mean something (a traceback's last line
// names the error), joined for a one-line message.
std::string last_words(const std::string& text) {
  std::vector<std::string> kept;
  for (const auto& line : active_lines(text))
    if (!is_noise(line)) kept.push_back(line);
  if (kept.size() > 2) kept.erase(kept.begin(), kept.end() - 2);
  std::string out;
  for (const auto& line : kept) out += (out.empty() ? "" : "; ") + line;
  return out;
}

std::string as_owner(const Venv& v) { return v.choice.python + " -m pip install"; }

// A probe that printed nothing to classify: timed out, or did not start.
void probe_gave_nothing(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p, const std::string& what) {
  const ProcessResult& r = p.result;
  if (r.timed_out) {
    scan.add(fw.main_id, fw.group, FindingStatus::warn,
             what + " did not answer within " + scan.timeout_text() + " (" + v.choice.python + ")",
             "The first import after an install or a driver update can be slow; doctor cannot tell whether it "
             "reaches the GPU.",
             "Run it by hand: " + v.choice.python + " -c \"" + fw.by_hand + "\"");
    return;
  }
  if (r.not_found || r.exit_code == -1) {
    scan.add(fw.main_id, fw.group, FindingStatus::warn, "cannot run " + v.choice.python + " to ask " + what,
             r.not_found ? v.choice.python + " does not exist: the venv has the packages but no Python."
                         : lines_joined(r.err) + ".",
             r.not_found ? "Recreate the venv: " + install_fix(fw) + "."
                         : "Run doctor as the venv's owner, or with sudo and --user NAME.");
    return;
  }
  scan.add(fw.main_id, fw.group, FindingStatus::fail,
           what + " failed" + (last_words(p.all).empty() ? "" : ": " + last_words(p.all)),
           std::string("The framework stopped before it named its devices (the venv ") + v.choice.venv +
               "): it fails to import or crashes, so programs in this venv fail too.",
           "Reinstall it: " + install_fix(fw) + "; or " + as_owner(v) + " --force-reinstall " + fw.dists[0] +
               " (as the venv's owner).");
}

// ---------------------------------------------------------------- TensorFlow

constexpr const char* kTfGroup = "TensorFlow";

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

void classify_tensorflow(DoctorScan& scan, const Venv& v, const Probe& p);

// ---------------------------------------------------------------- JAX

constexpr const char* kJaxGroup = "JAX";

// The CUDA major of the installed plugin ("12" for jax-cuda12-plugin or
// jax-cuda12-pjrt; an older jaxlib's "+cuda12" build), "" for none.
std::string jax_cuda_major(const Venv& v) {
  static const std::regex plugin(R"(^jax-cuda([0-9]+)-(plugin|pjrt)$)");
  static const std::regex local(R"(\+cuda([0-9]+))");
  std::smatch m;
  for (const auto& d : v.dists)
    if (std::regex_match(d.key, m, plugin)) return m[1].str();
  if (const InstalledDist* jaxlib = v.dist("jaxlib"); jaxlib && std::regex_search(jaxlib->version, m, local))
    return m[1].str();
  return "";
}

// JAX's driver floors (jax-ml/jax docs/installation.md: "the driver version
// must be >= 525 for CUDA 12 on Linux, and >= 580 for CUDA 13 on Linux"),
// the same as the cuda profile's [matrix.cuda_version], which is read first.
std::string jax_driver_floor(const std::string& major) {
  std::string floor = min_cuda_driver_for_major(major);
  if (!floor.empty()) return floor;
  if (major == "12") return "525";
  if (major == "13") return "580";
  return "";
}

void jax_cuda_backend(DoctorScan& scan, const Framework& fw, const Venv& v, const Probe& p) {
  const std::string version = v.dist("jax") ? v.dist("jax")->version : v.dist("jaxlib")->version;
  const std::string devices = line_from(p.out, "[");
  for (const char* gpu : {"CudaDevice(", "cuda(id=", "gpu(id=", "GpuDevice("}) {
    if (p.out.find(gpu) != std::string::npos) {
      scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::ok, "JAX " + version + " runs on CUDA: " + devices);
      return;
    }
  }
  if (p.out.find("CpuDevice(") == std::string::npos) {
    probe_gave_nothing(scan, fw, v, p, "`import jax`");
    return;
  }
  const std::string seen = "JAX " + version + " runs on the CPU: jax.devices() is " + devices;
  const std::string major = jax_cuda_major(v);
  std::string failed = line_from(p.all, "CUDA backend failed to initialize: ");
  if (failed.empty()) failed = line_from(p.all, "Unable to initialize backend 'cuda': ");
  const std::string said = failed.empty() ? "" : " JAX says \"" + failed + "\".";
  const std::string reinstall = as_owner(v) + " --upgrade \"jax[cuda" + (major.empty() ? "12" : major) +
                                "]\" (as the venv's owner), or " + install_fix(fw) + ".";
  if (major.empty()) {
    scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail,
             seen + "; no CUDA plugin (jax-cuda12-plugin) is installed",
             "JAX says \"An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
             "Falling back to cpu.\": `pip install jax` alone installs the CPU build (jax-ml/jax "
             "docs/installation.md: `pip install --upgrade \"jax[cuda12]\"`)." +
                 scan.dxg_note(),
             reinstall);
    return;
  }
  // Under WSL the driver is the Windows one, which nvidia-smi reports.
  NvidiaDriverFacts driver;
  if (scan.nvidia_smi_full) driver = nvidia_driver_from(*scan.nvidia_smi_full, scan.machine.command_timeout);
  const std::string floor = jax_driver_floor(major);
  const bool too_old = (!floor.empty() && !driver.driver.empty() && compare_versions(driver.driver, floor) < 0) ||
                       (!driver.cuda.empty() && compare_versions(driver.cuda, major) < 0) ||
                       failed.find("insufficient") != std::string::npos;
  if (too_old) {
    scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail,
             seen + "; its CUDA " + major + " plugin needs NVIDIA's driver " + floor + " or later, and Windows has " +
                 (driver.driver.empty() ? std::string("an older one") : driver.driver) +
                 (driver.cuda.empty() ? "" : " (CUDA " + driver.cuda + ")"),
             "JAX (jax-ml/jax docs/installation.md): \"the driver version must be >= 525 for CUDA 12 on Linux, and "
             ">= 580 for CUDA 13 on Linux\"; under WSL the driver is NVIDIA's Windows driver." +
                 said + scan.dxg_note(),
             "On Windows, update NVIDIA's driver to " + floor + " or later, then run `wsl --shutdown`" +
                 (major == "12" ? std::string(".")
                                : "; or use the CUDA 12 plugin, which runs on 525 and later: " + install_fix(fw) +
                                      " (jax[cuda12])."));
    return;
  }
  static const std::regex older(R"(Found (\S+) version ([0-9]+), but JAX was built against version ([0-9]+))");
  static const std::regex unloadable(R"(Unable to load (\S+)\. Is it installed\?)");
  std::smatch m;
  if (std::regex_search(failed, m, older)) {
    scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail,
             seen + "; its " + m[1].str() + " is older than jaxlib's",
             "JAX's CUDA plugin found " + m[1].str() + " " + m[2].str() + ", older than the " + m[3].str() +
                 " it was built against, and fell back to the CPU." + said +
                 " The venv's nvidia-* wheels do not match jaxlib, or an older copy is found first (a folder in "
                 "/etc/ld.so.conf.d holding CUDA libraries).",
             reinstall);
    return;
  }
  if (std::regex_search(failed, m, unloadable)) {
    scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail, seen + "; it cannot load " + m[1].str(),
             "JAX's CUDA plugin could not load " + m[1].str() + ", which the nvidia-* wheels of jax[cuda" + major +
                 "] install, and fell back to the CPU." + said + scan.dxg_note(),
             reinstall);
    return;
  }
  scan.add("jax.cuda-backend", kJaxGroup, FindingStatus::fail, seen,
           "JAX fell back to the CPU." + (said.empty() ? " " + last_words(p.all) : said) + scan.dxg_note(),
           "Run `TF_CPP_MIN_LOG_LEVEL=0 JAX_PLATFORMS=cuda " + v.choice.python +
               " -c \"import jax; print(jax.devices())\"`, which fails with the reason; " + reinstall);
}

// The folders a login file puts on LD_LIBRARY_PATH that hold CUDA
// libraries (not /usr/lib/wsl/lib, the Windows driver's), as "FOLDER (FILE)".
std::vector<std::string> cuda_folders_on_ld_library_path(const DoctorScan& scan) {
  static const std::regex setting(R"(\bLD_LIBRARY_PATH\s*=\s*(\S+))");
  std::vector<std::string> found;
  for (const auto& file : scan.login_files()) {
    for (const auto& line : active_lines(*scan.read(file))) {
      std::smatch m;
      if (!std::regex_search(line, m, setting)) continue;
      std::string value;
      for (char ch : m[1].str())
        if (ch != '"' && ch != '\'' && ch != ';') value += ch;
      std::size_t start = 0;
      while (start <= value.size()) {
        std::size_t end = value.find(':', start);
        if (end == std::string::npos) end = value.size();
        std::string part = value.substr(start, end - start);
        start = end + 1;
        std::string folder = part.substr(0, part.find('$'));  // "${LD_LIBRARY_PATH:+:..." and "$VAR" are not folders
        while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
        if (folder.empty() || folder.front() != '/' || folder == "/usr/lib/wsl/lib") continue;
        bool cuda = false;
        for (const auto& name : scan.list_prefixed(folder, "lib")) {
          for (const char* prefix : {"libcu", "libnccl", "libnvrtc", "libnvJitLink"})
            cuda = cuda || (name.rfind(prefix, 0) == 0 && name.rfind("libcuda.", 0) != 0);
        }
        const std::string entry = folder + " (" + file + ")";
        if (cuda && std::find(found.begin(), found.end(), entry) == found.end()) found.push_back(entry);
      }
    }
  }
  return found;
}

void jax_ld_library_path(DoctorScan& scan) {
  const std::vector<std::string> folders = cuda_folders_on_ld_library_path(scan);
  if (folders.empty()) {
    scan.add("jax.ld-library-path", kJaxGroup, FindingStatus::ok,
             "no login file puts CUDA libraries other than the driver's /usr/lib/wsl/lib on LD_LIBRARY_PATH");
    return;
  }
  scan.add("jax.ld-library-path", kJaxGroup, FindingStatus::warn,
           "a login file puts CUDA libraries on LD_LIBRARY_PATH: " + join_words(folders, ", "),
           "JAX (jax-ml/jax docs/installation.md): \"Make sure that LD_LIBRARY_PATH is not set, since "
           "LD_LIBRARY_PATH can override the NVIDIA CUDA libraries\": in a login shell JAX loads these instead of "
           "the venv's nvidia wheels, and falls back to the CPU when they are older (\"CUDA backend failed to "
           "initialize: Found ... version\"). doctor's probe runs without LD_LIBRARY_PATH, so it cannot see this.",
           "Take these folders off LD_LIBRARY_PATH in the file named (keep /usr/lib/wsl/lib, the Windows driver's "
           "folder), then open a new shell.");
}

void classify_jax(DoctorScan& scan, const Venv& v, const Probe& p);

// ---------------------------------------------------------------- ONNX Runtime

constexpr const char* kOrtGroup = "ONNX Runtime";

// The first provider of the line "LABEL ['A', 'B']" the probe printed, "" when there is none.
std::string first_provider(const std::string& out, const std::string& label) {
  static const std::regex first(R"(\[\s*'([A-Za-z]+)')");
  const std::string line = line_from(out, label);
  std::smatch m;
  if (line.rfind(label, 0) != 0 || !std::regex_search(line, m, first)) return "";
  return m[1].str();
}

void classify_onnxruntime(DoctorScan& scan, const Venv& v, const Probe& p);

const std::vector<Framework>& all_frameworks() {
  static const std::vector<Framework> list = {
      {"tensorflow",
       kTfGroup,
       "tensorflow-cuda",
       {"tensorflow", ""},
       kTensorflowProbe,
       "tensorflow.gpu",
       "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))",
       classify_tensorflow},
      {"jax",
       kJaxGroup,
       "jax-cuda",
       {"jax", "jaxlib"},
       kJaxProbe,
       "jax.cuda-backend",
       "import jax; print(jax.devices())",
       classify_jax},
      {"onnxruntime",
       kOrtGroup,
       "onnxruntime-cuda",
       {"onnxruntime-gpu", ""},
       kOnnxruntimeProbe,
       "onnxruntime.provider",
       "import onnxruntime as ort; print(ort.get_device(), ort.__version__)",
       classify_onnxruntime},
  };
  return list;
}

const Framework& framework(const std::string& name) {
  for (const auto& fw : all_frameworks())
    if (fw.name == name) return fw;
  throw std::logic_error("no framework " + name);
}

void classify_tensorflow(DoctorScan& scan, const Venv& v, const Probe& p) {
  const std::size_t before = scan.findings.size();
  tf_gpu(scan, framework("tensorflow"), v, p);
  if (scan.findings.size() > before && scan.findings.back().status == FindingStatus::ok) tf_gpu_arch(scan, v, p);
}

void classify_jax(DoctorScan& scan, const Venv& v, const Probe& p) {
  jax_cuda_backend(scan, framework("jax"), v, p);
  jax_ld_library_path(scan);
}

void classify_onnxruntime(DoctorScan& scan, const Venv& v, const Probe& p) {
  const Framework& fw = framework("onnxruntime");
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

// ---------------------------------------------------------------- the venvs

// The profile's own [vars] venv once the profile is bundled; before, the folder it names.
std::string default_venv(const DoctorScan& scan, const Framework& fw) {
  for (const auto& m : bundled_manifests())
    if (m.name == fw.profile) return bundled_default(fw.profile, "venv", scan.host);
  return scan.host.user_home + "/.venvs/" + fw.name;
}

// Reads the venv's dist-infos; nullopt with PROBLEM set when its site-packages cannot be found.
std::optional<Venv> read_venv(DoctorScan& scan, const VenvChoice& c, std::string& problem) {
  Venv v;
  v.choice = c;
  v.site_packages = find_site_packages(scan, c, problem);
  if (v.site_packages.empty()) return std::nullopt;
  for (const auto& sp : v.site_packages) {
    std::vector<InstalledDist> dists;
    try {
      dists = installed_dists(scan.fs, sp);
    } catch (const std::exception&) {
      continue;  // an unreadable folder: as if empty
    }
    for (auto& d : dists)
      if (!v.dist(d.key)) v.dists.push_back(std::move(d));
  }
  if (auto cfg = scan.read(c.venv + "/pyvenv.cfg")) v.python_version = parse_pyvenv_cfg(*cfg).version;
  return v;
}

const InstalledDist* installed(const Venv& v, const Framework& fw) {
  for (const char* key : fw.dists)
    if (*key)
      if (const InstalledDist* d = v.dist(key)) return d;
  return nullptr;
}

void check_framework(DoctorScan& scan, const Framework& fw, const Venv& v) {
  const InstalledDist* d = installed(v, fw);
  scan.add(std::string(fw.name) + ".venv", fw.group, FindingStatus::ok,
           "venv " + v.choice.venv + " (" + v.choice.how + "): " + d->name + " " + d->version +
               (v.python_version.empty() ? "" : ", Python " + v.python_version));
  Probe p;
  p.result = run_python(scan, v.choice.python, fw.probe);
  p.out = p.result.out;
  p.all = p.result.out + "\n" + p.result.err;
  fw.classify(scan, v, p);
}

}  // namespace
}  // namespace frameworks

void check_frameworks(DoctorScan& scan) {
  using namespace frameworks;
  if (!scan.nvidia) return;  // the profiles and these failures are NVIDIA's
  if (!scan.machine.python.empty()) {
    // One venv for every framework in it; pytorch.venv says when it is missing or unreadable.
    VenvChoice c = choose_venv(scan, {}, {});
    std::string problem;
    if (!scan.is_dir(c.venv)) return;
    auto v = read_venv(scan, c, problem);
    if (!v) return;
    for (const auto& fw : all_frameworks())
      if (installed(*v, fw)) check_framework(scan, fw, *v);
    return;
  }
  for (const auto& fw : all_frameworks()) {
    const std::string id = std::string(fw.name) + ".venv";
    std::vector<std::string> defaults;
    if (!scan.host.user_home.empty()) defaults.push_back(default_venv(scan, fw));
    VenvChoice c = choose_venv(scan, {fw.profile}, defaults);
    if (c.venv.empty()) continue;  // nothing installed it: not a finding
    if (!scan.is_dir(c.venv)) {
      scan.add(id, fw.group, FindingStatus::warn,
               "the " + std::string(fw.group) + " venv " + c.venv + " (" + c.how + ") is missing",
               "It was removed or moved after it was created.",
               install_fix(fw) + " creates it again; `wslgpu-setup doctor --python VENV/bin/python` checks another.");
      continue;
    }
    std::string problem;
    auto v = read_venv(scan, c, problem);
    if (!v) {
      scan.add(id, fw.group, FindingStatus::warn,
               "cannot read the " + std::string(fw.group) + " venv " + c.venv + " (" + c.how + "): " + problem,
               "Its installed packages say which checks apply.", "Recreate it: " + install_fix(fw) + ".");
      continue;
    }
    if (!installed(*v, fw)) {
      scan.add(id, fw.group, FindingStatus::warn,
               std::string(fw.dists[0]) + " is not installed in the venv " + c.venv + " (" + c.how + ")",
               "No *.dist-info of " + std::string(fw.dists[0]) + " is in " + join_words(v->site_packages, ", ") + ".",
               install_fix(fw) + "; or `wslgpu-setup doctor --python VENV/bin/python` checks another venv.");
      continue;
    }
    check_framework(scan, fw, *v);
  }
}

}  // namespace wslgpu::doctor
