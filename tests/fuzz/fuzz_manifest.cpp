// Manifest loading, the entry point `wslgpu-setup validate FILE` uses
// (load_manifest() on a ManifestSource read from a file), from the input as
// the file's text: TOML parsing, ${var} substitution, `when` conditions and
// every step kind's own keys. Any text gives a Manifest, an InputError
// whose every diagnostic names the file and says something, or a Refusal;
// any other exception escapes and is a finding. Any text at all: the loader
// reads TOML through parse_toml() (installer/formats/toml_input.hpp),
// which keeps from toml++ 3.3 the code points its whitespace test is
// undefined for, so the sanitizers see the whole of toml++ too.
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/formats/toml_input.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

// The code points of TEXT's well-formed UTF-8, in order (the rest skipped).
std::vector<char32_t> code_points(std::string_view text) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < text.size();) {
    auto b = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
    auto cont = [&](std::size_t k) { return (b(k) & 0xC0u) == 0x80u; };
    if (b(0) < 0x80) {
      out.push_back(b(0));
      i += 1;
    } else if (b(0) >= 0xC2 && b(0) <= 0xDF && cont(1)) {
      out.push_back(((b(0) & 0x1Fu) << 6) | (b(1) & 0x3Fu));
      i += 2;
    } else if ((b(0) & 0xF0u) == 0xE0 && cont(1) && cont(2)) {
      out.push_back(((b(0) & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu));
      i += 3;
    } else {
      i += 1;
    }
  }
  return out;
}

// parse_toml()'s stand-ins (U+0500-U+07FF, U+E000-U+F8FF) never leak: a
// code point of those ranges in what it returns or throws is one the input
// holds, or may have written as an escape (backslash u or U). The input's
// code points are gathered once per input, and only when an output has one
// of those ranges (most have none): gathered again for every string of the
// parsed table, they took most of each execution.
class StandInCheck {
 public:
  explicit StandInCheck(std::string_view input)
      : input_(input),
        escapes_(input.find("\\u") != std::string_view::npos || input.find("\\U") != std::string_view::npos) {}

  // Whether check() can fail for this input: not when it escapes (then every
  // output is let pass), nor when it is all ASCII, as parse_toml() makes
  // stand-ins only for code points above U+00A0, and so a code point of
  // the stand-ins' ranges in an output can only come from an escape.
  bool can_fail() const {
    if (escapes_) return false;
    for (char c : input_)
      if (static_cast<unsigned char>(c) >= 0x80) return true;
    return false;
  }

  void check(std::string_view output) {
    for (char32_t c : code_points(output)) {
      const bool stand_in_range = (c >= 0x500 && c <= 0x7FF) || (c >= 0xE000 && c <= 0xF8FF);
      if (!stand_in_range || escapes_) continue;
      if (!held_) {
        held_.emplace();
        for (char32_t h : code_points(input_)) held_->insert(h);
      }
      FUZZ_CHECK(held_->count(c));
    }
  }

 private:
  std::string_view input_;
  bool escapes_;
  std::optional<std::set<char32_t>> held_;
};

void check_strings(StandInCheck& stand_ins, const toml::node& node) {
  if (const auto* s = node.as_string()) {
    stand_ins.check(s->get());
  } else if (const auto* t = node.as_table()) {
    for (auto&& [key, value] : *t) check_strings(stand_ins, value);
  } else if (const auto* a = node.as_array()) {
    for (const auto& value : *a) check_strings(stand_ins, value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // parse_toml() on its own, for the stand-in check, only where that check
  // can fail: load_manifest() below parses the same text again. Measured
  // (60 s from the long-run corpus, 70 % of whose bytes are in inputs the
  // check cannot fail for, inputs of at most 4 KB): 921 executions a second
  // with the parse for every input, 1,289 without the vacuous ones.
  StandInCheck stand_ins(input);
  if (stand_ins.can_fail()) {
    try {
      check_strings(stand_ins, parse_toml(input, "fuzz.toml"));
    } catch (const toml::parse_error& e) {
      stand_ins.check(e.description());
    }
  }
  static const HostFacts host = testing::fake_wsl_host();
  ManifestSource source{"fuzz.toml", fuzz::text_of(data, size), false};
  try {
    Manifest m = load_manifest(source, {}, host);
    std::set<std::string> ids;
    for (const auto& s : m.steps) {
      FUZZ_CHECK(!s.id.empty() && !s.kind.empty() && s.step != nullptr);
      FUZZ_CHECK(ids.insert(s.id).second);  // ids are unique
    }
  } catch (const InputError& e) {
    FUZZ_CHECK(!e.diagnostics().empty());
    for (const auto& d : e.diagnostics()) FUZZ_CHECK(!d.message.empty() && !d.pos.file.empty());
  } catch (const Refusal&) {
  }
  return 0;
}
