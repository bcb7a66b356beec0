// The download code against a tiny HTTP/1.1 server on 127.0.0.1 (an
// ephemeral port, one thread, every loop bounded, stops by itself): the
// SHA-256 check, the resume of a truncated file, the retry after a dropped
// connection and the refusal of plain HTTP. Plain http:// is used with
// insecure_http = true because the test server speaks no TLS.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "installer/formats/sha256.hpp"
#include "installer/manifest/step_keys.hpp"
#include "installer/manifest/step_kind.hpp"
#include "installer/net/download.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/net/fetch_protocol.hpp"
#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"
#include "steps/step.hpp"
#include "support/build_paths.hpp"
#include "support/fakes.hpp"
#include "support/http_server.hpp"
#include "support/https_server.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::TempDir;
using wslgpu::testing::TinyHttpServer;
using wslgpu::testing::TinyHttpsRedirectServer;

namespace {

std::string test_body(std::size_t n) {
  std::string s;
  s.reserve(n);
  for (std::size_t i = 0; i < n; ++i) s += static_cast<char>('a' + (i * 7 + i / 13) % 26);
  return s;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// What a download whose content has SHA-256 GOT says when the manifest wants WANT.
std::string mismatch_message(const std::string& url, const std::string& got, const std::string& want) {
  return "the file downloaded from " + url + " has SHA-256 " + got + ", but the manifest expects " + want +
         "; it was deleted. Either the file changed on the server or the manifest's sha256 is wrong: "
         "compare it with the checksum the vendor publishes.";
}

DownloadRequest request_for(const TinyHttpServer& server, const std::string& body, const std::string& dest) {
  DownloadRequest req;
  req.url = server.url("/pkg.deb");
  req.sha256 = sha256_hex(body);
  req.host_path = dest;
  req.insecure_http = true;
  req.backoff = std::chrono::milliseconds(10);
  req.connect_timeout = std::chrono::seconds(5);
  req.total_timeout = std::chrono::seconds(10);
  return req;
}

}  // namespace

TEST_CASE("a download is hashed while it streams and lands under its name once the hash matches") {
  std::string body = test_body(200000);
  TinyHttpServer server({body});
  TempDir tmp;
  auto req = request_for(server, body, tmp.path() + "/cache/pkg.deb");
  std::vector<std::uint64_t> progress;
  req.on_progress = [&](std::uint64_t done, std::uint64_t) { progress.push_back(done); };
  DownloadResult r = download_file(req);
  CHECK(r.sha256 == sha256_hex(body));
  CHECK(r.bytes == body.size());
  CHECK(r.attempts == 1);
  CHECK_FALSE(r.resumed);
  CHECK(slurp(tmp.path() + "/cache/pkg.deb") == body);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/cache/pkg.deb.part"));
  REQUIRE_FALSE(progress.empty());
  CHECK(progress.front() == 0);  // the first count: from the first byte
  CHECK(progress.back() == body.size());
}

TEST_CASE("a hash mismatch deletes the file and names both hashes") {
  std::string body = test_body(5000);
  TinyHttpServer server({body});
  TempDir tmp;
  auto req = request_for(server, body, tmp.path() + "/pkg.deb");
  req.sha256 = std::string(64, 'a');
  CHECK_THROWS_WITH_AS(download_file(req),
                       mismatch_message(req.url, sha256_hex(body), std::string(64, 'a')).c_str(),
                       StepFailure);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb"));
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb.part"));
}

TEST_CASE("a truncated partial file is resumed with a Range request, not fetched again") {
  std::string body = test_body(100000);
  TinyHttpServer server({body});
  TempDir tmp;
  tmp.write("pkg.deb.part", body.substr(0, 41000));
  auto req = request_for(server, body, tmp.path() + "/pkg.deb");
  std::vector<std::uint64_t> counts;
  req.on_progress = [&counts](std::uint64_t done, std::uint64_t) { counts.push_back(done); };
  DownloadResult r = download_file(req);
  CHECK(r.resumed);
  CHECK(r.attempts == 1);
  CHECK(server.ranges() == std::vector<std::string>{"41000-"});
  CHECK(slurp(tmp.path() + "/pkg.deb") == body);
  // The kept bytes are reported first, for a display to say what was resumed from.
  REQUIRE_FALSE(counts.empty());
  CHECK(counts.front() == 41000);
  CHECK(counts.back() == 100000);
}

TEST_CASE("a dropped connection is retried with back-off and continues where it stopped") {
  std::string body = test_body(150000);
  TinyHttpServer::Behaviour b{body};
  b.drop_first = 1;
  b.drop_after = 30000;
  TinyHttpServer server(b);
  TempDir tmp;
  DownloadResult r = download_file(request_for(server, body, tmp.path() + "/pkg.deb"));
  CHECK(r.attempts == 2);
  CHECK(server.requests() == 2);
  auto ranges = server.ranges();
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0].empty());
  CHECK(ranges[1] == "30000-");
  CHECK(slurp(tmp.path() + "/pkg.deb") == body);
}

