// What a wheel's METADATA asks of others (installer/formats/
// python_requirement.hpp): Requires-Dist lines, PEP 440 versions and
// specifiers, PEP 508 markers, as servers send them to the python_packages
// plan. Each input line is read as all three. Never throws; and:
//   1. a version written normalized reads back as an equal version, whose
//      own normalized form is the same text, and it equals itself;
//   2. a specifier written normalized reads back with the same text;
//   3. a parse fails exactly when it says why;
//   4. a requirement's marker evaluates, with and without an extra.
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/python_requirement.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);
  PythonTarget target;
  target.minor = 12;
  MarkerEnvironment env = marker_environment(target, "3.12.3");
  for (std::string_view line : fuzz::lines_with_ends(text)) {
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (auto v = parse_python_version(line)) {
      auto again = parse_python_version(v->str());
      FUZZ_CHECK(again.has_value());
      FUZZ_CHECK(compare_python_versions(*v, *again) == 0);
      FUZZ_CHECK(again->str() == v->str());
      (void)version_satisfies(*v, VersionSpecifier{}, PreReleases::allowed);
    }
    std::string error;
    auto spec = parse_version_specifier(line, error);
    FUZZ_CHECK(spec.has_value() == error.empty());
    if (spec) {
      std::string again_error;
      auto again = parse_version_specifier(spec->str(), again_error);
      FUZZ_CHECK(again.has_value());
      FUZZ_CHECK(again->str() == spec->str());
    }
    error.clear();
    auto requirement = parse_python_requirement(line, error);
    FUZZ_CHECK(requirement.has_value() == error.empty());
    if (requirement) {
      (void)requirement_applies(*requirement, env);
      (void)requirement_applies(*requirement, env, {"test"});
    }
  }
  return 0;
}
