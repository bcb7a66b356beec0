// The cdi_spec step kind: an inline spec planned as a file write that is
// converged when the file holds the same spec as data; a generated spec
// compared, as data, with what the program prints, or named stale when the
// program is not installed yet; apply writing what the program prints, and
// failing with its standard error when that is no spec.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "installer/formats/cdi_spec.hpp"
#include "installer/plan/overlay_filesystem.hpp"
#include "installer/system/error.hpp"
#include "support/build_paths.hpp"
#include "support/helpers.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

using Argv = std::vector<std::string>;

const std::string kStore = "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_7e5b2f1c9d3a4b60";
const std::string kOldStore = "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_0000old0000";

// NVIDIA's WSL spec as `nvidia-ctk cdi generate --mode=wsl` prints it
// (formats/data/cdi/README.md), naming the driver store folder STORE.
std::string nvidia_spec(const std::string& store = kStore) {
  std::ifstream in(std::string(wslgpu::testing::kSourceDir) + "/tests/unit/formats/data/cdi/nvidia-wsl.yaml",
                   std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  std::string text = out.str();
  REQUIRE(!text.empty());
  for (auto at = text.find(kStore); at != std::string::npos; at = text.find(kStore, at + store.size()))
    text.replace(at, kStore.size(), store);
  return text;
}

const char* const kGenerated = R"(kind = "cdi_spec"
path = "/etc/cdi/nvidia.yaml"
generate = ["nvidia-ctk", "cdi", "generate", "--mode=wsl"]
)";

const char* const kLibrocdxg = R"(kind = "cdi_spec"
path = "/etc/cdi/amd-wsl.yaml"
cdi_kind = "amd.com/gpu"
device_nodes = ["/dev/dxg"]
mounts = [
  { host = "/usr/lib/wsl/lib/libdxcore.so", container = "/usr/lib/libdxcore.so" },
  { host = "/opt/rocm/lib/librocdxg.so", container = "/usr/lib/librocdxg.so", options = ["ro", "bind"] },
]
env = ["HSA_ENABLE_DXG_DETECTION=1"]
)";

struct CdiMachine {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx() { return StepContext{fs, runner, host, "containers"}; }
  // The WSL host files NVIDIA's spec names, present in the root.
  void add_wsl_driver(const std::string& store) {
    fs.add_char_device("/dev/dxg");
    fs.add_file("/usr/lib/wsl/lib/libdxcore.so", "elf");
    fs.add_file("/usr/bin/nvidia-cdi-hook", "elf", 0755);
    for (const char* f : {"libcuda.so.1.1", "libcuda_loader.so", "libnvidia-ptxjitcompiler.so.1", "libnvidia-ml.so.1",
                          "libnvidia-ml_loader.so", "libnvdxgdmal.so.1", "nvcubins.bin", "nvidia-smi",
                          "libnvidia-encode.so.1", "libnvidia-opticalflow.so.1", "libnvwgf2umx.so"})
      fs.add_file(store + "/" + f, "elf");
  }
  void nvidia_ctk_prints(const std::string& out, const std::string& err = "") {
    runner.on({"nvidia-ctk", "cdi", "generate"}, exited(0, err, out));
  }
};

