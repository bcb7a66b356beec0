// The manifest model of a valid manifest: variables, overrides, host facts,
// substitution, step order, guards and defaults.
#include <doctest/doctest.h>

#include "installer/system/error.hpp"
#include "installer/host/host.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/planner/planner.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::MemoryFileSystem;

namespace {

Manifest load(const std::string& text, const Variables& overrides = {}, const HostFacts& host = wslgpu::testing::fake_wsl_host()) {
  return load_manifest(ManifestSource{"test.toml", text, false}, overrides, host);
}

// The content a file step would write, found by planning it on an empty machine.
std::string planned_content(const Manifest& m, const std::string& step_id) {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  Plan plan = resolve_plan(m, m.source, fs, runner, wslgpu::testing::fake_wsl_host());
  for (const auto& s : plan.steps) {
    if (s.id != step_id) continue;
    REQUIRE(s.plan.writes.size() == 1);
    REQUIRE(s.plan.writes[0].content);
    return *s.plan.writes[0].content;
  }
  FAIL("no step ", step_id);
  return "";
}

std::string input_error(const std::string& text, const Variables& overrides = {}) {
  try {
    load(text, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(loaded without an error)";
}

const char* kRocm = R"(
[manifest]
name = "rocm-test"
description = "ROCm ${rocm_version} for tests"
schema_version = 1

[vars]
# rocm_url uses rocm_version, which is defined after it.
rocm_url = "https://repo.radeon.com/rocm/apt/${rocm_version}"
rocm_version = "6.4.2"
pin_priority = 600
use_dxg = true

[[step]]
id = "sources"
kind = "file"
path = "/etc/apt/sources.list.d/rocm.list"
content = "deb ${rocm_url} ${host.codename} main\n"

[[step]]
id = "literal"
kind = "file"
name = "a literal ${rocm_version} and an escaped $${HOME}"
path = "/etc/profile.d/wslgpu-rocm.sh"
content = "export PATH=\"$${PATH}:/opt/rocm-${rocm_version}/bin\"\n"
mode = "0755"

[[step]]
id = "dxg"
kind = "check"
path = "/dev/dxg"
type = "char_device"
when = "use_dxg && host.wsl == '2'"

[guards]
refuse_packages = ["rocm-dkms", "*-dkms", "linux-headers-*"]
min_kernel = "5.10.60.1"
require_dxg = true
)";

}  // namespace

TEST_CASE("the [manifest] table gives name, description and schema version") {
  Manifest m = load(kRocm);
  CHECK(m.name == "rocm-test");
  CHECK(m.description == "ROCm ${rocm_version} for tests");  // descriptions are shown as written
  CHECK(m.schema_version == 1);
  CHECK(m.source == "test.toml");
}

TEST_CASE("variables keep their defaults as text, whatever their TOML type") {
  Manifest m = load(kRocm);
  CHECK(m.vars.at("rocm_version") == "6.4.2");
  CHECK(m.vars.at("pin_priority") == "600");
  CHECK(m.vars.at("use_dxg") == "true");
  CHECK(m.vars.count("host.codename") == 0);  // host facts are not manifest variables
}

TEST_CASE("a variable may use another one defined later in [vars]") {
  Manifest m = load(kRocm);
  CHECK(m.vars.at("rocm_url") == "https://repo.radeon.com/rocm/apt/6.4.2");
}

TEST_CASE("--set overrides a default, and variables built from it follow") {
  Manifest m = load(kRocm, {{"rocm_version", "7.1"}});
  CHECK(m.vars.at("rocm_version") == "7.1");
  CHECK(m.vars.at("rocm_url") == "https://repo.radeon.com/rocm/apt/7.1");
  CHECK(planned_content(m, "sources") == "deb https://repo.radeon.com/rocm/apt/7.1 noble main\n");
}

TEST_CASE("the variables given with --set, and those built from them, are known as the user's own") {
  Manifest m = load(kRocm, {{"rocm_version", "7.1"}});
  CHECK(m.from_command_line == std::set<std::string>{"rocm_url", "rocm_version"});
  CHECK(load(kRocm, {{"rocm_url", "file:///srv/rocm"}}).from_command_line == std::set<std::string>{"rocm_url"});
  CHECK(load(kRocm).from_command_line.empty());
}

TEST_CASE("referenced_variables lists the ${names} of a string as substitution reads them") {
  CHECK(referenced_variables("deb ${rocm_url} ${host.codename} main") ==
        std::vector<std::string>{"rocm_url", "host.codename"});
  CHECK(referenced_variables("$${PATH}:${a}${}${b") == std::vector<std::string>{"a"});
  CHECK(referenced_variables("16GB").empty());
}

TEST_CASE("--set of a variable the manifest does not have is an error naming the closest one") {
  CHECK(input_error(kRocm, {{"rocm_verison", "7.1"}}) ==
        "--set rocm_verison: the manifest has no variable \"rocm_verison\" (did you mean \"rocm_version\"?)");
  CHECK(input_error(kRocm, {{"cuda_repx", "x"}}) ==
        "--set cuda_repx: the manifest has no variable \"cuda_repx\" (it has: pin_priority, rocm_url, rocm_version, "
        "use_dxg)");
}

TEST_CASE("--set of a variable another bundled profile has names that profile, for a script written for it") {
  // wslconfig's memory; cuda's cuda_repo, which pytorch-cuda had while it
  // stood on cuda.
  CHECK(input_error(kRocm, {{"memory", "16GB"}}) ==
        "--set memory: the manifest has no variable \"memory\" (it is a variable of the bundled profile wslconfig, "
        "which this one does not include: leave the --set out, or give it to `install wslconfig`)");
  ManifestSource torch;
  for (const auto& m : bundled_manifests())
    if (m.name == "pytorch-cuda") torch = {std::string(m.path), std::string(m.content), true};
  REQUIRE_FALSE(torch.text.empty());
  try {
    load_manifest(torch, {{"cuda_repo", "https://mirror.example/cuda/"}}, wslgpu::testing::fake_wsl_host());
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("it is a variable of the bundled profile cuda, which this one does not include: "
                                     "leave the --set out, or give it to `install cuda`") != std::string::npos);
  }
}

