// python_packages' downloads (steps/python/wheel_fetch.hpp): the wheels of
// an index package and its dependencies are resolved from the index's
// PEP 691 pages and PEP 658 metadata, fetched by the tool (here a fake
// fetch that serves from a table into the memory file system), staged,
// and pip installs from those files with --no-index; the cache keeps only
// what a later run can use.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>

#include "installer/formats/sha256.hpp"
#include "installer/system/error.hpp"
#include "steps/python/wheel_fetch.hpp"
#include "unit/steps/python/python_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const std::string kDlVenv = "/home/alice/venv";
const std::string kDlSite = "/home/alice/venv/lib/python3.12/site-packages";
const std::string kDlIndex = "https://download.pytorch.org/whl/cu130";
const std::string kDlTorchFile = "torch-2.9.1+cu130-cp312-cp312-manylinux_2_28_x86_64.whl";
const std::string kDlFilelockFile = "filelock-3.20.0-py3-none-any.whl";
const std::string kDlTorchBytes(3000, 't');
const std::string kDlFilelockBytes(500, 'f');
const std::string kDlStaging = kDlVenv + "/.wslgpu-setup-wheels";

std::string dl_url(const std::string& file) { return kDlIndex + "/" + file; }

// A PEP 691 page of one wheel with its hash, size and PEP 658 metadata.
std::string dl_page(const std::string& name, const std::string& file, const std::string& bytes,
                    const std::string& metadata) {
  nlohmann::json f{{"filename", file},
                   {"url", dl_url(file)},
                   {"hashes", {{"sha256", sha256_hex(bytes)}}},
                   {"size", bytes.size()},
                   {"core-metadata", {{"sha256", sha256_hex(metadata)}}}};
  return nlohmann::json{{"meta", {{"api-version", "1.1"}}}, {"name", name}, {"files", {f}}}.dump();
}

const std::string kDlTorchMetadata = "Metadata-Version: 2.1\nName: torch\nVersion: 2.9.1+cu130\n"
                                     "Requires-Dist: filelock>=3.20\n\n";
const std::string kDlFilelockMetadata = "Metadata-Version: 2.1\nName: filelock\nVersion: 3.20.0\n\n";

// A venv of alice's with pip only.
void dl_add_venv(PythonRoot& root) {
  FileAttrs a{0644, 1000, 1000};
  root.fs.add_dir(kDlVenv);
  root.fs.set_owner(kDlVenv, 1000, 1000);
  root.fs.write_atomic(kDlVenv + "/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n", a);
  root.fs.write_atomic(kDlVenv + "/bin/python", "", FileAttrs{0755, 1000, 1000});
  root.fs.write_atomic(kDlSite + "/pip-24.0.dist-info/METADATA", "Name: pip\nVersion: 24.0\n", a);
}

// The index's pages and metadata files, answered as the helper would.
void dl_serve_index(PythonRoot& root) {
  std::map<std::string, std::string> pages = {
      {kDlIndex + "/torch/", dl_page("torch", kDlTorchFile, kDlTorchBytes, kDlTorchMetadata)},
      {kDlIndex + "/filelock/", dl_page("filelock", kDlFilelockFile, kDlFilelockBytes, kDlFilelockMetadata)},
      {dl_url(kDlTorchFile) + ".metadata", kDlTorchMetadata},
      {dl_url(kDlFilelockFile) + ".metadata", kDlFilelockMetadata}};
  root.ctx.ask_urls = [pages](const std::vector<UrlQuery>& queries, const QueryOptions&) {
    std::vector<UrlAnswer> out(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      auto it = pages.find(queries[i].url);
      if (it == pages.end()) {
        out[i].error = "404 for " + queries[i].url;
        continue;
      }
      out[i].body = it->second;
      out[i].content_type = it->second.front() == '{' ? "application/vnd.pypi.simple.v1+json" : "text/plain";
    }
    return out;
  };
}

// What the tool's downloads asked for, and a fake fetch that writes the
// served bytes where the request says (the memory file system's host path
// is "/fake" + the target path), checking the hash as the real one does.
struct DlFetches {
  std::mutex mutex;
  std::vector<DownloadRequest> requests;
  std::map<std::string, std::string> served;
  std::string fail_url;  // this one fails, after half its bytes
};

