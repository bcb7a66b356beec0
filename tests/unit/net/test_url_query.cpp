// Asking a server about a URL without downloading it (installer/net/
// url_query.hpp), in this process and through the wslgpu-setup-fetch
// helper (installer/net/fetch_helper.hpp's ask_urls_with()), against the
// loopback servers of tests/support: a size from HEAD, from a ranged GET
// when HEAD is refused, "size unknown" when the server says neither;
// redirects (followed on http:// here only with insecure_http, and never
// from https:// to http://); 404s; small texts with the Accept header,
// their limit, and the body budget that spreads them over several runs;
// file:// URLs from the machine's files; the proxy from the environment.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "installer/formats/python_index.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/net/fetch_protocol.hpp"
#include "installer/net/url_query.hpp"
#include "support/build_paths.hpp"
#include "support/fakes.hpp"
#include "support/http_site.hpp"
#include "support/https_server.hpp"

using namespace wslgpu;
using wslgpu::testing::TempDir;
using wslgpu::testing::TinyHttpsRedirectServer;
using wslgpu::testing::TinyHttpSite;
using Page = TinyHttpSite::Page;

namespace {

QueryOptions query_test_options() {
  QueryOptions o;
  o.insecure_http = true;  // the loopback server speaks no TLS
  o.connect_timeout = std::chrono::seconds(5);
  o.total_timeout = std::chrono::seconds(10);
  o.backoff = std::chrono::milliseconds(10);
  return o;
}

UrlQuery probe_query(const std::string& url) { return {UrlQuery::Kind::probe, url, "", 0}; }
UrlQuery text_query(const std::string& url, std::uint64_t max = 1 << 20, const std::string& accept = "") {
  return {UrlQuery::Kind::text, url, accept, max};
}

// The same queries answered here and through the helper: both must agree.
std::vector<std::vector<UrlAnswer>> here_and_in_the_helper(const std::vector<UrlQuery>& queries,
                                              const QueryOptions& options = query_test_options()) {
  return {query_urls(queries, options), ask_urls_with(wslgpu::testing::kFetchBinary, queries, options)};
}

std::string filler_body(std::size_t n) { return std::string(n, 'w'); }

}  // namespace

TEST_CASE("a probe asks HEAD and takes its Content-Length, downloading nothing") {
  TinyHttpSite site({{"/torch.whl", Page{200, filler_body(123456), "application/octet-stream"}}});
  for (const auto& answers : here_and_in_the_helper({probe_query(site.url("/torch.whl"))})) {
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].error.empty());
    CHECK(answers[0].size == 123456u);
    CHECK(answers[0].why_unknown.empty());
    CHECK(answers[0].final_url == site.url("/torch.whl"));
  }
  CHECK(site.asked() == std::vector<std::string>{"HEAD /torch.whl", "HEAD /torch.whl"});
}

TEST_CASE("a server that refuses HEAD is asked for its first byte, and Content-Range gives the size") {
  Page page{200, filler_body(5000)};
  page.refuse_head = true;
  page.honour_range = true;
  TinyHttpSite site({{"/presigned.whl", page}});
  for (const auto& answers : here_and_in_the_helper({probe_query(site.url("/presigned.whl"))})) {
    CHECK(answers[0].error.empty());
    CHECK(answers[0].size == 5000u);
  }
  auto requests = site.requests();
  REQUIRE(requests.size() == 4);
  CHECK(requests[0].method == "HEAD");
  CHECK(requests[1].method == "GET");
  CHECK(requests[1].range == "bytes=0-0");
}

TEST_CASE("a server that sends no Content-Length gives size unknown, with the reason, and no number") {
  Page page{200, filler_body(70000)};
  page.send_length = false;
  TinyHttpSite site({{"/chunky.whl", page}});
  for (const auto& answers : here_and_in_the_helper({probe_query(site.url("/chunky.whl"))})) {
    CHECK(answers[0].error.empty());
    CHECK_FALSE(answers[0].size.has_value());
    CHECK(answers[0].why_unknown == "the server does not say how large it is (no Content-Length)");
  }
  // HEAD, then a GET for one byte that is stopped as soon as the body starts.
  CHECK(site.asked() ==
        std::vector<std::string>{"HEAD /chunky.whl", "GET /chunky.whl", "HEAD /chunky.whl", "GET /chunky.whl"});
}

