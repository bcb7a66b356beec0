// CDI specs (installer/formats/cdi_spec.hpp): what the cdi_spec step reads
// from a vendor's program and from /etc/cdi, and doctor from /etc/cdi. For
// any input, read_cdi_spec either throws CdiSpecError with a place inside
// the text or returns a spec whose fields agree with its data; the writer's
// YAML reads back as the same data, and a valid spec's as a valid spec;
// every host path is one the spec names.
// (yaml-cpp itself is not instrumented: only what our code does with it is.)
#include <algorithm>
#include <optional>

#include "fuzz/fuzz_support.hpp"
#include "installer/formats/cdi_spec.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A spec is a few kilobytes (NVIDIA's WSL spec about 3), and yaml-cpp's own time
  // grows fast with size: a 5 KB mutation of a JSON document took minutes.
  if (size > 4 * 1024) return 0;
  std::string text = fuzz::text_of(data, size);
  std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  nlohmann::json doc;
  try {
    doc = cdi_spec_to_json(text);
  } catch (const CdiSpecError& e) {
    FUZZ_CHECK(e.line() <= lines + 1);
    return 0;
  }
  std::optional<CdiSpec> spec;
  try {
    spec = read_cdi_spec(text);
    FUZZ_CHECK(spec->data == doc);
  } catch (const CdiSpecError& e) {
    FUZZ_CHECK(e.line() <= lines + 1);
  }
  // Whatever the document, the writer's text reads back as the same data,
  // and a spec's as the same spec: read once, as a spec where the input is
  // one (each read parses the YAML twice, to count its documents and to
  // load the first; a valid spec was read four times).
  std::string written = write_cdi_spec(doc);
  nlohmann::json again = spec ? read_cdi_spec(written).data : cdi_spec_to_json(written);
  if (again != doc) fuzz::show_difference(doc.dump(), again.dump());
  FUZZ_CHECK(again == doc);
  if (!spec) return 0;
  FUZZ_CHECK(!spec->devices.empty());
  FUZZ_CHECK(cdi_kind_problem(spec->kind).empty());
  std::string dumped = doc.dump();
  for (const auto& p : cdi_host_paths(*spec)) {
    FUZZ_CHECK(!p.empty());
    FUZZ_CHECK(dumped.find(nlohmann::json(p).dump()) != std::string::npos);
  }
  std::string minimum = cdi_minimum_version(doc);
  const auto& known = cdi_known_versions();
  FUZZ_CHECK(std::find(known.begin(), known.end(), minimum) != known.end());
  return 0;
}
