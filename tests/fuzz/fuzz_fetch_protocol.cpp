// What wslgpu-setup and its download helper wslgpu-setup-fetch say to each
// other (installer/net/fetch_protocol.hpp), read on both sides: the request
// (helper), the answer (caller) and the progress lines (caller), for a
// download and for a query about URLs. Nothing here throws; what decodes
// encodes back to the same values.
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

  // The query operation (installer/net/url_query.hpp) both ways too.
  if (auto query = decode_query_request(text, problem)) {
    auto again = decode_query_request(encode_query_request(query->queries, query->options), problem);
    FUZZ_CHECK(again && again->queries.size() == query->queries.size());
    for (std::size_t i = 0; i < query->queries.size(); ++i) {
      const UrlQuery &a = query->queries[i], &b = again->queries[i];
      FUZZ_CHECK(a.kind == b.kind && a.url == b.url && a.accept == b.accept && a.max_bytes == b.max_bytes);
    }
    const QueryOptions &x = query->options, &y = again->options;
    FUZZ_CHECK(x.insecure_http == y.insecure_http && x.ca_file == y.ca_file && x.file_root == y.file_root &&
               x.connect_timeout == y.connect_timeout && x.total_timeout == y.total_timeout &&
               x.retries == y.retries && x.backoff == y.backoff && x.body_budget == y.body_budget);
  }
  std::string out = text;
  if (auto answers = decode_query_answer(out, error)) {
    FUZZ_CHECK(error.empty() && out.empty());
    std::string bodies;
    for (const auto& a : *answers) bodies += a.body;
    std::string written = bodies + "\n" + encode_query_answer(*answers) + "\n";
    auto again = decode_query_answer(written, error);
    FUZZ_CHECK(again && again->size() == answers->size());
    for (std::size_t i = 0; i < answers->size(); ++i) {
      const UrlAnswer &a = (*answers)[i], &b = (*again)[i];
      FUZZ_CHECK(a.error == b.error && a.deferred == b.deferred && a.size == b.size && a.body == b.body &&
                 a.content_type == b.content_type && a.final_url == b.final_url && a.why_unknown == b.why_unknown);
    }
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
