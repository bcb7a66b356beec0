#include "installer/formats/python_index.hpp"

#include <algorithm>
#include <initializer_list>

#include <nlohmann/json.hpp>

#include "installer/formats/wheel_name.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

// ---- URLs (RFC 3986, section 5.2)

namespace {

struct UrlParts {
  std::optional<std::string> scheme, authority, query, fragment;
  std::string path;
};

UrlParts split_url(std::string_view u) {
  UrlParts p;
  std::size_t colon = u.find(':');
  std::size_t first_delimiter = u.find_first_of("/?#");
  auto scheme_char = [](char c) {
    return text::is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' || c == '-' || c == '.';
  };
  if (colon != std::string_view::npos && colon > 0 && colon < first_delimiter &&
      ((u[0] >= 'a' && u[0] <= 'z') || (u[0] >= 'A' && u[0] <= 'Z')) &&
      std::all_of(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(colon), scheme_char)) {
    p.scheme = std::string(u.substr(0, colon));
    u.remove_prefix(colon + 1);
  }
  if (u.rfind("//", 0) == 0) {
    std::size_t end = u.find_first_of("/?#", 2);
    p.authority = std::string(u.substr(2, end == std::string_view::npos ? std::string_view::npos : end - 2));
    u.remove_prefix(end == std::string_view::npos ? u.size() : end);
  }
  std::size_t hash = u.find('#');
  if (hash != std::string_view::npos) {
    p.fragment = std::string(u.substr(hash + 1));
    u = u.substr(0, hash);
  }
  std::size_t question = u.find('?');
  if (question != std::string_view::npos) {
    p.query = std::string(u.substr(question + 1));
    u = u.substr(0, question);
  }
  p.path = std::string(u);
  return p;
}

// RFC 3986 5.2.4: "." and ".." segments removed from PATH.
std::string remove_dot_segments(std::string in) {
  std::string out;
  while (!in.empty()) {
    if (in.rfind("../", 0) == 0) {
      in.erase(0, 3);
    } else if (in.rfind("./", 0) == 0) {
      in.erase(0, 2);
    } else if (in.rfind("/./", 0) == 0) {
      in.erase(0, 2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.rfind("/../", 0) == 0 || in == "/..") {
      in = in == "/.." ? "/" : in.substr(3);
      auto slash = out.rfind('/');
      out.erase(slash == std::string::npos ? 0 : slash);
    } else if (in == "." || in == "..") {
      in.clear();
    } else {
      std::size_t next = in.find('/', in[0] == '/' ? 1 : 0);
      out += in.substr(0, next);
      in.erase(0, next == std::string::npos ? in.size() : next);
    }
  }
  return out;
}

std::string join_url(const UrlParts& p) {
  std::string out;
  if (p.scheme) out += *p.scheme + ":";
  if (p.authority) out += "//" + *p.authority;
  out += p.path;
  if (p.query) out += "?" + *p.query;
  if (p.fragment) out += "#" + *p.fragment;
  return out;
}

}  // namespace

std::string resolve_url(const std::string& base, const std::string& reference) {
  UrlParts r = split_url(reference), b = split_url(base), t;
  if (r.scheme) {
    t = r;
    t.path = remove_dot_segments(r.path);
  } else if (r.authority) {
    t = r;
    t.scheme = b.scheme;
    t.path = remove_dot_segments(r.path);
  } else {
    t.scheme = b.scheme;
    t.authority = b.authority;
    if (r.path.empty()) {
      t.path = b.path;
      t.query = r.query ? r.query : b.query;
    } else {
      if (r.path.front() == '/') {
        t.path = remove_dot_segments(r.path);
      } else {
        std::string merged = b.authority && b.path.empty()
                                 ? "/" + r.path
                                 : b.path.substr(0, b.path.rfind('/') == std::string::npos ? 0 : b.path.rfind('/') + 1) +
                                       r.path;
        t.path = remove_dot_segments(merged);
      }
      t.query = r.query;
    }
    t.fragment = r.fragment;
  }
  return join_url(t);
}

namespace {

bool is_hex_text(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
}

// Fills FILE's url, filename and (from a "#sha256=HEX" fragment, PEP 503)
// sha256 from HREF as resolved against BASE.
void set_location(IndexFile& file, const std::string& base, const std::string& href) {
  std::string url = resolve_url(base, href);
  std::size_t hash = url.find('#');
  if (hash != std::string::npos) {
    std::string fragment = url.substr(hash + 1);
    url.erase(hash);
    if (fragment.rfind("sha256=", 0) == 0 && is_hex_text(fragment.substr(7)) && file.sha256.empty())
      file.sha256 = text::lower(fragment.substr(7));
  }
  std::string path = split_url(url).path;
  file.filename = percent_decode(path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1));
  file.url = std::move(url);
}

// PEP 658/714's value: "true", or "HASHNAME=HEX" (the metadata file's hash).
void set_metadata(IndexFile& file, const std::string& value) {
  auto eq = value.find('=');
  if (value == "true") {
    file.has_metadata = true;
  } else if (eq != std::string::npos && eq > 0 && eq + 1 < value.size()) {
    file.has_metadata = true;
    if (value.compare(0, eq, "sha256") == 0 && is_hex_text(value.substr(eq + 1)))
      file.metadata_sha256 = text::lower(value.substr(eq + 1));
  }
}

}  // namespace

