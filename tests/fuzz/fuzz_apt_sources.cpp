// apt's sources, each input read both as a one-line *.list file and as a
// deb822 *.sources file (installer/formats/apt_sources.hpp). A broken line
// is a problem, never an exception. Removing entries keeps every other line
// byte for byte: removing none gives the text back, and removing one gives
// a subsequence of the file's lines that holds one entry fewer.
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/apt_sources.hpp"

using namespace wslgpu;

namespace {

// Whether every line of PART is a line of WHOLE, in order (the last line of
// WHOLE may have lost nothing but is compared without its line end too).
bool is_line_subsequence(std::string_view part, std::string_view whole) {
  auto p = fuzz::lines_with_ends(part), w = fuzz::lines_with_ends(whole);
  std::size_t j = 0;
  for (auto line : p) {
    while (j < w.size() && w[j] != line) ++j;
    if (j == w.size()) return false;
    ++j;
  }
  return true;
}

void check(const std::string& path, const std::string& text) {
  AptSourcesFile file = parse_apt_sources(path, text);
  FUZZ_CHECK(apt_sources_without(file, {}) == text);
  for (std::size_t i = 0; i < file.entries.size(); ++i) {
    const AptSourceEntry& e = file.entries[i];
    FUZZ_CHECK(e.index == i);
    FUZZ_CHECK(e.first_line >= 1 && e.first_line <= e.last_line);
    (void)e.where();
    // has_uri() goes through every URI of the entry: asked for each, it was
    // quadratic too (a stanza's URIs field may hold hundreds of words).
    if (!e.uris.empty()) FUZZ_CHECK(e.has_uri(normalize_apt_uri(e.uris[text.size() % e.uris.size()])));
  }
  // One removal per execution. Each re-reads the whole file, so removing
  // every entry in turn made an execution quadratic in the input: in a long
  // run, whose inputs grow to dozens of entries, `perf record` put most of
  // each execution in those re-reads, and the rate fell to 930 a second.
  // Which entry is chosen by the input's length, so that the millions of
  // inputs of a run remove one at every place (first, between two, last)
  // and the corpus keeps the inputs whose removal reaches new code.
  if (file.entries.empty()) return;
  const std::size_t i = text.size() % file.entries.size();
  std::string rest = apt_sources_without(file, {i});
  FUZZ_CHECK(is_line_subsequence(rest, text));
  FUZZ_CHECK(parse_apt_sources(path, rest).entries.size() == file.entries.size() - 1);
  auto removed = remove_apt_source_entries(file, {i});
  if (removed) FUZZ_CHECK(*removed == rest);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);
  check("/etc/apt/sources.list.d/fuzz.list", text);
  check("/etc/apt/sources.list.d/fuzz.sources", text);
  (void)apt_reads_source_file_name(text);
  return 0;
}
