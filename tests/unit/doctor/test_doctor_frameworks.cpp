// doctor's TensorFlow, JAX and ONNX Runtime groups on a fake WSL root in a
// temporary folder, read by the real file system: a venv laid out as pip
// leaves one, whose bin/python is a shell script that answers each probe
// with what the real framework printed in the field (the vendors' threads
// cited in docs/doctor.md), on standard output and error, through the real
// process runner. Each finding is proved on the output that fails it and on
// one that leaves it quiet.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "findings.hpp"
#include "installer/doctor/doctor.hpp"
#include "installer/host/host.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/system/process.hpp"
#include "support/build_paths.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using wslgpu::testing::contains;
using wslgpu::testing::get;
using wslgpu::testing::lookup;
using wslgpu::testing::TempDir;

// A namespace of its own, the test cases too: the test program is a unity build.
namespace frameworks_doctor_test {

// Runs the fake root's programs on the host: a command's program (a target
// path) is the file of that path under the root. The runuser prefix doctor
// puts before the venv's Python as root is recorded and dropped, since the
// test's user does not exist on the host.
class RootProgramRunner : public ProcessRunner {
 public:
  explicit RootProgramRunner(std::string root) : root_(std::move(root)) {}
  ProcessResult run(const Command& cmd) override {
    calls.push_back(cmd);
    Command c = cmd;
    if (c.argv.size() > 4 && c.argv[0] == "/usr/sbin/runuser") c.argv.erase(c.argv.begin(), c.argv.begin() + 4);
    ProcessResult missing;
    missing.exit_code = 127;
    missing.not_found = true;
    if (c.argv.empty() || !std::filesystem::exists(root_ + c.argv[0])) return missing;
    c.argv[0] = root_ + c.argv[0];
    c.in_root = false;
    return real_.run(c);
  }
  std::vector<Command> calls;

 private:
  std::string root_;
  RealProcessRunner real_{"/"};
};

// A venv's Python for these tests: it answers the probe of each framework
// (told apart by its import) with ANSWERS/NAME.out on standard output,
// ANSWERS/NAME.err on standard error and the exit status in ANSWERS/NAME.rc,
// after sleeping ANSWERS/NAME.sleep seconds when that is there.
const char* const kAnsweringPython = R"sh(#!/bin/sh
case "$3" in
  *"import tensorflow"*) f=tensorflow ;;
  *"import jax"*) f=jax ;;
  *"import onnxruntime"*) f=onnxruntime ;;
  *) echo "no answer for: $3" >&2; exit 2 ;;
esac
d=$(dirname "$0")/../answers
[ -f "$d/$f.sleep" ] && sleep "$(cat "$d/$f.sleep")"
cat "$d/$f.out" 2>/dev/null
cat "$d/$f.err" >&2 2>/dev/null
exit "$(cat "$d/$f.rc" 2>/dev/null || echo 0)"
)sh";

constexpr const char* kTfVenv = "/home/alice/.venvs/tensorflow";
constexpr const char* kJaxVenv = "/home/alice/.venvs/jax";
constexpr const char* kOrtVenv = "/home/alice/.venvs/onnxruntime";

// ---------------------------------------------------------------- what the frameworks print

// TensorFlow 2.21 that works: the factory registration lines are log noise
// (tensorflow/tensorflow#62075, openxla/xla#20803).
const char* const kTfNoise =
    "E0000 00:00:1764547200.100001    4242 cuda_fft.cc:467] Unable to register cuFFT factory: Attempting to "
    "register factory for plugin cuFFT when one has already been registered\n"
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
    "E0000 00:00:1764547200.100002    4242 cuda_dnn.cc:8579] Unable to register cuDNN factory: Attempting to "
    "register factory for plugin cuDNN when one has already been registered\n"
    "E0000 00:00:1764547200.100003    4242 cuda_blas.cc:1407] Unable to register cuBLAS factory: Attempting to "
    "register factory for plugin cuBLAS when one has already been registered\n";
const char* const kTfOneGpu = "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]\n";
// The nvidia-* wheels are there, the loader does not find them (tensorflow/tensorflow#63362, #117538).
const char* const kTfDlopen =
    "W0000 00:00:1764547200.200001    4242 gpu_device.cc:2344] Cannot dlopen some GPU libraries. Please make sure "
    "the missing libraries mentioned above are installed properly if you would like to use GPU. Follow the guide at "
    "https://www.tensorflow.org/install/gpu for how to download and setup the required libraries for your "
    "platform.\nSkipping registering GPU devices...\n";
// TensorFlow's older dso_loader wording.
const char* const kTfNoCudnn =
    "W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:66] Could not load dynamic library "
    "'libcudnn.so.9'; dlerror: libcudnn.so.9: cannot open shared object file: No such file or directory\n";
