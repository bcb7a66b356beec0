// Manifest loading, the entry point `wslgpu-setup validate FILE` uses
// (load_manifest() on a ManifestSource read from a file), from the input as
// the file's text: TOML parsing, ${var} substitution, `when` conditions and
// every step kind's own keys. Any text gives a Manifest, an InputError
// whose every diagnostic names the file and says something, or a Refusal;
// any other exception escapes and is a finding.
#include <set>

#include "fuzz/fuzz_support.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

// Whether TEXT holds a UTF-8 code point that toml++ 3.3 (Debian 12's) cannot
// test for whitespace: its generated table of non-ASCII whitespace reaches
// __builtin_unreachable() for U+00A1-U+0499, U+2D6E-U+3167 (but U+3000) and
// U+FB06-U+FEFE (marzer/tomlplusplus#190; fixed upstream after 3.3.0). That
// is undefined behaviour in the library, not in our code, so such inputs are
// skipped here (docs/testing.md, "Fuzzing", says so).
bool has_code_point_toml_mishandles(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto b = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
    std::uint32_t cp = 0;
    if (b(i) >= 0xC2 && b(i) <= 0xDF && (b(i + 1) & 0xC0) == 0x80)
      cp = ((b(i) & 0x1Fu) << 6) | (b(i + 1) & 0x3Fu);
    else if ((b(i) & 0xF0) == 0xE0 && (b(i + 1) & 0xC0) == 0x80 && (b(i + 2) & 0xC0) == 0x80)
      cp = ((b(i) & 0x0Fu) << 12) | ((b(i + 1) & 0x3Fu) << 6) | (b(i + 2) & 0x3Fu);
    if ((cp >= 0xA1 && cp < 0x49A) || (cp >= 0x2D6E && cp < 0x3168 && cp != 0x3000) || (cp >= 0xFB06 && cp < 0xFEFF))
      return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (has_code_point_toml_mishandles(std::string_view(reinterpret_cast<const char*>(data), size))) return 0;
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
