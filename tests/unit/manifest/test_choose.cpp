// [choose.VAR] tables: a variable's value picks a row of variables, "auto"
// lets the table pick from the machine's facts (the lazily probed
// nvidia-smi facts here), a fallback row when they say nothing; and the
// probe runs only for a manifest that names those facts.
#include <doctest/doctest.h>

#include "installer/host/host.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

const char* kToolkits = R"toml(
[manifest]
name = "toolkits"
schema_version = 1

[vars]
cuda_version = "auto"
package = "cuda-toolkit-${cuda_toolkit}"

[choose.cuda_version]
auto = "host.nvidia_cuda >= cuda_version"
auto_why = "the newest the driver supports (${host.nvidia_smi})"
fallback = "12.6"
fallback_why = "nvidia-smi said nothing useful (${host.nvidia_smi})"
rows = [
  { cuda_version = "13.1", cuda_toolkit = "13-1", cuda_min_driver = "580" },
  { cuda_version = "13.0", cuda_toolkit = "13-0", cuda_min_driver = "580" },
  { cuda_version = "12.6", cuda_toolkit = "12-6", cuda_min_driver = "525" },
  { cuda_version = "12.2", cuda_toolkit = "12-2", cuda_min_driver = "525" },
]

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

Manifest load(const std::string& text, const HostFacts& host, const Variables& sets = {},
              const LoadOptions& options = {}) {
  return load_manifest(ManifestSource{"test.toml", text, false}, sets, host, options);
}

std::string error_of(const std::string& text, const HostFacts& host, const Variables& sets = {}) {
  try {
    load(text, host, sets);
  } catch (const Error& e) {
    return e.what();
  }
  return "(loaded without an error)";
}

}  // namespace

TEST_CASE("auto takes the first row the driver's facts allow, and its variables reach [vars] and the steps") {
  Driver d({"537.13", "12.2", "driver 537.13, CUDA 12.2"});
  Manifest m = load(kToolkits, d.host);
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
  CHECK(load(kToolkits, newer.host).vars["cuda_version"] == "12.6");
  Driver thirteen({"591.86", "13.1", "driver 591.86, CUDA 13.1"});
  CHECK(load(kToolkits, thirteen.host).vars["cuda_version"] == "13.1");
}

TEST_CASE("auto falls back to the fallback row, saying why, when nvidia-smi cannot say") {
  Driver err({"546.80", "", "driver 546.80, CUDA Version: ERR!"});
  Manifest m = load(kToolkits, err.host);
  CHECK(m.vars["cuda_version"] == "12.6");
  REQUIRE(m.choices.size() == 1);
  CHECK(m.choices[0].how == "fallback");
  CHECK(m.choices[0].why == "nvidia-smi said nothing useful (driver 546.80, CUDA Version: ERR!)");
  Driver missing({"", "", "/usr/lib/wsl/lib/nvidia-smi is missing"});
  CHECK(load(kToolkits, missing.host).choices[0].how == "fallback");
}

TEST_CASE("a value set with --set names its row, and the manifest's guards see the facts") {
  Driver d({"537.13", "12.2", "driver 537.13, CUDA 12.2"});
  Manifest m = load(kToolkits, d.host, {{"cuda_version", "13.0"}});
  CHECK(m.vars["cuda_toolkit"] == "13-0");
  CHECK(m.choices[0].how == "set");
  CHECK(m.choices[0].why.empty());
  CHECK(m.guards.refuse_if.at(0).reason == "needs 580");
  CHECK(m.guards.warn_if.at(0).reason == "newer than 12.2");
}

TEST_CASE("a value that is no row is an error listing the rows") {
  Driver d({"537.13", "12.2", ""});
  CHECK(error_of(kToolkits, d.host, {{"cuda_version", "12.7"}}) ==
        "--set cuda_version: cuda_version \"12.7\" is not a row of [choose.cuda_version] (it has: auto, 13.1, 13.0, "
        "12.6, 12.2)");
}

TEST_CASE("a recorded choice takes the same row again, whatever the driver says now") {
  Driver d({"591.86", "13.1", "driver 591.86, CUDA 13.1"});
  Manifest m = load(kToolkits, d.host, {}, LoadOptions{false, {{"cuda_version", "12.2"}}});
  CHECK(m.vars["cuda_version"] == "12.2");
  CHECK(m.choices[0].how == "recorded");
}

TEST_CASE("nvidia-smi runs only for a manifest that names its facts") {
  Driver d({"537.13", "12.2", ""});
  load(R"toml([manifest]
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
    load(text, old.host);
    FAIL("loaded");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("unknown key \"auto_why2\"") != std::string::npos);
  }
  text.replace(text.find("auto_why2 = "), std::string("auto_why2 = ").size(), "# ");
  try {
    load(text, old.host);
    FAIL("loaded");
  } catch (const Refusal& e) {
    CHECK(std::string(e.what()) ==
          "cuda_version = \"auto\" found no row of [choose.cuda_version] for this machine (host.nvidia_cuda >= "
          "cuda_version holds for none) and the table has no fallback.\n  Choose one with --set "
          "cuda_version=VALUE (13.1, 13.0, 12.6, 12.2).");
  }
}

TEST_CASE("[choose] tables are checked: rows alike, the variable defined, the fallback a row") {
  HostFacts host = wslgpu::testing::fake_wsl_host();
  const std::string head = "[manifest]\nname = \"t\"\nschema_version = 1\n[vars]\nv = \"a\"\nw = \"1\"\n";
  const std::string step = "[[step]]\nid = \"f\"\nkind = \"file\"\npath = \"/etc/x\"\ncontent = \"${v}\"\n";
  CHECK(error_of(head + "[choose.x]\nrows = [{ x = \"a\" }]\n" + step, host) ==
        "test.toml:7:9: [choose.x] chooses a value for \"x\", which [vars] does not define (define it there, with its "
        "default)");
  CHECK(error_of(head + "[choose.v]\nrows = [{ v = \"a\", k = \"1\" }, { v = \"b\" }]\n" + step, host) ==
        "test.toml:8:31: this row of [choose.v] has the keys v, the first row k, v: every row defines the same "
        "variables");
  CHECK(error_of(head + "[choose.v]\nrows = [{ v = \"a\", w = \"1\" }]\n" + step, host) ==
        "test.toml:7:9: \"w\" is defined both in [vars] and by the rows of [choose.v]; a row's variables come from the "
        "row alone");
  CHECK(error_of(head + "[choose.v]\nauto = \"'a' == 'a'\"\nfallback = \"zz\"\nrows = [{ v = \"a\" }]\n" + step,
                 host) == "test.toml:9:12: \"fallback\" must name a row of [choose.v] by its v (did you mean \"a\"?)");
  CHECK(error_of(head + "[choose.v]\nfallback = \"a\"\nrows = [{ v = \"a\" }]\n" + step, host) ==
        "test.toml:7:1: [choose.v]: \"fallback\", \"auto_why\" and \"fallback_why\" belong to an \"auto\" condition, "
        "which this table does not have");
}