// Blackwell (tensorflow/tensorflow#97387, #111958).
const char* const kTfBlackwell =
    "W0000 00:00:1764547201.300001    4242 gpu_device.cc:2431] TensorFlow was not built with CUDA kernel binaries "
    "compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 "
    "minutes or longer.\n"
    "LLVM ERROR: PTX version 8.5 does not support target 'sm_120'. Minimum required PTX version is 8.7.\n";

const char* const kJaxCpu = "[CpuDevice(id=0)]\n";
const char* const kJaxNoPlugin =
    "WARNING:2026-12-01 12:00:00,000:jax._src.xla_bridge:881: An NVIDIA GPU may be present on this machine, but a "
    "CUDA-enabled jaxlib is not installed. Falling back to cpu.\n";
const char* const kJaxOlderCuda =
    "WARNING:2026-12-01 12:00:00,000:jax._src.xla_bridge:794: CUDA backend failed to initialize: Found CUDA version "
    "12010, but JAX was built against version 12020, which is newer. The copy of CUDA that is installed must be at "
    "least as new as the version against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n";
const char* const kJaxOldDriver =
    "WARNING:2026-12-01 12:00:00,000:jax._src.xla_bridge:794: CUDA backend failed to initialize: "
    "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version (Set "
    "TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n";

const char* const kOrtCuda = "session: ['CUDAExecutionProvider', 'CPUExecutionProvider']\n";
const char* const kOrtCpu = "session: ['CPUExecutionProvider']\n";
const char* const kOrtCpuTwice = "session: ['CPUExecutionProvider']\nafter preload_dlls: ['CPUExecutionProvider']\n";
const char* const kOrtCudaAfterPreload =
    "session: ['CPUExecutionProvider']\nafter preload_dlls: ['CUDAExecutionProvider', 'CPUExecutionProvider']\n";
// microsoft/onnxruntime#25609.
const char* const kOrtNoCudnn =
    "2026-12-01 12:00:00.000000000 [E:onnxruntime:Default, provider_bridge_ort.cc:2195 TryGetProviderInfo_CUDA] "
    "/onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1778 onnxruntime::Provider& "
    "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library "
    "libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file: No such file or "
    "directory\n\n"
    "2026-12-01 12:00:00.000000001 [W:onnxruntime:Default, onnxruntime_pybind_state.cc:1055 "
    "CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*. "
    "Please install all dependencies as mentioned in the GPU requirements page "
    "(https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements), make sure they're "
    "in the PATH, and that your GPU is supported.\n";

// ---------------------------------------------------------------- the root

// A WSL2 Ubuntu 24.04 root with user alice and NVIDIA's Windows driver
// mounted, in a temporary folder.
struct FrameworkRoot {
  TempDir dir;
  RootedFileSystem fs{dir.path()};
  RootProgramRunner runner{dir.path()};
  std::string python;  // doctor --python
  bool as_root = false;
  std::chrono::milliseconds timeout = std::chrono::seconds(20);

