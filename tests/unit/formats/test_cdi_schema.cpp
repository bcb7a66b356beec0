// Every CDI spec the cdi_spec step writes, and NVIDIA's WSL spec as
// nvidia-ctk prints it, against CDI's own JSON Schema (schema.json and
// defs.json from cncf-tags/container-device-interface, vendored in
// formats/data/cdi/ with their commit), checked with valijson. A broken
// spec fails the same check, so it is one that can fail.
#include <doctest/doctest.h>

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <fstream>
#include <sstream>

#include "installer/formats/cdi_spec.hpp"
#include "steps/step.hpp"
#include "support/build_paths.hpp"
#include "support/fakes.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

nlohmann::json cdi_schema_file(const std::string& name) {
  std::ifstream in(std::string(wslgpu::testing::kSourceDir) + "/tests/unit/formats/data/cdi/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot read " << name);
  return nlohmann::json::parse(in);
}

// CDI's schema, with its "defs.json#/..." references resolved to the file
// beside it.
class CdiSchema {
 public:
  CdiSchema() {
    nlohmann::json top = cdi_schema_file("schema.json");
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter adapter(top);
    parser.populateSchema(
        adapter, schema_,
        [](const std::string& uri) -> const nlohmann::json* {
          REQUIRE_MESSAGE(uri == "defs.json", "the schema refers to " << uri);
          return new nlohmann::json(cdi_schema_file("defs.json"));
        },
        [](const nlohmann::json* doc) { delete doc; });
  }

  // "" when DOC is valid, else valijson's reasons, one a line.
  std::string problems(const nlohmann::json& doc) const {
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(doc);
    if (validator.validate(schema_, target, &results)) return "";
    std::string out;
    valijson::ValidationResults::Error e;
    while (results.popError(e)) {
      std::string where;
      for (const auto& c : e.context) where += c;
      out += where + ": " + e.description + "\n";
    }
    return out.empty() ? "invalid" : out;
  }

 private:
  valijson::Schema schema_;
};

// What the step plans to write for the [[step]] keys TOML_TEXT, on an
// empty root.
std::string written_spec(const std::string& toml_text) {
  auto step = build_ok(toml_text);
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "containers"};
  StepPlan plan = step->plan(ctx);
  REQUIRE(plan.writes.size() == 1);
  REQUIRE(plan.writes[0].content);
  return *plan.writes[0].content;
}

const char* const kAmdLegacy = R"(kind = "cdi_spec"
path = "/etc/cdi/amd-wsl.yaml"
cdi_kind = "amd.com/gpu"
device_nodes = ["/dev/dxg"]
mounts = [
  { host = "/usr/lib/wsl/lib/libdxcore.so", container = "/usr/lib/libdxcore.so" },
  { host = "/opt/rocm/lib/libhsa-runtime64.so.1", container = "/opt/rocm/lib/libhsa-runtime64.so.1" },
]
)";

const char* const kAmdLibrocdxg = R"(kind = "cdi_spec"
path = "/etc/cdi/amd-wsl.yaml"
cdi_kind = "amd.com/gpu"
device_nodes = ["/dev/dxg"]
mounts = [
  { host = "/usr/lib/wsl/lib/libdxcore.so", container = "/usr/lib/libdxcore.so" },
  { host = "/opt/rocm/lib/librocdxg.so", container = "/usr/lib/librocdxg.so" },
]
env = ["HSA_ENABLE_DXG_DETECTION=1"]
)";

}  // namespace

TEST_CASE("cdi schema: the AMD specs the step writes, as YAML and as JSON, are valid CDI") {
  CdiSchema schema;
  for (const char* toml_text : {kAmdLegacy, kAmdLibrocdxg}) {
    std::string yaml = written_spec(toml_text);
    nlohmann::json data = cdi_spec_to_json(yaml);
    CHECK(data["kind"] == "amd.com/gpu");
    CHECK_MESSAGE(schema.problems(data) == "", yaml);
    std::string json_toml = std::string(toml_text);
    json_toml.replace(json_toml.find("amd-wsl.yaml"), 12, "amd-wsl.json");
    std::string json = written_spec(json_toml);
    CHECK(nlohmann::json::parse(json) == data);
    CHECK(schema.problems(nlohmann::json::parse(json)) == "");
  }
}

TEST_CASE("cdi schema: NVIDIA's WSL spec, as nvidia-ctk prints it, is valid CDI") {
  CdiSchema schema;
  std::ifstream in(std::string(wslgpu::testing::kSourceDir) + "/tests/unit/formats/data/cdi/nvidia-wsl.yaml",
                   std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json data = cdi_spec_to_json(text.str());
  CHECK(data["kind"] == "nvidia.com/gpu");
  CHECK(schema.problems(data) == "");
  // And again after our writer: what a .yaml step would keep of it.
  CHECK(schema.problems(cdi_spec_to_json(write_cdi_spec(data))) == "");
}

TEST_CASE("cdi schema: a spec without what CDI requires is rejected by the schema and by the reader") {
  CdiSchema schema;
  nlohmann::json good = cdi_spec_to_json(written_spec(kAmdLibrocdxg));
  REQUIRE(schema.problems(good) == "");

  nlohmann::json no_devices = good;
  no_devices.erase("devices");
  CHECK(schema.problems(no_devices) != "");
  CHECK_THROWS_AS(read_cdi_spec(no_devices.dump()), CdiSpecError);

  nlohmann::json mount_without_target = good;
  mount_without_target["containerEdits"]["mounts"][0].erase("containerPath");
  CHECK(schema.problems(mount_without_target) != "");
  CHECK_THROWS_AS(read_cdi_spec(mount_without_target.dump()), CdiSpecError);

  nlohmann::json device_without_edits = good;
  device_without_edits["devices"][0].erase("containerEdits");
  CHECK(schema.problems(device_without_edits) != "");
  CHECK_THROWS_AS(read_cdi_spec(device_without_edits.dump()), CdiSpecError);

  nlohmann::json node_path_number = good;
  node_path_number["devices"][0]["containerEdits"]["deviceNodes"][0]["path"] = 5;
  CHECK(schema.problems(node_path_number) != "");
  CHECK_THROWS_AS(read_cdi_spec(node_path_number.dump()), CdiSpecError);
}
