// [matrix] with `auto`: the selector's value "auto" lets the table pick its
// row from the machine's facts (the lazily probed nvidia-smi facts here), a
// fallback row when they say nothing; and the probe runs only for a
// manifest that names those facts.
#include <doctest/doctest.h>

#include "installer/host/host.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using wslgpu::testing::contains;

namespace {

const char* kToolkits = R"toml(
[manifest]
name = "toolkits"
schema_version = 1

[vars]
cuda_version = "auto"
package = "cuda-toolkit-${cuda_toolkit}"

cuda_toolkit = "unlisted"
cuda_min_driver = ""

[matrix.cuda_version]
auto = "host.nvidia_cuda >= cuda_version"
auto_why = "the newest the driver supports (${host.nvidia_smi})"
fallback = "12.6"
fallback_why = "nvidia-smi said nothing useful (${host.nvidia_smi})"

[matrix.cuda_version."13.1"]
cuda_toolkit = "13-1"
cuda_min_driver = "580"
[matrix.cuda_version."13.0"]
cuda_toolkit = "13-0"
cuda_min_driver = "580"
[matrix.cuda_version."12.6"]
cuda_toolkit = "12-6"
cuda_min_driver = "525"
[matrix.cuda_version."12.2"]
cuda_toolkit = "12-2"
cuda_min_driver = "525"

[guards]
refuse_if = [{ when = "host.nvidia_driver != '' && host.nvidia_driver < cuda_min_driver", reason = "needs ${cuda_min_driver}" }]
warn_if = [{ when = "host.nvidia_cuda != '' && cuda_version > host.nvidia_cuda", reason = "newer than ${host.nvidia_cuda}" }]

[[step]]
id = "toolkit"
kind = "apt_install"
name = "CUDA ${cuda_version}"
packages = ["${package}"]
)toml";

// A host whose nvidia-smi says FACTS, counting how often it is asked.
struct Driver {
  HostFacts host = wslgpu::testing::fake_wsl_host();
  std::shared_ptr<int> probes = std::make_shared<int>(0);
  explicit Driver(NvidiaDriverFacts facts) {
    auto count = probes;
    host.nvidia_driver = std::make_shared<const LazyNvidiaDriver>([count, facts] {
      ++*count;
      return facts;
    });
  }
};

Manifest load_auto(const std::string& text, const HostFacts& host, const Variables& sets = {},
                   const LoadOptions& options = {}) {
  return load_manifest(ManifestSource{"test.toml", text, false}, sets, host, options);
}

std::string error_of(const std::string& text, const HostFacts& host, const Variables& sets = {}) {
  try {
    load_auto(text, host, sets);
  } catch (const Error& e) {
    return e.what();
  }
  return "(loaded without an error)";
}

}  // namespace

TEST_CASE("auto takes the first row the driver's facts allow, and its variables reach [vars] and the steps") {
  Driver d({"537.13", "12.2", "driver 537.13, CUDA 12.2"});
  Manifest m = load_auto(kToolkits, d.host);
  CHECK(*d.probes == 1);
  CHECK(m.vars["cuda_version"] == "12.2");
  CHECK(m.vars["cuda_toolkit"] == "12-2");
  CHECK(m.vars["cuda_min_driver"] == "525");
  CHECK(m.vars["package"] == "cuda-toolkit-12-2");
  CHECK(m.steps[0].name == "CUDA 12.2");
  REQUIRE(m.choices.size() == 1);
  CHECK(m.choices[0].variable == "cuda_version");
  CHECK(m.choices[0].value == "12.2");
  CHECK(m.choices[0].how == "auto");
  CHECK(m.choices[0].why == "the newest the driver supports (driver 537.13, CUDA 12.2)");
  // A CUDA version between rows takes the row below it.
  Driver newer({"566.36", "12.7", "driver 566.36, CUDA 12.7"});
  CHECK(load_auto(kToolkits, newer.host).vars["cuda_version"] == "12.6");
  Driver thirteen({"591.86", "13.1", "driver 591.86, CUDA 13.1"});
  CHECK(load_auto(kToolkits, thirteen.host).vars["cuda_version"] == "13.1");
}

