#include "installer/net/url_query.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "installer/formats/wheel_name.hpp"
#include "installer/net/curl_api.hpp"
#include "installer/net/curl_protocols.hpp"
#include "installer/net/download.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/text.hpp"
#include "installer/system/units.hpp"

namespace wslgpu {

namespace {

std::string attempts_text(int attempts) {
  return " after " + std::to_string(attempts) + (attempts == 1 ? " attempt: " : " attempts: ");
}

std::string what_failed(const UrlQuery& q) {
  return q.kind == UrlQuery::Kind::probe ? "could not ask " + q.url + " for its size" : "could not fetch " + q.url;
}

std::string too_large(const UrlQuery& q) {
  return "could not fetch " + q.url + ": it holds more than the " + human_size(q.max_bytes) + " allowed for it";
}

// ---- file:// URLs

std::string local_path(const std::string& url, const QueryOptions& options) {
  std::string path = percent_decode(std::string_view(url).substr(std::strlen("file://")));
  std::string root = options.file_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  return root + path;
}

}  // namespace

UrlAnswer answer_file_query(const UrlQuery& q, const QueryOptions& options) {
  UrlAnswer a;
  a.final_url = q.url;
  std::string path = local_path(q.url, options);
  auto cannot = [&](const std::string& p, int e) {
    a.error = what_failed(q) + ": cannot read " + p + ": " + std::strerror(e);
    return a;
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return cannot(path, errno);
  if (q.kind == UrlQuery::Kind::probe) {
    if (!S_ISREG(st.st_mode)) {
      a.error = what_failed(q) + ": " + path + " is not a file";
      return a;
    }
    a.size = static_cast<std::uint64_t>(st.st_size);
    return a;
  }
  if (S_ISDIR(st.st_mode)) {
    // As pip reads a file: index: a folder's page is its index.html, and its
    // relative links name files in the folder.
    path += "/index.html";
    if (a.final_url.back() != '/') a.final_url += '/';
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cannot(path, errno);
  char buf[65536];
  ssize_t got;
  while ((got = ::read(fd, buf, sizeof buf)) > 0) {
    if (a.body.size() + static_cast<std::uint64_t>(got) > q.max_bytes) {
      ::close(fd);
      UrlAnswer big;
      big.error = too_large(q);
      return big;
    }
    a.body.append(buf, static_cast<std::size_t>(got));
  }
  int e = errno;
  ::close(fd);
  if (got < 0) return cannot(path, e);
  return a;
}

// ---- libcurl

namespace {

// What one transfer saw: the headers of the last response (a redirect's
// are forgotten when the next response starts) and the body so far.
struct Capture {
  const UrlQuery* query = nullptr;
  std::string body;
  std::string content_type;
  std::string content_range;
  bool first_byte_only = false;  // the probe's GET: stop as soon as the body starts
  bool stopped_at_first_byte = false;
  bool too_large = false;

  void reset() {
    body.clear();
    content_type.clear();
    content_range.clear();
    stopped_at_first_byte = too_large = false;
  }
};

size_t on_query_header(char* data, size_t size, size_t count, void* userdata) {
  auto& c = *static_cast<Capture*>(userdata);
  std::string_view line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response: a redirect's headers are not this one's
    c.content_type.clear();
    c.content_range.clear();
  }
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name = text::lower(line.substr(0, colon));
    std::string value(text::trim(line.substr(colon + 1), text::kLineSpace));
    if (name == "content-type") c.content_type = value;
    if (name == "content-range") c.content_range = value;
  }
  return size * count;
}

size_t on_query_body(char* data, size_t size, size_t count, void* userdata) {
  auto& c = *static_cast<Capture*>(userdata);
  std::size_t n = size * count;
  if (c.first_byte_only) {
    c.stopped_at_first_byte = true;
    return 0;  // libcurl stops with CURLE_WRITE_ERROR, which is what was wanted
  }
  if (c.body.size() + n > c.query->max_bytes) {
    c.too_large = true;
    return 0;
  }
  c.body.append(data, n);
  return n;
}

int on_query_progress(void*, curl_off_t, curl_off_t, curl_off_t, curl_off_t) { return interrupt_signal() ? 1 : 0; }

// "bytes 0-0/1234" -> 1234; nullopt for "bytes 0-0/*" or anything else.
std::optional<std::uint64_t> range_total(const std::string& content_range) {
  auto slash = content_range.rfind('/');
  if (slash == std::string::npos) return std::nullopt;
  std::string total = content_range.substr(slash + 1);
  if (total.empty() || total.size() > 19 || total.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(total);
}

class Querier {
 public:
  Querier(const QueryOptions& options, const CurlApi& lc) : options_(options), lc_(lc) {}

  UrlAnswer answer(const UrlQuery& q) {
    UrlAnswer a;
    if (!curl_) {
      curl_.reset(lc_.easy_init());
      if (!curl_) {
        a.error = what_failed(q) + ": cannot start libcurl";
        return a;
      }
    }
    Capture capture;
    capture.query = &q;
    int attempts = 0;
    std::string problem = setup(q, capture);
    if (!problem.empty()) {
      a.error = what_failed(q) + ": " + problem;
      return a;
    }
    std::unique_ptr<curl_slist, decltype(lc_.slist_free_all)> headers(nullptr, lc_.slist_free_all);
    if (q.kind == UrlQuery::Kind::text && !q.accept.empty()) {
      headers.reset(lc_.slist_append(nullptr, ("Accept: " + q.accept).c_str()));
      lc_.easy_setopt(curl_.get(), CURLOPT_HTTPHEADER, headers.get());
    }
    CURLcode code = perform(q, capture, attempts);
    long status = 0;
    lc_.easy_getinfo(curl_.get(), CURLINFO_RESPONSE_CODE, &status);
    a.final_url = effective_url(q.url);
    if (q.kind == UrlQuery::Kind::text) {
      if (capture.too_large) {
        a.error = too_large(q);
      } else if (code != CURLE_OK) {
        a.error = what_failed(q) + attempts_text(attempts) + error_text(q, code);
      } else {
        a.body = std::move(capture.body);
        a.content_type = capture.content_type;
      }
      return a;
    }
    // A probe: HEAD's Content-Length, or, when HEAD is refused or says no
    // length, the total of a ranged GET's Content-Range.
    curl_off_t length = -1;
    if (code == CURLE_OK) lc_.easy_getinfo(curl_.get(), CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (code == CURLE_OK && length >= 0) {
      a.size = static_cast<std::uint64_t>(length);
      return a;
    }
    bool head_refused =
        code == CURLE_HTTP_RETURNED_ERROR && (status == 403 || status == 405 || status == 501);
    if (code != CURLE_OK && !head_refused) {
      a.error = what_failed(q) + attempts_text(attempts) + error_text(q, code);
      return a;
    }
    lc_.easy_setopt(curl_.get(), CURLOPT_HTTPGET, 1L);
    lc_.easy_setopt(curl_.get(), CURLOPT_RANGE, "0-0");
    capture.first_byte_only = true;
    int more = 0;
    code = perform(q, capture, more);
    attempts += more;
    lc_.easy_getinfo(curl_.get(), CURLINFO_RESPONSE_CODE, &status);
    a.final_url = effective_url(q.url);
    if (code != CURLE_OK && !capture.stopped_at_first_byte) {
      a.error = what_failed(q) + attempts_text(attempts) + error_text(q, code);
      return a;
    }
    length = -1;
    lc_.easy_getinfo(curl_.get(), CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    if (status == 206)
      a.size = range_total(capture.content_range);
    else if (length >= 0)
      a.size = static_cast<std::uint64_t>(length);
    if (!a.size) a.why_unknown = "the server does not say how large it is (no Content-Length)";
    return a;
  }

 private:
  struct Cleanup {
    const CurlApi* lc;
    void operator()(CURL* c) const { lc->easy_cleanup(c); }
  };

  // Sets every option of one query; "" or why the query may not run.
  std::string setup(const UrlQuery& q, Capture& capture) {
    CURL* c = curl_.get();
    lc_.easy_reset(c);  // the connections stay; the options go
    std::string protocols = restrict_curl_protocols(lc_, c, options_.insecure_http);
    if (!protocols.empty()) return protocols;
    lc_.easy_setopt(c, CURLOPT_URL, q.url.c_str());
    if (!options_.ca_file.empty()) lc_.easy_setopt(c, CURLOPT_CAINFO, options_.ca_file.c_str());
    lc_.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    lc_.easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    lc_.easy_setopt(c, CURLOPT_FAILONERROR, 1L);
    lc_.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    lc_.easy_setopt(c, CURLOPT_USERAGENT, "wslgpu-setup/" WSLGPU_VERSION);
    lc_.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
    lc_.easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout.count()));
    lc_.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_query_header);
    lc_.easy_setopt(c, CURLOPT_HEADERDATA, &capture);
    lc_.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_query_body);
    lc_.easy_setopt(c, CURLOPT_WRITEDATA, &capture);
    lc_.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_query_progress);
    lc_.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    lc_.easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf_);
    if (q.kind == UrlQuery::Kind::probe) {
      lc_.easy_setopt(c, CURLOPT_NOBODY, 1L);
    } else {
      // Index pages compress well; the limit applies to what they decode to.
      lc_.easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
    }
    return "";
  }

  // Runs the transfer, again after a transient failure (with back-off), and
  // counts the attempts in ATTEMPTS.
  CURLcode perform(const UrlQuery& q, Capture& capture, int& attempts) {
    std::chrono::milliseconds wait = options_.backoff;
    CURLcode code = CURLE_OK;
    for (int attempt = 0; attempt <= options_.retries; ++attempt) {
      if (attempt > 0) {
        std::this_thread::sleep_for(wait);
        wait = std::min<std::chrono::milliseconds>(wait * 2, std::chrono::seconds(30));
      }
      ++attempts;
      capture.reset();
      errbuf_[0] = '\0';
      code = lc_.easy_perform(curl_.get());
      if (code == CURLE_ABORTED_BY_CALLBACK) throw_if_interrupted("while asking " + q.url);
      if (code == CURLE_OK || capture.stopped_at_first_byte || capture.too_large) return code;
      long status = 0;
      lc_.easy_getinfo(curl_.get(), CURLINFO_RESPONSE_CODE, &status);
      if (!curl_failure_is_transient(code, status)) return code;
    }
    return code;
  }

  std::string effective_url(const std::string& fallback) {
    const char* where = nullptr;
    lc_.easy_getinfo(curl_.get(), CURLINFO_EFFECTIVE_URL, &where);
    return where && *where ? std::string(where) : fallback;
  }

  std::string error_text(const UrlQuery& q, CURLcode code) {
    std::string text = errbuf_[0] ? std::string(errbuf_) : std::string(lc_.easy_strerror(code));
    // The URL itself was checked: a protocol refused now is where a redirect led.
    if (code == CURLE_UNSUPPORTED_PROTOCOL) {
      std::string where = effective_url("");
      text += std::string(" (") + (!where.empty() && where != q.url ? "the server redirects to " + where + "; " : "") +
              "redirects are followed to https:// URLs only" +
              (options_.insecure_http ? ", and http:// ones with insecure_http" : "") + ")";
    }
    return text;
  }

  const QueryOptions& options_;
  const CurlApi& lc_;
  std::unique_ptr<CURL, Cleanup> curl_{nullptr, Cleanup{&lc_}};
  char errbuf_[CURL_ERROR_SIZE] = {};
};