TEST_CASE("a server error 500 is retried; a 404 is not") {
  std::string body = test_body(1000);
  TempDir tmp;
  {
    TinyHttpServer::Behaviour b{body};
    b.fail_first_with_500 = 2;
    TinyHttpServer server(b);
    DownloadResult r = download_file(request_for(server, body, tmp.path() + "/a.deb"));
    CHECK(r.attempts == 3);
    CHECK(slurp(tmp.path() + "/a.deb") == body);
  }
  {
    TinyHttpServer::Behaviour b{body};
    b.status = 404;
    TinyHttpServer server(b);
    auto req = request_for(server, body, tmp.path() + "/b.deb");
    CHECK_THROWS_WITH_AS(download_file(req),
                         ("could not download " + req.url +
                          " after 1 attempt: The requested URL returned error: 404")
                             .c_str(),
                         StepFailure);
    CHECK(server.requests() == 1);
  }
}

TEST_CASE("retries stop after the allowed number and keep the partial file for the next run") {
  std::string body = test_body(50000);
  TinyHttpServer::Behaviour b{body};
  b.drop_first = 100;
  b.drop_after = 1000;
  TinyHttpServer server(b);
  TempDir tmp;
  auto req = request_for(server, body, tmp.path() + "/pkg.deb");
  req.retries = 2;
  CHECK_THROWS_AS(download_file(req), StepFailure);
  CHECK(server.requests() == 3);
  CHECK(std::filesystem::file_size(tmp.path() + "/pkg.deb.part") == 3000);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb"));
}

TEST_CASE("a server that ignores Range is fetched again from the start") {
  std::string body = test_body(20000);
  TinyHttpServer::Behaviour b{body};
  b.honour_range = false;
  TinyHttpServer server(b);
  TempDir tmp;
  tmp.write("pkg.deb.part", body.substr(0, 5000));
  DownloadResult r = download_file(request_for(server, body, tmp.path() + "/pkg.deb"));
  CHECK(slurp(tmp.path() + "/pkg.deb") == body);
  CHECK(r.bytes == body.size());
}

TEST_CASE("a file the caller checks itself needs no SHA-256, is never resumed, and may not pass its size limit") {
  std::string body = test_body(20000);
  TinyHttpServer server({body});
  TempDir tmp;
  tmp.write("key.part", body.substr(0, 5000));  // not trusted to be the same file: fetched again whole
  auto req = request_for(server, body, tmp.path() + "/key");
  req.sha256.clear();
  req.checked_by_caller = true;
  req.max_bytes = 64 * 1024;
  DownloadResult r = download_file(req);
  CHECK(slurp(tmp.path() + "/key") == body);
  CHECK(r.sha256 == sha256_hex(body));
  CHECK_FALSE(r.resumed);
  CHECK(server.ranges() == std::vector<std::string>{""});

  // Through the helper too, with the limit crossed: nothing is kept.
  auto small = request_for(server, body, tmp.path() + "/small");
  small.sha256.clear();
  small.checked_by_caller = true;
  small.max_bytes = 1024;
  CHECK_THROWS_WITH_AS(fetch_file_with(wslgpu::testing::kFetchBinary, small),
                       (small.url + ": the file is larger than the 1.0 KiB this download allows; it was not kept").c_str(),
                       StepFailure);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/small"));
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/small.part"));

  auto unlimited = request_for(server, body, tmp.path() + "/unlimited");
  unlimited.sha256.clear();
  unlimited.checked_by_caller = true;
  CHECK_THROWS_WITH_AS(download_file(unlimited), ("refusing to download " + unlimited.url + " without a size limit").c_str(),
                       StepFailure);
}