TEST_CASE("auto falls back to the fallback row, saying why, when nvidia-smi cannot say") {
  Driver err({"546.80", "", "driver 546.80, CUDA Version: ERR!"});
  Manifest m = load_auto(kToolkits, err.host);
  CHECK(m.vars["cuda_version"] == "12.6");
  REQUIRE(m.choices.size() == 1);
  CHECK(m.choices[0].how == "fallback");
  CHECK(m.choices[0].why == "nvidia-smi said nothing useful (driver 546.80, CUDA Version: ERR!)");
  Driver missing({"", "", "/usr/lib/wsl/lib/nvidia-smi is missing"});
  CHECK(load_auto(kToolkits, missing.host).choices[0].how == "fallback");
}

TEST_CASE("a value set with --set names its row, and the manifest's guards see the facts") {
  Driver d({"537.13", "12.2", "driver 537.13, CUDA 12.2"});
  Manifest m = load_auto(kToolkits, d.host, {{"cuda_version", "13.0"}});
  CHECK(m.vars["cuda_toolkit"] == "13-0");
  CHECK(m.choices[0].how == "set");
  CHECK(m.choices[0].why.empty());
  CHECK(m.guards.refuse_if.at(0).reason == "needs 580");
  CHECK(m.guards.warn_if.at(0).reason == "newer than 12.2");
}

// As jax-cuda's jax_ubuntu_min: --set on a column the condition names changes
// which row auto takes, as it changes the value that row ends with.
TEST_CASE("auto compares a column given with --set by the user's value, which the row taken keeps") {
  const std::string text = R"toml(
[manifest]
name = "floors"
schema_version = 1
[vars]
build = "auto"
min_driver = ""
[matrix.build]
auto = "host.nvidia_driver >= min_driver"
auto_why = "the newest the driver runs"
fallback = "none"
[matrix.build."cuda13"]
min_driver = "580"
[matrix.build."cuda12"]
min_driver = "525"
[matrix.build."none"]
min_driver = "0"
[[step]]
id = "s"
kind = "apt_install"
name = "${build}"
packages = ["jax"]
)toml";
  Driver d({"566.36", "12.7", "driver 566.36, CUDA 12.7"});
  CHECK(load_auto(text, d.host).vars["build"] == "cuda12");
  Manifest m = load_auto(text, d.host, {{"min_driver", "500"}});
  CHECK(m.vars["build"] == "cuda13");
  CHECK(m.vars["min_driver"] == "500");
  CHECK(load_auto(text, d.host, {{"min_driver", "999"}}).vars["build"] == "none");
}

TEST_CASE("a value that is no row keeps the columns' defaults, for a refuse_if to name") {
  Driver d({"537.13", "12.2", ""});
  Manifest m = load_auto(kToolkits, d.host, {{"cuda_version", "12.7"}});
  CHECK(m.vars["cuda_toolkit"] == "unlisted");
  CHECK(m.choices.at(0).how == "set");
}

TEST_CASE("a recorded choice takes the same row again, whatever the driver says now") {
  Driver d({"591.86", "13.1", "driver 591.86, CUDA 13.1"});
  Manifest m = load_auto(kToolkits, d.host, {}, LoadOptions{false, {{"cuda_version", "12.2"}}});
  CHECK(m.vars["cuda_version"] == "12.2");
  CHECK(m.choices[0].how == "recorded");
}

TEST_CASE("nvidia-smi runs only for a manifest that names its facts") {
  Driver d({"537.13", "12.2", ""});
  load_auto(R"toml([manifest]
name = "plain"
schema_version = 1
[[step]]
id = "f"
kind = "file"
path = "/etc/x"
content = "x"
)toml",
            d.host);
  CHECK(*d.probes == 0);
  CHECK(d.host.as_variables().at("host.nvidia_cuda").empty());
}

TEST_CASE("auto with no row and no fallback is a refusal that says how to choose") {
  std::string text = kToolkits;
  text.replace(text.find("fallback = \"12.6\"\n"), std::string("fallback = \"12.6\"\n").size(), "");
  text.replace(text.find("fallback_why"), std::string("fallback_why").size(), "auto_why2");
  Driver old({"511.65", "11.6", "driver 511.65, CUDA 11.6"});
  try {
    load_auto(text, old.host);
    FAIL("loaded");
  } catch (const InputError& e) {
    // Any other plain key is taken for a row, which must be a table.
    CHECK(std::string(e.what()).find("the row for cuda_version = \"auto_why2\" must be a table of variables, not a "
                                     "string") != std::string::npos);
  }
  text.replace(text.find("auto_why2 = "), std::string("auto_why2 = ").size(), "# ");
  try {
    load_auto(text, old.host);
    FAIL("loaded");
  } catch (const Refusal& e) {
    CHECK(std::string(e.what()) ==
          "cuda_version = \"auto\" found no row of [matrix.cuda_version] for this machine (host.nvidia_cuda >= "
          "cuda_version holds for none) and the table has no fallback.\n  Choose one with --set "
          "cuda_version=VALUE (13.1, 13.0, 12.6, 12.2).");
  }
}

