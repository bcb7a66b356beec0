#include "installer/net/wheel_sizes.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "installer/formats/python_dist.hpp"
#include "installer/formats/python_index.hpp"
#include "installer/formats/python_requirement.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

// A URL's last path component, percent-decoded ("" for a folder).
std::string url_file_name_of(const std::string& url) {
  std::string path = url.substr(0, url.find_first_of("?#"));
  return percent_decode(path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1));
}

std::string without_fragment(const std::string& url) { return url.substr(0, url.find('#')); }

// NAME for a URL path: what a file name may hold that a URL may not, escaped.
std::string url_escape(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '%' || c == ' ' || c == '#' || c == '?') {
      static const char* hex = "0123456789ABCDEF";
      auto u = static_cast<unsigned char>(c);
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

// Roughly pip's preference among the wheels of one version that all run
// here (its list of supported tags, most specific first): the
// interpreter's own ABI over abi3 over none, then the newest manylinux
// glibc, then plain linux_ARCH, then "any".
int tag_rank(const WheelName& w, const PythonTarget& t) {
  int best = -1;
  for (const auto& py : w.python_tags) {
    for (const auto& abi : w.abi_tags) {
      int interpreter = abi == t.tag() && py == t.tag() ? 3 : abi == "abi3" ? 2 : py.rfind("cp", 0) == 0 ? 1 : 0;
      for (const auto& p : w.platform_tags) {
        int platform = 0;
        if (p == "any") {
          platform = 0;
        } else if (p.rfind("manylinux_", 0) == 0) {
          auto a = p.find('_', 10);
          std::string minor = a == std::string::npos ? "" : p.substr(a + 1, p.find('_', a + 1) - a - 1);
          platform = minor.empty() || minor.size() > 3 || !std::all_of(minor.begin(), minor.end(), text::is_digit)
                         ? 2
                         : 2 + std::stoi(minor);
        } else if (p.rfind("manylinux2014", 0) == 0) {
          platform = 2 + 17;
        } else if (p.rfind("manylinux2010", 0) == 0) {
          platform = 2 + 12;
        } else if (p.rfind("manylinux1", 0) == 0) {
          platform = 2 + 5;
        } else {
          platform = 1;  // linux_ARCH
        }
        best = std::max(best, interpreter * 10000 + platform);
      }
    }
  }
  return best;
}

// A wheel that runs on the target, kept from a page (the rest of a page is
// dropped as it is read: PyPI's numpy page lists thousands of files).
struct Candidate {
  IndexFile file;            // without Requires-Python, which is not needed any more
  std::string distribution;  // as the file name spells it
  PythonVersion version;
  int rank = 0;
};

// What the pages say about one project.
struct ProjectFiles {
  std::vector<Candidate> runs;  // the wheels that run on the target
  bool any_file = false;        // a page listed some file of it (a source distribution, a wheel for Windows)
};

// What one package needs: from the manifest, or a requirement of a wheel
// already chosen.
struct PackageNeed {
  std::string key;   // normalized
  std::string name;  // as written
  VersionSpecifier spec;
  std::vector<std::string> extras;
  std::string required_by;  // "" for the manifest's
  bool dependency = false;
};

struct Chosen {
  std::size_t row = 0;
  std::optional<PythonVersion> version;  // nullopt: none could be chosen
  std::vector<VersionSpecifier> constraints;
  bool pinned = false;  // the manifest's own: not chosen again for a dependency's sake
  std::string metadata_url;
  std::string metadata_sha256;
  bool metadata_guessed = false;  // a wheel by URL: nothing announced URL.metadata
  std::optional<std::vector<PythonRequirement>> requires_dist;
  std::set<std::string> extras_walked;   // "" for the requirements without an extra
  std::set<std::string> extras_pending;  // asked for before the METADATA arrived
  int rechosen = 0;
};

class Estimator {
 public:
  Estimator(const std::string& index_url, const std::vector<std::string>& find_links, const PythonTarget& target,
            const std::map<std::string, std::string>& installed, const SizeOptions& options)
      : index_url_(index_url),
        find_links_(find_links),
        target_(target),
        installed_(installed),
        options_(options),
        env_(marker_environment(target, options.python_full_version)) {
    python_ = parse_python_version(env_.python_full_version);
  }

  DownloadEstimate run(const std::vector<WantedWheel>& wanted) {
    std::vector<PackageNeed> level;
    for (const WantedWheel& w : wanted) {
      if (!w.url.empty()) {
        add_direct(w.url, "", false);
        continue;
      }
      if (w.installed_requires_dist) {
        add_installed_extras(w, level);
        continue;
      }
      PackageNeed n;
      n.key = normalize_project_name(w.name);
      n.name = w.name;
      n.extras = w.extras;
      std::string error;
      auto spec = parse_version_specifier(w.version.empty() ? "" : "==" + w.version, error);
      if (!spec) {
        WheelSize bad;
        bad.name = w.name;
        bad.why_unknown = "its version \"" + w.version + "\" is not PEP 440 (" + error + ")";
        add_row(std::move(bad));
        continue;
      }
      n.spec = std::move(*spec);
      level.push_back(std::move(n));
    }
    bool first = true;
    while (!level.empty() || !sizes_.empty() || !metadata_.empty()) {
      fetch_pages(level, first);
      first = false;
      for (PackageNeed& n : level) resolve(n);
      level = fetch_sizes_and_metadata();
    }
    note_refused();
    for (const WheelSize& w : estimate_.wheels) {
      if (!w.bytes)
        ++estimate_.unknown;
      else if (w.local)
        estimate_.local_bytes += *w.bytes;
      else
        estimate_.known_bytes += *w.bytes;
    }
    return std::move(estimate_);
  }

 private:
  std::vector<UrlAnswer> ask(const std::vector<UrlQuery>& queries) {
    if (queries.empty()) return {};
    auto answers = options_.ask ? options_.ask(queries, options_.query) : ask_urls(queries, options_.query);
    if (answers.size() != queries.size()) {  // a fake that forgot some: each missing one an error
      std::size_t given = std::min(answers.size(), queries.size());
      answers.resize(queries.size());
      for (std::size_t i = given; i < answers.size(); ++i) answers[i].error = "no answer was given for this query";
    }
    return answers;
  }

  void note(const std::string& text) {
    if (std::find(estimate_.notes.begin(), estimate_.notes.end(), text) == estimate_.notes.end())
      estimate_.notes.push_back(text);
  }

  std::size_t add_row(WheelSize row) {
    estimate_.wheels.push_back(std::move(row));
    return estimate_.wheels.size() - 1;
  }

  // Whether another page or metadata file may be fetched; the first one
  // refused says so in a note.
  bool may_fetch(const std::string& what) {
    if (fetched_ < options_.max_pages) {
      ++fetched_;
      return true;
    }
    if (std::find(refused_.begin(), refused_.end(), what) == refused_.end()) refused_.push_back(what);
    return false;
  }

  // The note on what the page limit left out, once, naming all of it.
  void note_refused() {
    if (refused_.empty()) return;
    std::string names;
    for (std::size_t i = 0; i < refused_.size(); ++i)
      names += (i == 0 ? "" : i + 1 == refused_.size() ? " and " : ", ") + refused_[i];
    note("stopped after " + std::to_string(options_.max_pages) +
         " index pages and metadata files (the most one estimate fetches): " + names +
         (refused_.size() == 1 ? " and what it requires" : " and what they require") + " not counted");
  }

  // ---- pages

  void fetch_pages(const std::vector<PackageNeed>& level, bool with_find_links) {
    std::vector<UrlQuery> queries;
    std::vector<std::string> keys;  // "" for a find-links page
    if (with_find_links) {
      for (const std::string& link : find_links_) {
        if (list_local_folder(link)) continue;
        if (!may_fetch(link)) break;
        queries.push_back({UrlQuery::Kind::text, link, kIndexAccept, options_.max_page_bytes});
        keys.emplace_back();
      }
    }
    if (!index_url_.empty()) {
      std::set<std::string> asked;
      for (const PackageNeed& n : level) {
        if (paged_.count(n.key) || chosen_.count(n.key) || installed_satisfies(n.key, n.spec) ||
            !asked.insert(n.key).second)
          continue;
        if (!may_fetch(n.name)) {
          page_error_[n.key] = "not looked up: the estimate's limit of " + std::to_string(options_.max_pages) +
                               " pages was reached";
          paged_.insert(n.key);
          continue;
        }
        std::string base = index_url_ + (index_url_.back() == '/' ? "" : "/");
        queries.push_back({UrlQuery::Kind::text, base + n.key + "/", kIndexAccept, options_.max_page_bytes});
        keys.push_back(n.key);
      }
    }
    std::vector<UrlAnswer> answers = ask(queries);
    for (std::size_t i = 0; i < answers.size(); ++i) {
      UrlAnswer& a = answers[i];
      const std::string& key = keys[i];
      if (!key.empty()) paged_.insert(key);
      if (!a.error.empty()) {
        if (key.empty())
          note("the find-links page " + queries[i].url + " could not be read, and its wheels are not counted: " +
               a.error);
        else
          page_error_[key] = a.error;
        continue;
      }
      std::string url = a.final_url.empty() ? queries[i].url : a.final_url;
      // A find-links page lists any project's files; a project page its own.
      auto sink = [&](IndexFile f) { keep(key, std::move(f)); };
      std::string error;
      bool read = true;
      if (index_page_is_json(a.content_type, a.body))
        read = read_index_json(a.body, url, sink, error);
      else
        read_index_html(a.body, url, sink);
      if (!read) {
        if (key.empty())
          note(error);
        else
          page_error_[key] = error;
      }
      std::string().swap(a.body);
    }
  }

  // Keeps F, listed on the page of KEY ("" for a find-links page), when it
  // is a wheel of KEY that runs on the target.
  void keep(const std::string& key, IndexFile f) {
    std::string error;
    auto wheel = parse_wheel_name(f.filename, error);
    if (!key.empty()) projects_[key].any_file = true;
    if (!wheel) return;
    std::string wheel_key = normalize_project_name(wheel->distribution);
    if (!key.empty() && wheel_key != key) return;
    projects_[wheel_key].any_file = true;
    if (!wheel_runs_on(*wheel, target_, error)) return;
    auto version = parse_python_version(wheel->version);
    if (!version) return;
    if (!f.requires_python.empty() && python_) {
      // An invalid Requires-Python is ignored, as pip ignores it.
      auto rp = parse_version_specifier(f.requires_python, error);
      if (rp && !version_satisfies(*python_, *rp, PreReleases::allowed)) return;
    }
    f.requires_python.clear();
    int rank = tag_rank(*wheel, target_);
    projects_[wheel_key].runs.push_back(Candidate{std::move(f), wheel->distribution, std::move(*version), rank});
  }

  // A find-links entry that is a folder of this machine (pip lists its
  // files): true when LINK was one and its wheels are listed.
  bool list_local_folder(const std::string& link) {
    if (link.rfind("file://", 0) != 0) return false;
    std::string root = options_.query.file_root;
    while (!root.empty() && root.back() == '/') root.pop_back();
    std::string folder = root + percent_decode(link.substr(7));
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec)) return false;
    std::string base = link + (link.back() == '/' ? "" : "/");
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
      std::error_code e2;
      if (!entry.is_regular_file(e2)) continue;
      IndexFile f;
      f.filename = entry.path().filename().string();
      f.url = base + url_escape(f.filename);
      f.size = static_cast<std::uint64_t>(entry.file_size(e2));
      keep("", std::move(f));
    }
    if (ec) note("the find-links folder " + folder + " could not be listed: " + ec.message());
    return true;
  }

  // ---- choosing a wheel

  std::string where() const {
    std::string from = index_url_.empty() ? "" : "the index " + index_url_;
    if (!find_links_.empty()) from += std::string(from.empty() ? "" : " or ") + "the find-links pages";
    return from.empty() ? "no index and no find-links pages" : from;
  }

  std::string python_text() const {
    return "CPython " + std::to_string(target_.major) + "." + std::to_string(target_.minor) + " on " + target_.arch;
  }

  // The wheel of KEY to take under CONSTRAINTS, or nullopt with WHY.
  std::optional<Candidate> pick(const std::string& key, const std::string& name,
                                const std::vector<VersionSpecifier>& constraints, std::string& why) {
    const ProjectFiles& project = projects_[key];
    const std::vector<Candidate>& runs = project.runs;
    bool any_file = project.any_file;
    std::string asked;
    for (const auto& c : constraints)
      if (!c.clauses.empty()) asked += (asked.empty() ? "" : ", ") + c.str();
    if (runs.empty()) {
      auto error = page_error_.find(key);
      if (!any_file && error != page_error_.end())
        why = name + " could not be looked up on " + where() + ": " + error->second;
      else if (!any_file)
        why = name + " is not on " + where();
      else
        why = "no wheel of " + name + " on " + where() + " runs on " + python_text() +
              " (pip would have to build one from source)";
      return std::nullopt;
    }
    // PEP 440 and PEP 592: a final release and a file not yanked first;
    // a pre-release or a yanked file only when nothing else fits.
    bool named = std::any_of(constraints.begin(), constraints.end(),
                             [](const VersionSpecifier& s) { return s.names_prerelease(); });
    const Candidate* best = nullptr;
    int best_tier = 4;
    for (const Candidate& c : runs) {
      bool fits = std::all_of(constraints.begin(), constraints.end(), [&](const VersionSpecifier& s) {
        return version_satisfies(c.version, s, PreReleases::allowed);
      });
      if (!fits) continue;
      int tier = (c.file.yanked ? 2 : 0) + (c.version.is_prerelease() && !named ? 1 : 0);
      if (!best || tier < best_tier ||
          (tier == best_tier && (compare_python_versions(c.version, best->version) > 0 ||
                                 (compare_python_versions(c.version, best->version) == 0 && c.rank > best->rank)))) {
        best = &c;
        best_tier = tier;
      }
    }
    if (!best) {
      const Candidate* newest = &runs.front();
      for (const Candidate& c : runs)
        if (compare_python_versions(c.version, newest->version) > 0) newest = &c;
      why = "no wheel of " + name + " on " + where() + " satisfies " + asked + " and runs on " + python_text() +
            " (the newest that runs here is " + newest->version.text + ")";
      return std::nullopt;
    }
    if (best->file.yanked)
      note(name + " " + best->version.text + " is yanked on its index" +
           (best->file.yanked_reason.empty() ? "" : " (" + best->file.yanked_reason + ")") +
           "; nothing else satisfies " + (asked.empty() ? "the request" : asked));
    return *best;
  }

  bool installed_satisfies(const std::string& key, const VersionSpecifier& spec) const {
    auto it = installed_.find(key);
    if (it == installed_.end()) return false;
    auto v = parse_python_version(it->second);
    return v && version_satisfies(*v, spec, PreReleases::allowed);
  }

  void set_size_from(std::size_t row, const IndexFile& f) {
    // A wheel chosen again replaces the probe of the first choice.
    sizes_.erase(std::remove_if(sizes_.begin(), sizes_.end(), [&](const auto& s) { return s.first == row; }),
                 sizes_.end());
    WheelSize& w = estimate_.wheels[row];
    w.local = f.url.rfind("file://", 0) == 0;
    w.sha256 = f.sha256;
    if (f.size)
      w.bytes = f.size;
    else
      sizes_.push_back({row, f.url});
  }

  void want_metadata(const std::string& key, const std::string& what, const IndexFile& f) {
    if (!f.has_metadata && options_.local_metadata) {
      if (auto text = options_.local_metadata(f.url)) {
        local_metadata_[key] = std::move(*text);
        if (std::find(metadata_.begin(), metadata_.end(), key) == metadata_.end()) metadata_.push_back(key);
        return;
      }
    }
    if (f.has_metadata) {
      bool queued = std::find(metadata_.begin(), metadata_.end(), key) != metadata_.end();
      if (!queued && may_fetch(what)) metadata_.push_back(key);
      return;
    }
    note("dependencies of " + what + " not counted: " + where() + " gives no metadata file for " + f.filename +
         " (PEP 658), and the wheel is not downloaded to read it");
  }

  void resolve(const PackageNeed& n) {
    auto found = chosen_.find(n.key);
    if (found != chosen_.end()) {
      Chosen& c = found->second;
      c.constraints.push_back(n.spec);
      for (const auto& e : n.extras) {
        std::string extra = normalize_project_name(e);
        if (!c.extras_walked.count(extra)) c.extras_pending.insert(extra);
      }
      if (c.version && !version_satisfies(*c.version, n.spec, PreReleases::allowed)) rechoose(n, c);
      if (c.requires_dist && !c.extras_pending.empty()) walk(n.key, c, next_);
      return;
    }
    if (installed_satisfies(n.key, n.spec)) return;
    std::string why;
    std::vector<VersionSpecifier> constraints{n.spec};
    auto pick_result = pick(n.key, n.name, constraints, why);
    WheelSize row;
    row.name = pick_result ? pick_result->distribution : n.name;
    row.dependency = n.dependency;
    row.required_by = n.required_by;
    Chosen c;
    c.constraints = constraints;
    c.pinned = !n.dependency;
    c.extras_pending.insert("");
    for (const auto& e : n.extras) c.extras_pending.insert(normalize_project_name(e));
    if (!pick_result) {
      row.why_unknown = why;
      c.row = add_row(std::move(row));
      chosen_.emplace(n.key, std::move(c));
      return;
    }
    row.version = pick_result->version.text;
    row.url = pick_result->file.url;
    c.row = add_row(std::move(row));
    c.version = pick_result->version;
    set_size_from(c.row, pick_result->file);
    c.metadata_url = pick_result->file.url + ".metadata";
    c.metadata_sha256 = pick_result->file.metadata_sha256;
    std::string what = pick_result->distribution + " " + pick_result->version.text;
    chosen_.emplace(n.key, std::move(c));
    want_metadata(n.key, what, pick_result->file);
  }

  // A dependency asks a version of N.key that the one chosen is not: choose
  // again with every constraint so far (twice at most), or say why not.
  void rechoose(const PackageNeed& n, Chosen& c) {
    WheelSize& row = estimate_.wheels[c.row];
    std::string conflict = n.required_by + " requires " + n.name + " " + n.spec.str() + ", and " + row.name + " " +
                           row.version;
    if (c.pinned) {
      note(conflict + " comes from the manifest: pip will refuse this set or resolve it otherwise");
      return;
    }
    std::string why;
    auto again = c.rechosen < 2 ? pick(n.key, n.name, c.constraints, why) : std::nullopt;
    if (!again) {
      note(conflict + " was counted; " + (c.rechosen < 2 ? why : "it was chosen again twice already"));
      return;
    }
    ++c.rechosen;
    note(conflict + " was counted at first; " + again->version.text +
         " is counted instead, and what the first one requires is counted too");
    row.version = again->version.text;
    row.url = again->file.url;
    row.bytes.reset();
    row.why_unknown.clear();
    c.version = again->version;
    set_size_from(c.row, again->file);
    c.metadata_url = again->file.url + ".metadata";
    c.metadata_sha256 = again->file.metadata_sha256;
    c.requires_dist.reset();
    c.extras_pending.insert(c.extras_walked.begin(), c.extras_walked.end());
    c.extras_walked.clear();
    want_metadata(n.key, row.name + " " + row.version, again->file);
  }

  // W is installed at its version and only its extras are to complete:
  // what they add to its installed Requires-Dist, into LEVEL, as a chosen
  // wheel's would be (walk()), with no row of its own.
  void add_installed_extras(const WantedWheel& w, std::vector<PackageNeed>& level) {
    const std::string key = normalize_project_name(w.name);
    for (const std::string& line : *w.installed_requires_dist) {
      std::string error;
      auto r = parse_python_requirement(line, error);
      if (!r) {
        note(w.name + " requires \"" + line + "\", which is not a PEP 508 requirement (" + error + "); not counted");
        continue;
      }
      if (!requirement_applies(*r, env_, w.extras) || requirement_applies(*r, env_, {})) continue;
      if (!r->url.empty()) {
        add_direct(r->url, w.name, true);
        continue;
      }
      PackageNeed n;
      n.key = normalize_project_name(r->name);
      n.name = r->name;
      n.spec = r->specifier;
      n.extras = r->extras;
      n.required_by = w.name;
      n.dependency = true;
      if (n.key != key) level.push_back(std::move(n));
    }
  }

  // A wheel named by URL, from the manifest or by a requirement.
  void add_direct(const std::string& url, const std::string& required_by, bool dependency) {
    std::string error;
    std::string file = url_file_name_of(url);
    auto wheel = parse_wheel_name(file, error);
    WheelSize row;
    row.url = without_fragment(url);
    row.dependency = dependency;
    row.required_by = required_by;
    if (!wheel) {
      row.name = file;
      row.why_unknown = error;
      add_row(std::move(row));
      return;
    }
    std::string key = normalize_project_name(wheel->distribution);
    auto version = parse_python_version(wheel->version);
    auto have = installed_.find(key);
    if (have != installed_.end() && version) {
      auto v = parse_python_version(have->second);
      if (v && compare_python_versions(*v, *version) == 0) return;  // pip keeps it
    }
    if (chosen_.count(key)) {
      note(wheel->distribution + " is named twice; only the first is counted");
      return;
    }
    row.name = wheel->distribution;
    row.version = wheel->version;
    Chosen c;
    c.row = add_row(std::move(row));
    c.version = version;
    c.pinned = true;
    c.extras_pending.insert("");
    IndexFile f;
    f.url = without_fragment(url);
    f.filename = file;
    set_size_from(c.row, f);
    // Nothing announces it, but a server that serves PEP 658 files serves
    // them beside every wheel: worth one small request.
    c.metadata_url = f.url + ".metadata";
    c.metadata_guessed = true;
    chosen_.emplace(key, std::move(c));
    if (options_.local_metadata) {
      if (auto text = options_.local_metadata(f.url)) {  // the wheel is here already: read from it
        local_metadata_[key] = std::move(*text);
        metadata_.push_back(key);
        return;
      }
    }
    if (may_fetch(wheel->distribution)) metadata_.push_back(key);
  }

  // ---- sizes and dependencies

  std::vector<PackageNeed> fetch_sizes_and_metadata() {
    std::vector<UrlQuery> queries;
    for (const auto& [row, url] : sizes_) queries.push_back({UrlQuery::Kind::probe, url, "", 0});
    std::vector<std::string> asked_metadata;  // the keys whose METADATA is not here already
    for (const std::string& key : metadata_)
      if (!local_metadata_.count(key)) {
        queries.push_back({UrlQuery::Kind::text, chosen_.at(key).metadata_url, "", options_.max_metadata_bytes});
        asked_metadata.push_back(key);
      }
    std::vector<UrlAnswer> asked = ask(queries);
    // In metadata_'s order after the sizes, as the loops below read them.
    std::vector<UrlAnswer> answers(asked.begin(), asked.begin() + static_cast<std::ptrdiff_t>(sizes_.size()));
    std::size_t next_asked = sizes_.size();
    for (const std::string& key : metadata_) {
      auto local = local_metadata_.find(key);
      if (local != local_metadata_.end()) {
        UrlAnswer a;
        a.body = local->second;
        answers.push_back(std::move(a));
        chosen_.at(key).metadata_sha256.clear();  // read from the wheel itself, whose hash was checked
      } else {
        answers.push_back(std::move(asked[next_asked++]));
      }
    }
    std::size_t i = 0;
    for (const auto& [row, url] : sizes_) {
      UrlAnswer& a = answers[i++];
      WheelSize& w = estimate_.wheels[row];
      if (!a.error.empty())
        w.why_unknown = a.error;
      else if (a.size)
        w.bytes = a.size;
      else
        w.why_unknown = a.why_unknown.empty() ? "the server does not say how large it is" : a.why_unknown;
    }
    std::vector<PackageNeed> next;
    std::swap(next, next_);
    for (const std::string& key : metadata_) {
      UrlAnswer& a = answers[i++];
      Chosen& c = chosen_.at(key);
      const WheelSize& w = estimate_.wheels[c.row];
      std::string what = w.name + " " + w.version;
      if (!a.error.empty()) {
        note("dependencies of " + what + " not counted: " +
             (c.metadata_guessed ? "there is no metadata file (PEP 658) beside " + w.url +
                                       ", and the wheel is not downloaded to read it"
                                 : a.error));
        continue;
      }
      if (!c.metadata_sha256.empty() && sha256_hex(a.body) != c.metadata_sha256) {
        note("dependencies of " + what + " not counted: its metadata file " + c.metadata_url +
             " does not match the SHA-256 its index gives");
        continue;
      }
      c.requires_dist.emplace();
      for (const std::string& line : parse_metadata(a.body).requires_dist) {
        std::string error;
        auto r = parse_python_requirement(line, error);
        if (r)
          c.requires_dist->push_back(std::move(*r));
        else
          note(what + " requires \"" + line + "\", which is not a PEP 508 requirement (" + error + "); not counted");
      }
      walk(key, c, next);
    }
    sizes_.clear();
    metadata_.clear();
    return next;
  }

  // The requirements of C (KEY) for its extras not walked yet, into NEXT.
  void walk(const std::string& key, Chosen& c, std::vector<PackageNeed>& next) {
    const std::string by = estimate_.wheels[c.row].name;
    for (const std::string& extra : c.extras_pending) {
      std::vector<std::string> extras;
      if (!extra.empty()) extras.push_back(extra);
      for (const PythonRequirement& r : *c.requires_dist) {
        if (!requirement_applies(r, env_, extras)) continue;
        if (!extra.empty() && requirement_applies(r, env_, {})) continue;  // walked without the extra already
        if (!r.url.empty()) {
          add_direct(r.url, by, true);
          continue;
        }
        PackageNeed n;
        n.key = normalize_project_name(r.name);
        n.name = r.name;
        n.spec = r.specifier;
        n.extras = r.extras;
        n.required_by = by;
        n.dependency = true;
        if (n.key != key) next.push_back(std::move(n));
      }
      c.extras_walked.insert(extra);
    }
    c.extras_pending.clear();
  }

  const std::string& index_url_;
  const std::vector<std::string>& find_links_;
  const PythonTarget& target_;
  const std::map<std::string, std::string>& installed_;
  const SizeOptions& options_;
  MarkerEnvironment env_;
  std::optional<PythonVersion> python_;

  DownloadEstimate estimate_;
  std::map<std::string, ProjectFiles> projects_;  // key -> its wheels on the index and find-links pages
  std::set<std::string> paged_;                   // keys whose project page was asked for
  std::map<std::string, std::string> page_error_;             // key -> why its page could not be read
  std::map<std::string, Chosen> chosen_;
  std::map<std::string, std::string> local_metadata_;  // key -> METADATA this machine has (SizeOptions::local_metadata)
  std::vector<std::pair<std::size_t, std::string>> sizes_;  // rows to probe, and where
  std::vector<std::string> metadata_;                       // keys whose METADATA to fetch
  std::vector<PackageNeed> next_;  // requirements found while resolving (a new extra of a wheel already read)
  std::size_t fetched_ = 0;
  std::vector<std::string> refused_;  // what the page limit left out
};

}  // namespace

DownloadEstimate estimate_downloads(const std::vector<WantedWheel>& wanted, const std::string& index_url,
                                    const std::vector<std::string>& find_links, const PythonTarget& target,
                                    const std::map<std::string, std::string>& installed, const SizeOptions& options) {
  return Estimator(index_url, find_links, target, installed, options).run(wanted);
}

}  // namespace wslgpu