  FrameworkRoot() {
    write("/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
    write("/usr/lib/wsl/lib/libdxcore.so", "elf");
    write("/etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n");
    write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n");
    write("/etc/group", "root:x:0:\nalice:x:1000:\n");
    write("/var/lib/dpkg/status", "");
    std::filesystem::create_directories(dir.path() + "/home/alice");
  }

  void write(const std::string& path, const std::string& content, mode_t mode = 0644) const {
    dir.write(path.substr(1), content);
    ::chmod((dir.path() + path).c_str(), mode);
  }

  // nvidia-smi answers as the Windows driver DRIVER, which supports CUDA.
  void nvidia(const std::string& driver = "581.15", const std::string& cuda = "13.0") const {
    write("/usr/lib/wsl/lib/libcuda.so.1", "elf");
    write("/usr/lib/wsl/lib/libcuda.so", "elf");
    write("/usr/lib/wsl/lib/nvidia-smi",
          "#!/bin/sh\ncase \"$1\" in\n  -L) echo 'GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-1)' ;;\n"
          "  --query-gpu=*) echo 8.9 ;;\n"
          "  *) echo '| NVIDIA-SMI 580.65.02              Driver Version: " +
              driver + "         CUDA Version: " + cuda + "     |' ;;\nesac\n",
          0755);
  }

  // A venv at VENV with DISTS (name -> version) in its site-packages.
  void venv(const std::string& venv, const std::map<std::string, std::string>& dists) const {
    write(venv + "/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n");
    write(venv + "/bin/python", kAnsweringPython, 0755);
    for (const auto& [name, version] : dists) {
      const std::string info = venv + "/lib/python3.12/site-packages/" + name + "-" + version + ".dist-info";
      write(info + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n\n");
    }
  }

  // What the venv's Python prints for FRAMEWORK's probe.
  void answer(const std::string& venv, const std::string& framework, const std::string& out,
              const std::string& err = "", int exit_code = 0) const {
    write(venv + "/answers/" + framework + ".out", out);
    write(venv + "/answers/" + framework + ".err", err);
    write(venv + "/answers/" + framework + ".rc", std::to_string(exit_code) + "\n");
  }

  void transaction(const std::string& id, const std::string& profile, const std::string& venv) const {
    const std::string tx = "/var/lib/wslgpu-setup/tx/" + id;
    write(tx + "/journal.jsonl",
          "{\"type\":\"begin\",\"id\":\"" + id + "\",\"manifest\":\"" + profile +
              "\"}\n{\"type\":\"end\",\"status\":\"committed\"}\n",
          0600);
    write(tx + "/plan.json", "{\"plan\": {\"vars\": {\"venv\": \"" + venv + "\"}}}\n", 0600);
  }

  std::vector<Finding> diagnose() {
    runner.calls.clear();
    DoctorMachine m{fs, runner, probe_host(fs, dir.path(), HostOptions{}), {}, timeout};
    m.python = python;
    m.as_root = as_root;
    m.free_disk_bytes = [] { return std::optional<std::uint64_t>(100ull << 30); };
    m.now = [] { return std::int64_t{1764547200}; };
    return wslgpu::diagnose(m);
  }

  // The commands that started a venv's Python.
  std::vector<Command> pythons() const {
    std::vector<Command> out;
    for (const auto& c : runner.calls)
      for (const auto& arg : c.argv)
        if (arg.find("/bin/python") != std::string::npos) {
          out.push_back(c);
          break;
        }
    return out;
  }
};

bool framework_group(const Finding& f) {
  return f.group == "TensorFlow" || f.group == "JAX" || f.group == "ONNX Runtime";
}

std::string framework_problems(const std::vector<Finding>& findings) {
  std::string out;
  for (const auto& f : findings)
    if (framework_group(f) && f.status != FindingStatus::ok) out += f.id + ": " + f.seen + "\n";
  return out;
}

// Each framework in its own default venv, answering as a working one does.
void healthy_frameworks(FrameworkRoot& r) {
  r.nvidia();
  r.venv(kTfVenv, {{"tensorflow", "2.21.0"}, {"nvidia-cudnn-cu12", "9.3.0.75"}});
  r.answer(kTfVenv, "tensorflow", std::string(kTfOneGpu) + "16.0\n", kTfNoise);
  r.venv(kJaxVenv, {{"jax", "0.11.0"}, {"jaxlib", "0.11.0"}, {"jax-cuda12-plugin", "0.11.0"}});
  r.answer(kJaxVenv, "jax", "[CudaDevice(id=0)]\n");
  r.venv(kOrtVenv, {{"onnxruntime-gpu", "1.26.0"}, {"nvidia-cudnn-cu12", "9.10.2.21"}});
  r.answer(kOrtVenv, "onnxruntime", std::string(kOrtCuda) + "after preload_dlls: ['CUDAExecutionProvider']\n");
}

// ---------------------------------------------------------------- which venv

TEST_CASE("doctor frameworks: without a venv of TensorFlow, JAX or ONNX Runtime nothing is reported or started") {
  FrameworkRoot r;
  r.nvidia();
  auto findings = r.diagnose();
  for (const auto& f : findings) CHECK_MESSAGE(!framework_group(f), f.id);
  CHECK(r.pythons().empty());
}

TEST_CASE("doctor frameworks: on a machine without NVIDIA's driver the frameworks are not probed") {
  FrameworkRoot r;
  r.venv(kTfVenv, {{"tensorflow", "2.21.0"}});
  r.answer(kTfVenv, "tensorflow", "[]\n");
  auto findings = r.diagnose();
  CHECK_FALSE(lookup(findings, "tensorflow.venv"));
  CHECK(r.pythons().empty());
}

TEST_CASE(
    "doctor frameworks: each framework's default venv is probed in its own group, as the WSL user when doctor runs "
    "as root, after PyTorch and before Containers") {
  FrameworkRoot r;
  healthy_frameworks(r);
  r.as_root = true;
  auto findings = r.diagnose();
  CHECK(framework_problems(findings).empty());
  CHECK(get(findings, "tensorflow.venv").seen ==
        "venv /home/alice/.venvs/tensorflow (the default): tensorflow 2.21.0, Python 3.12.3");
  CHECK(get(findings, "jax.venv").seen == "venv /home/alice/.venvs/jax (the default): jax 0.11.0, Python 3.12.3");
  CHECK(get(findings, "onnxruntime.venv").seen ==
        "venv /home/alice/.venvs/onnxruntime (the default): onnxruntime-gpu 1.26.0, Python 3.12.3");
  CHECK(get(findings, "tensorflow.venv").group == "TensorFlow");
  CHECK(get(findings, "jax.venv").group == "JAX");
  CHECK(get(findings, "onnxruntime.venv").group == "ONNX Runtime");

  auto pythons = r.pythons();
  REQUIRE(pythons.size() == 3);
  for (const auto& c : pythons) {
    REQUIRE(c.argv.size() == 8);
    CHECK(std::vector<std::string>(c.argv.begin(), c.argv.begin() + 4) ==
          std::vector<std::string>{"/usr/sbin/runuser", "-u", "alice", "--"});
    CHECK(c.argv[5] == "-I");
    CHECK(c.argv[6] == "-c");
  }
  CHECK(contains(pythons[0].argv[7], "tf.config.list_physical_devices('GPU')"));
  CHECK(contains(pythons[1].argv[7], "jax.devices()"));
  CHECK(contains(pythons[2].argv[7], "get_providers()"));

  auto rank = [&](const std::string& group) {
    for (std::size_t i = 0; i < findings.size(); ++i)
      if (findings[i].group == group) return i;
    return findings.size();
  };
  CHECK(rank("TensorFlow") < rank("JAX"));
  CHECK(rank("JAX") < rank("ONNX Runtime"));
  CHECK(rank("ONNX Runtime") < rank("Configuration"));
  CHECK(rank("WSL") < rank("TensorFlow"));
}

TEST_CASE("doctor frameworks: a committed install of the profile names the venv; a recorded venv that is gone warns") {
  FrameworkRoot r;
  r.nvidia();
  r.as_root = true;
  r.venv("/srv/tf", {{"tensorflow", "2.21.0"}});
  r.answer("/srv/tf", "tensorflow", std::string(kTfOneGpu) + "16.0\n");
  r.venv(kTfVenv, {{"tensorflow", "2.20.0"}});  // the default loses to the recorded one
  r.transaction("20261201-100000-aaaa", "tensorflow-cuda", "/srv/tf");
  r.transaction("20261201-110000-bbbb", "jax-cuda", "/srv/gone");
  auto findings = r.diagnose();
  CHECK(get(findings, "tensorflow.venv").seen ==
        "venv /srv/tf (recorded by `install tensorflow-cuda` (transaction 20261201-100000-aaaa)): tensorflow "
        "2.21.0, Python 3.12.3");
  CHECK(get(findings, "tensorflow.gpu").status == FindingStatus::ok);
  auto gone = get(findings, "jax.venv");
  CHECK(gone.status == FindingStatus::warn);
  CHECK(gone.seen ==
        "the JAX venv /srv/gone (recorded by `install jax-cuda` (transaction 20261201-110000-bbbb)) is missing");
  CHECK(contains(gone.fix, "sudo wslgpu-setup install jax-cuda"));
  CHECK_FALSE(lookup(findings, "onnxruntime.venv"));
}

TEST_CASE("doctor frameworks: --python checks every framework installed in that venv, and only those") {
  FrameworkRoot r;
  r.nvidia();
  r.venv("/srv/ml", {{"tensorflow", "2.21.0"}, {"onnxruntime-gpu", "1.26.0"}, {"torch", "2.9.1+cu130"}});
  r.answer("/srv/ml", "tensorflow", std::string(kTfOneGpu) + "16.0\n");
  r.answer("/srv/ml", "onnxruntime", kOrtCuda);
  healthy_frameworks(r);  // the defaults exist too, and are not read
  r.python = "/srv/ml/bin/python";
  auto findings = r.diagnose();
  CHECK(get(findings, "tensorflow.venv").seen == "venv /srv/ml (--python): tensorflow 2.21.0, Python 3.12.3");
  CHECK(get(findings, "onnxruntime.venv").seen == "venv /srv/ml (--python): onnxruntime-gpu 1.26.0, Python 3.12.3");
  CHECK_FALSE(lookup(findings, "jax.venv"));
  CHECK(r.pythons().size() == 2);
  CHECK(framework_problems(findings).empty());
}

TEST_CASE("doctor frameworks: a default venv without its framework, or without a Python, warns") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kJaxVenv, {{"numpy", "2.1.3"}});
  r.venv(kOrtVenv, {{"onnxruntime-gpu", "1.26.0"}});
  std::filesystem::remove(r.dir.path() + kOrtVenv + "/bin/python");
  auto findings = r.diagnose();
  auto jax = get(findings, "jax.venv");
  CHECK(jax.status == FindingStatus::warn);
  CHECK(jax.seen == "jax is not installed in the venv /home/alice/.venvs/jax (the default)");
  auto ort = get(findings, "onnxruntime.provider");
  CHECK(ort.status == FindingStatus::warn);
  CHECK(ort.seen == "cannot run /home/alice/.venvs/onnxruntime/bin/python to ask an ONNX Runtime session");
}