TEST_CASE("plain http is refused without insecure_http, before any connection") {
  std::string body = test_body(100);
  TinyHttpServer server({body});
  TempDir tmp;
  auto req = request_for(server, body, tmp.path() + "/pkg.deb");
  req.insecure_http = false;
  CHECK_THROWS_WITH_AS(download_file(req),
                       ("refusing to download: \"" + req.url +
                        "\" is plain HTTP, which anyone on the way can tamper with; use an https:// URL, or set "
                        "insecure_http = true if the server offers nothing else (the SHA-256 check still applies)")
                           .c_str(),
                       StepFailure);
  CHECK(server.requests() == 0);
  CHECK(download_url_problem("ftp://x/y", true) == "\"ftp://x/y\" is not an https:// or file:/// URL");
  CHECK(download_url_problem("https://repo.radeon.com/rocm/rocm.gpg.key", false).empty());
  CHECK(download_url_problem("file:///srv/key.asc", false).empty());
}

TEST_CASE(
    "an https download that redirects to plain http is refused, with this machine's libcurl and through the helper") {
  std::string body = test_body(1000);
  TinyHttpServer plain({body});
  TinyHttpsRedirectServer tls(plain.url("/pkg.deb"));
  TempDir tmp;
  DownloadRequest req = request_for(plain, body, tmp.path() + "/pkg.deb");
  req.url = tls.url("/pkg.deb");
  req.ca_file = tls.ca_file();
  req.insecure_http = false;
  auto refused = [&](const std::string& url) {
    return "could not download " + url +
           " after 1 attempt: Protocol \"http\" not supported or disabled in libcurl "
           "(the server redirects to " +
           plain.url("/pkg.deb") + "; a download follows redirects to https:// URLs only)";
  };
  CHECK_THROWS_WITH_AS(download_file(req), refused(req.url).c_str(), StepFailure);
  CHECK(tls.requests() == 1);
  CHECK(plain.requests() == 0);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb"));
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb.part"));

  CHECK_THROWS_WITH_AS(fetch_file_with(wslgpu::testing::kFetchBinary, req), refused(req.url).c_str(), StepFailure);
  CHECK(tls.requests() == 2);
  CHECK(plain.requests() == 0);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb"));
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb.part"));

  // The same redirect is followed when the manifest allows plain HTTP: the
  // refusal above is the protocol restriction, not a failed handshake.
  req.insecure_http = true;
  DownloadResult r = download_file(req);
  CHECK(slurp(tmp.path() + "/pkg.deb") == body);
  CHECK(r.sha256 == sha256_hex(body));
  CHECK(tls.requests() == 3);
  CHECK(plain.requests() == 1);
}

TEST_CASE("file URLs are read from the machine running the tool") {
  TempDir tmp;
  std::string body = test_body(3000);
  tmp.write("src/key.asc", body);
  DownloadRequest req;
  req.url = "file://" + tmp.path() + "/src/key.asc";
  req.sha256 = sha256_hex(body);
  req.host_path = tmp.path() + "/out/key.asc";
  download_file(req);
  CHECK(slurp(tmp.path() + "/out/key.asc") == body);
}