bool has_line(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

std::string all_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace

TEST_CASE("cdi_spec inline: plan writes the spec as YAML, listing each device node, mount and variable") {
  CdiMachine m;
  auto step = build_ok(kLibrocdxg);
  auto ctx = m.ctx();
  StepPlan plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == "create /etc/cdi/amd-wsl.yaml: CDI spec for amd.com/gpu=all");
  REQUIRE(plan.details.size() >= 4);
  CHECK(plan.details[0] == "device node /dev/dxg");
  CHECK(plan.details[1] == "mount /usr/lib/wsl/lib/libdxcore.so at /usr/lib/libdxcore.so (ro,nosuid,nodev,bind)");
  CHECK(plan.details[2] == "mount /opt/rocm/lib/librocdxg.so at /usr/lib/librocdxg.so (ro,bind)");
  CHECK(plan.details[3] == "environment HSA_ENABLE_DXG_DETECTION=1");
  // Nothing of it is in this empty root; an earlier step may install it.
  CHECK(has_line(plan.details, "/opt/rocm/lib/librocdxg.so is not in the root now (an earlier step may install it)"));
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == "/etc/cdi/amd-wsl.yaml");
  CHECK(plan.writes[0].attrs.mode == 0644);
  REQUIRE(plan.writes[0].content);
  CHECK(*plan.writes[0].content ==
        "cdiVersion: 0.3.0\n"
        "kind: amd.com/gpu\n"
        "devices:\n"
        "  - name: all\n"
        "    containerEdits:\n"
        "      deviceNodes:\n"
        "        - path: /dev/dxg\n"
        "containerEdits:\n"
        "  env:\n"
        "    - HSA_ENABLE_DXG_DETECTION=1\n"
        "  mounts:\n"
        "    - hostPath: /usr/lib/wsl/lib/libdxcore.so\n"
        "      containerPath: /usr/lib/libdxcore.so\n"
        "      options:\n"
        "        - ro\n"
        "        - nosuid\n"
        "        - nodev\n"
        "        - bind\n"
        "    - hostPath: /opt/rocm/lib/librocdxg.so\n"
        "      containerPath: /usr/lib/librocdxg.so\n"
        "      options:\n"
        "        - ro\n"
        "        - bind\n");
  CHECK(m.runner.calls.empty());
}

TEST_CASE("cdi_spec inline: the same spec in another layout is converged; another spec is a change with a diff") {
  CdiMachine m;
  auto step = build_ok(kLibrocdxg);
  auto ctx = m.ctx();
  StepPlan first = step->plan(ctx);
  // The same data as JSON, keys in another order: converged, left alone.
  nlohmann::json data = cdi_spec_to_json(*first.writes[0].content);
  m.fs.add_file("/etc/cdi/amd-wsl.yaml", data.dump(4) + "\n");
  StepPlan same = step->plan(ctx);
  CHECK(same.verdict == Verdict::noop);
  CHECK(same.summary == "/etc/cdi/amd-wsl.yaml holds the wanted CDI spec (amd.com/gpu)");
  CHECK(same.writes.empty());
  // One mount option more: a change, shown as a diff of the file.
  data["containerEdits"]["mounts"][1]["options"].push_back("nosuid");
  m.fs.add_file("/etc/cdi/amd-wsl.yaml", write_cdi_spec(data));
  StepPlan changed = step->plan(ctx);
  CHECK(changed.verdict == Verdict::change);
  CHECK(changed.summary == "update /etc/cdi/amd-wsl.yaml: CDI spec for amd.com/gpu=all");
  CHECK(has_line(changed.details, "-        - nosuid"));
  REQUIRE(changed.writes.size() == 1);
  CHECK(changed.writes[0].content == first.writes[0].content);
}

TEST_CASE("cdi_spec inline: with the overlay of a plan, a spec an earlier step writes counts, and no disk is touched") {
  CdiMachine m;
  m.fs.add_file("/opt/rocm/lib/librocdxg.so", "elf");
  auto step = build_ok(kLibrocdxg);
  OverlayFileSystem overlay(m.fs);
  StepContext ctx{overlay, m.runner, m.host, "containers"};
  StepPlan plan = step->plan(ctx);
  REQUIRE(plan.writes.size() == 1);
  CHECK_FALSE(
      has_line(plan.details, "/opt/rocm/lib/librocdxg.so is not in the root now (an earlier step may install it)"));
  overlay.write_atomic(plan.writes[0].path, *plan.writes[0].content, plan.writes[0].attrs);  // as the planner does
  CHECK(step->plan(ctx).verdict == Verdict::noop);
  CHECK_FALSE(m.fs.stat("/etc/cdi/amd-wsl.yaml"));
  CHECK(m.fs.writes == 0);
}

TEST_CASE("cdi_spec inline: a .json path is written as JSON") {
  CdiMachine m;
  std::string text = kLibrocdxg;
  text.replace(text.find("amd-wsl.yaml"), 12, "amd-wsl.json");
  auto step = build_ok(text);
  auto ctx = m.ctx();
  StepPlan plan = step->plan(ctx);
  REQUIRE(plan.writes.size() == 1);
  nlohmann::json data = nlohmann::json::parse(*plan.writes[0].content);
  CHECK(data["kind"] == "amd.com/gpu");
  CHECK(data["cdiVersion"] == "0.3.0");
}

