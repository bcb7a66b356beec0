// What wslgpu-setup and its download helper (installer/net/fetch_helper.hpp) say
// to each other: one request as JSON on the helper's standard input, one
// answer as JSON on its standard output ({"sha256": ..., "bytes": ...} or
// {"error": "..."}), and its log lines, "info<TAB>text" or
// "warning<TAB>text", and progress lines, "progress<TAB>DONE<TAB>TOTAL",
// on its standard error.
//
// A request with "op": "query" asks about URLs instead (installer/net/
// url_query.hpp: sizes, small texts); its answer on standard output is
// every text's body, one after the other, then one JSON line,
// {"answers": [...]}, that says how many bytes of them each answer's body
// is. The bodies are written from the answers themselves, not copied into
// one string first, and are not JSON-escaped: an index page can be
// megabytes of HTML, and the helper's memory counts (docs/performance.md).
//
// The helper's side lives here, apart from the caller's, so that the helper
// links neither spdlog nor the process runner: it is kept small.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "installer/net/download.hpp"
#include "installer/net/url_query.hpp"

namespace wslgpu {

// REQUEST as the helper reads it (on_progress and log do not travel).
std::string encode_fetch_request(const DownloadRequest& request);

// The helper's reading of TEXT, a request as encode_fetch_request() writes
// it: the request (without on_progress and log) and whether the caller wants
// progress lines, or nullopt with PROBLEM saying what is wrong (not JSON, a
// key missing, a value of the wrong type or out of range).
struct FetchRequest {
  DownloadRequest request;
  bool progress = false;
};
std::optional<FetchRequest> decode_fetch_request(const std::string& text, std::string& problem);

// The helper's answer for a download that worked, and the caller's reading
// of what the helper wrote on its standard output: the result, or nullopt
// with ERROR set to the helper's own message when it sent one, and left
// empty when the output is no answer at all (the helper died, or a value
// has the wrong type).
std::string encode_fetch_answer(const DownloadResult& result);
std::optional<DownloadResult> decode_fetch_answer(const std::string& text, std::string& error);

// A query request as the helper reads it, and its reading there (nullopt
// with PROBLEM as decode_fetch_request() says it).
struct QueryRequest {
  std::vector<UrlQuery> queries;
  QueryOptions options;
};
std::string encode_query_request(const std::vector<UrlQuery>& queries, const QueryOptions& options);
std::optional<QueryRequest> decode_query_request(const std::string& text, std::string& problem);

// The JSON line that follows the bodies of ANSWERS (their bodies not in it).
std::string encode_query_answer(const std::vector<UrlAnswer>& answers);
// The caller's reading of the helper's whole standard output OUT for a
// query (the bodies, then the JSON line): the answers, with their bodies
// taken from OUT (which is left empty), or nullopt, with ERROR set to the
// helper's own message when it sent one and left empty when OUT is no
// answer (the helper died, the lengths do not add up, a value has another
// type).
std::optional<std::vector<UrlAnswer>> decode_query_answer(std::string& out, std::string& error);

// The helper's side: does what TEXT asks for and returns what to write on
// standard output before a final line break. A download passes its log
// lines to LOG and, when the request asks for progress, the bytes so far
// to PROGRESS (at most ten times a second, and once at the end); a query's
// bodies go to WRITE, each freed once written (or, when WRITE is empty, at
// the start of what is returned). FAILED is set when the answer is an error (a
// malformed request included).
std::string answer_fetch_request(const std::string& text, const decltype(DownloadRequest::log)& log, bool& failed,
                                 const decltype(DownloadRequest::on_progress)& progress = nullptr,
                                 const std::function<void(std::string_view)>& write = nullptr);

// One log line as the helper writes it, without the line break.
std::string fetch_log_line(bool warning, const std::string& message);

// A progress line, "progress<TAB>DONE<TAB>TOTAL" (TOTAL 0 when unknown), and
// its reading (false for any other line).
std::string fetch_progress_line(std::uint64_t done, std::uint64_t total);
bool parse_fetch_progress_line(const std::string& line, std::uint64_t& done, std::uint64_t& total);

}  // namespace wslgpu