void dl_fake_fetch(PythonRoot& root, DlFetches& f) {
  f.served = {{dl_url(kDlTorchFile), kDlTorchBytes}, {dl_url(kDlFilelockFile), kDlFilelockBytes}};
  root.ctx.fetch = [&root, &f](const DownloadRequest& r) {
    std::lock_guard<std::mutex> lock(f.mutex);
    f.requests.push_back(r);
    const std::string target = r.host_path.substr(std::string("/fake").size());
    const std::string& bytes = f.served.at(r.url);
    if (r.url == f.fail_url) {
      root.fs.write_atomic(target + ".part", bytes.substr(0, bytes.size() / 2), FileAttrs{0600, 0, 0});
      throw StepFailure("the connection dropped");
    }
    if (!r.sha256.empty() && sha256_hex(bytes) != r.sha256) throw StepFailure("hash mismatch");
    root.fs.write_atomic(target, bytes, FileAttrs{0600, 0, 0});
    DownloadResult d;
    d.bytes = bytes.size();
    d.sha256 = sha256_hex(bytes);
    return d;
  };
}

// pip install: what it was given, and whether the staged wheels were there
// while it ran; it installs torch and filelock when told to.
struct DlPipRuns {
  std::vector<std::vector<std::string>> argv;
  std::vector<bool> staged_then;
  // Answer of the first run (later runs succeed).
  std::optional<ProcessResult> first;
};

void dl_fake_pip(PythonRoot& root, DlPipRuns& runs) {
  root.runner.on({"runuser", "-u", "alice", "--", kDlVenv + "/bin/python", "-m", "pip", "install"},
                 [&root, &runs](const Command& c) {
                   runs.argv.push_back(c.argv);
                   runs.staged_then.push_back(root.fs.lstat(kDlStaging + "/" + kDlTorchFile) &&
                                              root.fs.lstat(kDlStaging + "/" + kDlFilelockFile));
                   if (runs.argv.size() == 1 && runs.first) return *runs.first;
                   FileAttrs a{0644, 1000, 1000};
                   for (const auto& [name, version] : std::map<std::string, std::string>{
                            {"torch", "2.9.1+cu130"}, {"filelock", "3.20.0"}}) {
                     std::string di = kDlSite + "/" + name + "-" + version + ".dist-info";
                     root.fs.write_atomic(di + "/METADATA", "Name: " + name + "\nVersion: " + version + "\n", a);
                     root.fs.write_atomic(di + "/RECORD", name + "-" + version + ".dist-info/METADATA,,\n", a);
                   }
                   return exited(0, "", "Successfully installed filelock-3.20.0 torch-2.9.1+cu130\n");
                 });
}

std::shared_ptr<Step> dl_torch_step() {
  return build_ok("id = \"torch\"\nkind = \"python_packages\"\nvenv = \"" + kDlVenv +
                  "\"\nowner = \"alice\"\npython = \"3.12\"\npackages = [{ name = \"torch\", version = \"2.9.1\" }]\n"
                  "index_url = \"" + kDlIndex + "\"\nbuild = \"cu130\"\n");
}

