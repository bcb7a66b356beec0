// Doctor, TensorFlow, JAX and ONNX Runtime groups: the field failures of
// each framework on NVIDIA under WSL2, where the NVIDIA checks apply. This
// file chooses the venvs and runs the probes; what each probe's output means
// is in checks_tensorflow.cpp, checks_jax.cpp and checks_onnxruntime.cpp.
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
#include "installer/doctor/checks_frameworks.hpp"

#include <optional>
#include <string>
#include <vector>

#include "installer/doctor/profile_defaults.hpp"
#include "installer/manifest/bundled_manifests.hpp"
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

}  // namespace

std::string install_fix(const Framework& fw) { return std::string("sudo wslgpu-setup install ") + fw.profile; }

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

namespace {

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
  fw.classify(scan, fw, v, p);
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
