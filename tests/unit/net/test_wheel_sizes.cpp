// The download estimate of a python_packages step (installer/net/
// wheel_sizes.hpp) against a loopback site that serves package indexes as
// PyPI and download.pytorch.org do (PEP 691 JSON with sizes and PEP 658
// metadata files, PEP 503 HTML without sizes) and a find-links listing as
// repo.radeon.com does, all asked through the wslgpu-setup-fetch helper.
// What is checked besides the figures: no wheel is ever downloaded (only
// HEAD requests reach a .whl), and what a marker leaves out (a dependency
// for Windows only, one for an extra nobody asked) is never looked up.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "installer/formats/sha256.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/net/wheel_sizes.hpp"
#include "support/build_paths.hpp"
#include "support/fakes.hpp"
#include "support/http_site.hpp"

using namespace wslgpu;
using wslgpu::testing::TempDir;
using wslgpu::testing::TinyHttpSite;
using Page = TinyHttpSite::Page;
using nlohmann::json;

namespace {

constexpr const char* kPep691Type = "application/vnd.pypi.simple.v1+json";

PythonTarget cpython312() {
  PythonTarget t;
  t.minor = 12;
  return t;
}

SizeOptions size_test_options() {
  SizeOptions o;
  o.python_full_version = "3.12.3";
  o.query.insecure_http = true;  // the loopback site speaks no TLS
  o.query.connect_timeout = std::chrono::seconds(5);
  o.query.total_timeout = std::chrono::seconds(10);
  o.query.backoff = std::chrono::milliseconds(10);
  o.ask = [](const std::vector<UrlQuery>& q, const QueryOptions& opts) {
    return ask_urls_with(wslgpu::testing::kFetchBinary, q, opts);
  };
  return o;
}

// One file of a PEP 691 page: SIZE 0 for none; METADATA "" for none,
// "true" for announced without a hash, else the metadata file's text (its
// hash is announced).
json index_entry(const std::string& filename, const std::string& url, std::uint64_t size = 0,
          const std::string& metadata = "") {
  json f{{"filename", filename}, {"url", url}, {"hashes", json::object()}};
  if (size) f["size"] = size;
  if (metadata == "true")
    f["core-metadata"] = true;
  else if (!metadata.empty())
    f["core-metadata"] = {{"sha256", sha256_hex(metadata)}};
  return f;
}

Page pep691_page(const std::string& name, const std::vector<json>& files) {
  return Page{200, json{{"meta", {{"api-version", "1.1"}}}, {"name", name}, {"files", files}}.dump(), kPep691Type};
}

Page html_page(const std::string& body) { return Page{200, body, "text/html"}; }
Page served_text(const std::string& body) { return Page{200, body, "binary/octet-stream"}; }
Page wheel_of_size(std::size_t bytes) { return Page{200, std::string(bytes, 'w'), "binary/octet-stream"}; }

std::string metadata_text(const std::string& name, const std::string& version, const std::vector<std::string>& requirements) {
  std::string m = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
  for (const auto& r : requirements) m += "Requires-Dist: " + r + "\n";
  return m + "\nThe long description.\n";
}

const WheelSize& wheel_row(const DownloadEstimate& e, const std::string& name) {
  auto it = std::find_if(e.wheels.begin(), e.wheels.end(), [&](const WheelSize& w) { return w.name == name; });
  INFO(name);
  REQUIRE(it != e.wheels.end());
  return *it;
}

std::vector<std::string> chosen_names(const DownloadEstimate& e) {
  std::vector<std::string> out;
  for (const auto& w : e.wheels) out.push_back(w.name + " " + w.version);
  return out;
}

// No wheel was downloaded: every request for a .whl is a HEAD, or a GET of
// its first byte (a server that does not say a length to HEAD).
void check_nothing_downloaded(const TinyHttpSite& site) {
  for (const auto& r : site.requests()) {
    bool is_wheel = r.path.size() > 4 && r.path.substr(r.path.size() - 4) == ".whl";
    CHECK_MESSAGE((!is_wheel || r.method == "HEAD" || r.range == "bytes=0-0"), (r.method + " " + r.path));
  }
}

bool site_asked_for(const TinyHttpSite& site, const std::string& path) {
  auto asked = site.asked();
  return std::any_of(asked.begin(), asked.end(), [&](const std::string& a) { return a.find(path) != std::string::npos; });
}

}  // namespace