TEST_CASE("doctor frameworks: a probe that hangs is a warning with the timeout, not a failure") {
  FrameworkRoot r;
  r.nvidia();
  r.timeout = std::chrono::milliseconds(300);
  r.venv(kJaxVenv, {{"jax", "0.11.0"}, {"jaxlib", "0.11.0"}, {"jax-cuda12-plugin", "0.11.0"}});
  r.answer(kJaxVenv, "jax", "[CudaDevice(id=0)]\n");
  r.write(std::string(kJaxVenv) + "/answers/jax.sleep", "5\n");
  auto f = get(r.diagnose(), "jax.cuda-backend");
  CHECK(f.status == FindingStatus::warn);
  CHECK(f.seen == "`import jax` did not answer within 300 ms (/home/alice/.venvs/jax/bin/python)");
}

// ---------------------------------------------------------------- TensorFlow

TEST_CASE("doctor tensorflow.gpu: a listed GPU is ok and the cuDNN factory noise is no problem") {
  FrameworkRoot r;
  healthy_frameworks(r);
  auto findings = r.diagnose();
  auto f = get(findings, "tensorflow.gpu");
  CHECK(f.status == FindingStatus::ok);
  CHECK(f.seen == "TensorFlow 2.21.0 lists 1 GPU (tf.config.list_physical_devices('GPU'))");
  CHECK(framework_problems(findings).empty());
}