TEST_CASE("a file URL is copied whole, with percent escapes decoded, over an earlier partial copy") {
  TempDir tmp;
  std::string body = test_body(70000);  // more than one read
  tmp.write("src dir/key.asc", body);
  tmp.write("out/key.asc.part", "stale bytes from an interrupted run");
  DownloadRequest req;
  req.url = "file://" + tmp.path() + "/src%20dir/key.asc";
  req.sha256 = sha256_hex(body);
  req.host_path = tmp.path() + "/out/key.asc";
  DownloadResult r = download_file(req);
  CHECK(slurp(tmp.path() + "/out/key.asc") == body);
  CHECK(r.bytes == body.size());
  CHECK(r.sha256 == sha256_hex(body));
  CHECK(r.attempts == 1);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/out/key.asc.part"));
}

TEST_CASE("a missing file URL names the file and why it cannot be read") {
  TempDir tmp;
  DownloadRequest req;
  req.url = "file://" + tmp.path() + "/nowhere/key.asc";
  req.sha256 = sha256_hex("x");
  req.host_path = tmp.path() + "/out/key.asc";
  CHECK_THROWS_WITH_AS(download_file(req),
                       ("could not download " + req.url + ": cannot read " + tmp.path() +
                        "/nowhere/key.asc: No such file or directory")
                           .c_str(),
                       StepFailure);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/out/key.asc"));
}

TEST_CASE("a file URL whose content does not match the SHA-256 leaves nothing behind") {
  TempDir tmp;
  tmp.write("src/key.asc", "the real key");
  DownloadRequest req;
  req.url = "file://" + tmp.path() + "/src/key.asc";
  req.sha256 = sha256_hex("another key");
  req.host_path = tmp.path() + "/out/key.asc";
  CHECK_THROWS_WITH_AS(download_file(req), mismatch_message(req.url, sha256_hex("the real key"), req.sha256).c_str(),
                       StepFailure);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/out/key.asc"));
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/out/key.asc.part"));
}

namespace {

std::shared_ptr<Step> download_step(const std::string& text, std::vector<Diagnostic>& diags) {
  auto table = toml::parse(text);
  Variables vars;
  StepKeys keys(table, "test.toml", "download", vars, diags);
  keys.mark_common("kind");
  auto step = find_step_kind("download")->make(keys);
  keys.finish();
  return step;
}

}  // namespace

TEST_CASE("the download step is a no-op when dest already holds the file, and leaves its file to the runner") {
  std::string body = test_body(4000);
  TinyHttpServer server({body});
  TempDir root;
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  std::vector<Diagnostic> diags;
  auto step = download_step("kind = \"download\"\nurl = \"" + server.url("/amdgpu-install_6.4_all.deb") +
                                "\"\nsha256 = \"" + sha256_hex(body) + "\"\ninsecure_http = true\n",
                            diags);
  REQUIRE(diags.empty());
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "download " + server.url("/amdgpu-install_6.4_all.deb") +
                         " to /var/lib/wslgpu-setup/cache/amdgpu-install_6.4_all.deb");
  CHECK(server.requests() == 0);  // plan fetches nothing
  // The runner backs the file up and records it; apply writes it.
  REQUIRE(p.writes.size() == 1);
  CHECK(p.writes[0].path == "/var/lib/wslgpu-setup/cache/amdgpu-install_6.4_all.deb");
  CHECK_FALSE(p.writes[0].content);
  CHECK(p.writes[0].written_by_apply == sha256_hex(body));
  step->apply(ctx, p);
  CHECK(fs.read("/var/lib/wslgpu-setup/cache/amdgpu-install_6.4_all.deb") == body);
  StepPlan again = step->plan(ctx);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.writes.empty());
  CHECK(server.requests() == 1);
  CHECK(runner.calls.empty());
}

