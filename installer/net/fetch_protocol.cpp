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
                        {"stall_timeout_ms", r.stall_timeout.count()},
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
  long long connect = 0, total = 0, stall = 0, backoff = 0;
  take("url", r.url, std::optional<std::string>());
  take("sha256", r.sha256, std::optional<std::string>());
  take("host_path", r.host_path, std::optional<std::string>());
  take("insecure_http", r.insecure_http, std::optional<bool>());
  take("ca_file", r.ca_file, std::optional<std::string>(""));
  take("checked_by_caller", r.checked_by_caller, std::optional<bool>(false));
  take("max_bytes", r.max_bytes, std::optional<std::uint64_t>(0));
  take("connect_timeout_ms", connect, std::optional<long long>());
  take("total_timeout_ms", total, std::optional<long long>());
  take("stall_timeout_ms", stall, std::optional<long long>(0));
  take("retries", r.retries, std::optional<int>());
  take("backoff_ms", backoff, std::optional<long long>());
  take("progress", out.progress, std::optional<bool>(false));
  if (bad) {
    problem = std::string("\"") + bad + "\" is missing or not of its type";
    return std::nullopt;
  }
  r.connect_timeout = std::chrono::milliseconds(connect);
  r.total_timeout = std::chrono::milliseconds(total);
  r.stall_timeout = std::chrono::milliseconds(stall);
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

std::string encode_query_request(const std::vector<UrlQuery>& queries, const QueryOptions& o) {
  nlohmann::json list = nlohmann::json::array();
  for (const UrlQuery& q : queries)
    list.push_back({{"kind", q.kind == UrlQuery::Kind::probe ? "probe" : "text"},
                    {"url", q.url},
                    {"accept", q.accept},
                    {"max_bytes", q.max_bytes}});
  return nlohmann::json{{"op", "query"},
                        {"queries", std::move(list)},
                        {"insecure_http", o.insecure_http},
                        {"ca_file", o.ca_file},
                        {"file_root", o.file_root},
                        {"connect_timeout_ms", o.connect_timeout.count()},
                        {"total_timeout_ms", o.total_timeout.count()},
                        {"retries", o.retries},
                        {"backoff_ms", o.backoff.count()},
                        {"body_budget", o.body_budget}}
      .dump();
}

std::optional<QueryRequest> decode_query_request(const std::string& text, std::string& problem) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) {
    problem = "it is not a JSON object";
    return std::nullopt;
  }
  QueryRequest out;
  QueryOptions& o = out.options;
  const char* bad = nullptr;
  auto take = [&]<typename T>(const nlohmann::json& from, const char* key, T& into, std::optional<T> fallback) {
    auto v = field<T>(from, key);
    if (!v && !(fallback && !from.contains(key))) bad = bad ? bad : key;
    into = v ? *v : fallback.value_or(T{});
  };
  std::string op;
  long long connect = 0, total = 0, backoff = 0;
  take(j, "op", op, std::optional<std::string>());
  if (op != "query") bad = bad ? bad : "op";
  take(j, "insecure_http", o.insecure_http, std::optional<bool>());
  take(j, "ca_file", o.ca_file, std::optional<std::string>(""));
  take(j, "file_root", o.file_root, std::optional<std::string>(""));
  take(j, "connect_timeout_ms", connect, std::optional<long long>());
  take(j, "total_timeout_ms", total, std::optional<long long>());
  take(j, "retries", o.retries, std::optional<int>());
  take(j, "backoff_ms", backoff, std::optional<long long>());
  take(j, "body_budget", o.body_budget, std::optional<std::uint64_t>());
  auto list = j.find("queries");
  if (list == j.end() || !list->is_array()) bad = bad ? bad : "queries";
  if (!bad) {
    for (const auto& item : *list) {
      UrlQuery q;
      std::string kind;
      if (!item.is_object()) {
        bad = "queries";
        break;
      }
      take(item, "kind", kind, std::optional<std::string>());
      take(item, "url", q.url, std::optional<std::string>());
      take(item, "accept", q.accept, std::optional<std::string>(""));
      take(item, "max_bytes", q.max_bytes, std::optional<std::uint64_t>());
      if (kind != "probe" && kind != "text") bad = bad ? bad : "kind";
      if (bad) break;
      q.kind = kind == "probe" ? UrlQuery::Kind::probe : UrlQuery::Kind::text;
      out.queries.push_back(std::move(q));
    }
  }
  if (bad) {
    problem = std::string("\"") + bad + "\" is missing or not of its type";
    return std::nullopt;
  }
  o.connect_timeout = std::chrono::milliseconds(connect);
  o.total_timeout = std::chrono::milliseconds(total);
  o.backoff = std::chrono::milliseconds(backoff);
  return out;
}