TEST_CASE("torch from a PEP 691 index with sizes: its dependency chain walked from metadata files, markers applied") {
  std::string torch_meta = metadata_text("torch", "2.9.1",
                                    {"filelock", "nvidia-cudnn-cu12==9.10.2.21; platform_system == \"Linux\" and "
                                                 "platform_machine == \"x86_64\"",
                                     "pywin32>=300; sys_platform == \"win32\"", "typing-extensions>=4.10.0",
                                     "numpy; extra == \"opt\""});
  std::string cudnn_meta = metadata_text("nvidia-cudnn-cu12", "9.10.2.21", {"nvidia-cublas-cu12"});
  const std::string torch_whl = "torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl";
  const std::string cudnn_whl = "nvidia_cudnn_cu12-9.10.2.21-py3-none-manylinux_2_27_x86_64.whl";
  TinyHttpSite site(
      {{"/simple/torch/",
        pep691_page("torch", {index_entry(torch_whl, "../../packages/" + torch_whl, 900000000, torch_meta),
                            index_entry("torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl", "/packages/a.whl", 1),
                            index_entry("torch-2.9.1-cp312-cp312-win_amd64.whl", "/packages/b.whl", 2),
                            index_entry("torch-2.10.0rc1-cp312-cp312-manylinux_2_28_x86_64.whl", "/packages/c.whl", 3),
                            index_entry("torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl", "/packages/d.whl", 4),
                            index_entry("torch-2.9.1.tar.gz", "/packages/e.tar.gz", 5)})},
       {"/packages/" + torch_whl + ".metadata", served_text(torch_meta)},
       // PEP 503 HTML: no sizes, no metadata files.
       {"/simple/filelock/", html_page("<!DOCTYPE html><html><body>"
                                  "<a href=\"/files/filelock-3.20.0-py3-none-any.whl#sha256=00ff\">filelock-3.20.0</a>"
                                  "<a href=\"/files/filelock-3.19.1-py3-none-any.whl\">filelock-3.19.1</a>"
                                  "<a href=\"/files/filelock-3.21.0.tar.gz\">filelock-3.21.0.tar.gz</a>"
                                  "</body></html>")},
       {"/files/filelock-3.20.0-py3-none-any.whl", wheel_of_size(12345)},
       {"/simple/nvidia-cudnn-cu12/",
        pep691_page("nvidia-cudnn-cu12",
                  {index_entry(cudnn_whl, "/packages/" + cudnn_whl, 700000000, cudnn_meta),
                   index_entry("nvidia_cudnn_cu12-9.13.0.50-py3-none-manylinux_2_27_x86_64.whl", "/packages/f.whl", 6)})},
       {"/packages/" + cudnn_whl + ".metadata", served_text(cudnn_meta)},
       {"/simple/nvidia-cublas-cu12/",
        pep691_page("nvidia-cublas-cu12", {index_entry("nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.whl",
                                              "/packages/nvidia_cublas_cu12-12.8.4.1.whl", 600000000)})}});
  auto e = estimate_downloads({{"torch", "", ""}}, site.url("/simple"), {}, cpython312(),
                              {{"typing-extensions", "4.15.0"}}, size_test_options());
  CHECK(chosen_names(e) == std::vector<std::string>{"torch 2.9.1", "filelock 3.20.0", "nvidia_cudnn_cu12 9.10.2.21",
                                             "nvidia_cublas_cu12 12.8.4.1"});
  CHECK(wheel_row(e, "torch").bytes == 900000000u);
  CHECK(wheel_row(e, "torch").url == site.url("/packages/" + torch_whl));
  CHECK_FALSE(wheel_row(e, "torch").dependency);
  CHECK(wheel_row(e, "filelock").bytes == 12345u);  // HTML gives no size: asked by HEAD
  CHECK(wheel_row(e, "filelock").dependency);
  CHECK(wheel_row(e, "filelock").required_by == "torch");
  CHECK(wheel_row(e, "nvidia_cudnn_cu12").bytes == 700000000u);  // ==9.10.2.21, not the newer 9.13
  CHECK(wheel_row(e, "nvidia_cublas_cu12").required_by == "nvidia_cudnn_cu12");
  CHECK(e.known_bytes == 900000000u + 12345u + 700000000u + 600000000u);
  CHECK(e.unknown == 0);
  CHECK(e.notes == std::vector<std::string>{
                       "dependencies of filelock 3.20.0 not counted: the index " + site.url("/simple") +
                           " gives no metadata file for filelock-3.20.0-py3-none-any.whl (PEP 658), and the wheel is "
                           "not downloaded to read it",
                       "dependencies of nvidia_cublas_cu12 12.8.4.1 not counted: the index " + site.url("/simple") +
                           " gives no metadata file for nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.whl "
                           "(PEP 658), and the wheel is not downloaded to read it"});
  // Windows-only, extra-only and installed requirements are never looked up.
  CHECK_FALSE(site_asked_for(site, "pywin32"));
  CHECK_FALSE(site_asked_for(site, "numpy"));
  CHECK_FALSE(site_asked_for(site, "typing-extensions"));
  check_nothing_downloaded(site);
  // The index was asked for JSON first.
  for (const auto& r : site.requests())
    if (r.path.rfind("/simple/", 0) == 0) CHECK(r.accept.find("application/vnd.pypi.simple.v1+json") == 0);
}