bool dl_has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST_CASE("index wheels are resolved and downloaded by the tool with the index's hashes, and pip installs them with "
          "--no-index") {
  PythonRoot root;
  dl_add_venv(root);
  dl_serve_index(root);
  DlFetches fetches;
  dl_fake_fetch(root, fetches);
  DlPipRuns pip;
  dl_fake_pip(root, pip);
  auto step = dl_torch_step();
  StepPlan p = step->plan(root.ctx);
  REQUIRE(p.verdict == Verdict::change);
  step->apply(root.ctx, p);

  // Both wheels, torch's dependency found through its PEP 658 metadata.
  REQUIRE(fetches.requests.size() == 2);
  std::map<std::string, DownloadRequest> by_url;
  for (const auto& r : fetches.requests) by_url[r.url] = r;
  REQUIRE(by_url.count(dl_url(kDlTorchFile)));
  REQUIRE(by_url.count(dl_url(kDlFilelockFile)));
  CHECK(by_url[dl_url(kDlTorchFile)].sha256 == sha256_hex(kDlTorchBytes));
  CHECK(by_url[dl_url(kDlFilelockFile)].sha256 == sha256_hex(kDlFilelockBytes));
  // No fixed limit on a slow link; a stalled one is given up and resumed.
  CHECK(by_url[dl_url(kDlTorchFile)].total_timeout.count() == 0);
  CHECK(by_url[dl_url(kDlTorchFile)].stall_timeout == kWheelStallTimeout);
  // The set can be stopped as one (download_set's flag).
  CHECK(by_url[dl_url(kDlTorchFile)].cancel != nullptr);

  REQUIRE(pip.argv.size() == 1);
  const auto& argv = pip.argv[0];
  CHECK(dl_has(argv, "--no-index"));
  CHECK_FALSE(dl_has(argv, "--index-url"));
  CHECK(dl_has(argv, "file://" + kDlStaging));
  CHECK(dl_has(argv, "torch==2.9.1"));
  CHECK(pip.staged_then[0]);
  // Installed: the staging folder and the cache let the wheels go.
  CHECK_FALSE(root.fs.lstat(kDlStaging));
  CHECK_FALSE(root.fs.lstat(wheel_cache_path(root.ctx, dl_url(kDlTorchFile), sha256_hex(kDlTorchBytes))));
  CHECK_FALSE(root.fs.lstat(wheel_cache_path(root.ctx, dl_url(kDlFilelockFile), sha256_hex(kDlFilelockBytes))));
}

TEST_CASE("a download that fails stops the install before pip, and keeps what a later run resumes") {
  PythonRoot root;
  dl_add_venv(root);
  dl_serve_index(root);
  DlFetches fetches;
  dl_fake_fetch(root, fetches);
  fetches.fail_url = dl_url(kDlTorchFile);
  DlPipRuns pip;
  dl_fake_pip(root, pip);
  auto step = dl_torch_step();
  StepPlan p = step->plan(root.ctx);
  CHECK_THROWS_WITH_AS(step->apply(root.ctx, p), doctest::Contains("the connection dropped"), StepFailure);
  CHECK(pip.argv.empty());
  // A pinned wheel's partial file stays for the next run.
  const std::string cached = wheel_cache_path(root.ctx, dl_url(kDlTorchFile), sha256_hex(kDlTorchBytes));
  CHECK(root.fs.lstat(cached + ".part"));
  CHECK_FALSE(root.fs.lstat(kDlStaging));
}

TEST_CASE("what the tool could not resolve is left to pip with the index, and the log says so") {
  PythonRoot root;
  dl_add_venv(root);
  dl_serve_index(root);
  DlFetches fetches;
  dl_fake_fetch(root, fetches);
  DlPipRuns pip;
  dl_fake_pip(root, pip);
  // pip's resolution wants more than what the tool fetched.
  pip.first = exited(1, "", "ERROR: Could not find a version that satisfies the requirement sympy\n"
                            "ERROR: No matching distribution found for sympy\n");
  auto step = dl_torch_step();
  StepPlan p = step->plan(root.ctx);
  step->apply(root.ctx, p);
  REQUIRE(pip.argv.size() == 2);
  CHECK(dl_has(pip.argv[0], "--no-index"));
  // Again with the index, the staged wheels still found first.
  CHECK(dl_has(pip.argv[1], "--index-url"));
  CHECK(dl_has(pip.argv[1], kDlIndex));
  CHECK(dl_has(pip.argv[1], "file://" + kDlStaging));
  CHECK(pip.staged_then[1]);
}

TEST_CASE("a package the index does not have goes to pip with the index at once") {
  PythonRoot root;
  dl_add_venv(root);
  dl_serve_index(root);
  root.ctx.ask_urls = [](const std::vector<UrlQuery>& queries, const QueryOptions&) {
    std::vector<UrlAnswer> out(queries.size());
    for (auto& a : out) a.error = "404";
    return out;
  };
  DlFetches fetches;
  dl_fake_fetch(root, fetches);
  DlPipRuns pip;
  dl_fake_pip(root, pip);
  auto step = dl_torch_step();
  StepPlan p = step->plan(root.ctx);
  step->apply(root.ctx, p);
  CHECK(fetches.requests.empty());
  REQUIRE(pip.argv.size() == 1);
  CHECK(dl_has(pip.argv[0], "--index-url"));
  CHECK_FALSE(dl_has(pip.argv[0], "--no-index"));
}