TEST_CASE(
    "doctor tensorflow.gpu: \"Cannot dlopen some GPU libraries\" with the nvidia wheels installed fails with "
    "tensorflow.org's symlink step") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kTfVenv, {{"tensorflow", "2.21.0"}, {"nvidia-cudnn-cu12", "9.3.0.75"}, {"nvidia-cublas-cu12", "12.5.3.2"}});
  r.write(std::string(kTfVenv) + "/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "elf");
  r.answer(kTfVenv, "tensorflow", "[]\n", std::string(kTfNoise) + kTfDlopen);
  auto f = get(r.diagnose(), "tensorflow.gpu");
  CHECK(f.status == FindingStatus::fail);
  CHECK(f.seen == "TensorFlow 2.21.0 lists no GPU: tf.config.list_physical_devices('GPU') is []");
  CHECK(contains(f.cause,
                 "the nvidia-* wheels of tensorflow[and-cuda] are in the venv, but the loader does not "
                 "find them"));
  CHECK(contains(f.cause, "tensorflow/tensorflow#63362"));
  CHECK(contains(f.fix,
                 "pushd $(dirname $(/home/alice/.venvs/tensorflow/bin/python -c "
                 "'print(__import__(\"tensorflow\").__file__)')); ln -svf ../nvidia/*/lib/*.so* .; popd"));
}

TEST_CASE("doctor tensorflow.gpu: \"failed call to cuInit\" blames the driver, not the wheels, and no symlink fix") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kTfVenv, {{"tensorflow", "2.21.0"}, {"nvidia-cudnn-cu12", "9.3.0.75"}, {"nvidia-cublas-cu12", "12.5.3.2"}});
  r.answer(kTfVenv, "tensorflow", "[]\n",
           std::string("E0000 00:00:1700000000.000000    1 cuda_executor.cc:1228] failed call to cuInit: INTERNAL: "
                       "CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)\n") +
               kTfDlopen);
  auto f = get(r.diagnose(), "tensorflow.gpu");
  CHECK(f.status == FindingStatus::fail);
  CHECK(contains(f.cause, "failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)"));
  CHECK(contains(f.cause, "the CUDA driver did not start"));
  CHECK_FALSE(contains(f.cause, "the loader does not find them"));
  CHECK(f.fix.rfind("Fix the NVIDIA findings above first", 0) == 0);
  CHECK_FALSE(contains(f.fix, "ln -svf"));
}

TEST_CASE("doctor tensorflow.gpu: without the nvidia wheels the fix is tensorflow[and-cuda]") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kTfVenv, {{"tensorflow", "2.21.0"}});
  r.answer(kTfVenv, "tensorflow", "[]\n", kTfDlopen);
  auto f = get(r.diagnose(), "tensorflow.gpu");
  CHECK(f.status == FindingStatus::fail);
  CHECK(contains(f.fix, "/home/alice/.venvs/tensorflow/bin/python -m pip install \"tensorflow[and-cuda]==2.21.0\""));
}

TEST_CASE("doctor tensorflow.gpu: \"Could not load dynamic library 'libcudnn.so.9'\" without the cuDNN wheel") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kTfVenv, {{"tensorflow", "2.21.0"}, {"nvidia-cublas-cu12", "12.5.3.2"}});
  r.answer(kTfVenv, "tensorflow", "[]\n", std::string(kTfNoCudnn) + kTfDlopen);
  auto f = get(r.diagnose(), "tensorflow.gpu");
  CHECK(f.status == FindingStatus::fail);
  CHECK(f.seen ==
        "TensorFlow 2.21.0 lists no GPU: tf.config.list_physical_devices('GPU') is [] (it cannot load libcudnn.so.9)");
  CHECK(contains(f.cause, "the venv has no nvidia-cudnn-cu12 wheel"));
  CHECK(f.fix.rfind("/home/alice/.venvs/tensorflow/bin/python -m pip install nvidia-cudnn-cu12 (as the venv's owner)",
                    0) == 0);
}