std::string encode_query_answer(const std::vector<UrlAnswer>& answers) {
  nlohmann::json list = nlohmann::json::array();
  for (const UrlAnswer& a : answers) {
    if (!a.error.empty()) {
      list.push_back({{"error", a.error}});
    } else if (a.deferred) {
      list.push_back({{"deferred", true}});
    } else {
      nlohmann::json one{{"why_unknown", a.why_unknown},
                         {"content_type", a.content_type},
                         {"final_url", a.final_url},
                         {"body_bytes", a.body.size()}};
      one["size"] = a.size ? nlohmann::json(*a.size) : nlohmann::json(nullptr);
      list.push_back(std::move(one));
    }
  }
  return nlohmann::json{{"answers", std::move(list)}}.dump();
}

std::optional<std::vector<UrlAnswer>> decode_query_answer(std::string& out, std::string& error) {
  error.clear();
  // BODIES "\n" JSON "\n", or JSON "\n" alone (no bodies, or an error).
  std::size_t end = out.size();
  if (end > 0 && out[end - 1] == '\n') --end;
  std::size_t newline = end == 0 ? std::string::npos : out.rfind('\n', end - 1);
  std::size_t json_start = newline == std::string::npos ? 0 : newline + 1;
  std::size_t bodies_end = newline == std::string::npos ? 0 : newline;
  nlohmann::json j = nlohmann::json::parse(out.begin() + static_cast<std::ptrdiff_t>(json_start),
                                           out.begin() + static_cast<std::ptrdiff_t>(end), nullptr, false);
  if (!j.is_object()) return std::nullopt;
  if (auto e = field<std::string>(j, "error")) {
    error = *e;
    return std::nullopt;
  }
  auto list = j.find("answers");
  if (list == j.end() || !list->is_array()) return std::nullopt;
  std::vector<UrlAnswer> answers;
  std::vector<std::pair<std::size_t, std::uint64_t>> bodies;  // answer, length, in order
  std::uint64_t offset = 0;
  for (const auto& item : *list) {
    if (!item.is_object()) return std::nullopt;
    UrlAnswer a;
    if (item.contains("error")) {
      auto e = field<std::string>(item, "error");
      if (!e) return std::nullopt;
      a.error = *e;
    } else if (item.contains("deferred")) {
      auto d = field<bool>(item, "deferred");
      if (!d) return std::nullopt;
      a.deferred = *d;
    } else {
      auto why = field<std::string>(item, "why_unknown");
      auto type = field<std::string>(item, "content_type");
      auto url = field<std::string>(item, "final_url");
      auto bytes = field<std::uint64_t>(item, "body_bytes");
      auto size = item.find("size");
      if (!why || !type || !url || !bytes || size == item.end()) return std::nullopt;
      if (!size->is_null()) {
        auto n = field<std::uint64_t>(item, "size");
        if (!n) return std::nullopt;
        a.size = *n;
      }
      if (*bytes > bodies_end - offset) return std::nullopt;
      a.why_unknown = *why;
      a.content_type = *type;
      a.final_url = *url;
      if (*bytes > 0) bodies.emplace_back(answers.size(), *bytes);
      offset += *bytes;
    }
    answers.push_back(std::move(a));
  }
  if (offset != bodies_end) return std::nullopt;
  // The bodies after the first are copied out; the first takes OUT itself,
  // cut to its length: one page, the usual batch, is never copied.
  offset = 0;
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    if (k > 0) answers[bodies[k].first].body = out.substr(offset, bodies[k].second);
    offset += bodies[k].second;
  }
  if (!bodies.empty()) {
    std::string& first = answers[bodies.front().first].body;
    first = std::move(out);
    first.resize(bodies.front().second);
  }
  out.clear();
  return answers;
}

namespace {

std::string answer_query_request(const std::string& text, bool& failed,
                                 const std::function<void(std::string_view)>& write) {
  std::string problem;
  auto decoded = decode_query_request(text, problem);
  if (!decoded) return nlohmann::json{{"error", "the download helper got a malformed request: " + problem}}.dump();
  std::vector<UrlAnswer> answers;
  try {
    answers = query_urls(decoded->queries, decoded->options);
  } catch (const std::exception& e) {
    return nlohmann::json{{"error", e.what()}}.dump();
  }
  failed = false;
  std::string json = encode_query_answer(answers);
  std::string out;
  for (UrlAnswer& a : answers) {
    if (write)
      write(a.body);
    else
      out += a.body;
    std::string().swap(a.body);  // freed now, not with the rest
  }
  if (write) {
    write("\n");
    return json;
  }
  return out + "\n" + json;
}

}  // namespace

std::string answer_fetch_request(const std::string& text, const decltype(DownloadRequest::log)& log, bool& failed,
                                 const decltype(DownloadRequest::on_progress)& progress,
                                 const std::function<void(std::string_view)>& write) {
  failed = true;
  {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_object() && j.contains("op")) return answer_query_request(text, failed, write);
  }
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