TEST_CASE("wheels by URL: sized by HEAD, their dependencies from the index, and a server without a length is unknown") {
  const std::string torch = "/rocm/torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl";
  const std::string triton = "/rocm/triton-3.5.1%2Brocm7.2.2.gita272dfa8-cp312-cp312-linux_x86_64.whl";
  Page no_length = wheel_of_size(4096);
  no_length.send_length = false;
  TinyHttpSite site({{torch, wheel_of_size(45000)},
                     {torch + ".metadata", served_text(metadata_text("torch", "2.9.1+rocm7.2.2.lw.git127a149a",
                                                         {"triton==3.5.1", "numpy"}))},
                     {triton, no_length},
                     {"/simple/numpy/", html_page("<a href=\"numpy-2.3.4-cp312-cp312-manylinux_2_28_x86_64.whl\">n</a>")},
                     {"/simple/numpy/numpy-2.3.4-cp312-cp312-manylinux_2_28_x86_64.whl", wheel_of_size(1600)}});
  auto e = estimate_downloads({{"", "", site.url(torch)}, {"", "", site.url(triton) + "#sha256=ab12"}},
                              site.url("/simple/"), {}, cpython312(), {}, size_test_options());
  CHECK(chosen_names(e) == std::vector<std::string>{"torch 2.9.1+rocm7.2.2.lw.git127a149a", "triton 3.5.1+rocm7.2.2.gita272dfa8",
                                             "numpy 2.3.4"});
  CHECK(wheel_row(e, "torch").bytes == 45000u);
  CHECK(wheel_row(e, "triton").url == site.url(triton));
  CHECK_FALSE(wheel_row(e, "triton").bytes.has_value());
  CHECK(wheel_row(e, "triton").why_unknown == "the server does not say how large it is (no Content-Length)");
  CHECK(wheel_row(e, "numpy").bytes == 1600u);
  CHECK(wheel_row(e, "numpy").required_by == "torch");
  CHECK(e.known_bytes == 45000u + 1600u);
  CHECK(e.unknown == 1);
  // triton==3.5.1 is met by the wheel by URL, local label and all: no conflict, no lookup.
  CHECK_FALSE(site_asked_for(site, "/simple/triton/"));
  CHECK(std::find(e.notes.begin(), e.notes.end(),
                  "dependencies of triton 3.5.1+rocm7.2.2.gita272dfa8 not counted: there is no metadata file (PEP 658) "
                  "beside " +
                      site.url(triton) + ", and the wheel is not downloaded to read it") != e.notes.end());
  check_nothing_downloaded(site);
}