TEST_CASE(
    "doctor tensorflow.gpu: a cuDNN wheel recorded in the venv without its libcudnn.so.9 is reinstalled, not "
    "symlinked") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kTfVenv, {{"tensorflow", "2.21.0"}, {"nvidia-cudnn-cu12", "9.3.0.75"}, {"nvidia-cublas-cu12", "12.5.3.2"}});
  const std::string nvidia = std::string(kTfVenv) + "/lib/python3.12/site-packages/nvidia";
  r.write(nvidia + "/cublas/lib/libcublas.so.12", "elf");
  r.answer(kTfVenv, "tensorflow", "[]\n", std::string(kTfNoCudnn) + kTfDlopen);

  SUBCASE("the library file is gone") {
    r.write(nvidia + "/cudnn/lib/libcudnn_ops.so.9", "elf");  // what is left of it
    auto f = get(r.diagnose(), "tensorflow.gpu");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, "(it cannot load libcudnn.so.9)"));
    CHECK(contains(f.cause,
                   "nvidia-cudnn-cu12 9.3.0.75 is recorded in the venv (its dist-info is there), but no "
                   "nvidia/*/lib folder of /home/alice/.venvs/tensorflow/lib/python3.12/site-packages holds "
                   "libcudnn.so.9"));
    CHECK(f.fix.rfind("/home/alice/.venvs/tensorflow/bin/python -m pip install --force-reinstall --no-deps "
                      "\"nvidia-cudnn-cu12==9.3.0.75\" (as the venv's owner)",
                      0) == 0);
    CHECK_FALSE(contains(f.fix, "ln -svf"));
  }
  SUBCASE("the library file is gone, and TensorFlow names no library (2.16 and later)") {
    r.answer(kTfVenv, "tensorflow", "[]\n", std::string(kTfNoise) + kTfDlopen);
    auto f = get(r.diagnose(), "tensorflow.gpu");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "TensorFlow 2.21.0 lists no GPU: tf.config.list_physical_devices('GPU') is []");
    CHECK(contains(f.cause,
                   "TensorFlow says \"Cannot dlopen some GPU libraries\", and nvidia-cudnn-cu12 9.3.0.75 is "
                   "recorded in the venv"));
    CHECK(contains(f.fix, "--force-reinstall --no-deps \"nvidia-cudnn-cu12==9.3.0.75\""));
  }
  SUBCASE("the library file is there: the loader does not look, and the symlink step is the fix") {
    r.write(nvidia + "/cudnn/lib/libcudnn.so.9", "elf");
    auto f = get(r.diagnose(), "tensorflow.gpu");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.cause, "the loader does not find them"));
    CHECK(contains(f.fix, "ln -svf ../nvidia/*/lib/*.so* ."));
  }
}

TEST_CASE("doctor tensorflow.gpu-arch: a Blackwell GPU without kernels fails naming its compute capability") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kTfVenv, {{"tensorflow", "2.21.0"}, {"nvidia-cudnn-cu12", "9.3.0.75"}});
  SUBCASE("sm_120, and the PTX cannot be compiled for it") {
    r.answer(kTfVenv, "tensorflow", kTfOneGpu, std::string(kTfNoise) + kTfBlackwell, 134);
    auto findings = r.diagnose();
    CHECK(get(findings, "tensorflow.gpu").status == FindingStatus::ok);
    auto f = get(findings, "tensorflow.gpu-arch");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "TensorFlow has no kernels for this GPU's compute capability 12.0 (Blackwell)");
    CHECK(contains(f.cause, "LLVM ERROR: PTX version 8.5 does not support target 'sm_120'"));
    CHECK(contains(f.cause, "tensorflow/tensorflow#97387"));
  }
  SUBCASE("an older GPU whose kernels are compiled from PTX warns") {
    r.answer(kTfVenv, "tensorflow", std::string(kTfOneGpu) + "16.0\n",
             "W0000 00:00:1764547201.300001    4242 gpu_device.cc:2431] TensorFlow was not built with CUDA kernel "
             "binaries compatible with compute capability 9.0. CUDA kernels will be jit-compiled from PTX, which "
             "could take 30 minutes or longer.\n");
    auto f = get(r.diagnose(), "tensorflow.gpu-arch");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen == "TensorFlow compiles its kernels for compute capability 9.0 from PTX at first use");
  }
  SUBCASE("an op that ran without the message is ok") {
    r.answer(kTfVenv, "tensorflow", std::string(kTfOneGpu) + "16.0\n", kTfNoise);
    auto f = get(r.diagnose(), "tensorflow.gpu-arch");
    CHECK(f.status == FindingStatus::ok);
  }
}

// ---------------------------------------------------------------- JAX

