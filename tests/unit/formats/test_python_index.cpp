// Package index pages (installer/formats/python_index.hpp): PEP 691 JSON,
// PEP 503 HTML and the plain folder listings --find-links reads, and the
// RFC 3986 resolution of their relative URLs.
#include <doctest/doctest.h>

#include <string>

#include "installer/formats/python_index.hpp"

using namespace wslgpu;

namespace {

IndexPage parsed_json_page(const std::string& text, const std::string& url = "https://pypi.example/simple/torch/") {
  std::string error;
  auto page = parse_index_json(text, url, error);
  INFO(error);
  REQUIRE(page.has_value());
  return *page;
}

std::string json_page_error(const std::string& text) {
  std::string error;
  CHECK_FALSE(parse_index_json(text, "https://pypi.example/simple/x/", error).has_value());
  return error;
}

const std::string kIndexSha = "a3b1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";

}  // namespace

TEST_CASE("relative URLs resolve as RFC 3986 resolves them, dot segments removed") {
  const std::string base = "http://a/b/c/d;p?q";
  CHECK(resolve_url(base, "g") == "http://a/b/c/g");
  CHECK(resolve_url(base, "./g") == "http://a/b/c/g");
  CHECK(resolve_url(base, "g/") == "http://a/b/c/g/");
  CHECK(resolve_url(base, "/g") == "http://a/g");
  CHECK(resolve_url(base, "//g") == "http://g");
  CHECK(resolve_url(base, "?y") == "http://a/b/c/d;p?y");
  CHECK(resolve_url(base, "g?y") == "http://a/b/c/g?y");
  CHECK(resolve_url(base, "#s") == "http://a/b/c/d;p?q#s");
  CHECK(resolve_url(base, "g;x=1/../y") == "http://a/b/c/y");
  CHECK(resolve_url(base, ".") == "http://a/b/c/");
  CHECK(resolve_url(base, "..") == "http://a/b/");
  CHECK(resolve_url(base, "../g") == "http://a/b/g");
  CHECK(resolve_url(base, "../../g") == "http://a/g");
  CHECK(resolve_url(base, "../../../g") == "http://a/g");
  CHECK(resolve_url(base, "") == "http://a/b/c/d;p?q");
  CHECK(resolve_url(base, "https://files.example/x.whl") == "https://files.example/x.whl");
  CHECK(resolve_url("file:///srv/simple/torch/", "../../wheels/torch.whl#sha256=ab") ==
        "file:///srv/wheels/torch.whl#sha256=ab");
  CHECK(resolve_url("https://h", "x.whl") == "https://h/x.whl");
}

TEST_CASE("a PEP 691 page gives each file's URL, hash, size and metadata file, and yanked ones say so") {
  auto page = parsed_json_page(R"({
    "meta": {"api-version": "1.1", "_last-serial": 1},
    "name": "torch",
    "versions": ["2.9.0", "2.9.1"],
    "files": [
      {"filename": "torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl",
       "url": "../../packages/ab/torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl",
       "hashes": {"sha256": ")" + kIndexSha + R"(", "md5": "00"}, "size": 899764322,
       "requires-python": ">=3.9.0", "core-metadata": {"sha256": ")" + kIndexSha + R"("}, "yanked": false},
      {"filename": "torch-2.9.0-cp312-cp312-win_amd64.whl", "url": "https://files.example/torch-2.9.0-cp312-cp312-win_amd64.whl",
       "hashes": {}, "dist-info-metadata": true, "yanked": "broken CUDA libraries"},
      {"filename": "torch-2.8.0.tar.gz", "url": "https://files.example/torch-2.8.0.tar.gz", "hashes": {},
       "core-metadata": false, "dist-info-metadata": true, "size": -1, "requires-python": null},
      {"filename": "no-url.whl", "hashes": {}},
      {"filename": 7, "url": "https://files.example/x.whl"}
    ]})");
  CHECK(page.name == "torch");
  REQUIRE(page.files.size() == 3);
  const IndexFile& wheel = page.files[0];
  CHECK(wheel.filename == "torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK(wheel.url == "https://pypi.example/packages/ab/torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl");
  CHECK(wheel.sha256 == kIndexSha);
  CHECK(wheel.size == 899764322u);
  CHECK(wheel.requires_python == ">=3.9.0");
  CHECK(wheel.has_metadata);
  CHECK(wheel.metadata_sha256 == kIndexSha);
  CHECK_FALSE(wheel.yanked);

  const IndexFile& windows = page.files[1];
  CHECK(windows.has_metadata);  // the older key, when core-metadata is absent
  CHECK(windows.metadata_sha256.empty());
  CHECK(windows.yanked);
  CHECK(windows.yanked_reason == "broken CUDA libraries");
  CHECK_FALSE(windows.size.has_value());

  const IndexFile& sdist = page.files[2];
  CHECK_FALSE(sdist.has_metadata);  // PEP 714: core-metadata wins over dist-info-metadata
  CHECK_FALSE(sdist.size.has_value());  // a negative size is no size
  CHECK(sdist.requires_python.empty());
}