TEST_CASE("the download step refuses plain http and a malformed sha256 when the manifest loads") {
  std::vector<Diagnostic> diags;
  download_step("kind = \"download\"\nurl = \"http://example.org/x.deb\"\nsha256 = \"abc\"\n", diags);
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].str() ==
        "test.toml:2:7: \"http://example.org/x.deb\" is plain HTTP, which anyone on the way can tamper with; use an "
        "https:// URL, or set insecure_http = true if the server offers nothing else (the SHA-256 check still applies)");
  CHECK(diags[1].str() == "test.toml:3:10: \"sha256\" must be 64 hexadecimal digits (the output of `sha256sum`)");
}

TEST_CASE("the download step replaces a file by a rename and keeps no copy of its own beside it") {
  std::string body = test_body(2000);
  TinyHttpServer server({body});
  TempDir root;
  root.write("opt/vendor/installer.deb", "older file\n");
  RootedFileSystem fs(root.path());
  FakeProcessRunner runner;
  HostFacts host;
  StepContext ctx{fs, runner, host, "test"};
  std::vector<Diagnostic> diags;
  auto step = download_step("kind = \"download\"\nurl = \"" + server.url("/installer.deb") + "\"\nsha256 = \"" +
                                sha256_hex(body) + "\"\ninsecure_http = true\ndest = \"/opt/vendor/installer.deb\"\n",
                            diags);
  REQUIRE(diags.empty());
  StepPlan p = step->plan(ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.details.at(1) == "/opt/vendor/installer.deb exists with SHA-256 " + sha256_hex("older file\n") +
                               "; it will be replaced");
  step->apply(ctx, p);
  CHECK(fs.read("/opt/vendor/installer.deb") == body);
  // The old file is the runner's backup now (tests/unit/transaction/test_download_transactions.cpp).
  CHECK(fs.list("/opt/vendor") == std::vector<std::string>{"installer.deb"});
}

// ---- the download helper (installer/net/fetch_helper.hpp), run as a program

namespace {

// Captures what the helper's relayed log lines say.
struct CapturedLog {
  std::shared_ptr<std::ostringstream> text = std::make_shared<std::ostringstream>();
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  CapturedLog() {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(*text);
    sink->set_pattern("%l %v");
    auto logger = std::make_shared<spdlog::logger>("captured", sink);
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous); }
};

}  // namespace

TEST_CASE("the download helper fetches, hashes and renames like the in-process download, and its log reaches ours") {
  std::string body = test_body(300000);
  TinyHttpServer server({body});
  TempDir tmp;
  auto req = request_for(server, body, tmp.path() + "/cache/pkg.deb");
  CapturedLog log;
  DownloadResult r = fetch_file_with(wslgpu::testing::kFetchBinary, req);
  CHECK(r.sha256 == sha256_hex(body));
  CHECK(r.bytes == body.size());
  CHECK(r.attempts == 1);
  CHECK_FALSE(r.resumed);
  CHECK(slurp(tmp.path() + "/cache/pkg.deb") == body);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/cache/pkg.deb.part"));
  CHECK(log.text->str().find("info " + req.url + ": done, 293.0 KiB (sha256 " + sha256_hex(body) + ")") !=
        std::string::npos);
}

TEST_CASE("the download helper's failures carry the same messages as in-process ones") {
  std::string body = test_body(1000);
  TempDir tmp;
  {
    TinyHttpServer::Behaviour b{body};
    b.status = 404;
    TinyHttpServer server(b);
    auto req = request_for(server, body, tmp.path() + "/a.deb");
    CHECK_THROWS_WITH_AS(fetch_file_with(wslgpu::testing::kFetchBinary, req),
                         ("could not download " + req.url + " after 1 attempt: The requested URL returned error: 404")
                             .c_str(),
                         StepFailure);
  }
  {
    TinyHttpServer server({body});
    auto req = request_for(server, body, tmp.path() + "/b.deb");
    req.sha256 = sha256_hex("something else");
    CHECK_THROWS_WITH_AS(fetch_file_with(wslgpu::testing::kFetchBinary, req),
                         mismatch_message(req.url, sha256_hex(body), req.sha256).c_str(),
                         StepFailure);
    CHECK_FALSE(std::filesystem::exists(tmp.path() + "/b.deb"));
    CHECK_FALSE(std::filesystem::exists(tmp.path() + "/b.deb.part"));
  }
}

