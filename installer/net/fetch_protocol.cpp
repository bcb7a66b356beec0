#include "installer/net/fetch_protocol.hpp"

#include <chrono>
#include <limits>
#include <memory>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace wslgpu {

std::string encode_fetch_request(const DownloadRequest& r) {
  return nlohmann::json{{"url", r.url},
                        {"sha256", r.sha256},
                        {"host_path", r.host_path},
                        {"insecure_http", r.insecure_http},
                        {"ca_file", r.ca_file},
                        {"checked_by_caller", r.checked_by_caller},
                        {"max_bytes", r.max_bytes},
                        {"connect_timeout_ms", r.connect_timeout.count()},
                        {"total_timeout_ms", r.total_timeout.count()},
                        {"retries", r.retries},
                        {"backoff_ms", r.backoff.count()},
                        {"progress", static_cast<bool>(r.on_progress)}}
      .dump();
}

namespace {

// The value of KEY in J as T, or nullopt when J lacks it or it has another
// type or does not fit: nlohmann's get<>() would convert 1.5 or -1 to an
// integer silently, and a huge double to one with undefined behaviour.
template <typename T>
std::optional<T> field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if constexpr (std::is_same_v<T, bool>) {
    if (it->is_boolean()) return it->template get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (it->is_string()) return it->template get<std::string>();
  } else if constexpr (std::is_unsigned_v<T>) {
    if (it->is_number_unsigned()) return it->template get<T>();
  } else {
    static_assert(std::is_signed_v<T>);
    if (it->is_number_unsigned() && it->template get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max()))
      return static_cast<T>(it->template get<std::uint64_t>());
    if (it->is_number_integer() && !it->is_number_unsigned()) {
      auto v = it->template get<std::int64_t>();
      if (v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max()) return static_cast<T>(v);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<FetchRequest> decode_fetch_request(const std::string& text, std::string& problem) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) {
    problem = "it is not a JSON object";
    return std::nullopt;
  }
  FetchRequest out;
  DownloadRequest& r = out.request;
  // Missing: the key named; present with another type: the same.
  const char* bad = nullptr;
  auto take = [&]<typename T>(const char* key, T& into, std::optional<T> fallback) {
    auto v = field<T>(j, key);
    if (!v && !(fallback && !j.contains(key))) bad = bad ? bad : key;
    into = v ? *v : fallback.value_or(T{});
  };
  long long connect = 0, total = 0, backoff = 0;
  take("url", r.url, std::optional<std::string>());
  take("sha256", r.sha256, std::optional<std::string>());
  take("host_path", r.host_path, std::optional<std::string>());
  take("insecure_http", r.insecure_http, std::optional<bool>());
  take("ca_file", r.ca_file, std::optional<std::string>(""));
  take("checked_by_caller", r.checked_by_caller, std::optional<bool>(false));
  take("max_bytes", r.max_bytes, std::optional<std::uint64_t>(0));
  take("connect_timeout_ms", connect, std::optional<long long>());
  take("total_timeout_ms", total, std::optional<long long>());
  take("retries", r.retries, std::optional<int>());
  take("backoff_ms", backoff, std::optional<long long>());
  take("progress", out.progress, std::optional<bool>(false));
  if (bad) {
    problem = std::string("\"") + bad + "\" is missing or not of its type";
    return std::nullopt;
  }
  r.connect_timeout = std::chrono::milliseconds(connect);
  r.total_timeout = std::chrono::milliseconds(total);
  r.backoff = std::chrono::milliseconds(backoff);
  return out;
}

std::string encode_fetch_answer(const DownloadResult& result) {
  return nlohmann::json{
      {"bytes", result.bytes}, {"sha256", result.sha256}, {"attempts", result.attempts}, {"resumed", result.resumed}}
      .dump();
}

std::optional<DownloadResult> decode_fetch_answer(const std::string& text, std::string& error) {
  error.clear();
  nlohmann::json answer = nlohmann::json::parse(text, nullptr, false);
  if (!answer.is_object()) return std::nullopt;
  if (auto e = field<std::string>(answer, "error")) {
    error = *e;
    return std::nullopt;
  }
  DownloadResult result;
  auto sha256 = field<std::string>(answer, "sha256");
  auto bytes = field<std::uint64_t>(answer, "bytes");
  auto attempts = field<int>(answer, "attempts");
  auto resumed = field<bool>(answer, "resumed");
  if (!sha256 || (answer.contains("bytes") && !bytes) || (answer.contains("attempts") && !attempts) ||
      (answer.contains("resumed") && !resumed))
    return std::nullopt;
  result.sha256 = *sha256;
  result.bytes = bytes.value_or(0);
  result.attempts = attempts.value_or(0);
  result.resumed = resumed.value_or(false);
  return result;
}

std::string answer_fetch_request(const std::string& text, const decltype(DownloadRequest::log)& log, bool& failed,
                                 const decltype(DownloadRequest::on_progress)& progress) {
  failed = true;
  std::string problem;
  auto decoded = decode_fetch_request(text, problem);
  if (!decoded) return nlohmann::json{{"error", "the download helper got a malformed request: " + problem}}.dump();
  DownloadRequest r = std::move(decoded->request);
  r.log = log;
  if (decoded->progress && progress) {
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
    return encode_fetch_answer(result);
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