TEST_CASE("what is not a PEP 691 project page is refused with the reason") {
  CHECK(json_page_error("{\"files\": [}") ==
        "the index page at https://pypi.example/simple/x/ is not PEP 691 JSON: it stops being JSON at byte 12");
  CHECK(json_page_error("[]") == "the index page at https://pypi.example/simple/x/ is not PEP 691 JSON: it is not a JSON object");
  CHECK(json_page_error("\"files\"") ==
        "the index page at https://pypi.example/simple/x/ is not PEP 691 JSON: it is not a JSON object");
  CHECK(json_page_error("{\"meta\": {\"api-version\": \"2.0\"}, \"files\": []}") ==
        "the index page at https://pypi.example/simple/x/ is not PEP 691 JSON: it speaks version 2.0 of the simple "
        "API, and this tool reads version 1");
  CHECK(json_page_error("{\"name\": \"x\", \"files\": {}}") ==
        "the index page at https://pypi.example/simple/x/ is not PEP 691 JSON: it has no \"files\" array");
  CHECK(parsed_json_page("{\"files\": []}").files.empty());
}

TEST_CASE("a PEP 503 page gives each anchor's file, with its hash fragment and decoded data attributes") {
  auto page = parse_index_html(R"(<!DOCTYPE html>
<html><head><meta name="pypi:repository-version" content="1.1"><title>Links for numpy</title></head>
<body><h1>Links for numpy</h1>
<!-- <a href="commented-out-1.0-py3-none-any.whl">no</a> -->
<a href="../../packages/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl#sha256=)" + kIndexSha +
                               R"(" data-requires-python="&gt;=3.10" data-core-metadata="sha256=)" + kIndexSha + R"(">numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl</a><br/>
<A HREF=https://files.example/numpy-2.0.0-cp312-cp312-win_amd64.whl data-yanked DATA-DIST-INFO-METADATA="true">numpy-2.0.0</A>
<a href='numpy-1.26.4.tar.gz' data-yanked="bad &amp; broken" data-dist-info-metadata="true" data-core-metadata="false">x</a>
<script>var s = '<a href="script-1.0-py3-none-any.whl">';</script>
<a name="no-href">anchor without a link</a>
</body></html>)",
                               "https://pypi.example/simple/numpy/");
  REQUIRE(page.files.size() == 3);
  CHECK(page.files[0].url == "https://pypi.example/packages/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
  CHECK(page.files[0].filename == "numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl");
  CHECK(page.files[0].sha256 == kIndexSha);
  CHECK(page.files[0].requires_python == ">=3.10");
  CHECK(page.files[0].has_metadata);
  CHECK(page.files[0].metadata_sha256 == kIndexSha);
  CHECK_FALSE(page.files[0].size.has_value());  // HTML never says
  CHECK(page.files[1].url == "https://files.example/numpy-2.0.0-cp312-cp312-win_amd64.whl");
  CHECK(page.files[1].yanked);
  CHECK(page.files[1].yanked_reason.empty());
  CHECK(page.files[1].has_metadata);
  CHECK(page.files[1].sha256.empty());
  CHECK(page.files[2].url == "https://pypi.example/simple/numpy/numpy-1.26.4.tar.gz");
  CHECK(page.files[2].yanked_reason == "bad & broken");
  CHECK_FALSE(page.files[2].has_metadata);  // data-core-metadata wins, and "false" is no file
}

TEST_CASE("a web server's folder listing is a find-links page: its files, not its folders or sort links") {
  auto page = parse_index_html(R"(<html><head><title>Index of /rocm/manylinux/rocm-rel-7.2.2/</title></head><body>
<h1>Index of /rocm/manylinux/rocm-rel-7.2.2/</h1><pre><a href="?C=N;O=D">Name</a> <a href="?C=M;O=A">Last modified</a>
<hr><a href="/rocm/manylinux/">Parent Directory</a>
<a href="torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl">torch-2.9.1+rocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl</a> 2025-10-01 12:00  4.5G
<a href="triton-3.5.1%2Brocm7.2.2.gita272dfa8-cp312-cp312-linux_x86_64.whl">triton-3.5.1+rocm7.2.2.gita272dfa8-cp312-cp312-linux_x86_64.whl</a> 2025-10-01 12:00  200M
<a href="old/">old/</a>
</pre></body></html>)",
                               "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.2/");
  REQUIRE(page.files.size() == 2);
  CHECK(page.files[0].filename == "torch-2.9.1+rocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl");
  CHECK(page.files[0].url == "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.2/"
                             "torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl");
  CHECK(page.files[1].filename == "triton-3.5.1+rocm7.2.2.gita272dfa8-cp312-cp312-linux_x86_64.whl");
}

TEST_CASE("a <base href> decides where relative links point, and entities decode in every attribute") {
  auto page = parse_index_html("<base href=\"https://mirror.example/wheels/\"><a href=\"a-1.0-py3-none-any.whl?x=1&amp;y=2\">a</a>"
                               "<a href=\"b-1.0-py3-none-any.whl\" data-requires-python=\"&lt;4,&#62;=3.8&#x2C;!=3.9.*\">b</a>",
                               "https://pypi.example/simple/a/");
  REQUIRE(page.files.size() == 2);
  CHECK(page.files[0].url == "https://mirror.example/wheels/a-1.0-py3-none-any.whl?x=1&y=2");
  CHECK(page.files[0].filename == "a-1.0-py3-none-any.whl");
  CHECK(page.files[1].requires_python == "<4,>=3.8,!=3.9.*");
}

TEST_CASE("JSON is told from HTML by the Content-Type, and by the first character when there is none") {
  CHECK(index_page_is_json("application/vnd.pypi.simple.v1+json", ""));
  CHECK(index_page_is_json("Application/JSON; charset=utf-8", "<html>"));
  CHECK_FALSE(index_page_is_json("text/html", "{"));
  CHECK_FALSE(index_page_is_json("application/vnd.pypi.simple.v1+html", ""));
  CHECK(index_page_is_json("", "\n  {\"files\": []}"));
  CHECK_FALSE(index_page_is_json("", "<!DOCTYPE html>"));
}