TEST_CASE("cdi_spec inline: cdi_version defaults to the oldest version with the features used") {
  CdiMachine m;
  auto ctx = m.ctx();
  auto digit = build_ok(
      "kind = \"cdi_spec\"\npath = \"/etc/cdi/a.yaml\"\ncdi_kind = \"amd.com/gpu\"\n"
      "device = \"0\"\ndevice_nodes = [\"/dev/dxg\"]\n");
  CHECK(cdi_spec_to_json(*digit->plan(ctx).writes[0].content)["cdiVersion"] == "0.5.0");
  auto pinned = build_ok(
      "kind = \"cdi_spec\"\npath = \"/etc/cdi/a.yaml\"\ncdi_kind = \"amd.com/gpu\"\n"
      "device_nodes = [\"/dev/dxg\"]\ncdi_version = \"0.6.0\"\n");
  CHECK(cdi_spec_to_json(*pinned->plan(ctx).writes[0].content)["cdiVersion"] == "0.6.0");
}

TEST_CASE("cdi_spec: load-time errors name the key and say what to do") {
  const std::string p = "kind = \"cdi_spec\"\npath = \"/etc/cdi/a.yaml\"\n";
  CHECK(contains(build_errors(p + "cdi_kind = \"amd.com/gpu\"\ndevice_nodes = [\"/dev/dxg\"]\n"
                                  "generate = [\"nvidia-ctk\"]\n"),
                 "\"cdi_kind\" cannot go with \"generate\""));
  CHECK(contains(build_errors(p), "needs either \"generate\""));
  CHECK(contains(build_errors("kind = \"cdi_spec\"\npath = \"/etc/a.yaml\"\ngenerate = [\"x\"]\n"),
                 "is not in /etc/cdi or /var/run/cdi: podman, containerd and CRI-O read CDI specs only from those"));
  CHECK(contains(build_errors("kind = \"cdi_spec\"\npath = \"/etc/cdi/a.yml\"\ngenerate = [\"x\"]\n"),
                 "does not end in .yaml or .json"));
  CHECK(build_errors("kind = \"cdi_spec\"\npath = \"/var/run/cdi/a.json\"\ngenerate = [\"x\"]\n") == "");
  CHECK(contains(build_errors(p + "cdi_kind = \"gpu\"\ndevice_nodes = [\"/dev/dxg\"]\n"), "is not VENDOR/CLASS"));
  CHECK(contains(build_errors(p + "cdi_kind = \"amd.com/gpu\"\n"), "gives a container nothing"));
  CHECK(contains(build_errors(p + "cdi_kind = \"amd.com/gpu\"\nenv = [\"1X=2\"]\n"), "\"1X=2\" is not NAME=VALUE"));
  CHECK(contains(build_errors(p + "cdi_kind = \"amd.com/gpu\"\nmounts = [{ host = \"/a\" }]\n"),
                 "a mount needs \"container\", an absolute path"));
  CHECK(contains(build_errors(p + "cdi_kind = \"amd.com/gpu\"\nmounts = [{ host = \"/a\", container = \"b\" }]\n"),
                 "path \"b\" is not absolute"));
  CHECK(contains(build_errors(p + "cdi_kind = \"amd.com/gpu\"\nmounts = [{ host = \"/a\", container = \"/b\", "
                                  "ro = true }]\n"),
                 "a mount has no key \"ro\""));
  CHECK(
      contains(build_errors(p + "cdi_kind = \"amd.com/gpu\"\ndevice_nodes = [\"/dev/dxg\"]\ncdi_version = \"0.2.0\"\n"),
               "\"0.2.0\" is not a CDI spec version loaders take"));
  CHECK(contains(build_errors(p + "cdi_kind = \"amd.com/gpu\"\ndevice = \"0\"\ndevice_nodes = [\"/dev/dxg\"]\n"
                                  "cdi_version = \"0.4.0\"\n"),
                 "this spec needs cdi_version 0.5.0 or later"));
}