TEST_CASE("a redirect is followed to where it leads, and the answer says where that was") {
  TinyHttpSite site;
  site.set("/simple/Torch/", Page{301, "", "", true, site.url("/simple/torch/")});
  site.set("/simple/torch/", Page{200, "<a href='t-1.0-py3-none-any.whl'>t</a>", "text/html"});
  site.set("/old.whl", Page{302, "", "", true, "/new.whl"});
  site.set("/new.whl", Page{200, filler_body(4321)});
  for (const auto& answers : here_and_in_the_helper({text_query(site.url("/simple/Torch/")), probe_query(site.url("/old.whl"))})) {
    CHECK(answers[0].error.empty());
    CHECK(answers[0].body == "<a href='t-1.0-py3-none-any.whl'>t</a>");
    CHECK(answers[0].content_type == "text/html");
    CHECK(answers[0].final_url == site.url("/simple/torch/"));
    CHECK(answers[1].size == 4321u);
    CHECK(answers[1].final_url == site.url("/new.whl"));
  }
}

TEST_CASE("an https URL that redirects to plain http is refused, probe or text, here and in the helper") {
  TinyHttpSite plain({{"/x.whl", Page{200, filler_body(10)}}});
  TinyHttpsRedirectServer tls(plain.url("/x.whl"));
  QueryOptions o = query_test_options();
  o.insecure_http = false;
  o.ca_file = tls.ca_file();
  o.retries = 0;
  std::string url = tls.url("/x.whl");
  for (const auto& answers : here_and_in_the_helper({probe_query(url), text_query(url)}, o)) {
    std::string why = " after 1 attempt: Protocol \"http\" not supported or disabled in libcurl (the server "
                      "redirects to " +
                      plain.url("/x.whl") + "; redirects are followed to https:// URLs only)";
    CHECK(answers[0].error == "could not ask " + url + " for its size" + why);
    CHECK(answers[1].error == "could not fetch " + url + why);
  }
  CHECK(plain.requests().empty());
  // And plain http is refused before anything is asked, without insecure_http.
  auto refused = query_urls({probe_query(plain.url("/x.whl"))}, o);
  CHECK(refused[0].error ==
        "refusing to ask about a URL: \"" + plain.url("/x.whl") +
            "\" is plain HTTP, which anyone on the way can tamper with; use an https:// URL, or set insecure_http = "
            "true if the server offers nothing else (the SHA-256 check still applies)");
  CHECK(plain.requests().empty());
}

TEST_CASE("a 404 is an error answer that names the URL, and the other queries are still answered") {
  TinyHttpSite site({{"/there.whl", Page{200, filler_body(7)}}});
  for (const auto& answers : here_and_in_the_helper({probe_query(site.url("/gone.whl")), text_query(site.url("/gone/")),
                                        probe_query(site.url("/there.whl"))})) {
    REQUIRE(answers.size() == 3);
    CHECK(answers[0].error ==
          "could not ask " + site.url("/gone.whl") + " for its size after 1 attempt: The requested URL returned "
                                                     "error: 404");
    CHECK(answers[1].error ==
          "could not fetch " + site.url("/gone/") + " after 1 attempt: The requested URL returned error: 404");
    CHECK(answers[2].size == 7u);
  }
}

