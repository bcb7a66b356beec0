// Network downloads run in a separate, small program: wslgpu-setup-fetch.
//
// Why: libcurl brings 36 libraries and OpenSSL with it. Loaded into
// wslgpu-setup, a download over HTTPS took the whole process to 17.4 MiB
// resident, over the 16 MiB every command must stay under
// (docs/performance.md); in a program that holds nothing else it stays near
// 13 MiB while wslgpu-setup itself stays near 7. It also keeps the parsing
// of what a server sends out of the process that holds the journal and the
// lock.
//
// The helper is installed next to wslgpu-setup (or in
// ../libexec/wslgpu-setup/). It runs download_file() (installer/net/download.hpp:
// the same checks, retries, resumption and hash) for one request; what the
// two say to each other is in installer/net/fetch_protocol.hpp. Its log lines are
// passed on to our log as they arrive.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "installer/net/download.hpp"
#include "installer/net/url_query.hpp"

namespace wslgpu {

// What the python_packages plan calls to ask about URLs
// (installer/net/url_query.hpp): file:// ones are answered here, the rest
// by the helper in one run (or here when it is not installed, with the
// same warning as fetch_file()), again for the ones it deferred, until
// every query has its answer. Never throws but for a caught signal
// (Interrupted): a helper that fails or answers nonsense makes every query
// it was given an error answer that says so.
std::vector<UrlAnswer> ask_urls(const std::vector<UrlQuery>& queries, const QueryOptions& options);

// The same with the helper at HELPER ("" to answer in this process).
std::vector<UrlAnswer> ask_urls_with(const std::string& helper, const std::vector<UrlQuery>& queries,
                                     const QueryOptions& options);

// What the download steps call. file:// URLs are copied here (no libcurl,
// nothing to isolate); network URLs go to the helper, or are fetched here
// when the helper is not installed (a binary copied on its own still works),
// with a warning, once a run, that says so and how to fix it. The download's
// log lines go to spdlog either way; REQUEST.on_progress is called either
// way (the helper sends progress lines).
DownloadResult fetch_file(const DownloadRequest& request);

// Runs the download in the helper at HELPER (a path). Throws StepFailure
// with the helper's message when the download fails, or when the helper
// cannot run or answers nonsense.
DownloadResult fetch_file_with(const std::string& helper, const DownloadRequest& request);

// Where the helper is installed, or "" when it is not.
std::string fetch_helper_path();

// Where fetch_helper_path() looks, in order: next to this program, then in
// ../libexec/wslgpu-setup/ (empty when /proc/self/exe cannot be read).
std::vector<std::string> fetch_helper_candidates();

// The warning fetch_file() gives when the helper is in none of LOOKED_IN.
std::string missing_fetch_helper_warning(const std::vector<std::string>& looked_in);

// What of our environment the helper gets on top of the minimal one every
// program runs with: the proxy settings libcurl reads (http_proxy,
// https_proxy, all_proxy, no_proxy) and where OpenSSL finds certificates
// (SSL_CERT_FILE, SSL_CERT_DIR).
std::map<std::string, std::string> fetch_environment();

}  // namespace wslgpu