TEST_CASE("cdi_spec generated: what the program prints, the same as data as the file, is converged") {
  CdiMachine m;
  m.add_wsl_driver(kStore);
  // The file holds the spec in our writer's layout; the program prints NVIDIA's.
  m.fs.add_file("/etc/cdi/nvidia.yaml", write_cdi_spec(cdi_spec_to_json(nvidia_spec())));
  m.nvidia_ctk_prints(nvidia_spec(), "level=info msg=\"Using WSL driver store path\"\n");
  auto step = build_ok(kGenerated);
  auto ctx = m.ctx();
  StepPlan plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::noop);
  CHECK(plan.summary == "/etc/cdi/nvidia.yaml is as `nvidia-ctk cdi generate --mode=wsl` generates it");
  CHECK(plan.writes.empty());
  REQUIRE(m.runner.calls.size() == 1);
  CHECK(m.runner.calls[0].argv == Argv{"nvidia-ctk", "cdi", "generate", "--mode=wsl"});
  CHECK(m.runner.calls[0].in_root);
}

TEST_CASE("cdi_spec generated: a spec of the old driver store folder is a change that names both folders") {
  CdiMachine m;
  m.add_wsl_driver(kStore);  // Windows updated its driver: only the new folder exists
  m.fs.add_file("/etc/cdi/nvidia.yaml", nvidia_spec(kOldStore));
  m.nvidia_ctk_prints(nvidia_spec(kStore));
  auto step = build_ok(kGenerated);
  auto ctx = m.ctx();
  StepPlan plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == "regenerate /etc/cdi/nvidia.yaml with `nvidia-ctk cdi generate --mode=wsl`");
  INFO(all_lines(plan.details));
  CHECK(has_line(plan.details, "now names " + kStore +
                                   "/ (libcuda.so.1.1, libcuda_loader.so, libnvidia-ptxjitcompiler.so.1 and 8 more)"));
  CHECK(has_line(plan.details, "no longer names " + kOldStore +
                                   "/ (libcuda.so.1.1, libcuda_loader.so, libnvidia-ptxjitcompiler.so.1 and 8 more)"));
  CHECK(has_line(plan.details,
                 "stale: /etc/cdi/nvidia.yaml names " + kOldStore + "/libcuda.so.1.1, which no longer exists"));
  CHECK(has_line(plan.details, "stale: and 3 more paths that no longer exist"));
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].path == "/etc/cdi/nvidia.yaml");
  CHECK_FALSE(plan.writes[0].content);
  CHECK(plan.writes[0].written_by_apply == std::optional<std::string>(""));
  CHECK(plan.changes[0]["source"] == "nvidia-ctk cdi generate --mode=wsl");
}

TEST_CASE("cdi_spec generated: a difference in no host path names where the data differs") {
  CdiMachine m;
  m.add_wsl_driver(kStore);
  std::string old = nvidia_spec();
  old.replace(old.find("update-ldcache"), 14, "update-ldcachx");
  m.fs.add_file("/etc/cdi/nvidia.yaml", old);
  m.nvidia_ctk_prints(nvidia_spec());
  auto step = build_ok(kGenerated);
  auto ctx = m.ctx();
  StepPlan plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.details == std::vector<std::string>{
                            "the generated spec differs from /etc/cdi/nvidia.yaml at /containerEdits/hooks/1/args/1"});
}