std::vector<UrlAnswer> run_queries(const std::vector<UrlQuery>& queries, const QueryOptions& options,
                                   const CurlApi* curl) {
  std::vector<UrlAnswer> answers;
  answers.reserve(queries.size());
  std::unique_ptr<Querier> querier;  // libcurl loaded only for a network URL
  std::uint64_t bodies = 0;
  for (const UrlQuery& q : queries) {
    if (q.kind == UrlQuery::Kind::text && bodies > 0 && bodies >= options.body_budget) {
      UrlAnswer deferred;
      deferred.deferred = true;
      answers.push_back(std::move(deferred));
      continue;
    }
    std::string problem = download_url_problem(q.url, options.insecure_http);
    if (!problem.empty()) {
      UrlAnswer refused;
      refused.error = "refusing to ask about a URL: " + problem;
      answers.push_back(std::move(refused));
    } else if (q.url.rfind("file://", 0) == 0) {
      answers.push_back(answer_file_query(q, options));
    } else {
      if (!querier) querier = std::make_unique<Querier>(options, curl ? *curl : curl_api());
      answers.push_back(querier->answer(q));
    }
    bodies += answers.back().body.size();
  }
  return answers;
}

}  // namespace

std::vector<UrlAnswer> query_urls(const std::vector<UrlQuery>& queries, const QueryOptions& options) {
  return run_queries(queries, options, nullptr);
}

std::vector<UrlAnswer> query_urls(const std::vector<UrlQuery>& queries, const QueryOptions& options,
                                  const CurlApi& curl) {
  return run_queries(queries, options, &curl);
}

}  // namespace wslgpu