bool index_page_is_json(std::string_view content_type, std::string_view body) {
  std::string type = text::lower(text::trim(content_type.substr(0, content_type.find(';')), text::kCSpace));
  if (!type.empty()) return type == "application/vnd.pypi.simple.v1+json" || type == "application/json";
  std::string_view start = text::trim(body, text::kCSpace);
  return !start.empty() && start.front() == '{';
}

// ---- PEP 691 JSON, read as a stream of events (a whole document as
// nlohmann values takes several times its text's memory: PyPI's numpy page
// is megabytes)

namespace {

class IndexJsonReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  IndexJsonReader(const std::string& page_url, const IndexFileSink& on_file) : page_url_(page_url), on_file_(on_file) {}

  std::string name;
  std::string api_version;
  bool top_is_object = false;
  bool has_files = false;
  std::size_t error_at = 0;
  bool failed = false;

  bool null() override { return note_value(); }
  bool boolean(bool value) override {
    if (!note_value()) return false;
    if (at({"files", "[]", "yanked"})) file_.yanked = value;
    if (at({"files", "[]", "core-metadata"})) core_ = value ? Present::yes : Present::no;
    if (at({"files", "[]", "dist-info-metadata"})) dist_info_ = value ? Present::yes : Present::no;
    return true;
  }
  bool number_integer(number_integer_t) override { return note_value(); }
  bool number_unsigned(number_unsigned_t value) override {
    if (!note_value()) return false;
    if (at({"files", "[]", "size"})) file_.size = value;
    return true;
  }
  bool number_float(number_float_t, const string_t&) override { return note_value(); }
  bool binary(binary_t&) override { return note_value(); }
  bool string(string_t& value) override {
    if (!note_value()) return false;
    if (at({"name"})) name = value;
    if (at({"meta", "api-version"})) api_version = value;
    if (at({"files", "[]", "filename"})) filename_ = value;
    if (at({"files", "[]", "url"})) href_ = value;
    if (at({"files", "[]", "requires-python"})) file_.requires_python = value;
    if (at({"files", "[]", "yanked"})) {
      file_.yanked = true;
      file_.yanked_reason = value;
    }
    if (at({"files", "[]", "hashes", "sha256"}) && is_hex_text(value)) sha256_ = text::lower(value);
    if (at({"files", "[]", "core-metadata", "sha256"}) && is_hex_text(value)) core_sha256_ = text::lower(value);
    if (at({"files", "[]", "dist-info-metadata", "sha256"}) && is_hex_text(value)) dist_info_sha256_ = text::lower(value);
    return true;
  }
  bool start_object(std::size_t) override {
    if (path_.empty()) {
      if (seen_top_) return false;
      seen_top_ = top_is_object = true;
    }
    if (at({"files", "[]"})) begin_file();
    // A hashes object means the metadata file is there.
    if (at({"files", "[]", "core-metadata"})) core_ = Present::yes;
    if (at({"files", "[]", "dist-info-metadata"})) dist_info_ = Present::yes;
    path_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    path_.back() = k;
    return true;
  }
  bool end_object() override {
    path_.pop_back();
    if (at({"files", "[]"})) end_file();
    return true;
  }
  bool start_array(std::size_t) override {
    if (!note_value()) return false;
    if (at({"files"})) has_files = true;
    path_.emplace_back("[]");
    return true;
  }
  bool end_array() override {
    path_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    failed = true;
    error_at = position;
    return false;
  }

 private:
  enum class Present { absent, no, yes };