TEST_CASE("doctor jax.cuda-backend: CudaDevice is ok; the CUDA 13 plugin on a driver older than 580 fails") {
  FrameworkRoot r;
  r.venv(kJaxVenv, {{"jax", "0.11.0"}, {"jaxlib", "0.11.0"}, {"jax-cuda13-plugin", "0.11.0"}});
  SUBCASE("a driver for CUDA 13") {
    r.nvidia("581.15", "13.0");
    r.answer(kJaxVenv, "jax", "[CudaDevice(id=0)]\n");
    auto f = get(r.diagnose(), "jax.cuda-backend");
    CHECK(f.status == FindingStatus::ok);
    CHECK(f.seen == "JAX 0.11.0 runs on CUDA: [CudaDevice(id=0)]");
  }
  SUBCASE("a driver for CUDA 12.7") {
    r.nvidia("566.36", "12.7");
    r.answer(kJaxVenv, "jax", kJaxCpu, kJaxOldDriver);
    auto f = get(r.diagnose(), "jax.cuda-backend");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen ==
          "JAX 0.11.0 runs on the CPU: jax.devices() is [CpuDevice(id=0)]; its CUDA 13 plugin needs NVIDIA's driver "
          "580 or later, and Windows has 566.36 (CUDA 12.7)");
    CHECK(contains(f.cause, "\"the driver version must be >= 525 for CUDA 12 on Linux, and >= 580 for CUDA 13"));
    CHECK(contains(f.fix, "update NVIDIA's driver to 580 or later, then run `wsl --shutdown`"));
    CHECK(contains(f.fix, "jax[cuda12]"));
  }
}

TEST_CASE("doctor jax.cuda-backend: an older CUDA library than jaxlib's, or no CUDA plugin, falls back and fails") {
  FrameworkRoot r;
  r.nvidia();
  SUBCASE("Found CUDA version 12010, but JAX was built against version 12020") {
    r.venv(kJaxVenv, {{"jax", "0.11.0"}, {"jaxlib", "0.11.0"}, {"jax-cuda12-plugin", "0.11.0"}});
    r.answer(kJaxVenv, "jax", kJaxCpu, kJaxOlderCuda);
    auto f = get(r.diagnose(), "jax.cuda-backend");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "JAX 0.11.0 runs on the CPU: jax.devices() is [CpuDevice(id=0)]; its CUDA is older than jaxlib's");
    CHECK(contains(f.cause, "found CUDA 12010, older than the 12020 it was built against"));
    CHECK(contains(f.fix, "/home/alice/.venvs/jax/bin/python -m pip install --upgrade \"jax[cuda12]\""));
  }
  SUBCASE("no jax-cuda12-plugin") {
    r.venv(kJaxVenv, {{"jax", "0.11.0"}, {"jaxlib", "0.11.0"}});
    r.answer(kJaxVenv, "jax", kJaxCpu, kJaxNoPlugin);
    auto f = get(r.diagnose(), "jax.cuda-backend");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.seen, "no CUDA plugin (jax-cuda12-plugin) is installed"));
    CHECK(contains(f.cause, "a CUDA-enabled jaxlib is not installed. Falling back to cpu."));
  }
}

TEST_CASE(
    "doctor jax.ld-library-path: CUDA libraries on LD_LIBRARY_PATH in a login file warn; the driver's folder is ok") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kJaxVenv, {{"jax", "0.11.0"}, {"jaxlib", "0.11.0"}, {"jax-cuda12-plugin", "0.11.0"}});
  r.answer(kJaxVenv, "jax", "[CudaDevice(id=0)]\n");
  r.write("/etc/profile.d/wslgpu-cuda.sh", "export LD_LIBRARY_PATH='/usr/lib/wsl/lib'\n");
  r.write("/usr/local/cuda-12.6/lib64/libcudart.so.12", "elf");
  SUBCASE("only /usr/lib/wsl/lib") {
    auto f = get(r.diagnose(), "jax.ld-library-path");
    CHECK(f.status == FindingStatus::ok);
  }
  SUBCASE("NVIDIA's toolkit folder from ~/.bashrc") {
    r.write("/home/alice/.bashrc",
            "# cuda\nexport LD_LIBRARY_PATH=\"/usr/local/cuda-12.6/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}\"\n");
    auto f = get(r.diagnose(), "jax.ld-library-path");
    CHECK(f.status == FindingStatus::warn);
    CHECK(f.seen ==
          "a login file puts CUDA libraries on LD_LIBRARY_PATH: /usr/local/cuda-12.6/lib64 (/home/alice/.bashrc)");
    CHECK(contains(f.cause, "\"Make sure that LD_LIBRARY_PATH is not set"));
  }
}

// ---------------------------------------------------------------- ONNX Runtime