TEST_CASE("auto's keys are checked: the fallback a row, its texts beside an auto condition, its names known") {
  HostFacts host = wslgpu::testing::fake_wsl_host();
  const std::string head = "[manifest]\nname = \"t\"\nschema_version = 1\n[vars]\nv = \"auto\"\nw = \"1\"\n";
  const std::string step = "[[step]]\nid = \"f\"\nkind = \"file\"\npath = \"/etc/x\"\ncontent = \"${v}\"\n";
  CHECK(error_of(head + "[matrix.v]\nauto = \"'a' == 'a'\"\nfallback = \"zz\"\n[matrix.v.a]\nw = \"2\"\n" + step,
                 host) == "test.toml:9:12: \"fallback\" must name a row of [matrix.v] (it has: a)");
  CHECK(error_of(head + "[matrix.v]\nfallback = \"a\"\n[matrix.v.a]\nw = \"2\"\n" + step, host) ==
        "test.toml:8:12: \"fallback\" in [matrix.v] belongs to an \"auto\" condition, which this table does not have");
  CHECK(error_of(head + "[matrix.v]\nauto = \"x == '1'\"\n[matrix.v.a]\nw = \"2\"\n" + step, host) ==
        "test.toml:8:8: condition refers to \"x\", which is neither a variable nor a host fact");
  // The rows are tried in file order, not in the order of their names.
  Manifest m = load_auto(
      head + "[matrix.v]\nauto = \"w == '2'\"\n[matrix.v.zz]\nw = \"2\"\n[matrix.v.aa]\nw = \"2\"\n" + step, host);
  CHECK(m.vars["v"] == "zz");
}

namespace {

// A Python layer's shape: "auto" takes the Python of the distribution, and
// a python_packages step is built from it; another step is not.
const char* kPythonByDistro = R"toml(
[manifest]
name = "layer"
schema_version = 1

[vars]
py = "auto"
py_ubuntu = ""

[matrix.py]
auto = "host.distro_version == py_ubuntu"
[matrix.py."3.12"]
py_ubuntu = "24.04"
[matrix.py."3.10"]
py_ubuntu = "22.04"

[guards.supported]
publisher = "The vendor publishes it"
advice = "Use Ubuntu."
systems = [{ distro = "ubuntu", versions = ["22.04", "24.04"] }]

[[step]]
id = "note"
kind = "file"
path = "/etc/note"
content = "x"

[[step]]
id = "torch"
kind = "python_packages"
venv = "/home/alice/venv"
owner = "alice"
python = "${py}"
packages = [{ name = "torch", version = "2.0.0" }]
)toml";

LoadOptions unsupported_distro() {
  LoadOptions o;
  o.unsupported_distro = true;
  return o;
}

HostFacts host_with_distro(const std::string& distro, const std::string& version) {
  HostFacts h = wslgpu::testing::fake_wsl_host();
  h.distro = distro;
  h.distro_version = version;
  return h;
}

}  // namespace

TEST_CASE("a step built from what auto left without a row is not built: the load refuses for the machine, exit 3") {
  // Before, the step's python = "auto" was a load error of the manifest
  // ("\"auto\" is not a Python version", exit 2) where the machine is the cause.
  HostFacts debian = host_with_distro("debian", "12");
  try {
    load_auto(kPythonByDistro, debian, {}, unsupported_distro());
    FAIL("loaded");
  } catch (const Refusal& e) {
    CHECK(std::string(e.what()).rfind("py = \"auto\" found no row of [matrix.py] for this machine", 0) == 0);
    CHECK(contains(e.what(), "--set py=VALUE (3.12, 3.10)"));
  }
  // On a system [guards] supported does not name, that is the refusal given.
  try {
    load_auto(kPythonByDistro, debian);
    FAIL("loaded");
  } catch (const Refusal& e) {
    CHECK(contains(e.what(), "The vendor publishes it"));
    CHECK(contains(e.what(), "Use Ubuntu."));
  }
  // Where a row holds, the step is built as before.
  Manifest m = load_auto(kPythonByDistro, host_with_distro("ubuntu", "22.04"));
  REQUIRE(m.steps.size() == 2);
  CHECK(m.vars.at("py") == "3.10");
}