  bool at(std::initializer_list<std::string_view> where) const {
    return path_.size() == where.size() && std::equal(where.begin(), where.end(), path_.begin());
  }
  // A value at the top is a document that is not an object.
  bool note_value() {
    if (path_.empty()) {
      seen_top_ = true;
      return false;
    }
    return true;
  }
  void begin_file() {
    file_ = IndexFile{};
    filename_.reset();
    href_.reset();
    sha256_.clear();
    core_ = dist_info_ = Present::absent;
    core_sha256_.clear();
    dist_info_sha256_.clear();
  }
  void end_file() {
    if (!filename_ || !href_) return;
    file_.sha256 = sha256_;
    set_location(file_, page_url_, *href_);
    file_.filename = *filename_;  // the page's own name for it
    // PEP 714: core-metadata when the page has it, else the older key.
    bool core = core_ != Present::absent;
    file_.has_metadata = (core ? core_ : dist_info_) == Present::yes;
    if (file_.has_metadata) file_.metadata_sha256 = core ? core_sha256_ : dist_info_sha256_;
    on_file_(std::move(file_));
  }

  const std::string& page_url_;
  IndexFileSink on_file_;  // a copy: callers pass lambdas
  std::vector<std::string> path_;  // the keys down to the current value; "[]" for an array's element
  bool seen_top_ = false;
  IndexFile file_;
  std::optional<std::string> filename_, href_;
  std::string sha256_, core_sha256_, dist_info_sha256_;
  Present core_ = Present::absent, dist_info_ = Present::absent;
};

bool read_page(std::string_view text, const std::string& page_url, IndexJsonReader& reader, std::string& error) {
  bool parsed = nlohmann::json::sax_parse(text.begin(), text.end(), &reader);
  std::string what = "the index page at " + page_url + " is not PEP 691 JSON: ";
  if (reader.failed) {
    error = what + "it stops being JSON at byte " + std::to_string(reader.error_at);
    return false;
  }
  if (!parsed || !reader.top_is_object) {
    error = what + "it is not a JSON object";
    return false;
  }
  std::string major = reader.api_version.substr(0, reader.api_version.find('.'));
  if (!reader.api_version.empty() && major != "1") {
    error = what + "it speaks version " + reader.api_version + " of the simple API, and this tool reads version 1";
    return false;
  }
  if (!reader.has_files) {
    error = what + "it has no \"files\" array";
    return false;
  }
  return true;
}

}  // namespace

std::optional<IndexPage> parse_index_json(std::string_view text, const std::string& page_url, std::string& error) {
  IndexPage page;
  IndexJsonReader reader(page_url, [&](IndexFile f) { page.files.push_back(std::move(f)); });
  if (!read_page(text, page_url, reader, error)) return std::nullopt;
  page.name = reader.name;
  return page;
}

bool read_index_json(std::string_view text, const std::string& page_url, const IndexFileSink& on_file,
                     std::string& error) {
  IndexJsonReader reader(page_url, on_file);
  return read_page(text, page_url, reader, error);
}


// ---- PEP 503 HTML and find-links listings

namespace {

// &amp; &lt; &gt; &quot; &apos; and numeric references decoded; anything
// else kept as written (HTML's hundreds of named ones never appear in a URL
// or a version specifier).
std::string decode_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    std::size_t semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out += s[i];
      continue;
    }
    std::string_view name = s.substr(i + 1, semi - i - 1);
    static constexpr std::pair<std::string_view, char> kNamed[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    bool done = false;
    for (auto [n, c] : kNamed) {
      if (name == n) {
        out += c;
        done = true;
      }
    }
    if (!done && name.size() > 1 && name[0] == '#') {
      bool hex = name[1] == 'x' || name[1] == 'X';
      std::string_view digits = name.substr(hex ? 2 : 1);
      std::uint32_t cp = 0;
      bool ok = !digits.empty() && digits.size() <= 6;
      for (char c : digits) {
        int d = text::is_digit(c) ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
                                         : hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                                        : -1;
        if (d < 0) ok = false;
        cp = cp * (hex ? 16u : 10u) + static_cast<std::uint32_t>(std::max(d, 0));
      }
      if (ok && cp > 0 && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF)) {
        text::append_utf8(out, cp);
        done = true;
      }
    }
    if (done)
      i = semi;
    else
      out += s[i];
  }
  return out;
}

