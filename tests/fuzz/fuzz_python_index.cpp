// What a package index serves (installer/formats/python_index.hpp): PEP 691
// JSON and PEP 503 HTML project pages and find-links listings, which the
// python_packages plan reads from servers to estimate its downloads. Each
// input is read both ways, against a fixed page URL. Never throws; and:
//   1. JSON gives a page exactly when it gives no error;
//   2. every file has a URL without a #fragment, and from HTML a URL and a
//      file name that are not empty;
//   3. hashes are lowercase hex;
//   4. resolving a URL again against the same base changes nothing (the
//      input's first line is also read as a reference).
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/python_index.hpp"

using namespace wslgpu;

namespace {

const std::string kPage = "https://pypi.example/simple/torch/";

bool lower_hex(const std::string& s) { return s.find_first_not_of("0123456789abcdef") == std::string::npos; }

void check_files(const IndexPage& page, bool from_html) {
  for (const IndexFile& f : page.files) {
    FUZZ_CHECK(!f.url.empty() || !from_html);
    FUZZ_CHECK(f.url.find('#') == std::string::npos);
    FUZZ_CHECK(lower_hex(f.sha256));
    FUZZ_CHECK(lower_hex(f.metadata_sha256));
    FUZZ_CHECK(f.metadata_sha256.empty() || f.has_metadata);
    if (from_html) FUZZ_CHECK(!f.filename.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);
  std::string error;
  auto page = parse_index_json(text, kPage, error);
  FUZZ_CHECK(page.has_value() == error.empty());
  if (page) check_files(*page, false);
  check_files(parse_index_html(text, kPage), true);
  (void)index_page_is_json("", text);

  std::string reference = text.substr(0, text.find('\n'));
  std::string once = resolve_url(kPage, reference);
  FUZZ_CHECK(resolve_url(kPage, once) == once);
  return 0;
}