TEST_CASE("cdi_spec generated: before its program is installed, plan says it runs at install and names stale paths") {
  CdiMachine m;
  m.add_wsl_driver(kStore);
  m.fs.add_file("/etc/cdi/nvidia.yaml", nvidia_spec(kOldStore));
  auto step = build_ok(kGenerated);  // no nvidia-ctk in the root: the fake runner finds nothing
  auto ctx = m.ctx();
  StepPlan plan = step->plan(ctx);
  CHECK(plan.verdict == Verdict::change);
  CHECK(plan.summary == "generate /etc/cdi/nvidia.yaml at install with `nvidia-ctk cdi generate --mode=wsl`");
  REQUIRE(plan.details.size() == 10);
  CHECK(plan.details[0] == "nvidia-ctk is not in the root now: an earlier step of this plan must install it");
  CHECK(plan.details[1] ==
        "stale: /etc/cdi/nvidia.yaml names " + kOldStore + "/libcuda.so.1.1, which no longer exists");
  CHECK(plan.details[9] == "stale: and 3 more paths that no longer exist");
  // libdxcore.so, /dev/dxg and the hook program are there: not stale.
  for (const auto& line : plan.details) CHECK_FALSE(contains(line, "libdxcore.so"));
  CHECK(plan.fingerprint["generate:nvidia-ctk cdi generate --mode=wsl"] == "not found");
  REQUIRE(plan.writes.size() == 1);
  CHECK(plan.writes[0].written_by_apply == std::optional<std::string>(""));

  // With the driver the spec names, nothing is stale.
  CdiMachine fresh;
  fresh.add_wsl_driver(kStore);
  fresh.fs.add_file("/etc/cdi/nvidia.yaml", nvidia_spec(kStore));
  auto fresh_ctx = fresh.ctx();
  CHECK(step->plan(fresh_ctx).details ==
        std::vector<std::string>{"nvidia-ctk is not in the root now: an earlier step of this plan must install it"});
}

TEST_CASE("cdi_spec generated: apply writes what the program prints, as JSON for a .json path") {
  CdiMachine m;
  m.nvidia_ctk_prints(nvidia_spec());
  auto step = build_ok(kGenerated);
  auto ctx = m.ctx();
  StepPlan plan = step->plan(ctx);
  step->apply(ctx, plan);
  CHECK(m.fs.read("/etc/cdi/nvidia.yaml") == nvidia_spec());
  CHECK(m.fs.stat("/etc/cdi/nvidia.yaml")->mode == 0644);
  CHECK(step->plan(ctx).verdict == Verdict::noop);

  std::string json_step = kGenerated;
  json_step.replace(json_step.find("nvidia.yaml"), 11, "nvidia.json");
  auto as_json = build_ok(json_step);
  as_json->apply(ctx, as_json->plan(ctx));
  CHECK(nlohmann::json::parse(m.fs.read("/etc/cdi/nvidia.json")) == cdi_spec_to_json(nvidia_spec()));
}

TEST_CASE("cdi_spec generated: empty or unreadable output fails the step with the program's standard error") {
  auto step = build_ok(kGenerated);
  {
    CdiMachine m;
    m.nvidia_ctk_prints("", "level=error msg=\"failed to initialize dxcore\"\n");
    auto ctx = m.ctx();
    CHECK_THROWS_WITH_AS(step->plan(ctx),
                         "`nvidia-ctk cdi generate --mode=wsl` printed nothing; its standard error:\n"
                         "  level=error msg=\"failed to initialize dxcore\"",
                         StepFailure);
    CHECK_THROWS_AS(step->apply(ctx, StepPlan{}), StepFailure);
    CHECK_FALSE(m.fs.stat("/etc/cdi/nvidia.yaml"));
  }
  {
    CdiMachine m;
    m.nvidia_ctk_prints("cdiVersion: 0.3.0\nkind: nvidia.com/gpu\n", "warning: no devices\n");
    auto ctx = m.ctx();
    CHECK_THROWS_WITH_AS(step->apply(ctx, StepPlan{}),
                         "`nvidia-ctk cdi generate --mode=wsl` printed no CDI spec that reads (1:1: the spec has no "
                         "\"devices\", which CDI requires); its standard error:\n  warning: no devices",
                         StepFailure);
    CHECK_FALSE(m.fs.stat("/etc/cdi/nvidia.yaml"));
  }
  {
    CdiMachine m;
    m.runner.on({"nvidia-ctk"}, exited(1, "level=error msg=\"no driver store paths found\"\n"));
    auto ctx = m.ctx();
    CHECK_THROWS_WITH_AS(step->apply(ctx, StepPlan{}),
                         "`nvidia-ctk cdi generate --mode=wsl` exited 1:\n  level=error msg=\"no driver store paths "
                         "found\"",
                         StepFailure);
  }
}
