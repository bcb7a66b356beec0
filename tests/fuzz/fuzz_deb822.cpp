// deb822 (apt's .sources, dpkg's status, a .deb's control file): any input
// either parses or throws InputError, and what parses survives format()
// then parse() field for field (deb822.hpp promises it).
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/deb822.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

namespace {

bool same_fields(const std::vector<Deb822Stanza>& a, const std::vector<Deb822Stanza>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto &x = a[i].fields(), &y = b[i].fields();
    if (x.size() != y.size()) return false;
    for (std::size_t j = 0; j < x.size(); ++j)
      if (x[j].name != y[j].name || x[j].value != y[j].value) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);
  std::vector<Deb822Stanza> stanzas;
  try {
    stanzas = parse_deb822(text, "fuzz");
  } catch (const InputError&) {
    return 0;
  }
  for (const auto& s : stanzas) {
    FUZZ_CHECK(!s.empty());
    for (const auto& f : s.fields()) FUZZ_CHECK(s.get(f.name).has_value());
  }
  std::string formatted = format_deb822(stanzas);
  std::vector<Deb822Stanza> again;
  try {
    again = parse_deb822(formatted, "fuzz");
  } catch (const InputError&) {
    FUZZ_CHECK(!"format_deb822() wrote text that parse_deb822() rejects");
  }
  FUZZ_CHECK(same_fields(stanzas, again));
  FUZZ_CHECK(format_deb822(again) == formatted);
  for (const auto& s : stanzas)
    for (const auto& f : s.fields())
      for (const auto& w : split_words(f.value))
        FUZZ_CHECK(!w.empty() && w.find_first_of(" \t\r\n") == std::string::npos);
  return 0;
}