TEST_CASE("the version chosen: ==X matches X+local, pre-releases and yanked files only when nothing else fits") {
  TinyHttpSite site;
  auto whl = [&](const std::string& name, const std::string& v) {
    return index_entry(name + "-" + v + "-py3-none-any.whl", "/f/" + name + "-" + v + ".whl", 1000 + v.size());
  };
  site.set("/simple/torch/",
           pep691_page("torch", {index_entry("torch-2.9.1+cu130-cp312-cp312-manylinux_2_28_x86_64.whl", "/f/t1.whl", 111),
                               index_entry("torch-2.10.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl", "/f/t2.whl", 222)}));
  site.set("/simple/scipy/", pep691_page("scipy", {whl("scipy", "1.14.1"), whl("scipy", "1.15.0rc1")}));
  site.set("/simple/onlypre/", pep691_page("onlypre", {whl("onlypre", "2.0b1")}));
  json yanked = whl("yank", "3.0");
  yanked["yanked"] = "broken";
  site.set("/simple/yank/", pep691_page("yank", {yanked, whl("yank", "2.9")}));
  json only_yanked = whl("gone", "1.0");
  only_yanked["yanked"] = true;
  site.set("/simple/gone/", pep691_page("gone", {only_yanked}));
  json old_python = whl("oldpy", "5.0");
  old_python["requires-python"] = ">=3.13";
  site.set("/simple/oldpy/", pep691_page("oldpy", {old_python, whl("oldpy", "4.0")}));
  auto e = estimate_downloads({{"torch", "2.9.1", ""},
                               {"numpy", "", ""},
                               {"scipy", "", ""},
                               {"onlypre", "", ""},
                               {"yank", "", ""},
                               {"gone", "", ""},
                               {"oldpy", "", ""}},
                              site.url("/simple"), {}, cpython312(), {{"numpy", "2.1.0"}}, size_test_options());
  CHECK(chosen_names(e) == std::vector<std::string>{"torch 2.9.1+cu130", "scipy 1.14.1", "onlypre 2.0b1", "yank 2.9",
                                             "gone 1.0", "oldpy 4.0"});
  CHECK(wheel_row(e, "torch").bytes == 111u);
  CHECK_FALSE(site_asked_for(site, "numpy"));  // installed, and any version will do
  CHECK(std::find(e.notes.begin(), e.notes.end(), "gone 1.0 is yanked on its index; nothing else satisfies the request") !=
        e.notes.end());
}

TEST_CASE("a dependency's constraint chooses again, and one against the manifest's own version is a note") {
  TinyHttpSite site;
  auto whl = [&](const std::string& name, const std::string& v, std::uint64_t size, const std::string& meta) {
    std::string f = name + "-" + v + "-py3-none-any.whl";
    if (meta != "true" && !meta.empty()) site.set("/f/" + f + ".metadata", served_text(meta));
    return index_entry(f, "/f/" + f, size, meta);
  };
  site.set("/simple/a/", pep691_page("a", {whl("a", "1.0", 10, metadata_text("a", "1.0", {"b"}))}));
  site.set("/simple/c/", pep691_page("c", {whl("c", "1.0", 30, metadata_text("c", "1.0", {"b<2", "torch==2.10.0"}))}));
  site.set("/simple/b/", pep691_page("b", {whl("b", "2.0", 2000, "true"), whl("b", "1.5", 1500, "true")}));
  site.set("/f/b-2.0-py3-none-any.whl.metadata", served_text(metadata_text("b", "2.0", {})));
  site.set("/f/b-1.5-py3-none-any.whl.metadata", served_text(metadata_text("b", "1.5", {})));
  site.set("/simple/torch/", pep691_page("torch", {whl("torch", "2.9.1", 900, "true"), whl("torch", "2.10.0", 1000, "true")}));
  site.set("/f/torch-2.9.1-py3-none-any.whl.metadata", served_text(metadata_text("torch", "2.9.1", {})));
  auto e = estimate_downloads({{"a", "", ""}, {"c", "", ""}, {"torch", "2.9.1", ""}}, site.url("/simple"), {}, cpython312(),
                              {}, size_test_options());
  CHECK(chosen_names(e) == std::vector<std::string>{"a 1.0", "c 1.0", "torch 2.9.1", "b 1.5"});
  CHECK(wheel_row(e, "b").bytes == 1500u);
  CHECK(e.known_bytes == 10u + 30u + 900u + 1500u);
  CHECK(e.notes == std::vector<std::string>{
                       "c requires b <2, and b 2.0 was counted at first; 1.5 is counted instead, and what the first one "
                       "requires is counted too",
                       "c requires torch ==2.10.0, and torch 2.9.1 comes from the manifest: pip will refuse this set or "
                       "resolve it otherwise"});
}