TEST_CASE("a manifest's own error in a step that does not use the unresolved choice is still an error, exit 2") {
  std::string text = kPythonByDistro;
  text.replace(text.find("content = \"x\""), std::string("content = \"x\"").size(), "content = \"x\"\ncolour = 1");
  try {
    load_auto(text, host_with_distro("debian", "12"), {}, unsupported_distro());
    FAIL("loaded");
  } catch (const InputError& e) {
    CHECK(contains(e.what(), "colour"));
    CHECK_FALSE(contains(e.what(), "is not a Python version"));
  }
}

TEST_CASE("a column of the row auto did not choose waits too, also in a step whose `when` is false") {
  // pytorch-rocm's shape: the selector is the wheel tag, the Python a
  // column of its rows ("" in [vars]); a skipped step's keys are checked
  // like any other's, so it must wait as well.
  std::string text = kPythonByDistro;
  text.replace(text.find("py = \"auto\"\n"), std::string("py = \"auto\"\n").size(), "cp = \"auto\"\npy = \"\"\n");
  text.replace(text.find("[matrix.py]"), std::string("[matrix.py]").size(), "[matrix.cp]");
  text.replace(text.find("[matrix.py.\"3.12\"]\npy_ubuntu = \"24.04\""),
               std::string("[matrix.py.\"3.12\"]\npy_ubuntu = \"24.04\"").size(),
               "[matrix.cp.\"cp312\"]\npy_ubuntu = \"24.04\"\npy = \"3.12\"");
  text.replace(text.find("[matrix.py.\"3.10\"]\npy_ubuntu = \"22.04\""),
               std::string("[matrix.py.\"3.10\"]\npy_ubuntu = \"22.04\"").size(),
               "[matrix.cp.\"cp310\"]\npy_ubuntu = \"22.04\"\npy = \"3.10\"");
  text += "\n[[step]]\nid = \"legacy\"\nkind = \"python_packages\"\nwhen = \"'a' == 'b'\"\nvenv = \"/home/alice/venv\"\n"
          "owner = \"alice\"\npython = \"${py}\"\npackages = [{ name = \"torch\", version = \"1.0.0\" }]\n";
  try {
    load_auto(text, host_with_distro("debian", "12"), {}, unsupported_distro());
    FAIL("loaded");
  } catch (const Refusal& e) {
    CHECK(std::string(e.what()).rfind("cp = \"auto\" found no row of [matrix.cp]", 0) == 0);
  }
  Manifest m = load_auto(text, host_with_distro("ubuntu", "24.04"));
  CHECK(m.steps.size() == 3);
  CHECK(m.vars.at("py") == "3.12");
}

TEST_CASE("a manifest naming a Windows GPU fact asks Windows, and never nvidia-smi") {
  Driver d({"591.86", "13.1", "driver 591.86, CUDA 13.1"});
  auto windows_asked = std::make_shared<int>(0);
  d.host.windows_gpus = std::make_shared<const LazyWindowsGpus>([windows_asked] {
    ++*windows_asked;
    return windows_gpu_facts({{"AMD Radeon RX 9070 XT", "32.0.21041.1000", 0}});
  });
  const char* gfx_profile = R"toml(
[manifest]
name = "gfx"
schema_version = 1

[[step]]
id = "runtime"
kind = "apt_install"
name = "ROCm for ${host.amd_gfx}"
packages = ["rocm"]
)toml";
  Manifest m = load_auto(gfx_profile, d.host);
  CHECK(*windows_asked == 1);
  CHECK(*d.probes == 0);
  CHECK(m.steps[0].name == "ROCm for gfx1201");
  load_auto(kToolkits, d.host);  // and one naming only host.nvidia_*: nvidia-smi alone
  CHECK(*windows_asked == 1);
  CHECK(*d.probes == 1);
}