TEST_CASE("a missing download helper, or a malformed request to it, is an error that says so") {
  std::string body = test_body(10);
  TinyHttpServer server({body});
  TempDir tmp;
  auto req = request_for(server, body, tmp.path() + "/a.deb");
  CHECK_THROWS_WITH_AS(fetch_file_with(tmp.path() + "/no-such-helper", req),
                       ("the download helper " + tmp.path() + "/no-such-helper failed (cannot be run) while fetching " +
                        req.url + "; reinstall wslgpu-setup")
                           .c_str(),
                       StepFailure);
  CHECK(server.requests() == 0);

  bool failed = false;
  auto answer = nlohmann::json::parse(answer_fetch_request("{\"url\": 42}", nullptr, failed));
  CHECK(failed);
  CHECK(answer["error"].get<std::string>().rfind("the download helper got a malformed request: ", 0) == 0);
  CHECK(fetch_log_line(true, "two\nlines") == "warning\ttwo lines");
}

TEST_CASE("the download helper gets the proxy and certificate settings from our environment, and nothing else") {
  ::setenv("https_proxy", "http://proxy.example:3128", 1);
  ::setenv("NO_PROXY", "localhost", 1);
  ::setenv("WSLGPU_TEST_SECRET", "not for the helper", 1);
  ::unsetenv("SSL_CERT_FILE");
  auto env = fetch_environment();
  ::unsetenv("https_proxy");
  ::unsetenv("NO_PROXY");
  ::unsetenv("WSLGPU_TEST_SECRET");
  CHECK(env["https_proxy"] == "http://proxy.example:3128");
  CHECK(env["NO_PROXY"] == "localhost");
  CHECK(env.count("WSLGPU_TEST_SECRET") == 0);
  CHECK(env.count("SSL_CERT_FILE") == 0);
}

TEST_CASE("the download helper sends its progress, and the last report is the whole file") {
  std::string body = test_body(300000);
  TinyHttpServer server({body});
  TempDir tmp;
  auto req = request_for(server, body, tmp.path() + "/cache/pkg.deb");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;
  req.on_progress = [&](std::uint64_t done, std::uint64_t total) { seen.emplace_back(done, total); };
  fetch_file_with(wslgpu::testing::kFetchBinary, req);
  REQUIRE(!seen.empty());
  CHECK(seen.front().first == 0);  // the first count crosses the helper too
  CHECK(seen.back() == std::make_pair<std::uint64_t, std::uint64_t>(body.size(), body.size()));
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].first >= seen[i - 1].first);
}

TEST_CASE("progress lines of the helper's protocol are read back, and nothing else is taken for one") {
  std::uint64_t done = 0, total = 0;
  CHECK(parse_fetch_progress_line(fetch_progress_line(1234, 5678), done, total));
  CHECK(done == 1234);
  CHECK(total == 5678);
  for (const char* line : {"info\tprogress", "progress\t", "progress\t12", "progress\t12\tx", "progress\t-1\t2", "progress 1 2"})
    CHECK_MESSAGE(!parse_fetch_progress_line(line, done, total), line);
}

TEST_CASE("a file URL reports its progress as it is copied") {
  std::string body = test_body(200000);
  TempDir tmp;
  std::ofstream(tmp.path() + "/src.bin", std::ios::binary) << body;
  DownloadRequest req;
  req.url = "file://" + tmp.path() + "/src.bin";
  req.sha256 = sha256_hex(body);
  req.host_path = tmp.path() + "/dest.bin";
  std::uint64_t last = 0, whole = 0;
  req.on_progress = [&](std::uint64_t done, std::uint64_t total) {
    last = done;
    whole = total;
  };
  download_file(req);
  CHECK(last == body.size());
  CHECK(whole == body.size());
}
