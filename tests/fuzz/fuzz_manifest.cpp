// Manifest loading, the entry point `wslgpu-setup validate FILE` uses
// (load_manifest() on a ManifestSource read from a file), from the input as
// the file's text: TOML parsing, ${var} substitution, `when` conditions and
// every step kind's own keys. Any text gives a Manifest, an InputError
// whose every diagnostic names the file and says something, or a Refusal;
// any other exception escapes and is a finding. Any text at all: the loader
// reads TOML through parse_toml() (installer/manifest/toml_input.hpp),
// which keeps from toml++ 3.3 the code points its whitespace test is
// undefined for, so the sanitizers see the whole of toml++ too.
#include <set>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_support.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/manifest/toml_input.hpp"
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
// holds, or may have written as an escape (backslash u or U).
void check_no_stand_in_leaks(std::string_view input, std::string_view output) {
  static thread_local std::set<char32_t> held;
  held.clear();
  for (char32_t c : code_points(input)) held.insert(c);
  const bool escapes = input.find("\\u") != std::string_view::npos || input.find("\\U") != std::string_view::npos;
  for (char32_t c : code_points(output)) {
    bool stand_in_range = (c >= 0x500 && c <= 0x7FF) || (c >= 0xE000 && c <= 0xF8FF);
    FUZZ_CHECK(!stand_in_range || escapes || held.count(c));
  }
}

void check_strings(std::string_view input, const toml::node& node) {
  if (const auto* s = node.as_string()) {
    check_no_stand_in_leaks(input, s->get());
  } else if (const auto* t = node.as_table()) {
    for (auto&& [key, value] : *t) check_strings(input, value);
  } else if (const auto* a = node.as_array()) {
    for (const auto& value : *a) check_strings(input, value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    check_strings(input, parse_toml(input, "fuzz.toml"));
  } catch (const toml::parse_error& e) {
    check_no_stand_in_leaks(input, e.description());
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
