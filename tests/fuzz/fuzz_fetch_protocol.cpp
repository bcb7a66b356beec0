// What wslgpu-setup and its download helper wslgpu-setup-fetch say to each
// other (installer/net/fetch_protocol.hpp), read on both sides: the request
// (helper), the answer (caller) and the progress lines (caller). Nothing
// here throws; what decodes encodes back to the same values.
#include "fuzz/fuzz_support.hpp"
#include "installer/net/fetch_protocol.hpp"

using namespace wslgpu;

namespace {

bool same_request(const FetchRequest& a, const FetchRequest& b) {
  const DownloadRequest &x = a.request, &y = b.request;
  return a.progress == b.progress && x.url == y.url && x.sha256 == y.sha256 && x.host_path == y.host_path &&
         x.insecure_http == y.insecure_http && x.checked_by_caller == y.checked_by_caller &&
         x.max_bytes == y.max_bytes && x.connect_timeout == y.connect_timeout && x.total_timeout == y.total_timeout &&
         x.retries == y.retries && x.backoff == y.backoff;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);

  std::string problem;
  if (auto request = decode_fetch_request(text, problem)) {
    DownloadRequest r = request->request;
    if (request->progress) r.on_progress = [](std::uint64_t, std::uint64_t) {};
    auto again = decode_fetch_request(encode_fetch_request(r), problem);
    FUZZ_CHECK(again && same_request(*request, *again));
  } else {
    FUZZ_CHECK(!problem.empty());
  }

  std::string error;
  if (auto result = decode_fetch_answer(text, error)) {
    FUZZ_CHECK(error.empty());
    auto again = decode_fetch_answer(encode_fetch_answer(*result), error);
    FUZZ_CHECK(again && again->bytes == result->bytes && again->sha256 == result->sha256 &&
               again->attempts == result->attempts && again->resumed == result->resumed);
  }

  for (std::string_view line : fuzz::lines_with_ends(text)) {
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    std::uint64_t done = 0, total = 0;
    if (parse_fetch_progress_line(std::string(line), done, total)) {
      std::uint64_t done2 = 1, total2 = 1;
      FUZZ_CHECK(parse_fetch_progress_line(fetch_progress_line(done, total), done2, total2));
      FUZZ_CHECK(done2 == done && total2 == total);
    }
    std::string log = fetch_log_line(line.size() % 2 == 0, std::string(line));
    FUZZ_CHECK(log.find('\n') == std::string::npos);
  }
  return 0;
}
