// Asking about a URL without downloading what it names: how large the file
// is (a probe), or a small text held in memory (a package index's project
// page, a wheel's METADATA file). What the python_packages plan needs to
// say how much pip will download before it does (installer/net/
// wheel_sizes.hpp).
//
// A probe is an HTTP HEAD request (libcurl's CURLOPT_NOBODY,
// https://curl.se/libcurl/c/CURLOPT_NOBODY.html) whose Content-Length
// (CURLINFO_CONTENT_LENGTH_DOWNLOAD_T) is the size. A server that refuses
// HEAD (403, 405, 501: a presigned GET-only URL) or answers it without a
// length is asked once more with a GET for its first byte (Range:
// bytes=0-0), whose Content-Range names the whole size; the transfer stops
// at the first byte of the body either way. A server that says neither
// gives "size unknown", never a guess.
//
// The rules are download_file()'s (installer/net/download.hpp): https://
// only (http:// with insecure_http), redirects followed to https:// only
// (installer/net/curl_protocols.hpp), the same retries of transient
// failures with back-off, connect and total timeouts, a CA file for tests.
// file:// URLs are answered from the machine's files without libcurl: a
// probe is a stat, a text a read (a folder's text is its index.html, as pip
// reads a file: index).
//
// Several queries are one call so that they share one libcurl handle (and
// its connections: one TLS handshake per server, not per page) and, through
// the helper (installer/net/fetch_helper.hpp), one process.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wslgpu {

struct UrlQuery {
  enum class Kind { probe, text };
  Kind kind = Kind::probe;
  std::string url{};
  std::string accept{};                    // text: the Accept header to send ("" for none)
  std::uint64_t max_bytes = 1024 * 1024;   // text: more than this is an error, not a truncation
};

struct UrlAnswer {
  std::string error{};  // "" when the query worked: then the fields below hold
  // probe: the size, or nullopt when the server does not say it (then
  // why_unknown says so, for a person).
  std::optional<std::uint64_t> size{};
  std::string why_unknown{};
  std::string content_type{};  // text: the Content-Type header ("" for file: URLs)
  std::string body{};          // text
  std::string final_url{};     // where the redirects led (relative links resolve against it)
  // Not asked: the answers already hold QueryOptions::body_budget bytes of
  // text. Ask again (installer/net/fetch_helper.hpp's ask_urls() does).
  bool deferred = false;
};

struct QueryOptions {
  bool insecure_http = false;  // http:// allowed, first and after redirects (tests; a manifest's insecure_http)
  std::string ca_file;         // a PEM file to trust instead of the system's (tests)
  // file:// URLs name files under this folder: the target root, where pip
  // will read them. "" for the machine's own.
  std::string file_root;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(20)};
  std::chrono::milliseconds total_timeout{std::chrono::seconds(60)};  // per attempt
  int retries = 2;                                                    // after a transient failure
  std::chrono::milliseconds backoff{std::chrono::seconds(1)};        // first wait; doubles
  // Once the texts of one call hold this many bytes, the later text queries
  // are deferred: the bodies pass through two processes' memory, which must
  // stay under 16 MiB (docs/performance.md).
  std::uint64_t body_budget = 1024 * 1024;
};

// Answers QUERIES in order, here (libcurl loaded on first use; file:// URLs
// without it). Never throws for a failed query: its answer's error says why
// ("could not ask https://x/y.whl for its size after 1 attempt: The
// requested URL returned error: 404", "... is larger than the 1.0 MiB this
// query allows"). A URL that may not be fetched (download_url_problem()) is
// an error answer too, asked of no server.
std::vector<UrlAnswer> query_urls(const std::vector<UrlQuery>& queries, const QueryOptions& options);

// The same with the libcurl functions CURL instead of the real ones (tests).
struct CurlApi;
std::vector<UrlAnswer> query_urls(const std::vector<UrlQuery>& queries, const QueryOptions& options,
                                  const CurlApi& curl);

// One file:// query, answered from OPTIONS.file_root's files.
UrlAnswer answer_file_query(const UrlQuery& query, const QueryOptions& options);

}  // namespace wslgpu
