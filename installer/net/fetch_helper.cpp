#include "installer/net/fetch_helper.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <spdlog/spdlog.h>

#include "installer/net/fetch_protocol.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/process.hpp"

namespace wslgpu {

namespace {

constexpr const char* kHelperName = "wslgpu-setup-fetch";

// The longest a download may take with every retry and wait, plus a margin:
// the helper enforces the real limits itself; this only stops a hung one.
std::chrono::milliseconds helper_timeout(const DownloadRequest& r) {
  // No total: the stall limit ends a dead transfer, and this process only
  // waits for the helper's answer (a month stands for "no limit").
  if (r.total_timeout.count() == 0) return std::chrono::hours(24 * 30);
  auto attempts = static_cast<long long>(std::max(r.retries, 0) + 1);
  return attempts * (r.total_timeout + r.connect_timeout + std::chrono::seconds(30)) + std::chrono::minutes(1);
}

// Passes one of the helper's "LEVEL<TAB>message" lines on to our log.
void relay_log_line(const std::string& line) {
  auto tab = line.find('\t');
  if (tab == std::string::npos) {
    if (!line.empty()) spdlog::warn("{}: {}", kHelperName, line);
    return;
  }
  auto level = spdlog::level::from_str(line.substr(0, tab));
  if (level == spdlog::level::off) level = spdlog::level::warn;  // not a level name
  spdlog::log(level, "{}", line.substr(tab + 1));
}

void relay_log_line_as_debug(const std::string& line) {
  auto tab = line.find('\t');
  spdlog::debug("{}", tab == std::string::npos ? line : line.substr(tab + 1));
}

}  // namespace

std::map<std::string, std::string> fetch_environment() {
  // Process runs start from a minimal environment; a download must still go
  // through the user's proxy and trust what they told OpenSSL to trust, as
  // libcurl does in this process.
  static const char* const kPassed[] = {"http_proxy", "https_proxy", "HTTPS_PROXY",   "all_proxy",   "ALL_PROXY",
                                        "no_proxy",   "NO_PROXY",    "SSL_CERT_FILE", "SSL_CERT_DIR"};
  std::map<std::string, std::string> env;
  for (const char* name : kPassed)
    if (const char* value = std::getenv(name)) env[name] = value;
  return env;
}

namespace {

// The download's own log lines, when it runs in this process.
void log_to_spdlog(bool warning, const std::string& message) {
  if (warning)
    spdlog::warn("{}", message);
  else
    spdlog::info("{}", message);
}

void log_to_debug(bool, const std::string& message) { spdlog::debug("{}", message); }

}  // namespace

std::vector<std::string> fetch_helper_candidates() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return {(self.parent_path() / kHelperName).string(),
          (self.parent_path().parent_path() / "libexec" / "wslgpu-setup" / kHelperName).string()};
}

std::string fetch_helper_path() {
  for (const auto& candidate : fetch_helper_candidates())
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  return "";
}

std::string missing_fetch_helper_warning(const std::vector<std::string>& looked_in) {
  std::string where;
  for (const auto& path : looked_in) where += (where.empty() ? "" : " or ") + path;
  if (where.empty()) where = "anywhere (/proc/self/exe cannot be read)";
  return std::string("the download helper ") + kHelperName + " is not installed (looked for " + where +
         "); downloading inside wslgpu-setup instead, which loads libcurl and OpenSSL into it. To keep downloads "
         "in their own program, install the wslgpu-setup package, or keep the two programs together "
         "(`cmake --install` puts the helper in libexec/wslgpu-setup/)";
}

namespace {

// Runs QUERIES (network URLs) in the helper at HELPER once. Every answer an
// error when the helper cannot say.
std::vector<UrlAnswer> ask_helper(const std::string& helper, const std::vector<UrlQuery>& queries,
                                  const QueryOptions& options) {
  Command cmd;
  cmd.argv = {helper};
  cmd.in_root = false;
  cmd.stdin_data = encode_query_request(queries, options);
  auto attempts = static_cast<long long>(std::max(options.retries, 0) + 1);
  // Two transfers per probe at most (HEAD, then a GET of one byte).
  cmd.timeout = static_cast<long long>(queries.size()) * 2 * attempts *
                    (options.total_timeout + options.connect_timeout + options.backoff * 2) +
                std::chrono::minutes(1);
  cmd.on_stderr_line = relay_log_line_as_debug;
  cmd.env = fetch_environment();
  cmd.stop_on_interrupt = true;
  RealProcessRunner runner("/");
  ProcessResult r = runner.run(cmd);
  if (r.interrupted) throw_interrupted("while asking servers about " + std::to_string(queries.size()) + " URLs");
  std::string error;
  auto answers = decode_query_answer(r.out, error);
  if (answers && answers->size() == queries.size()) return std::move(*answers);
  if (error.empty())
    error = "the download helper " + helper + " failed (" +
            (r.timed_out   ? std::string("timed out")
             : r.not_found ? std::string("cannot be run")
             : r.ok()      ? std::string("its answer makes no sense")
                           : "exit status " + std::to_string(r.exit_code)) +
            "); reinstall wslgpu-setup";
  std::vector<UrlAnswer> failed(queries.size());
  for (UrlAnswer& a : failed) a.error = error;
  return failed;
}

}  // namespace

