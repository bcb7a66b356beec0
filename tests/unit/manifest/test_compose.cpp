// A layer on a profile (`requires`): one manifest, the base's steps first,
// the base's variables and matrix rows usable and extensible but never
// changed, and every mistake reported in the file that holds it.
#include <doctest/doctest.h>

#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

const char* kBase = R"([manifest]
name = "base"
schema_version = 1

[vars]
release = "2"
dir = "${release}"
flavour = "none"

[matrix.release."2"]
flavour = "new"

[[step]]
id = "env"
kind = "profile_env"
path_append = ["/opt/base/bin"]

[[step]]
id = "b"
kind = "file"
path = "/etc/b"
content = "${dir}\n"

[guards]
refuse_packages = ["base-dkms"]
min_kernel = "5.10.60.1"
)";

std::string layer(const std::string& extra_vars = "", const std::string& extra = "") {
  return R"([manifest]
name = "layer"
schema_version = 1
requires = "base"

[vars]
wheel = "none"
)" + extra_vars + R"(
[matrix.release."2"]
wheel = "w-${flavour}"

[[step]]
id = "l"
kind = "file"
path = "/etc/l"
content = "${wheel} on ${dir}\n"

[guards]
refuse_packages = ["layer-dkms"]
)" + extra;
}

Manifest load_layer(const std::string& text, const Variables& sets = {}, const std::string& base = kBase) {
  return load_manifest(ManifestSource{"layer.toml", text, false, "base.toml", base}, sets,
                       wslgpu::testing::fake_wsl_host());
}

std::string layer_error(const std::string& text, const std::string& base = kBase) {
  try {
    load_layer(text, {}, base);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(loaded without an error)";
}

}  // namespace

TEST_CASE("a layer is one manifest: the base's steps first, then its own, each under its own profile's name") {
  Manifest m = load_layer(layer());
  CHECK(m.name == "layer");
  CHECK(m.base_name == "base");
  CHECK(m.base_source == "base.toml");
  CHECK(m.base_text == kBase);
  REQUIRE(m.steps.size() == 3);
  CHECK(m.steps[0].id == "env");
  CHECK(m.steps[0].origin == "base");
  CHECK(m.steps[1].origin == "base");
  CHECK(m.steps[2].id == "l");
  CHECK(m.steps[2].origin == "layer");
  // profile_env writes /etc/profile.d/wslgpu-base.sh for the base's step,
  // as `install base` does, so the two never keep two files.
  CHECK(step_manifest_name(m, m.steps[0]) == "base");
  CHECK(step_manifest_name(m, m.steps[2]) == "layer");
}

TEST_CASE("a layer adds columns to the base's matrix rows and uses the base's variables") {
  Manifest m = load_layer(layer());
  CHECK(m.vars.at("flavour") == "new");
  CHECK(m.vars.at("wheel") == "w-new");
  // --set of a base variable moves both halves.
  Manifest other = load_layer(layer(), {{"release", "3"}});
  CHECK(other.vars.at("dir") == "3");
  CHECK(other.vars.at("wheel") == "none");
}

TEST_CASE("a layer's guards add to the base's") {
  Manifest m = load_layer(layer());
  CHECK(m.guards.refuse_packages == std::vector<std::string>{"base-dkms", "layer-dkms"});
  CHECK(m.guards.min_kernel == "5.10.60.1");
}

TEST_CASE("a layer cannot redefine a variable, a matrix value or a guard of the profile it requires") {
  CHECK(layer_error(layer("dir = \"mine\"\n")) ==
        "layer.toml:8:1: variable \"dir\" is already defined by the required profile base (base.toml:7); a layer adds "
        "to it, and cannot change it: give another value with --set");
  CHECK(layer_error(layer("", "min_kernel = \"6.0\"\n")) ==
        "layer.toml:20:1: guard \"min_kernel\" is already defined by the required profile base (base.toml:26); a "
        "layer adds to it, and cannot change it");
  std::string clash = layer();
  clash.insert(clash.find("wheel = \"w-"), "flavour = \"old\"\n");
  CHECK(layer_error(clash).find("layer.toml:10:1: matrix column \"flavour\" is already defined by the required "
                                "profile base (base.toml:11)") == 0);
}

TEST_CASE("a layer's matrix entry that is not a table where the base has one is an error naming the base's table") {
  std::string text = layer();
  text.insert(text.find("[matrix.release.\"2\"]"), "[matrix]\nrelease = \"x\"\n\n");
  text.replace(text.find("[matrix.release.\"2\"]"), 20, "[matrix.wheel.\"none\"]");
  CHECK(layer_error(text).find("layer.toml:10:1: matrix table \"release\" is already defined by the required "
                               "profile base (base.toml:10)") == 0);
}

TEST_CASE("a mistake in the required profile is reported in its own file") {
  std::string base = kBase;
  base.replace(base.find("content = \"${dir}\\n\""), 20, "content = \"${dri}\\n\"");
  CHECK(layer_error(layer(), base).find("base.toml:22:") == 0);
}

TEST_CASE("a layer may require only a bundled profile that requires none") {
  std::string text = layer();
  text.replace(text.find("requires = \"base\""), 17, "requires = \"rcom\"");
  CHECK(layer_error(text, "") == "layer.toml:4:12: requires \"rcom\", which is not a bundled profile (did you mean "
                             "\"rocm\"?)");
  // With no recorded base text, the bundled profile of that name is read.
  std::string on_rocm = layer();
  on_rocm.replace(on_rocm.find("requires = \"base\""), 17, "requires = \"rocm\"");
  on_rocm.replace(on_rocm.find("[matrix.release.\"2\"]"), 20, "[matrix.rocm_version.\"7.2.2\"]");
  on_rocm.replace(on_rocm.find("${dir}"), 6, "${rocm_version}");
  on_rocm.replace(on_rocm.find("${flavour}"), 10, "${rocm_wsl}");
  Manifest m = load_manifest(ManifestSource{"layer.toml", on_rocm, false}, {{"rocm_version", "7.2.2"}},
                             wslgpu::testing::fake_wsl_host());
  CHECK(m.base_name == "rocm");
  CHECK(m.base_source == "manifests/rocm.toml");
  CHECK(m.vars.at("wheel") == "w-librocdxg");  // the base's column, in the layer's row
  std::string twice = kBase;
  twice.replace(twice.find("schema_version = 1"), 18, "schema_version = 1\nrequires = \"cuda\"");
  CHECK(layer_error(layer(), twice).find("layer.toml:4:12: requires \"base\", which itself requires another "
                                         "profile") == 0);
}
