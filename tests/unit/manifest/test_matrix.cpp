// [matrix]: a release table in the manifest's own TOML. The selected row's
// columns replace their [vars] defaults, --set wins over a row, a value
// without a row keeps the defaults, and every mistake is FILE:LINE:COLUMN.
#include <doctest/doctest.h>

#include <algorithm>

#include "installer/host/host.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

const char* kMatrix = R"([manifest]
name = "m"
schema_version = 1

[vars]
rocm_version = "7.2.1"
amdgpu_dir = "${rocm_version}"
rocm_wsl = "unlisted"
url = "https://example.invalid/amdgpu/${amdgpu_dir}/ubuntu"

# Source: a test.
[matrix.rocm_version."7.2.1"]
amdgpu_dir = "30.30.1"
rocm_wsl = "librocdxg"

[matrix.rocm_version."6.4.2.1"]
rocm_wsl = "legacy"

[[step]]
id = "a"
kind = "file"
path = "/etc/a"
content = "${url} ${rocm_wsl}\n"
)";

Manifest load_matrix(const std::string& text, const Variables& overrides = {}) {
  return load_manifest(ManifestSource{"test.toml", text, false}, overrides, wslgpu::testing::fake_wsl_host());
}

std::string matrix_input_error(const std::string& text, const Variables& overrides = {}) {
  try {
    load_matrix(text, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(loaded without an error)";
}

std::string with(const std::string& extra) {
  std::string text = kMatrix;
  return text.insert(text.find("[[step]]"), extra + "\n");
}

}  // namespace

TEST_CASE("the selected row's columns replace their defaults, and variables built from them follow") {
  Manifest m = load_matrix(kMatrix);
  CHECK(m.vars.at("amdgpu_dir") == "30.30.1");
  CHECK(m.vars.at("rocm_wsl") == "librocdxg");
  CHECK(m.vars.at("url") == "https://example.invalid/amdgpu/30.30.1/ubuntu");
}

TEST_CASE("another release selects its own row; columns it does not give keep their defaults") {
  Manifest m = load_matrix(kMatrix, {{"rocm_version", "6.4.2.1"}});
  CHECK(m.vars.at("rocm_wsl") == "legacy");
  CHECK(m.vars.at("amdgpu_dir") == "6.4.2.1");
}

TEST_CASE("a release without a row keeps every default, and rows compare as text") {
  CHECK(load_matrix(kMatrix, {{"rocm_version", "7.2.1.0"}}).vars.at("rocm_wsl") == "unlisted");
  CHECK(load_matrix(kMatrix, {{"rocm_version", "9.9"}}).vars.at("amdgpu_dir") == "9.9");
}

TEST_CASE("--set of a column wins over the row") {
  Manifest m = load_matrix(kMatrix, {{"amdgpu_dir", "mirror-30.30.1"}});
  CHECK(m.vars.at("amdgpu_dir") == "mirror-30.30.1");
  CHECK(m.vars.at("rocm_wsl") == "librocdxg");
}

TEST_CASE("a column that is not a declared variable is an error at its key, with a suggestion") {
  CHECK(matrix_input_error(with("[matrix.rocm_version.\"7.2.2\"]\namdgpu_dirr = \"30.30.2\"")) ==
        "test.toml:20:1: matrix column \"amdgpu_dirr\" is not a variable (did you mean \"amdgpu_dir\"?); declare it "
        "in [vars] with the value for a release without a row");
}

TEST_CASE("a selector that is not a variable, a row that is not a table, and a bad value are errors") {
  CHECK(matrix_input_error(with("[matrix.rocm_versoin.\"7.2.2\"]\nrocm_wsl = \"x\"")) ==
        "test.toml:19:9: [matrix.rocm_versoin] names no variable of [vars] (did you mean \"rocm_version\"?); declare "
        "the variable whose value selects the row");
  std::string bad_value = matrix_input_error(with("[matrix.rocm_version.\"7.2.2\"]\nrocm_wsl = [\"x\"]"));
  CHECK(bad_value == "test.toml:20:12: matrix column \"rocm_wsl\" must be a string, integer or boolean, not an array");
  CHECK(matrix_input_error(with("[matrix.rocm_version.\"7.2.2\"]\nrocm_version = \"7.2.2\"")) ==
        "test.toml:20:1: a row cannot set its own selector \"rocm_version\"; remove this key");
}

TEST_CASE("the rocm profile's matrix: repositories, runtime and librocdxg per release") {
  const auto& all = bundled_manifests();
  auto it = std::find_if(all.begin(), all.end(), [](const auto& b) { return b.name == "rocm"; });
  REQUIRE(it != all.end());
  ManifestSource src{std::string(it->path), std::string(it->content), true};
  auto vars = [&](const std::string& version) {
    return load_manifest(src, {{"rocm_version", version}}, wslgpu::testing::fake_wsl_host()).vars;
  };
  auto v721 = vars("7.2.1");
  CHECK(v721.at("rocm_wsl") == "librocdxg");
  CHECK(v721.at("amdgpu_dir") == "30.30.1");
  CHECK(v721.at("graphics_dir") == "7.2.1");
  CHECK(v721.at("rocm_dxg_env") == "true");
  CHECK(v721.at("rocdxg_sha256") == "28ded1254811192ebace1f76c0227580184af7b27ab2475fb9728295a702d541");
  CHECK(v721.at("rocdxg_url") ==
        "https://github.com/ROCm/librocdxg/releases/download/v1.2.2/rocdxg-roct_1.2.2_amd64.deb");
  auto v722 = vars("7.2.2");
  CHECK(v722.at("amdgpu_dir") == "30.30.2");
  CHECK(v722.at("graphics_dir") == "7.2.1");  // AMD reuses graphics/7.2.1
  auto v72 = vars("7.2");
  CHECK(v72.at("rocm_wsl") == "legacy");
  CHECK(v72.at("amdgpu_dir") == "30.30");
  CHECK(v72.at("rocm_dxg_env") == "false");
  auto v6 = vars("6.4.2.1");
  CHECK(v6.at("rocm_wsl") == "legacy");
  CHECK(v6.at("amdgpu_dir") == "6.4.2.1");
  CHECK(v6.at("graphics_dir") == "");
  CHECK(vars("6.1.3").at("rocm_ubuntu") == "22.04");
  for (const char* v : {"7.0", "7.0.2", "7.1", "7.1.1", "6.4.2"}) {
    CAPTURE(v);
    CHECK(vars(v).at("rocm_wsl") == "none");
    CHECK_FALSE(vars(v).at("rocm_wsl_reason").empty());
  }
  CHECK(vars("7.0.2").at("amdgpu_dir") == "30.10.2");
  CHECK(vars("7.1.1").at("amdgpu_dir") == "30.20.1");
  CHECK(vars("6.0.2").at("rocm_wsl") == "unlisted");
}
