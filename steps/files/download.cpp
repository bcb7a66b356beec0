#include "steps/files/download.hpp"

#include <algorithm>
#include <cstdio>

#include "installer/net/download.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu {

std::string url_file_name(const std::string& url) {
  std::string path = url.substr(0, url.find_first_of("?#"));
  auto scheme = path.find("://");
  if (scheme != std::string::npos) {
    auto slash = path.find('/', scheme + 3);
    path = slash == std::string::npos ? "" : path.substr(slash);
  }
  auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name == "." || name == "..") return "";
  return name;
}

namespace {

std::string sha256_or_empty(const FileSystem& fs, const std::string& path) {
  auto info = fs.stat(path);
  if (!info || info->type != FileType::regular) return "";
  return sha256_of_host_file(fs.host_path(path));
}

class DownloadStep : public Step {
 public:
  std::string url;
  std::string sha256;
  std::optional<std::string> dest;
  bool insecure_http = false;
  std::int64_t timeout_s = 1800;
  std::int64_t connect_timeout_s = 30;
  std::int64_t retries = 3;

  std::string target(const StepContext& ctx) const {
    return dest ? *dest : ctx.state_dir + "/cache/" + url_file_name(url);
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    const std::string path = target(ctx);
    refuse_link(ctx.fs, path);  // before its SHA-256 is read through it
    auto info = ctx.fs.stat(path);
    std::string now = sha256_or_empty(ctx.fs, path);
    p.fingerprint["file:" + path] = now.empty() ? (info ? "not a regular file" : "absent") : "sha256:" + now;
    if (now == sha256) {
      p.summary = path + " is already downloaded (sha256 " + sha256.substr(0, 12) + "…)";
      return p;
    }
    p.verdict = Verdict::change;
    p.summary = "download " + url + " to " + path;
    p.activity = "downloading " + url_file_name(url);
    p.details.push_back("sha256 " + sha256);
    if (info) p.details.push_back(path + " exists with SHA-256 " + (now.empty() ? "?" : now) + "; it will be replaced");
    p.changes.push_back({{"type", "file"}, {"path", path}, {"action", info ? "update" : "create"}, {"sha256", sha256},
                         {"source", url}});
    // The runner backs PATH up before apply and restores it on undo.
    FileWrite w{path, std::nullopt, FileAttrs{}};
    w.written_by_apply = sha256;
    p.writes.push_back(w);
    return p;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan&) override {
    const std::string path = target(ctx);
    nlohmann::json data = {{"path", path}};
    // The runner refused a link here when it backed PATH up; renaming onto
    // PATH's own entry replaces whatever is there, never a file it points to.
    if (sha256_or_empty(ctx.fs, path) == sha256) return data;
    DownloadRequest req;
    req.url = url;
    req.sha256 = sha256;
    req.host_path = entry_host_path(ctx.fs, path);
    req.insecure_http = insecure_http;
    req.total_timeout = std::chrono::seconds(timeout_s);
    req.connect_timeout = std::chrono::seconds(connect_timeout_s);
    req.retries = static_cast<int>(retries);
    req.on_progress = download_progress(ctx, url_file_name(url));
    fetch_file(req);
    return data;
  }

  // The runner restores PATH from its backup. This undoes what journals
  // written before it did so hold: {"created": true, "previous": ...}, the
  // file this step once kept beside DEST itself.
  void undo(StepContext& ctx, const nlohmann::json& data) override {
    if (!data.value("created", false)) return;
    const std::string path = data.value("path", "");
    if (path.empty()) return;
    ctx.fs.remove(path);
    if (data.contains("previous") && data["previous"].is_string()) {
      std::string previous = data["previous"].get<std::string>();
      if (ctx.fs.stat(previous) &&
          std::rename(ctx.fs.host_path(previous).c_str(), ctx.fs.host_path(path).c_str()) != 0)
        throw StepFailure("cannot put the earlier " + path + " back from " + previous);
    }
  }
};

}  // namespace

std::function<void(std::uint64_t, std::uint64_t)> download_progress(StepContext& ctx, const std::string& subject) {
  if (!ctx.progress) return nullptr;
  ProgressSink* sink = ctx.progress;
  // The first count says where the file starts (DownloadRequest::on_progress):
  // more than 0 is what an earlier run left and this one resumes, until a
  // count below it says the transfer started again.
  struct Resumed {
    bool first = true;
    std::uint64_t from = 0;
  };
  auto resumed = std::make_shared<Resumed>();
  return [sink, subject, resumed](std::uint64_t done, std::uint64_t total) {
    if (resumed->first) resumed->from = done;
    resumed->first = false;
    if (done < resumed->from) resumed->from = 0;
    ProgressEvent ev;
    ev.phase = ProgressEvent::Phase::download;
    ev.subject = subject;
    ev.bytes_done = done;
    ev.bytes_total = total;
    ev.resumed_from = resumed->from;
    ev.percent = total > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : -1;
    sink->update(ev);
  };
}

std::shared_ptr<Step> make_download_step(StepKeys& keys) {
  auto s = std::make_shared<DownloadStep>();
  s->url = keys.required_string("url");
  s->insecure_http = keys.boolean("insecure_http", false);
  if (keys.has("url")) {
    std::string problem = download_url_problem(s->url, s->insecure_http);
    if (!problem.empty()) keys.error("url", problem);
  }
  s->sha256 = keys.required_string("sha256");
  std::transform(s->sha256.begin(), s->sha256.end(), s->sha256.begin(),
                 [](char c) { return static_cast<char>(std::tolower(c)); });
  if (keys.has("sha256") && !is_sha256_hex(s->sha256))
    keys.error("sha256", "\"sha256\" must be 64 hexadecimal digits (the output of `sha256sum`)");
  s->dest = keys.optional_path("dest");
  if (!keys.has("dest") && keys.has("url") && url_file_name(s->url).empty())
    keys.error("url", "the URL does not end in a file name; give \"dest\"");
  s->timeout_s = keys.integer("timeout", 1800, 1, 86400);
  s->connect_timeout_s = keys.integer("connect_timeout", 30, 1, 600);
  s->retries = keys.integer("retries", 3, 0, 10);
  return s;
}

}  // namespace wslgpu
