// The JSON reader and merge of daemon.json (installer/formats/json_text.hpp),
// which promise a strict reader and a merge that changes only what it must:
//   1. only InputError escapes, from parse and merge alike;
//   2. what parses, nlohmann's own parser reads as the same value;
//   3. merging {} gives the text back byte for byte;
//   4. merging a patch gives a text whose value is the expected merge (an
//      object merges into an object, anything else replaces), or an
//      InputError exactly when the patch would merge an object into a key
//      that holds something else; merging the same patch again changes nothing.
// The patches: nvidia-ctk's runtimes.nvidia, and some built on the
// document's own first key, so that existing members are replaced and
// merged into, not only appended to.
#include <optional>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_support.hpp"
#include "installer/formats/json_text.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;
using nlohmann::json;

namespace {

// What merge_json_text() should make of HAVE; nullopt where it must refuse.
std::optional<json> expected_merge(json have, const json& patch) {
  for (const auto& [key, want] : patch.items()) {
    if (want.is_object() && have.contains(key)) {
      if (!have[key].is_object()) return std::nullopt;
      auto inner = expected_merge(have[key], want);
      if (!inner) return std::nullopt;
      have[key] = *inner;
    } else {
      have[key] = want;
    }
  }
  return have;
}

bool blank(const std::string& text) { return text.find_first_not_of(" \t\r\n") == std::string::npos; }

void check_merge(const std::string& text, const json& have, const json& patch) {
  auto want = expected_merge(have, patch);
  JsonMerge merged;
  try {
    merged = merge_json_text(text, patch, "fuzz");
  } catch (const InputError&) {
    FUZZ_CHECK(!want);
    return;
  }
  FUZZ_CHECK(want);
  json got;
  try {
    got = json::parse(merged.text);
  } catch (const json::exception&) {
    FUZZ_CHECK(!"the merged text does not parse");
  }
  FUZZ_CHECK(got == *want);
  FUZZ_CHECK(parse_json_text(merged.text, "fuzz") == *want);
  FUZZ_CHECK(merged.changes.empty() == (merged.text == text));
  // Converged: a second merge of the same patch changes nothing.
  JsonMerge again = merge_json_text(merged.text, patch, "fuzz");
  FUZZ_CHECK(again.text == merged.text);
  FUZZ_CHECK(again.changes.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);
  const json nvidia = {{"runtimes", {{"nvidia", {{"args", json::array()}, {"path", "nvidia-container-runtime"}}}}}};

  json have;
  try {
    have = parse_json_text(text, "fuzz");
  } catch (const InputError&) {
    if (blank(text)) {
      check_merge(text, json::object(), nvidia);
      FUZZ_CHECK(merge_json_text(text, json::object(), "fuzz").text == text);
      return 0;
    }
    try {
      merge_json_text(text, nvidia, "fuzz");
    } catch (const InputError&) {
      return 0;
    }
    FUZZ_CHECK(!"merge accepted a text that parse refused");
  }

  json theirs;
  try {
    theirs = json::parse(text);
  } catch (const json::exception&) {
    FUZZ_CHECK(!"nlohmann refuses a text parse_json_text accepted");
  }
  FUZZ_CHECK(theirs == have);

  if (!have.is_object()) {
    try {
      merge_json_text(text, nvidia, "fuzz");
    } catch (const InputError&) {
      return 0;
    }
    FUZZ_CHECK(!"merge accepted a top level that is not an object");
  }

  JsonMerge none = merge_json_text(text, json::object(), "fuzz");
  FUZZ_CHECK(none.text == text);
  FUZZ_CHECK(none.changes.empty());

  check_merge(text, have, nvidia);
  std::string first = have.empty() ? std::string("debug") : have.begin().key();
  check_merge(text, have, {{first, "replaced"}});
  check_merge(text, have, {{first, {{"added", {1, {{"deeper", nullptr}}, json::array()}}, {"empty", json::object()}}}});
  check_merge(text, have, {{first, json::object()}, {"zz-last", {{"a", {{"b", 2.5}}}}}});
  return 0;
}