TEST_CASE("a text is asked with its Accept header, and one larger than its limit is an error, not a truncation") {
  std::string json = "{\"meta\": {\"api-version\": \"1.1\"}, \"name\": \"torch\", \"files\": []}";
  TinyHttpSite site({{"/simple/torch/", Page{200, json, "application/vnd.pypi.simple.v1+json"}},
                     {"/big/", Page{200, filler_body(3000), "text/html"}}});
  for (const auto& answers : here_and_in_the_helper({text_query(site.url("/simple/torch/"), 1 << 20, kIndexAccept),
                                        text_query(site.url("/big/"), 999)})) {
    CHECK(answers[0].body == json);
    CHECK(answers[0].content_type == "application/vnd.pypi.simple.v1+json");
    CHECK(answers[1].error == "could not fetch " + site.url("/big/") + ": it holds more than the 999 B allowed for it");
    CHECK(answers[1].body.empty());
  }
  auto requests = site.requests();
  REQUIRE(requests.size() == 4);
  CHECK(requests[0].accept == kIndexAccept);
  CHECK(requests[1].accept == "*/*");  // libcurl's own, when none is given
}

TEST_CASE("texts past the body budget are deferred, and ask_urls asks them again until every one is answered") {
  TinyHttpSite site({{"/a/", Page{200, filler_body(600)}}, {"/b/", Page{200, filler_body(600)}}, {"/c/", Page{200, "c"}}});
  QueryOptions o = query_test_options();
  o.body_budget = 1000;
  auto here = query_urls({text_query(site.url("/a/")), text_query(site.url("/b/")), text_query(site.url("/c/")), probe_query(site.url("/c/"))},
                         o);
  CHECK_FALSE(here[0].deferred);
  CHECK_FALSE(here[1].deferred);  // 600 < 1000: still asked
  CHECK(here[2].deferred);        // 1200 >= 1000
  CHECK_FALSE(here[3].deferred);  // a probe has no body
  CHECK(here[3].size == 1u);
  for (const std::string& helper : {std::string(), std::string(wslgpu::testing::kFetchBinary)}) {
    auto all = ask_urls_with(helper, {text_query(site.url("/a/")), text_query(site.url("/b/")), text_query(site.url("/c/"))}, o);
    CHECK(all[0].body == filler_body(600));
    CHECK(all[1].body == filler_body(600));
    CHECK(all[2].body == "c");
    for (const auto& a : all) CHECK_FALSE(a.deferred);
  }
  // Each page was fetched once per round that answered it: 3 here (c's text
  // deferred), then 3 and 3.
  CHECK(site.requests().size() == 3 + 3 + 3);
}

TEST_CASE("file URLs are answered from the machine's files: a probe is a stat, a folder's text its index.html") {
  TempDir tmp;
  tmp.write("root/srv/wheels/a-1.0-py3-none-any.whl", filler_body(321));
  tmp.write("root/srv/simple/a/index.html", "<a href='../../wheels/a-1.0-py3-none-any.whl'>a</a>");
  QueryOptions o = query_test_options();
  o.file_root = tmp.path() + "/root";
  auto answers = ask_urls_with(wslgpu::testing::kFetchBinary,
                               {probe_query("file:///srv/wheels/a-1.0-py3-none-any.whl"), text_query("file:///srv/simple/a"),
                                probe_query("file:///srv/wheels/missing.whl"), text_query("file:///srv/simple/a/index.html", 10),
                                probe_query("file:///srv/wheels")},
                               o);
  CHECK(answers[0].size == 321u);
  CHECK(answers[1].body == "<a href='../../wheels/a-1.0-py3-none-any.whl'>a</a>");
  CHECK(answers[1].final_url == "file:///srv/simple/a/");
  CHECK(answers[2].error == "could not ask file:///srv/wheels/missing.whl for its size: cannot read " + tmp.path() +
                                "/root/srv/wheels/missing.whl: No such file or directory");
  CHECK(answers[3].error == "could not fetch file:///srv/simple/a/index.html: it holds more than the 10 B allowed for it");
  CHECK(answers[4].error == "could not ask file:///srv/wheels for its size: " + tmp.path() + "/root/srv/wheels is not a file");
}

