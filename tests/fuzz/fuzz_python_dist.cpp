// What a venv's files and a wheel's name say (installer/formats/
// python_dist.hpp, wheel_name.hpp): the plan of python_packages reads
// RECORD, METADATA and pyvenv.cfg written by pip, and wheel names from
// manifests. Never throws, whatever the input; and:
//   1. every RECORD row has a non-empty path without a line break;
//   2. METADATA's name and version are one line each, without blanks around;
//   3. a wheel name that parses has non-empty tags, a distribution that is
//      its own PEP 503 key's spelling (same length or shorter), and whether
//      it runs on CPython 3.12 comes with a reason exactly when it does not.
// The input's first line is also read as a wheel's file name.
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/python_dist.hpp"
#include "installer/formats/wheel_name.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);
  for (const auto& e : parse_record(text)) {
    FUZZ_CHECK(!e.path.empty());
    FUZZ_CHECK(e.path.find('\n') == std::string::npos);
  }
  DistMetadata m = parse_metadata(text);
  for (const std::string* field : {&m.name, &m.version}) {
    FUZZ_CHECK(field->find('\n') == std::string::npos);
    FUZZ_CHECK(field->empty() || (field->front() != ' ' && field->back() != ' '));
  }
  PyvenvCfg cfg = parse_pyvenv_cfg(text);
  FUZZ_CHECK(cfg.version.find('\n') == std::string::npos);

  std::string error;
  auto wheel = parse_wheel_name(text.substr(0, text.find('\n')), error);
  FUZZ_CHECK(wheel.has_value() == error.empty());
  if (wheel) {
    for (const auto* tags : {&wheel->python_tags, &wheel->abi_tags, &wheel->platform_tags}) {
      FUZZ_CHECK(!tags->empty());
      for (const auto& t : *tags) FUZZ_CHECK(!t.empty());
    }
    FUZZ_CHECK(normalize_project_name(wheel->distribution).size() <= wheel->distribution.size());
    PythonTarget py;
    py.minor = 12;
    std::string why;
    FUZZ_CHECK(wheel_runs_on(*wheel, py, why) == why.empty());
  }
  return 0;
}