TEST_CASE(
    "doctor onnxruntime.provider: a session on CUDA is ok; one that fell back to the CPU fails, and says "
    "get_available_providers() proves nothing") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kOrtVenv, {{"onnxruntime-gpu", "1.26.0"}, {"nvidia-cudnn-cu12", "9.10.2.21"}});
  SUBCASE("CUDA") {
    r.answer(kOrtVenv, "onnxruntime", kOrtCuda);
    auto findings = r.diagnose();
    CHECK(get(findings, "onnxruntime.provider").status == FindingStatus::ok);
    CHECK(get(findings, "onnxruntime.provider").seen ==
          "ONNX Runtime 1.26.0: a session asking for CUDA runs on CUDAExecutionProvider");
    CHECK(get(findings, "onnxruntime.cudnn").status == FindingStatus::ok);
  }
  SUBCASE("the CPU, with and without preload_dlls()") {
    r.answer(kOrtVenv, "onnxruntime", kOrtCpuTwice);
    auto findings = r.diagnose();
    auto f = get(findings, "onnxruntime.provider");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "ONNX Runtime 1.26.0: a session asking for CUDA runs on CPUExecutionProvider");
    CHECK(contains(f.cause, "get_available_providers() lists CUDAExecutionProvider proves nothing"));
    CHECK(contains(f.cause, "microsoft/onnxruntime#23059"));
    CHECK(get(findings, "onnxruntime.cudnn").status == FindingStatus::ok);
  }
}

TEST_CASE("doctor onnxruntime.provider: CUDA only after preload_dlls() warns that programs must call it") {
  FrameworkRoot r;
  r.nvidia();
  r.venv(kOrtVenv, {{"onnxruntime-gpu", "1.26.0"}, {"nvidia-cudnn-cu12", "9.10.2.21"}});
  r.answer(kOrtVenv, "onnxruntime", kOrtCudaAfterPreload, kOrtNoCudnn);
  auto findings = r.diagnose();
  auto f = get(findings, "onnxruntime.provider");
  CHECK(f.status == FindingStatus::warn);
  CHECK(f.seen ==
        "ONNX Runtime 1.26.0: a session asking for CUDA runs on CPUExecutionProvider unless the program "
        "calls onnxruntime.preload_dlls() first");
  CHECK(contains(f.cause, "microsoft/onnxruntime#24719"));
  CHECK(contains(f.fix, "Call onnxruntime.preload_dlls() before creating a session"));
  CHECK(get(findings, "onnxruntime.cudnn").status == FindingStatus::ok);
}

TEST_CASE("doctor onnxruntime.cudnn: \"libcudnn.so.9: cannot open shared object file\" fails with how to get cuDNN 9") {
  FrameworkRoot r;
  r.nvidia();
  SUBCASE("no nvidia-cudnn-cu12 in the venv") {
    r.venv(kOrtVenv, {{"onnxruntime-gpu", "1.26.0"}});
    r.answer(kOrtVenv, "onnxruntime", kOrtCpuTwice, std::string(kOrtNoCudnn) + kOrtNoCudnn);
    auto findings = r.diagnose();
    auto f = get(findings, "onnxruntime.cudnn");
    CHECK(f.status == FindingStatus::fail);
    CHECK(f.seen == "ONNX Runtime's CUDA provider cannot load cuDNN: libcudnn.so.9 is not found");
    CHECK(contains(f.cause, "microsoft/onnxruntime#25609"));
    CHECK(contains(f.cause, "\"Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*\""));
    CHECK(contains(f.cause, "The venv has no nvidia-cudnn-cu12 wheel."));
    CHECK(f.fix.rfind("/home/alice/.venvs/onnxruntime/bin/python -m pip install nvidia-cudnn-cu12 (as the venv's "
                      "owner), or sudo wslgpu-setup install onnxruntime-cuda",
                      0) == 0);
    auto p = get(findings, "onnxruntime.provider");
    CHECK(p.status == FindingStatus::fail);
    CHECK(contains(p.cause, "onnxruntime.cudnn"));
  }
  SUBCASE("the wheel is there, and this ORT has no preload_dlls()") {
    r.venv(kOrtVenv, {{"onnxruntime-gpu", "1.20.1"}, {"nvidia-cudnn-cu12", "9.5.1.17"}});
    r.answer(kOrtVenv, "onnxruntime", kOrtCpu, kOrtNoCudnn);
    auto f = get(r.diagnose(), "onnxruntime.cudnn");
    CHECK(f.status == FindingStatus::fail);
    CHECK(contains(f.cause, "has no onnxruntime.preload_dlls() (1.21 and later)"));
    CHECK(contains(f.fix, "--upgrade onnxruntime-gpu"));
  }
}

// ---------------------------------------------------------------- the documentation

// Every id these groups report is in docs/doctor.md's table, and the table
// names no id of theirs that the code does not report.
TEST_CASE(
    "doctor frameworks: docs/doctor.md lists exactly the ids the TensorFlow, JAX and ONNX Runtime checks report") {
  std::set<std::string> reported;
  auto collect = [&](FrameworkRoot& r) {
    for (const auto& f : r.diagnose())
      if (framework_group(f)) reported.insert(f.id);
  };
  FrameworkRoot healthy;
  healthy_frameworks(healthy);
  collect(healthy);

  std::ifstream in(std::string(wslgpu::testing::kSourceDir) + "/docs/doctor.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::set<std::string> documented;
  static const std::regex row(R"(\n\| `((tensorflow|jax|onnxruntime)\.[a-z-]+)` \|)");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it)
    documented.insert((*it)[1].str());
  CHECK(reported == documented);
}

}  // namespace frameworks_doctor_test
