// installer/net/: downloads (libcurl, the wslgpu-setup-fetch helper and its
// protocol, hashing on the way). Includes system/ and formats/.
//
// Fetching a file with libcurl, the way a tool that runs unattended as root
// must: HTTPS only (plain HTTP only when the manifest says insecure_http,
// and redirects may not leave HTTPS either), a SHA-256 that is required and
// computed while the bytes stream in (no second pass over a 2 GB file),
// retries with back-off on errors that may go away (a dropped connection, a
// timeout, HTTP 5xx), resumption of a partial file with an HTTP Range
// request, connect and total timeouts, and a log line per 10 %.
//
// The file is written to PATH.part and renamed to PATH only once its hash
// matches; a mismatch deletes it and names both hashes. `file:` URLs are
// read from the machine running the tool (tests and offline mirrors), by a
// plain copy: libcurl is loaded only for network URLs.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace wslgpu {

struct DownloadRequest {
  std::string url;
  std::string sha256;     // expected digest, lowercase hex; required unless checked_by_caller
  // The caller checks the bytes itself instead of a SHA-256: a signing key
  // pinned by its OpenPGP fingerprint, whose file changes whenever the
  // vendor extends the key's expiry. Then SHA256 is not needed, the file is
  // always fetched from its first byte (nothing says a partial one is of the
  // same file), and it may hold at most MAX_BYTES: without a hash, a limit
  // is what stops a wrong URL from filling the disk.
  bool checked_by_caller = false;
  std::uint64_t max_bytes = 0;  // 0: no limit (only with a SHA-256)
  // Retries and progress go to the debug log only, for a caller that reports
  // a failure itself (a signing key fetched during plan: the plan says what
  // went wrong, and a warning per retry would only repeat it).
  bool quiet = false;
  std::string host_path;  // destination on the machine running the tool
  bool insecure_http = false;
  // The certificate authorities to trust, a PEM file, instead of the
  // system's; "" for the system's. For tests against a loopback HTTPS server
  // with a certificate of its own: no manifest key sets it.
  std::string ca_file;
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(30)};
  std::chrono::milliseconds total_timeout{std::chrono::minutes(30)};  // per attempt; 0: none
  // An attempt that receives less than 1 KiB/s for this long is given up
  // (and the next one resumes where it stopped); 0: no such limit. What a
  // large wheel sets instead of a total timeout: a slow link that keeps
  // moving is never cut off, a dead one is noticed.
  std::chrono::milliseconds stall_timeout{0};
  // Stops the download when it becomes true, as a signal would, keeping the
  // partial file; download_file() then throws StepFailure ("stopped").
  // For a set of downloads that gives up the rest when one fails.
  const std::atomic<bool>* cancel = nullptr;
  int retries = 3;                                   // further attempts after a transient failure
  std::chrono::milliseconds backoff{std::chrono::seconds(1)};  // first wait; doubles, at most 30 s
  // Called as bytes arrive (done, total; total 0 when unknown), the bytes
  // in the file so far. The first call comes before any new byte and gives
  // where the file starts: the bytes an earlier run left when the download
  // resumes them, else 0 (a later count below it means the transfer
  // started again). Optional.
  std::function<void(std::uint64_t, std::uint64_t)> on_progress;
  // Where progress (every 10 %), retries and the result are reported; warning
  // is true for retries. Optional. A callback rather than spdlog, so that
  // the download helper (installer/net/fetch_helper.hpp) needs no logging
  // library: it is kept as small as it can be.
  std::function<void(bool warning, const std::string& message)> log;
};

struct DownloadResult {
  std::uint64_t bytes = 0;
  std::string sha256;
  int attempts = 0;
  bool resumed = false;  // some bytes came from an earlier partial file
};

// Downloads REQUEST.url to REQUEST.host_path. Throws StepFailure when the
// URL is not allowed, when libcurl cannot be kept on HTTPS for the transfer
// and its redirects (installer/net/curl_protocols.hpp; nothing is fetched
// then), when every attempt failed (with curl's reason; a redirect that
// leaves HTTPS is one, and the message names where it led), on a hash
// mismatch (after deleting the file), and when a checked_by_caller file
// grows past max_bytes (deleted too). A failure that fetched nothing leaves
// no PATH.part behind.
DownloadResult download_file(const DownloadRequest& request);

// The same with the libcurl functions CURL instead of the real ones (tests
// give it fakes, to stand for a libcurl this machine does not have).
struct CurlApi;
DownloadResult download_file(const DownloadRequest& request, const CurlApi& curl);

// Why URL may not be fetched ("" when it may): only https://, file:// and,
// with INSECURE_HTTP, http://.
std::string download_url_problem(const std::string& url, bool insecure_http);

// True when TEXT is 64 hexadecimal digits.
bool is_sha256_hex(const std::string& text);

// SHA-256 of a file on the machine running the tool, streamed.
std::string sha256_of_host_file(const std::string& host_path);

}  // namespace wslgpu
