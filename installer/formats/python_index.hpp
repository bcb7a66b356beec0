// What a Python package index says about a project's files, read from the
// page pip reads (the "simple repository API",
// https://packaging.python.org/en/latest/specifications/simple-repository-api/):
//   - PEP 691's JSON (application/vnd.pypi.simple.v1+json): "files", each
//     with "filename", "url", "hashes", PEP 700's "size", PEP 658/714's
//     "core-metadata" (or the older "dist-info-metadata") and PEP 592's
//     "yanked"; "meta"."api-version" must be 1.x;
//   - PEP 503's HTML: one <a href="URL#sha256=HEX"> per file, with
//     data-requires-python, data-yanked and PEP 658/714's
//     data-core-metadata (or data-dist-info-metadata), attribute values
//     HTML-escaped; and the plain HTML listings pip's --find-links reads
//     (a web server's folder index, as AMD's repo.radeon.com pages are):
//     the same anchors, without the attributes.
// Relative URLs are resolved against the page's URL (after its redirects)
// or a <base href>. Read for an estimate of what pip will download
// (installer/net/wheel_sizes.hpp), never to choose what is installed.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wslgpu {

struct IndexFile {
  std::string filename;  // the URL's last path component, percent-decoded
  std::string url;       // absolute, without its #fragment
  std::string sha256;    // lowercase hex, "" when the page gives none
  std::optional<std::uint64_t> size;  // PEP 700 (JSON only)
  std::string requires_python;        // "" when none
  // PEP 658/714: the wheel's METADATA is served apart, at URL + ".metadata".
  bool has_metadata = false;
  std::string metadata_sha256;  // its hash, when the page gives one
  bool yanked = false;          // PEP 592
  std::string yanked_reason;
};

struct IndexPage {
  std::string name;  // the project's name (JSON "name"); "" from HTML
  std::vector<IndexFile> files;
};

// The Accept header that asks for PEP 691's JSON and takes PEP 503's HTML
// when a server has no JSON (the value PEP 691 recommends).
inline constexpr const char* kIndexAccept =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01";

// Whether a page with CONTENT_TYPE (a Content-Type header, "" for a file: URL)
// and BODY is JSON: the header says application/vnd.pypi.simple.v1+json (or
// application/json), or, without a header, the body's first non-blank
// character is '{'.
bool index_page_is_json(std::string_view content_type, std::string_view body);

// A PEP 691 project page. nullopt with ERROR ("the index page at URL is not
// PEP 691 JSON: ...") when TEXT is not JSON, not an object with a "files"
// array, or speaks an API version other than 1.x. A file without a string
// "filename" and "url" is skipped; a value of the wrong type reads as absent.
std::optional<IndexPage> parse_index_json(std::string_view text, const std::string& page_url, std::string& error);

// A PEP 503 project page or a find-links listing: every <a> with an href
// (outside comments), in order. Never fails: what is not an anchor is text.
IndexPage parse_index_html(std::string_view text, const std::string& page_url);

// The same two, handing each file to ON_FILE as it is read instead of
// keeping them: a page of thousands of files (PyPI's numpy) is never held
// whole next to its text. The JSON one returns false, with ERROR, when the
// other would return nullopt (files already handed over stay handed over).
using IndexFileSink = std::function<void(IndexFile)>;
bool read_index_json(std::string_view text, const std::string& page_url, const IndexFileSink& on_file,
                     std::string& error);
void read_index_html(std::string_view text, const std::string& page_url, const IndexFileSink& on_file);

// REFERENCE resolved against BASE as RFC 3986 section 5.2 says (dot
// segments removed): "../x.whl" of "https://h/a/b/" is "https://h/a/x.whl".
std::string resolve_url(const std::string& base, const std::string& reference);

}  // namespace wslgpu
