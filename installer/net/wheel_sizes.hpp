// How many bytes pip will download for a python_packages step, asked of
// the servers before anything is downloaded, so that a plan can tell a
// user on a small WSL disk that AMD's torch wheel for ROCm is 4-5 GB (and
// a CUDA torch with its nvidia-* wheels 3-4 GB) before the install starts.
//
// THIS IS AN ESTIMATE. pip resolves the exact set of distributions when it
// runs; this walks the same information without a resolver's backtracking:
//   - a wheel named by URL: its size by a probe (HTTP HEAD,
//     installer/net/url_query.hpp);
//   - a package from the index or the find-links pages: the project page
//     (PEP 691 JSON preferred, PEP 503 HTML taken; installer/formats/
//     python_index.hpp), the newest version that satisfies what is asked
//     of it (the manifest's version, and what the dependencies walked so
//     far require of it; PEP 440, pre-releases only when named or when
//     nothing else fits, yanked files only when nothing else fits) among the
//     wheels that run on the target Python (wheel_runs_on(), tags ranked
//     roughly as pip ranks them); its size from the page (PEP 700) or by a
//     probe;
//   - then, breadth first, each chosen wheel's dependencies: its METADATA
//     from the file PEP 658/714 serve beside it (only when the page
//     announces one; a wheel named by URL: URL.metadata is tried), its
//     Requires-Dist with the markers evaluated for the target (PEP 508;
//     one for Windows only is not counted), skipping what is already
//     installed at a version that satisfies it (pip's default upgrade
//     strategy, only-if-needed), each looked up on the same index and
//     find-links pages (a wheel named by URL: on the step's index too);
//   - a package's extras (tensorflow[and-cuda]): the Requires-Dist their
//     markers (`extra == "and-cuda"`) bring in, walked the same way; for a
//     package installed at its version that lacks only those, from its
//     installed METADATA, counting nothing for the package itself.
// Where something cannot be known, its size is unknown with the reason (a
// server without Content-Length, no wheel that fits, a page that failed),
// and where dependencies cannot be walked a note says so; no number is
// ever made up. A source distribution is never chosen: pip would build it,
// which is no download size.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "installer/formats/wheel_name.hpp"
#include "installer/net/url_query.hpp"

namespace wslgpu {

// One package of a python_packages step.
struct WantedWheel {
  std::string name;     // the project's name (for an index package; a URL's comes from its file name)
  std::string version;  // what follows pip's "==": "2.14.1", "2.14.*"; "" for any
  std::string url;      // set: a wheel by URL; "": from the index or the find-links pages
  // PEP 508 extras of an index package ("and-cuda" of tensorflow[and-cuda]):
  // what its METADATA requires for them is walked too, as pip resolves it.
  std::vector<std::string> extras{};
  // Set when the wanted version is installed already and only its extras'
  // requirements are missing: the installed METADATA's Requires-Dist, where
  // pip reads them. The package itself is then not looked up or counted
  // (pip downloads nothing for it), only what its extras require.
  std::optional<std::vector<std::string>> installed_requires_dist{};
};

struct WheelSize {
  std::string name;     // the project's name as the wheel's file name spells it
  std::string version;  // the version chosen ("" when none could be)
  std::string url;      // the wheel's URL ("" when none could be chosen)
  std::string sha256;   // its SHA-256 as the index page gives it (lowercase hex), "" when it gives none
  std::optional<std::uint64_t> bytes;
  std::string why_unknown;  // when bytes is nullopt: why, as a sentence's end ("the server does not say ...")
  bool dependency = false;  // not in the manifest: required by another wheel
  std::string required_by;  // the first wheel that requires it ("torch"), for a dependency
  bool local = false;       // a file:// URL: nothing is downloaded, but pip still unpacks it
};

struct DownloadEstimate {
  std::vector<WheelSize> wheels;  // the manifest's packages first, then dependencies in the order found
  std::uint64_t known_bytes = 0;  // the sum of the known sizes of the wheels to download (not local ones)
  std::uint64_t local_bytes = 0;  // the sum of the local wheels' sizes
  std::size_t unknown = 0;        // wheels whose size is unknown
  std::vector<std::string> notes;  // what was not counted, and why
};

struct SizeOptions {
  // The venv's full Python version ("3.12.3", pyvenv.cfg's), for markers on
  // python_full_version; "" reads as MAJOR.MINOR.0.
  std::string python_full_version;
  QueryOptions query;  // timeouts, retries, insecure_http and ca_file (tests), file_root (the target root)
  // The most index pages and metadata files fetched; past it the walk
  // stops, with a note naming what was not counted.
  std::size_t max_pages = 200;
  std::uint64_t max_page_bytes = 8 * 1024 * 1024;      // a project page (PyPI's numpy: about 3 MB of JSON)
  std::uint64_t max_metadata_bytes = 1024 * 1024;      // a METADATA file (torch's: about 40 kB)
  // How queries are asked: ask_urls() (installer/net/fetch_helper.hpp)
  // when empty; tests of a step give an answer table instead of a server.
  std::function<std::vector<UrlAnswer>(const std::vector<UrlQuery>&, const QueryOptions&)> ask;
  // A wheel's METADATA this machine already has (read from the wheel once
  // downloaded: steps/python/wheel_fetch.hpp), by the wheel's URL; nullopt
  // when it has none. Asked for a wheel named by URL and for one whose page
  // announces no PEP 658 file, before anything is fetched for it.
  std::function<std::optional<std::string>(const std::string& wheel_url)> local_metadata;
};

// The download estimate for WANTED on CPython TARGET, with the step's
// INDEX_URL ("" for none: pip runs --no-index) and FIND_LINKS, given
// INSTALLED (normalized project name, normalize_project_name(), to
// version) in the venv. A wanted package whose installed version already
// satisfies it is not listed (pip downloads nothing for it). Never throws
// but for a caught signal (Interrupted).
DownloadEstimate estimate_downloads(const std::vector<WantedWheel>& wanted, const std::string& index_url,
                                    const std::vector<std::string>& find_links, const PythonTarget& target,
                                    const std::map<std::string, std::string>& installed, const SizeOptions& options);

}  // namespace wslgpu
