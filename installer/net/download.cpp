#include "installer/net/download.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "installer/formats/sha256.hpp"
#include "installer/net/background_sha256.hpp"
#include "installer/net/curl_api.hpp"
#include "installer/net/curl_protocols.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"

namespace wslgpu {

bool is_sha256_hex(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
}

std::string download_url_problem(const std::string& url, bool insecure_http) {
  auto starts = [&](const char* p) { return url.rfind(p, 0) == 0; };
  if (starts("https://") && url.size() > 8) return "";
  if (starts("file:///")) return "";
  if (starts("http://")) {
    if (insecure_http) return "";
    return "\"" + url +
           "\" is plain HTTP, which anyone on the way can tamper with; use an https:// URL, or set "
           "insecure_http = true if the server offers nothing else (the SHA-256 check still applies)";
  }
  return "\"" + url + "\" is not an https:// or file:/// URL";
}

std::string sha256_of_host_file(const std::string& host_path) {
  int fd = ::open(host_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw StepFailure("cannot read " + host_path + ": " + std::strerror(errno));
  Sha256 h;
  char buf[65536];
  ssize_t got;
  while ((got = ::read(fd, buf, sizeof buf)) > 0) h.update(std::string_view(buf, static_cast<std::size_t>(got)));
  int e = errno;
  ::close(fd);
  if (got < 0) throw StepFailure("cannot read " + host_path + ": " + std::strerror(e));
  return h.hex_digest();
}

namespace {

std::string human_bytes(std::uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

// Reports "URL: MESSAGE" through the request's log callback, if it has one.
void say(const DownloadRequest& request, const std::string& message, bool warning = false) {
  if (request.log) request.log(warning, request.url + ": " + message);
}

// One download in progress: the partial file, its hash so far, what the
// current attempt has seen.
struct Transfer {
  const DownloadRequest* request = nullptr;
  const CurlApi* api = nullptr;
  CURL* curl = nullptr;
  int fd = -1;
  std::uint64_t written = 0;        // bytes in the .part file (and in the hash)
  std::uint64_t attempt_start = 0;  // `written` when this attempt began (its Range offset)
  bool first_write = true;
  BackgroundSha256 hash;  // hashed on a second thread while we receive and write
  int last_decile = -1;
  std::uint64_t last_logged = 0;
  std::string write_problem;
};

void restart_from_zero(Transfer& t) {
  if (::ftruncate(t.fd, 0) != 0 || ::lseek(t.fd, 0, SEEK_SET) < 0)
    t.write_problem = std::string("cannot truncate the partial file: ") + std::strerror(errno);
  t.written = 0;
  t.attempt_start = 0;
  t.hash.reset();
  t.last_decile = -1;
}

size_t on_data(char* ptr, size_t size, size_t nmemb, void* userdata) {
  auto& t = *static_cast<Transfer*>(userdata);
  std::size_t n = size * nmemb;
  if (t.first_write) {
    t.first_write = false;
    long code = 0;
    t.api->easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &code);
    // A server that ignores Range sends the whole file again with 200.
    if (t.attempt_start > 0 && code == 200) {
      say(*t.request, "the server does not resume downloads; starting again from the beginning");
      restart_from_zero(t);
      if (!t.write_problem.empty()) return 0;
    }
  }
  const std::uint64_t limit = t.request->max_bytes;
  if (limit > 0 && t.written + n > limit) {
    t.write_problem = "the file is larger than the " + human_bytes(limit) + " this download allows; it was not kept";
    return 0;
  }
  std::size_t done = 0;
  while (done < n) {
    ssize_t w = ::write(t.fd, ptr + done, n - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      t.write_problem = std::string("cannot write the downloaded file: ") + std::strerror(errno);
      return 0;
    }
    done += static_cast<std::size_t>(w);
  }
  t.hash.update(std::string_view(ptr, n));
  t.written += n;
  return n;
}

int on_progress(void* userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t, curl_off_t) {
  auto& t = *static_cast<Transfer*>(userdata);
  // A caught signal stops the transfer: the partial file is kept for the
  // next run to resume.
  if (interrupt_signal() || (t.request->cancel && t.request->cancel->load())) return 1;
  std::uint64_t total = dltotal > 0 ? t.attempt_start + static_cast<std::uint64_t>(dltotal) : 0;
  std::uint64_t now = t.attempt_start + static_cast<std::uint64_t>(std::max<curl_off_t>(dlnow, 0));
  if (t.request->on_progress) t.request->on_progress(now, total);
  if (total > 0) {
    int decile = static_cast<int>(now * 10 / total);
    if (decile > t.last_decile) {
      if (t.last_decile >= 0 || decile > 0)
        say(*t.request, std::to_string(decile * 10) + "% (" + human_bytes(now) + " of " + human_bytes(total) + ")");
      t.last_decile = decile;
    }
  } else if (now >= t.last_logged + 10 * 1024 * 1024) {
    say(*t.request, human_bytes(now) + " so far");
    t.last_logged = now;
  }
  return 0;
}

// Fetches REQUEST.url with libcurl into T, after the bytes T already holds
// (an earlier run's partial file), with retries and resumption. Throws
// StepFailure when no attempt succeeded.
void fetch_with_curl(Transfer& t, const std::string& expected, const std::string& part, DownloadResult& result,
                     const CurlApi& lc) {
  const DownloadRequest& request = *t.request;
  t.api = &lc;
  // Resume: what an earlier run left in PATH.part is hashed once, then the
  // rest is requested from where it ends.
  if (!request.checked_by_caller) {
    char buf[65536];
    ssize_t got;
    while ((got = ::read(t.fd, buf, sizeof buf)) > 0) {
      t.hash.update(std::string_view(buf, static_cast<std::size_t>(got)));
      t.written += static_cast<std::uint64_t>(got);
    }
    if (got < 0) throw StepFailure("cannot read " + part + ": " + std::strerror(errno));
    if (t.written > 0) {
      result.resumed = true;
      say(request, "resuming after " + human_bytes(t.written) + " already downloaded");
    }
  }
  // The first count, before any new byte: where the file starts (see
  // DownloadRequest::on_progress).
  if (request.on_progress) request.on_progress(t.written, 0);

  std::unique_ptr<CURL, void (*)(CURL*)> curl(lc.easy_init(), lc.easy_cleanup);
  if (!curl) throw StepFailure("cannot start libcurl");
  t.curl = curl.get();
  // Checked, not assumed: an older libcurl ignores the options a newer one
  // understands, and would then follow a redirect to http:// or ftp://.
  std::string protocols_problem = restrict_curl_protocols(lc, t.curl, request.insecure_http);
  if (!protocols_problem.empty()) throw StepFailure("refusing to download " + request.url + ": " + protocols_problem);
  char errbuf[CURL_ERROR_SIZE];
  lc.easy_setopt(t.curl, CURLOPT_URL, request.url.c_str());
  if (!request.ca_file.empty()) lc.easy_setopt(t.curl, CURLOPT_CAINFO, request.ca_file.c_str());
  lc.easy_setopt(t.curl, CURLOPT_FOLLOWLOCATION, 1L);
  lc.easy_setopt(t.curl, CURLOPT_MAXREDIRS, 10L);
  lc.easy_setopt(t.curl, CURLOPT_FAILONERROR, 1L);
  lc.easy_setopt(t.curl, CURLOPT_NOSIGNAL, 1L);
  lc.easy_setopt(t.curl, CURLOPT_USERAGENT, "wslgpu-setup/" WSLGPU_VERSION);
  lc.easy_setopt(t.curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout.count()));
  lc.easy_setopt(t.curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout.count()));  // 0: none
  if (request.stall_timeout.count() > 0) {
    lc.easy_setopt(t.curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
    lc.easy_setopt(t.curl, CURLOPT_LOW_SPEED_TIME,
                   static_cast<long>(std::max<long long>(1, request.stall_timeout.count() / 1000)));
  }
  lc.easy_setopt(t.curl, CURLOPT_WRITEFUNCTION, on_data);
  lc.easy_setopt(t.curl, CURLOPT_WRITEDATA, &t);
  lc.easy_setopt(t.curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  lc.easy_setopt(t.curl, CURLOPT_XFERINFODATA, &t);
  lc.easy_setopt(t.curl, CURLOPT_NOPROGRESS, 0L);
  // 512 KiB per receive instead of libcurl's 16 KiB: a 32nd of the recv and
  // write calls. With the hash on its own thread this made the step as fast
  // as `curl -o` on loopback (docs/performance.md, e).
  lc.easy_setopt(t.curl, CURLOPT_BUFFERSIZE, 512L * 1024);
  lc.easy_setopt(t.curl, CURLOPT_ERRORBUFFER, errbuf);

  std::chrono::milliseconds wait = request.backoff;
  std::string last_error;
  bool done = false;
  bool restarted = false;  // the partial file was thrown away once already
  for (int attempt = 0; attempt <= request.retries; ++attempt) {
    result.attempts = attempt + 1;
    if (request.checked_by_caller) restart_from_zero(t);  // never resumed: see DownloadRequest
    if (attempt > 0) {
      say(request,
          last_error + "; trying again in " + std::to_string(wait.count()) + " ms (attempt " +
              std::to_string(attempt + 1) + " of " + std::to_string(request.retries + 1) + ")",
          true);
      std::this_thread::sleep_for(wait);
      wait = std::min<std::chrono::milliseconds>(wait * 2, std::chrono::seconds(30));
    }
    t.attempt_start = t.written;
    t.first_write = true;
    t.last_decile = -1;
    errbuf[0] = '\0';
    if (::lseek(t.fd, static_cast<off_t>(t.written), SEEK_SET) < 0)
      throw StepFailure("cannot seek in " + part + ": " + std::strerror(errno));
    lc.easy_setopt(t.curl, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(t.written));
    CURLcode code = lc.easy_perform(t.curl);
    long status = 0;
    lc.easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &status);
    if (!t.write_problem.empty()) throw StepFailure(request.url + ": " + t.write_problem);
    if (code == CURLE_ABORTED_BY_CALLBACK) {
      throw_if_interrupted("while downloading " + request.url + " (the " + human_bytes(t.written) + " fetched are kept in " +
                           part + " for the next run)");
      if (request.cancel && request.cancel->load())
        throw StepFailure("stopped downloading " + request.url + " (the " + human_bytes(t.written) +
                          " fetched are kept in " + part + " for the next run)");
    }
    if (code == CURLE_OK) {
      done = true;
      break;
    }
    last_error = errbuf[0] ? std::string(errbuf) : std::string(lc.easy_strerror(code));
    // The URL itself was checked before: a protocol refused now is where a
    // redirect led.
    if (code == CURLE_UNSUPPORTED_PROTOCOL) {
      const char* where = nullptr;
      lc.easy_getinfo(t.curl, CURLINFO_EFFECTIVE_URL, &where);
      last_error += std::string(" (") +
                    (where && request.url != where ? "the server redirects to " + std::string(where) + "; " : "") +
                    "a download follows redirects to https:// URLs only" +
                    (request.insecure_http ? ", and http:// ones with insecure_http" : "") + ")";
    }
    // 416: nothing after our offset. The partial file may already be whole
    // (an earlier run stopped before the rename), or the file changed: the
    // hash below decides, and a wrong partial file is fetched again once.
    // A server that ignores Range answers 200 and libcurl stops with
    // CURLE_RANGE_ERROR before any byte arrives: start again from zero.
    bool nothing_after_offset =
        (code == CURLE_HTTP_RETURNED_ERROR && status == 416) || code == CURLE_BAD_DOWNLOAD_RESUME;
    if ((nothing_after_offset || code == CURLE_RANGE_ERROR) && t.attempt_start > 0) {
      if (nothing_after_offset && t.hash.hex_digest_so_far() == expected) {
        done = true;
        break;
      }
      if (!restarted) {
        restarted = true;
        say(request, "cannot resume (" + last_error + "); starting again from the beginning");
        restart_from_zero(t);
        --attempt;
        continue;
      }
    }
    if (!curl_failure_is_transient(code, status)) break;
  }
  if (!done) {
    throw StepFailure("could not download " + request.url + " after " + std::to_string(result.attempts) +
                      (result.attempts == 1 ? " attempt: " : " attempts: ") + last_error +
                      (t.written > 0 ? " (the " + human_bytes(t.written) + " already fetched are kept in " + part +
                                           " and the next run resumes from there)"
                                     : ""));
  }
}

// A file:// URL names a file on this machine: it is copied and hashed in one
// pass, with nothing to retry or resume, and without loading libcurl (which
// would cost more than copying a key file).
void copy_local_file(Transfer& t, const std::string& url) {
  std::string path;
  for (std::size_t i = std::strlen("file://"); i < url.size(); ++i) {
    if (url[i] == '%' && i + 2 < url.size() && std::isxdigit(static_cast<unsigned char>(url[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(url[i + 2]))) {
      path += static_cast<char>(std::stoi(url.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      path += url[i];
    }
  }
  int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw StepFailure("could not download " + url + ": cannot read " + path + ": " + std::strerror(errno));
  struct InCloser {
    int fd;
    ~InCloser() { ::close(fd); }
  } in_closer{in};
  restart_from_zero(t);  // a partial copy is not worth resuming
  if (!t.write_problem.empty()) throw StepFailure(url + ": " + t.write_problem);
  t.first_write = false;  // no HTTP status to look at
  struct stat st {};
  std::uint64_t total = ::fstat(in, &st) == 0 && S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
  if (t.request->on_progress) t.request->on_progress(0, total);  // the first count: from the first byte
  char buf[65536];
  ssize_t got;
  while ((got = ::read(in, buf, sizeof buf)) > 0) {
    if (on_data(buf, 1, static_cast<std::size_t>(got), &t) != static_cast<std::size_t>(got))
      throw StepFailure(url + ": " + t.write_problem);
    if (t.request->on_progress) t.request->on_progress(t.written, total);
    throw_if_interrupted("while copying " + url);
  }
  if (got < 0) throw StepFailure("could not download " + url + ": cannot read " + path + ": " + std::strerror(errno));
}

// CURL is null for the real libcurl, loaded only when a network URL needs it.
DownloadResult download(const DownloadRequest& request, const CurlApi* curl) {
  std::string problem = download_url_problem(request.url, request.insecure_http);
  if (!problem.empty()) throw StepFailure("refusing to download: " + problem);
  if (request.checked_by_caller ? request.max_bytes == 0 : !is_sha256_hex(request.sha256))
    throw StepFailure("refusing to download " + request.url +
                      (request.checked_by_caller ? " without a size limit" : " without a SHA-256 to check it against"));
  std::string expected = request.sha256;
  std::transform(expected.begin(), expected.end(), expected.begin(),
                 [](char c) { return static_cast<char>(std::tolower(c)); });

  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(request.host_path).parent_path(), ec);
  const std::string part = request.host_path + ".part";

  Transfer t;
  t.request = &request;
  DownloadResult result;
  t.fd = ::open(part.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (t.fd < 0) throw StepFailure("cannot create " + part + ": " + std::strerror(errno));
  struct FdCloser {
    int& fd;
    ~FdCloser() {
      if (fd >= 0) ::close(fd);
    }
  } closer{t.fd};

  try {
    if (request.url.rfind("file://", 0) == 0) {
      copy_local_file(t, request.url);
      result.attempts = 1;
    } else {
      fetch_with_curl(t, expected, part, result, curl ? *curl : curl_api());
    }
  } catch (const StepFailure&) {
    // Without a hash, a partial file is never resumed, and an empty one holds
    // nothing to resume: keeping either helps nothing.
    if (request.checked_by_caller || t.written == 0) ::unlink(part.c_str());
    throw;
  }
  result.bytes = t.written;
  result.sha256 = t.hash.hex_digest_so_far();
  if (!request.checked_by_caller && result.sha256 != expected) {
    ::close(t.fd);
    t.fd = -1;
    ::unlink(part.c_str());
    throw StepFailure("the file downloaded from " + request.url + " has SHA-256 " + result.sha256 +
                      ", but the manifest expects " + expected +
                      "; it was deleted. Either the file changed on the server or the manifest's sha256 is wrong: "
                      "compare it with the checksum the vendor publishes.");
  }
  if (::fsync(t.fd) != 0) throw StepFailure("cannot write " + part + ": " + std::strerror(errno));
  ::close(t.fd);
  t.fd = -1;
  if (::rename(part.c_str(), request.host_path.c_str()) != 0)
    throw StepFailure("cannot rename " + part + " to " + request.host_path + ": " + std::strerror(errno));
  say(request, "done, " + human_bytes(result.bytes) + " (sha256 " + result.sha256 + ")");
  return result;
}

}  // namespace

DownloadResult download_file(const DownloadRequest& request) { return download(request, nullptr); }

DownloadResult download_file(const DownloadRequest& request, const CurlApi& curl) { return download(request, &curl); }

}  // namespace wslgpu