std::vector<UrlAnswer> ask_urls_with(const std::string& helper, const std::vector<UrlQuery>& queries,
                                     const QueryOptions& options) {
  std::vector<UrlAnswer> answers(queries.size());
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    // No TLS to keep out of this process: answered here, as fetch_file() copies.
    if (queries[i].url.rfind("file://", 0) == 0 && download_url_problem(queries[i].url, false).empty())
      answers[i] = answer_file_query(queries[i], options);
    else
      pending.push_back(i);
  }
  while (!pending.empty()) {
    std::vector<UrlQuery> batch;
    for (std::size_t i : pending) batch.push_back(queries[i]);
    std::vector<UrlAnswer> got = helper.empty() ? query_urls(batch, options) : ask_helper(helper, batch, options);
    std::vector<std::size_t> again;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      // A text is deferred only after another was answered, so each round
      // answers one at least; a first one deferred is an answer that makes
      // no sense.
      if (got[k].deferred && k > 0) {
        again.push_back(pending[k]);
        continue;
      }
      if (got[k].deferred) got[k].error = "the download helper " + helper + " deferred a query it had to answer";
      answers[pending[k]] = std::move(got[k]);
    }
    pending = std::move(again);
  }
  return answers;
}

std::vector<UrlAnswer> ask_urls(const std::vector<UrlQuery>& queries, const QueryOptions& options) {
  static const std::string helper = fetch_helper_path();
  if (helper.empty()) {
    bool network = std::any_of(queries.begin(), queries.end(),
                               [](const UrlQuery& q) { return q.url.rfind("file://", 0) != 0; });
    static std::once_flag warned;
    if (network)
      std::call_once(warned, [] { spdlog::warn("{}", missing_fetch_helper_warning(fetch_helper_candidates())); });
  }
  return ask_urls_with(helper, queries, options);
}

DownloadResult fetch_file(const DownloadRequest& request) {
  DownloadRequest here = request;
  if (!here.log) here.log = request.quiet ? log_to_debug : log_to_spdlog;
  // No TLS to keep out of this process: copied here, by design.
  if (request.url.rfind("file://", 0) == 0) return download_file(here);
  static const std::string helper = fetch_helper_path();
  if (helper.empty()) {
    // Said once a run, not per download: a person sees it, the log keeps it.
    static std::once_flag warned;
    std::call_once(warned, [] { spdlog::warn("{}", missing_fetch_helper_warning(fetch_helper_candidates())); });
    return download_file(here);
  }
  return fetch_file_with(helper, request);
}

DownloadResult fetch_file_with(const std::string& helper, const DownloadRequest& request) {
  // The URL is checked here too, so a refused one never starts a process.
  std::string problem = download_url_problem(request.url, request.insecure_http);
  if (!problem.empty()) throw StepFailure("refusing to download: " + problem);
  Command cmd;
  cmd.argv = {helper};
  cmd.in_root = false;  // host_path is a path on this machine
  cmd.stdin_data = encode_fetch_request(request);
  cmd.timeout = helper_timeout(request);
  auto progress = request.on_progress;
  auto relay = request.quiet ? relay_log_line_as_debug : relay_log_line;
  cmd.on_stderr_line = [progress, relay](const std::string& line) {
    std::uint64_t done = 0, total = 0;
    if (parse_fetch_progress_line(line, done, total)) {
      if (progress) progress(done, total);
      return;
    }
    relay(line);
  };
  cmd.env = fetch_environment();
  // A download may stop at any point: the partial file is kept and resumed.
  cmd.stop_on_interrupt = true;
  cmd.stop_flag = request.cancel;
  RealProcessRunner runner("/");
  ProcessResult r = runner.run(cmd);
  if (r.interrupted && !interrupt_signal() && request.cancel && request.cancel->load())
    throw StepFailure("stopped downloading " + request.url + " (what was fetched is kept for the next run)");
  if (r.interrupted)
    throw_interrupted("while downloading " + request.url + " (what was fetched is kept for the next run)");
  std::string error;
  auto result = decode_fetch_answer(r.out, error);
  if (!error.empty()) throw StepFailure(error);
  if (!r.ok() || !result) {
    throw StepFailure("the download helper " + helper + " failed (" +
                      (r.timed_out   ? std::string("timed out")
                       : r.not_found ? std::string("cannot be run")
                                     : "exit status " + std::to_string(r.exit_code)) +
                      ") while fetching " + request.url + "; reinstall wslgpu-setup");
  }
  return *result;
}

}  // namespace wslgpu