TEST_CASE("with no index, the find-links pages and folders are where wheels are found; local ones cost no download") {
  TinyHttpSite site;
  site.set("/rocm/manylinux/rocm-rel-7.2.2/",
           html_page("<html><body><h1>Index of /rocm/manylinux/rocm-rel-7.2.2/</h1><pre>"
                "<a href=\"../\">../</a>"
                "<a href=\"torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl\">torch-2.9.1+rocm...</a>"
                "<a href=\"torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp311-cp311-linux_x86_64.whl\">torch-2.9.1+rocm...</a>"
                "</pre></body></html>"));
  site.set("/rocm/manylinux/rocm-rel-7.2.2/torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl",
           wheel_of_size(4500));
  TempDir tmp;
  tmp.write("root/srv/wheels/numpy-2.3.4-cp312-cp312-manylinux_2_28_x86_64.whl", std::string(800, 'n'));
  tmp.write("root/srv/wheels/README.txt", "not a wheel");
  SizeOptions o = size_test_options();
  o.query.file_root = tmp.path() + "/root";
  auto e = estimate_downloads({{"torch", "", ""}, {"numpy", "", ""}, {"missing", "", ""}}, "",
                              {site.url("/rocm/manylinux/rocm-rel-7.2.2/"), "file:///srv/wheels/"}, cpython312(), {}, o);
  CHECK(chosen_names(e) == std::vector<std::string>{"torch 2.9.1+rocm7.2.2.lw.git127a149a", "numpy 2.3.4", "missing "});
  CHECK(wheel_row(e, "torch").bytes == 4500u);
  CHECK_FALSE(wheel_row(e, "torch").local);
  CHECK(wheel_row(e, "numpy").bytes == 800u);
  CHECK(wheel_row(e, "numpy").local);
  CHECK(wheel_row(e, "numpy").url == "file:///srv/wheels/numpy-2.3.4-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK(wheel_row(e, "missing").why_unknown == "missing is not on the find-links pages");
  CHECK(e.known_bytes == 4500u);
  CHECK(e.local_bytes == 800u);
  CHECK(e.unknown == 1);
  check_nothing_downloaded(site);
}

TEST_CASE("what cannot be known says why: a project the index lacks, no wheel that runs, a bad hash, the page limit") {
  TinyHttpSite site;
  site.set("/simple/sdistonly/", pep691_page("sdistonly", {index_entry("sdistonly-1.0.tar.gz", "/f/s.tar.gz", 50)}));
  site.set("/simple/winonly/", pep691_page("winonly", {index_entry("winonly-1.0-cp312-cp312-win_amd64.whl", "/f/w.whl", 60)}));
  site.set("/simple/pinned/", pep691_page("pinned", {index_entry("pinned-2.0-py3-none-any.whl", "/f/p.whl", 70)}));
  json bad = index_entry("badhash-1.0-py3-none-any.whl", "/f/badhash-1.0-py3-none-any.whl", 80, "the metadata announced");
  site.set("/simple/badhash/", pep691_page("badhash", {bad}));
  site.set("/f/badhash-1.0-py3-none-any.whl.metadata", served_text(metadata_text("badhash", "1.0", {"tampered"})));
  auto e = estimate_downloads(
      {{"nosuch", "", ""}, {"sdistonly", "", ""}, {"winonly", "", ""}, {"pinned", "1.0", ""}, {"badhash", "", ""}},
      site.url("/simple"), {}, cpython312(), {}, size_test_options());
  const std::string index = "the index " + site.url("/simple");
  CHECK(wheel_row(e, "nosuch").why_unknown == "nosuch could not be looked up on " + index + ": could not fetch " +
                                            site.url("/simple/nosuch/") +
                                            " after 1 attempt: The requested URL returned error: 404");
  CHECK(wheel_row(e, "sdistonly").why_unknown ==
        "no wheel of sdistonly on " + index + " runs on CPython 3.12 on x86_64 (pip would have to build one from source)");
  CHECK(wheel_row(e, "winonly").why_unknown ==
        "no wheel of winonly on " + index + " runs on CPython 3.12 on x86_64 (pip would have to build one from source)");
  CHECK(wheel_row(e, "pinned").why_unknown == "no wheel of pinned on " + index +
                                            " satisfies ==1.0 and runs on CPython 3.12 on x86_64 (the newest that runs "
                                            "here is 2.0)");
  CHECK(wheel_row(e, "badhash").bytes == 80u);
  CHECK(e.unknown == 4);
  CHECK(e.known_bytes == 80u);
  CHECK(e.notes == std::vector<std::string>{"dependencies of badhash 1.0 not counted: its metadata file " +
                                            site.url("/f/badhash-1.0-py3-none-any.whl.metadata") +
                                            " does not match the SHA-256 its index gives"});
  CHECK_FALSE(site_asked_for(site, "tampered"));

  SizeOptions few = size_test_options();
  few.max_pages = 2;
  auto limited = estimate_downloads({{"sdistonly", "", ""}, {"winonly", "", ""}, {"pinned", "", ""}},
                                    site.url("/simple"), {}, cpython312(), {}, few);
  CHECK(wheel_row(limited, "pinned").why_unknown ==
        "pinned could not be looked up on " + index + ": not looked up: the estimate's limit of 2 pages was reached");
  CHECK(limited.notes == std::vector<std::string>{"stopped after 2 index pages and metadata files (the most one "
                                                  "estimate fetches): pinned and what it requires not counted"});
}

TEST_CASE("a step's tests can give the answers themselves, without any server") {
  std::map<std::string, UrlAnswer> table;
  table["https://download.pytorch.org/whl/cu130/torch/"].body =
      "<a href=\"/whl/cu130/torch-2.9.1%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl#sha256=ab\">t</a>";
  table["https://download.pytorch.org/whl/cu130/torch-2.9.1%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl"].size =
      3000000000u;
  std::vector<std::string> asked;
  SizeOptions o;
  o.ask = [&](const std::vector<UrlQuery>& queries, const QueryOptions&) {
    std::vector<UrlAnswer> out;
    for (const auto& q : queries) {
      asked.push_back(q.url);
      auto it = table.find(q.url);
      out.push_back(it != table.end() ? it->second : UrlAnswer{"could not fetch " + q.url + ": not in the table"});
    }
    return out;
  };
  auto e = estimate_downloads({{"torch", "2.9.1", ""}}, "https://download.pytorch.org/whl/cu130", {}, cpython312(), {}, o);
  CHECK(chosen_names(e) == std::vector<std::string>{"torch 2.9.1+cu130"});
  CHECK(e.known_bytes == 3000000000u);
  CHECK(asked == std::vector<std::string>{
                     "https://download.pytorch.org/whl/cu130/torch/",
                     "https://download.pytorch.org/whl/cu130/torch-2.9.1%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl"});
}