TEST_CASE("an --set value may itself use variables and host facts") {
  Manifest m = load(kRocm, {{"rocm_url", "https://mirror.example/${host.codename}/${rocm_version}"}});
  CHECK(m.vars.at("rocm_url") == "https://mirror.example/noble/6.4.2");
}

TEST_CASE("host facts are substituted as ${host.NAME}") {
  Manifest m = load(kRocm);
  CHECK(planned_content(m, "sources") == "deb https://repo.radeon.com/rocm/apt/6.4.2 noble main\n");
  HostFacts jammy = wslgpu::testing::fake_wsl_host();
  jammy.codename = "jammy";
  Manifest on_jammy = load(kRocm, {}, jammy);
  CHECK(planned_content(on_jammy, "sources") == "deb https://repo.radeon.com/rocm/apt/6.4.2 jammy main\n");
}

TEST_CASE("$${ writes a literal ${ and is not a reference") {
  Manifest m = load(kRocm);
  CHECK(planned_content(m, "literal") == "export PATH=\"${PATH}:/opt/rocm-6.4.2/bin\"\n");
  CHECK(m.steps[1].name == "a literal 6.4.2 and an escaped ${HOME}");
}

TEST_CASE("steps keep the order of the file, with their kind and position") {
  Manifest m = load(kRocm);
  REQUIRE(m.steps.size() == 3);
  CHECK(m.steps[0].id == "sources");
  CHECK(m.steps[0].kind == "file");
  CHECK(m.steps[1].id == "literal");
  CHECK(m.steps[2].id == "dxg");
  CHECK(m.steps[2].kind == "check");
  CHECK(m.steps[0].pos.str() == "test.toml:14:1");
  CHECK(m.steps[2].pos.str() == "test.toml:28:1");
}

TEST_CASE("a step without a name is named after its id") {
  Manifest m = load(kRocm);
  CHECK(m.steps[0].name == "sources");
  CHECK(m.steps[2].name == "dxg");
}

TEST_CASE("a step's when condition is parsed at load and kept as written") {
  Manifest m = load(kRocm);
  CHECK_FALSE(m.steps[0].when);
  REQUIRE(m.steps[2].when);
  CHECK(m.steps[2].when->text() == "use_dxg && host.wsl == '2'");
}

TEST_CASE("the [guards] table is read into the model") {
  Manifest m = load(kRocm);
  CHECK(m.guards.refuse_packages == std::vector<std::string>{"rocm-dkms", "*-dkms", "linux-headers-*"});
  CHECK(m.guards.min_kernel == "5.10.60.1");
  CHECK(m.guards.require_wsl2);  // the default
  CHECK(m.guards.require_dxg);
}

TEST_CASE("without [guards], WSL2 is required and nothing else") {
  Manifest m = load(R"(
[manifest]
name = "plain"
schema_version = 1

[[step]]
id = "motd"
kind = "file"
path = "/etc/motd"
content = "hello\n"
)");
  CHECK(m.guards.refuse_packages.empty());
  CHECK(m.guards.min_kernel.empty());
  CHECK(m.guards.require_wsl2);
  CHECK_FALSE(m.guards.require_dxg);
  CHECK(m.vars.empty());
  CHECK(m.description.empty());
}

TEST_CASE("a bundled profile is found by its name and loads") {
  ManifestSource source = find_manifest("wslconfig");
  CHECK(source.bundled);
  CHECK(source.display == "manifests/wslconfig.toml");
  Manifest m = load_manifest(source, {}, wslgpu::testing::fake_wsl_host());
  CHECK(m.name == "wslconfig");
  CHECK_FALSE(m.steps.empty());
}

TEST_CASE("an unknown profile name is an error that says how to name a file") {
  try {
    find_manifest("wslconfg");
    FAIL("found a profile that does not exist");
  } catch (const InputError& e) {
    std::string message = e.what();
    CHECK(message.rfind("wslconfg: no bundled profile is called \"wslconfg\" (did you mean \"wslconfig\"?); bundled: ",
                        0) == 0);
    CHECK(message.find("A manifest file needs a path such as ./wslconfg.toml") != std::string::npos);
  }
}

TEST_CASE("every error in a manifest is reported, in file order") {
  std::string message = input_error(R"([[step]]
id = "a"
kind = "file"
path = "/etc/a"
content = "${nope}"

[manifest]
name = "late"
schema_version = 3
)");
  CHECK(message ==
        "test.toml:5:12: undefined variable \"nope\" (define it in [vars])\n"
        "test.toml:9:18: schema_version 3 is not supported (this version of wslgpu-setup reads schema_version = 1)");
}
