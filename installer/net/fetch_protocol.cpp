#include "installer/net/fetch_protocol.hpp"

#include <chrono>
#include <memory>

#include <nlohmann/json.hpp>

namespace wslgpu {

std::string encode_fetch_request(const DownloadRequest& r) {
  return nlohmann::json{{"url", r.url},
                        {"sha256", r.sha256},
                        {"host_path", r.host_path},
                        {"insecure_http", r.insecure_http},
                        {"checked_by_caller", r.checked_by_caller},
                        {"max_bytes", r.max_bytes},
                        {"connect_timeout_ms", r.connect_timeout.count()},
                        {"total_timeout_ms", r.total_timeout.count()},
                        {"retries", r.retries},
                        {"backoff_ms", r.backoff.count()},
                        {"progress", static_cast<bool>(r.on_progress)}}
      .dump();
}

std::string answer_fetch_request(const std::string& text, const decltype(DownloadRequest::log)& log, bool& failed,
                                 const decltype(DownloadRequest::on_progress)& progress) {
  failed = true;
  DownloadRequest r;
  bool wants_progress = false;
  try {
    auto j = nlohmann::json::parse(text);
    r.url = j.at("url").get<std::string>();
    r.sha256 = j.at("sha256").get<std::string>();
    r.host_path = j.at("host_path").get<std::string>();
    r.insecure_http = j.at("insecure_http").get<bool>();
    r.checked_by_caller = j.value("checked_by_caller", false);
    r.max_bytes = j.value("max_bytes", std::uint64_t{0});
    r.connect_timeout = std::chrono::milliseconds(j.at("connect_timeout_ms").get<long long>());
    r.total_timeout = std::chrono::milliseconds(j.at("total_timeout_ms").get<long long>());
    r.retries = j.at("retries").get<int>();
    r.backoff = std::chrono::milliseconds(j.at("backoff_ms").get<long long>());
    wants_progress = j.value("progress", false);
  } catch (const nlohmann::json::exception& e) {
    return nlohmann::json{{"error", std::string("the download helper got a malformed request: ") + e.what()}}.dump();
  }
  r.log = log;
  if (wants_progress && progress) {
    // libcurl reports many times a second; ten lines a second are plenty
    // for a person and cost nothing next to the transfer.
    auto last = std::make_shared<std::chrono::steady_clock::time_point>();
    r.on_progress = [progress, last](std::uint64_t done, std::uint64_t total) {
      auto now = std::chrono::steady_clock::now();
      if (now - *last < std::chrono::milliseconds(100) && !(total > 0 && done == total)) return;
      *last = now;
      progress(done, total);
    };
  }
  try {
    DownloadResult result = download_file(r);
    failed = false;
    return nlohmann::json{
        {"bytes", result.bytes}, {"sha256", result.sha256}, {"attempts", result.attempts}, {"resumed", result.resumed}}
        .dump();
  } catch (const std::exception& e) {
    return nlohmann::json{{"error", e.what()}}.dump();
  }
}

std::string fetch_log_line(bool warning, const std::string& message) {
  std::string line = (warning ? "warning\t" : "info\t") + message;
  for (char& c : line)
    if (c == '\n') c = ' ';  // one message, one line
  return line;
}

std::string fetch_progress_line(std::uint64_t done, std::uint64_t total) {
  return "progress\t" + std::to_string(done) + "\t" + std::to_string(total);
}

bool parse_fetch_progress_line(const std::string& line, std::uint64_t& done, std::uint64_t& total) {
  if (line.rfind("progress\t", 0) != 0) return false;
  auto tab = line.find('\t', 9);
  if (tab == std::string::npos) return false;
  std::string a = line.substr(9, tab - 9), b = line.substr(tab + 1);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(a) || !digits(b)) return false;
  done = std::stoull(a);
  total = std::stoull(b);
  return true;
}

}  // namespace wslgpu