struct HtmlTag {
  std::string name;  // lowercase; "" for a closing tag or a declaration
  std::vector<std::pair<std::string, std::optional<std::string>>> attributes;  // lowercase names, decoded values
};

// Reads the tag at TEXT[I] == '<' up to its '>' (I is left after it).
HtmlTag read_html_tag(std::string_view s, std::size_t& i) {
  HtmlTag tag;
  ++i;
  auto space = [&](std::size_t at) { return at < s.size() && text::is_space(s[at]); };
  if (i < s.size() && (s[i] == '/' || s[i] == '!' || s[i] == '?')) {
    std::size_t end = s.find('>', i);
    i = end == std::string_view::npos ? s.size() : end + 1;
    return tag;
  }
  std::size_t start = i;
  while (i < s.size() && !space(i) && s[i] != '>' && s[i] != '/') ++i;
  tag.name = text::lower(s.substr(start, i - start));
  for (;;) {
    while (space(i) || (i < s.size() && s[i] == '/')) ++i;
    if (i >= s.size()) return tag;
    if (s[i] == '>') {
      ++i;
      return tag;
    }
    start = i;
    while (i < s.size() && !space(i) && s[i] != '=' && s[i] != '>' && s[i] != '/') ++i;
    if (i == start) ++i;  // a stray '=': skipped
    std::string name = text::lower(s.substr(start, i - start));
    while (space(i)) ++i;
    std::optional<std::string> value;
    if (i < s.size() && s[i] == '=') {
      ++i;
      while (space(i)) ++i;
      if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
        char quote = s[i];
        std::size_t end = s.find(quote, i + 1);
        if (end == std::string_view::npos) end = s.size();
        value = decode_entities(s.substr(i + 1, end - i - 1));
        i = std::min(end + 1, s.size());
      } else {
        start = i;
        while (i < s.size() && !space(i) && s[i] != '>') ++i;
        value = decode_entities(s.substr(start, i - start));
      }
    }
    if (!name.empty()) tag.attributes.emplace_back(std::move(name), std::move(value));
  }
}

// Where "</NAME" (any case) starts at or after FROM; the end of S when nowhere.
std::size_t closing_tag(std::string_view s, std::size_t from, const std::string& name) {
  for (std::size_t i = s.find("</", from); i != std::string_view::npos; i = s.find("</", i + 2))
    if (text::lower(s.substr(i + 2, name.size())) == name) return i;
  return s.size();
}

const std::optional<std::string>* attribute(const HtmlTag& tag, std::string_view name) {
  for (const auto& [n, v] : tag.attributes)
    if (n == name) return &v;
  return nullptr;
}

}  // namespace

IndexPage parse_index_html(std::string_view s, const std::string& page_url) {
  IndexPage page;
  read_index_html(s, page_url, [&](IndexFile f) { page.files.push_back(std::move(f)); });
  return page;
}

void read_index_html(std::string_view s, const std::string& page_url, const IndexFileSink& on_file) {
  std::string base = page_url;
  bool base_seen = false;
  std::size_t i = 0;
  while ((i = s.find('<', i)) != std::string_view::npos) {
    if (s.substr(i, 4) == "<!--") {
      std::size_t end = s.find("-->", i + 4);
      i = end == std::string_view::npos ? s.size() : end + 3;
      continue;
    }
    HtmlTag tag = read_html_tag(s, i);
    if (tag.name == "script" || tag.name == "style") {  // text that may hold "<a"
      i = closing_tag(s, i, tag.name);
      continue;
    }
    const std::optional<std::string>* href = attribute(tag, "href");
    if (!href || !*href) continue;
    if (tag.name == "base") {
      if (!base_seen) base = resolve_url(page_url, **href);
      base_seen = true;
      continue;
    }
    if (tag.name != "a") continue;
    IndexFile file;
    set_location(file, base, **href);
    if (file.filename.empty()) continue;  // a folder ("../", "sub/")
    if (auto* rp = attribute(tag, "data-requires-python"); rp && *rp) file.requires_python = **rp;
    if (auto* yanked = attribute(tag, "data-yanked")) {
      file.yanked = true;
      file.yanked_reason = yanked->value_or("");
    }
    // PEP 714: data-core-metadata when the page has it, else the older name.
    auto* metadata = attribute(tag, "data-core-metadata");
    if (!metadata) metadata = attribute(tag, "data-dist-info-metadata");
    if (metadata) set_metadata(file, metadata->value_or(""));
    on_file(std::move(file));
  }
}

}  // namespace wslgpu