TEST_CASE("the helper asks through the proxy our environment names, as downloads do") {
  // The site plays the proxy: a client sends it the whole URL.
  TinyHttpSite proxy({{"http://wheels.example/torch.whl", Page{200, filler_body(999)}}});
  const char* saved_no_proxy = std::getenv("no_proxy");
  const char* saved_NO_PROXY = std::getenv("NO_PROXY");
  std::string keep_no = saved_no_proxy ? saved_no_proxy : "", keep_NO = saved_NO_PROXY ? saved_NO_PROXY : "";
  ::unsetenv("no_proxy");
  ::unsetenv("NO_PROXY");
  ::setenv("http_proxy", proxy.url("").c_str(), 1);
  auto answers = ask_urls_with(wslgpu::testing::kFetchBinary, {probe_query("http://wheels.example/torch.whl")}, query_test_options());
  ::unsetenv("http_proxy");
  if (saved_no_proxy) ::setenv("no_proxy", keep_no.c_str(), 1);
  if (saved_NO_PROXY) ::setenv("NO_PROXY", keep_NO.c_str(), 1);
  CHECK(answers[0].error.empty());
  CHECK(answers[0].size == 999u);
  CHECK(proxy.asked() == std::vector<std::string>{"HEAD http://wheels.example/torch.whl"});
}

TEST_CASE("a helper that cannot run makes every query an error answer that says so") {
  TinyHttpSite site;
  TempDir tmp;
  auto answers = ask_urls_with(tmp.path() + "/no-such-helper", {probe_query(site.url("/a")), text_query(site.url("/b"))},
                               query_test_options());
  for (const auto& a : answers)
    CHECK(a.error == "the download helper " + tmp.path() + "/no-such-helper failed (cannot be run); reinstall wslgpu-setup");
  CHECK(site.requests().empty());
}

TEST_CASE("the query protocol reads back what it writes, and refuses an answer whose lengths do not add up") {
  QueryOptions o = query_test_options();
  o.ca_file = "/tmp/ca.pem";
  o.file_root = "/target";
  o.body_budget = 77;
  std::vector<UrlQuery> queries{probe_query("https://a/x.whl"), text_query("https://a/simple/x/", 99, kIndexAccept)};
  std::string problem;
  auto request = decode_query_request(encode_query_request(queries, o), problem);
  REQUIRE(request.has_value());
  REQUIRE(request->queries.size() == 2);
  CHECK(request->queries[1].kind == UrlQuery::Kind::text);
  CHECK(request->queries[1].accept == kIndexAccept);
  CHECK(request->queries[1].max_bytes == 99u);
  CHECK(request->options.ca_file == "/tmp/ca.pem");
  CHECK(request->options.file_root == "/target");
  CHECK(request->options.body_budget == 77u);
  CHECK(request->options.total_timeout == o.total_timeout);

  bool failed = false;
  auto bad = nlohmann::json::parse(answer_fetch_request("{\"op\": \"query\", \"queries\": []}", nullptr, failed));
  CHECK(failed);
  CHECK(bad["error"] == "the download helper got a malformed request: \"insecure_http\" is missing or not of its type");

  std::vector<UrlAnswer> answers(3);
  answers[0].size = 5;
  answers[0].final_url = "https://a/x.whl";
  answers[1].body = "line one\nline two\n";
  answers[1].content_type = "text/html";
  answers[2].error = "could not fetch";
  std::string out = answers[1].body + "\n" + encode_query_answer(answers) + "\n";
  std::string error;
  auto back = decode_query_answer(out, error);
  REQUIRE(back.has_value());
  CHECK((*back)[0].size == 5u);
  CHECK((*back)[1].body == "line one\nline two\n");
  CHECK((*back)[1].content_type == "text/html");
  CHECK((*back)[2].error == "could not fetch");
  CHECK(out.empty());

  std::string short_body = "line one\n" + encode_query_answer(answers) + "\n";
  CHECK_FALSE(decode_query_answer(short_body, error).has_value());
  CHECK(error.empty());
  std::string helper_error = "{\"error\": \"the download helper got a malformed request: x\"}\n";
  CHECK_FALSE(decode_query_answer(helper_error, error).has_value());
  CHECK(error == "the download helper got a malformed request: x");
}
