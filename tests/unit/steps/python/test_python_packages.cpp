#include <doctest/doctest.h>

#include "installer/formats/python_dist.hpp"
#include "installer/formats/wheel_name.hpp"
#include "installer/system/error.hpp"
#include "installer/system/units.hpp"
#include "steps/python/venv_snapshot.hpp"
#include "steps/python/wheel_fetch.hpp"
#include "unit/steps/python/python_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const std::string kPyVenv = "/home/alice/venv";
const std::string kPySite = "/home/alice/venv/lib/python3.12/site-packages";
// A file:// wheel: pip reads it where it is, so these tests download
// nothing (test_wheel_fetch.cpp has the tool's own downloads of https:// ones).
const std::string kTorchUrl =
    "file:///srv/wheels/rocm-rel-7.2.2/"
    "torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl";
const std::string kTorchNew = "2.9.1+rocm7.2.2.lw.git127a149a";
const std::string kTorchHash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

// A file of alice's, in folders of hers (as pip makes them) below /home/alice.
void add_owned(MemoryFileSystem& fs, const std::string& path, const std::string& content) {
  for (std::string p = parent_path(path); p != "/home/alice" && p != "/" && !fs.lstat(p); p = parent_path(p)) {
    fs.add_dir(p);
    fs.set_owner(p, 1000, 1000);
  }
  fs.add_file(path, content, 0644, 1000, 1000);
}

// A venv of alice's with torch 2.8.0 (files in site-packages and a script
// in bin/, as its RECORD lists them) and numpy 1.26.4.
void add_torch_venv(MemoryFileSystem& fs, const std::string& pyvenv = "home = /usr/bin\nversion = 3.12.3\n") {
  add_owned(fs, kPyVenv + "/pyvenv.cfg", pyvenv);
  add_owned(fs, kPyVenv + "/bin/python", "");
  add_owned(fs, kPyVenv + "/bin/torchrun", "old torchrun");
  add_owned(fs, kPySite + "/torch/__init__.py", "old torch");
  add_owned(fs, kPySite + "/torch/lib/libtorch.so", "old lib");
  add_owned(fs, kPySite + "/torch-2.8.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.8.0\n");
  add_owned(fs, kPySite + "/torch-2.8.0.dist-info/RECORD",
            "torch/__init__.py,sha256=a,9\n"
            "torch/lib/libtorch.so,sha256=b,1000000\n"
            "../../../bin/torchrun,sha256=c,12\n"
            "torch-2.8.0.dist-info/METADATA,,\n"
            "torch-2.8.0.dist-info/RECORD,,\n");
  add_owned(fs, kPySite + "/numpy-1.26.4.dist-info/METADATA", "Name: numpy\nVersion: 1.26.4\n");
}

std::string packages_step(const std::string& packages, const std::string& extra = "") {
  return "id = \"torch\"\nkind = \"python_packages\"\nvenv = \"" + kPyVenv +
         "\"\nowner = \"alice\"\npython = \"3.12\"\npackages = [" + packages + "]\n" + extra;
}

// pip install as far as these tests need it: the new torch's files (its
// bundled libhsa among them) and dist-info, written as alice; pip
// uninstall: the files a RECORD lists, then the dist-info.
void install_fake_pip(PythonRoot& root) {
  MemoryFileSystem& fs = root.fs;
  root.runner.on({"runuser", "-u", "alice", "--", kPyVenv + "/bin/python", "-m", "pip", "install"},
                 [&fs](const Command& c) {
                   FileAttrs a{0644, 1000, 1000};
                   // As pip does: the installed version's files go first.
                   for (const auto& d : installed_dists(fs, kPySite)) {
                     if (d.key != "torch") continue;
                     for (const auto& e : parse_record(fs.read(d.dist_info + "/RECORD")))
                       fs.remove(record_target(kPySite, e.path));
                     remove_tree(fs, d.dist_info);
                   }
                   fs.write_atomic(kPySite + "/torch/__init__.py", "new torch", a);
                   fs.write_atomic(kPySite + "/torch/lib/libtorch.so", "new lib", a);
                   fs.write_atomic(kPySite + "/torch/lib/libhsa-runtime64.so.1", "bundled hsa", a);
                   fs.write_atomic(kPyVenv + "/bin/torchrun", "new torchrun", a);
                   std::string di = kPySite + "/torch-" + kTorchNew + ".dist-info";
                   fs.write_atomic(di + "/METADATA", "Name: torch\nVersion: " + kTorchNew + "\n", a);
                   fs.write_atomic(di + "/RECORD",
                                   "torch/__init__.py,,\ntorch/lib/libtorch.so,,\ntorch/lib/libhsa-runtime64.so.1,,\n"
                                   "../../../bin/torchrun,,\ntorch-" +
                                       kTorchNew + ".dist-info/METADATA,,\n",
                                   a);
                   std::string out =
                       "Processing torch\nInstalling collected packages: torch\n\n"
                       "Successfully installed torch-" +
                       kTorchNew + "\n";
                   // As the real runner does, line by line.
                   for (std::size_t start = 0, nl;
                        c.on_stdout_line && (nl = out.find('\n', start)) != std::string::npos; start = nl + 1)
                     c.on_stdout_line(out.substr(start, nl - start));
                   return exited(0, "", out);
                 });
  root.runner.on({"runuser", "-u", "alice", "--", kPyVenv + "/bin/python", "-m", "pip", "uninstall"},
                 [&fs](const Command& c) {
                   for (std::size_t i = 12; i < c.argv.size(); ++i) {
                     for (const auto& d : installed_dists(fs, kPySite)) {
                       if (d.key != normalize_project_name(c.argv[i])) continue;
                       for (const auto& e : parse_record(fs.read(d.dist_info + "/RECORD")))
                         fs.remove(record_target(kPySite, e.path));
                       remove_tree(fs, d.dist_info);
                     }
                   }
                   return exited(0);
                 });
}

// The root without the state folder: the undo store is the runner's to
// remove once a rollback is over, not the step's.
Snapshot venv_snapshot(const MemoryFileSystem& fs) {
  Snapshot out = snapshot(fs);
  for (auto it = out.begin(); it != out.end();)
    it = it->first == "/var" || it->first.rfind("/var/", 0) == 0 ? out.erase(it) : std::next(it);
  return out;
}

const std::string kVenvStore = "/var/lib/wslgpu-setup/tx/T/undo/venv-torch";

bool has_detail(const StepPlan& p, const std::string& text) {
  return std::find(p.details.begin(), p.details.end(), text) != p.details.end();
}

struct RecordingSink : ProgressSink {
  std::vector<std::string> subjects;
  void update(const ProgressEvent& e) override { subjects.push_back(e.subject); }
};

}  // namespace

TEST_CASE("packages at their versions in a venv make a no-op plan that starts no process") {
  PythonRoot root;
  add_torch_venv(root.fs);
  auto step = build_ok(
      packages_step("{ url = \"https://h/w/torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl\", sha256 = \"\" },"
                    "{ name = \"NumPy\", version = \"1.26.4\" }",
                    "remove_files = [\"torch/lib/libhsa-runtime64.so*\"]\n"));
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::noop);
  CHECK(p.summary == "2 packages installed in /home/alice/venv, none of the files remove_files names");
  CHECK(root.runner.calls.empty());
}

TEST_CASE("the plan of an upgrade says from which version to which, from where, and what is kept for undo") {
  PythonRoot root;
  add_torch_venv(root.fs);
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\", sha256 = \"" + kTorchHash + "\" }"));
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "install 1 Python package into /home/alice/venv as alice");
  CHECK(has_detail(p, "torch 2.8.0 → " + kTorchNew + " from " + kTorchUrl));
  CHECK(has_detail(p, "  sha256 " + kTorchHash + " (pip refuses any other file)"));
  // Every file of the venv kept before pip runs.
  std::uint64_t bytes = 0;
  std::size_t files = 0;
  for (const auto& [path, node] : root.fs.nodes())
    if (path.rfind(kPyVenv + "/", 0) == 0 && node.info.type == FileType::regular) bytes += node.content.size(), ++files;
  CHECK(files == 8);
  CHECK(has_detail(p,
                   "keeps the venv's 8 files (" + human_size(bytes) + ", 2 distributions) in the undo store under /var/lib/wslgpu-setup "
                   "before pip runs, as hard links where it is on the venv's filesystem, else as copies: a "
                   "rollback gives back exactly these, with no network"));
  // What pip replaces stays on disk in the store: the plan says so, with
  // its size from the RECORD (torch 2.8.0's: 9 + 1000000 + 12 bytes).
  CHECK(has_detail(p, "the files pip replaces (torch 2.8.0, about " + human_size(1'000'021) +
                          ") stay on disk in the undo store until this transaction is rolled back or its store is "
                          "let go (`history --prune`, once a later install supersedes it, or `history --prune ID`)"));
  auto keep = std::find_if(p.disk_needs.begin(), p.disk_needs.end(),
                           [](const DiskNeed& n) { return !n.free_on_filesystem_of.empty(); });
  REQUIRE(keep != p.disk_needs.end());
  CHECK(keep->bytes == bytes);
  CHECK(keep->free_on_filesystem_of == kPyVenv);
  CHECK(root.runner.calls.empty());
}

TEST_CASE("the plan says the bytes to download, asked of the server without downloading, and the room they need") {
  PythonRoot root;
  add_torch_venv(root.fs);
  const std::string url = "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.2/"
                          "torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl";
  std::vector<UrlQuery> asked;
  root.ctx.ask_urls = [&](const std::vector<UrlQuery>& queries, const QueryOptions&) {
    std::vector<UrlAnswer> out(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      asked.push_back(queries[i]);
      if (queries[i].kind == UrlQuery::Kind::probe && queries[i].url == url)
        out[i].size = 4'600'000'000;
      else
        out[i].error = "404";
    }
    return out;
  };
  auto step = build_ok(packages_step("{ url = \"" + url + "\", sha256 = \"" + kTorchHash + "\" }"));
  StepPlan p = step->plan(root.ctx);
  REQUIRE_FALSE(asked.empty());
  CHECK(asked[0].kind == UrlQuery::Kind::probe);  // a size, never the wheel
  bool line = false;
  for (const auto& d : p.details)
    if (d.rfind("downloads " + human_size(4'600'000'000) + " (1 wheel, resolved from the servers' pages; the tool "
                "downloads them, then pip installs from those files): torch " + kTorchNew + " " + human_size(4'600'000'000), 0) == 0)
      line = true;
  CHECK(line);
  // The tool's download in its cache, then 2.5 times it unpacked in the venv.
  bool cache = false, venv = false;
  for (const auto& n : p.disk_needs) {
    if (n.path == "/var/lib/wslgpu-setup" && n.bytes == 4'600'000'000) cache = true;
    if (n.path == kPyVenv && n.bytes == 11'500'000'000) venv = true;
  }
  CHECK(cache);
  CHECK(venv);
  // The staging copy, counted on the venv's filesystem where the state
  // folder is on another one (review finding 8: a link would cost nothing).
  auto staged = std::find_if(p.disk_needs.begin(), p.disk_needs.end(), [](const DiskNeed& n) {
    return n.path == kPyVenv && n.free_on_filesystem_of == "/var/lib/wslgpu-setup";
  });
  REQUIRE(staged != p.disk_needs.end());
  CHECK(staged->bytes == 4'600'000'000);
  // A server that does not say: "size unknown", never a number made up.
  root.ctx.ask_urls = [](const std::vector<UrlQuery>& queries, const QueryOptions&) {
    std::vector<UrlAnswer> out(queries.size());
    for (auto& a : out) a.why_unknown = "the server does not say its size";
    return out;
  };
  p = step->plan(root.ctx);
  bool unknown = false;
  for (const auto& d : p.details)
    if (contains(d, "size unknown")) unknown = true;
  CHECK(unknown);
}

TEST_CASE("the plan counts what an interrupted run left in the cache as downloaded, in the figure and the room") {
  PythonRoot root;
  add_torch_venv(root.fs);
  const std::string url = "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.2/"
                          "torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl";
  root.ctx.ask_urls = [&](const std::vector<UrlQuery>& queries, const QueryOptions&) {
    std::vector<UrlAnswer> out(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      if (queries[i].kind == UrlQuery::Kind::probe && queries[i].url == url)
        out[i].size = 4600;
      else
        out[i].error = "404";
    }
    return out;
  };
  auto step = build_ok(packages_step("{ url = \"" + url + "\", sha256 = \"" + kTorchHash + "\" }"));
  WantedPackage torch;
  torch.url = url;
  torch.sha256 = kTorchHash;
  root.fs.write_atomic(wheel_cache_path(root.ctx, torch) + ".part", std::string(1600, 'x'), FileAttrs{});
  StepPlan p = step->plan(root.ctx);
  bool said = false;
  for (const auto& d : p.details)
    if (d == "  " + human_size(1600) + " of it already in /var/lib/wslgpu-setup/cache/wheels (kept by an earlier run, "
                                       "whole or in part): " + human_size(3000) + " left to download")
      said = true;
  CHECK(said);
  // The room in the cache is for what is left (the venv's copy for undo is
  // another need on the same folder).
  auto download_need = [](const DiskNeed& n) { return n.what.rfind("wslgpu-setup downloads", 0) == 0; };
  auto need = std::find_if(p.disk_needs.begin(), p.disk_needs.end(), download_need);
  REQUIRE(need != p.disk_needs.end());
  CHECK(need->path == "/var/lib/wslgpu-setup");
  CHECK(need->bytes == 3000);
  // Whole (its size), nothing is left to fetch and the cache needs no room.
  root.fs.remove(wheel_cache_path(root.ctx, torch) + ".part");
  root.fs.write_atomic(wheel_cache_path(root.ctx, torch), std::string(4600, 'x'), FileAttrs{});
  p = step->plan(root.ctx);
  CHECK(std::none_of(p.disk_needs.begin(), p.disk_needs.end(), download_need));
}

TEST_CASE("a URL package without a hash is said to be unverified, in the manifest's words") {
  PythonRoot root;
  const std::string url = "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.2/"
                          "torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl";
  auto step = build_ok(packages_step("{ url = \"" + url + "\", sha256 = \"\" }",
                                     "unverified_note = \"AMD publishes no hash for this wheel\"\n"));
  StepPlan p = step->plan(root.ctx);
  CHECK(has_detail(p, "install torch " + kTorchNew + " from " + url));
  CHECK(has_detail(p, "  not verified: AMD publishes no hash for this wheel; TLS only"));
  CHECK(has_detail(p, "the venv /home/alice/venv does not exist yet (an earlier python_venv step makes it)"));
}

TEST_CASE("a venv of another Python than the step's refuses the plan, naming both") {
  PythonRoot root;
  add_torch_venv(root.fs, "version = 3.11.2\n");
  StepPlan p = build_ok(packages_step("{ url = \"" + kTorchUrl + "\" }"))->plan(root.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(
      contains(p.summary, "the venv /home/alice/venv has Python 3.11.2, and this step's packages are for Python 3.12"));
}

TEST_CASE("apply keeps the venv in the undo store, runs pip as the owner with the exact arguments, then removes remove_files") {
  PythonRoot root;
  add_torch_venv(root.fs);
  root.fs.add_file("/etc/ssl/certs/ca-certificates.crt", "CA");
  install_fake_pip(root);
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\", sha256 = \"" + kTorchHash + "\" }",
                                     "remove_files = [\"torch/lib/libhsa-runtime64.so*\"]\n"));
  RecordingSink sink;
  root.ctx.progress = &sink;
  StepPlan p = step->plan(root.ctx);
  auto data = step->apply(root.ctx, p);

  std::vector<std::vector<std::string>> pips;
  for (const auto& c : root.runner.calls)
    if (c.argv.size() > 6 && c.argv[6] == "pip") pips.push_back(c.argv);
  REQUIRE(pips.size() == 1);
  CHECK(pips[0] == std::vector<std::string>{"runuser", "-u", "alice", "--", "/home/alice/venv/bin/python", "-m", "pip",
                                            "install", "--isolated", "--no-input", "--disable-pip-version-check",
                                            "--no-cache-dir", "--no-index",
                                            "torch @ " + kTorchUrl + "#sha256=" + kTorchHash});
  CHECK(sink.subjects == std::vector<std::string>{"Processing torch", "Installing collected packages: torch",
                                                  "Successfully installed torch-" + kTorchNew});
  CHECK_FALSE(root.fs.lstat(kPySite + "/torch/lib/libhsa-runtime64.so.1"));
  // The old venv is in the undo store, not in the venv.
  CHECK(data["store"] == kVenvStore);
  CHECK(root.fs.read(kVenvStore + "/files/lib/python3.12/site-packages/torch/__init__.py") == "old torch");
  CHECK(root.fs.read(kVenvStore + "/files/bin/torchrun") == "old torchrun");
  CHECK(root.fs.stat(kVenvStore + "/tree.json"));
  CHECK_FALSE(root.fs.lstat(kPyVenv + "/.wslgpu-setup-undo"));
  CHECK(data["after"]["torch"]["version"] == kTorchNew);
  CHECK(data["owner"] == "alice");
  // Converged now: the plan runs nothing and has nothing to do.
  root.runner.calls.clear();
  root.ctx.progress = nullptr;
  CHECK(step->plan(root.ctx).verdict == Verdict::noop);
  CHECK(root.runner.calls.empty());
}

TEST_CASE("undo gives back the venv's files and distributions from the store without pip, and can run twice") {
  PythonRoot root;
  add_torch_venv(root.fs);
  install_fake_pip(root);
  auto before = venv_snapshot(root.fs);
  auto step = build_ok(
      packages_step("{ url = \"" + kTorchUrl + "\" }", "remove_files = [\"torch/lib/libhsa-runtime64.so*\"]\n"));
  auto data = step->apply(root.ctx, step->plan(root.ctx));
  CHECK(root.fs.read(kPySite + "/torch/__init__.py") == "new torch");
  const std::size_t calls = root.runner.calls.size();
  step->undo(root.ctx, data);
  for (const auto& [path, node] : venv_snapshot(root.fs))
    if (!before.count(path) || before.at(path) != node) MESSAGE("after undo: " << path);
  for (const auto& [path, node] : before)
    if (!venv_snapshot(root.fs).count(path)) MESSAGE("gone after undo: " << path);
  CHECK(venv_snapshot(root.fs) == before);
  for (std::size_t i = calls; i < root.runner.calls.size(); ++i)
    CHECK(root.runner.calls[i].argv[4] == "mkdir");  // no pip: no network, no interpreter needed
  step->undo(root.ctx, data);
  CHECK(venv_snapshot(root.fs) == before);
}

TEST_CASE("undo puts back a dependency pip upgraded on its own and one it removed") {
  PythonRoot root;
  add_torch_venv(root.fs);
  add_owned(root.fs, kPySite + "/numpy/__init__.py", "numpy 1");
  add_owned(root.fs, kPySite + "/numpy-1.26.4.dist-info/RECORD",
            "numpy/__init__.py,,\nnumpy-1.26.4.dist-info/METADATA,,\nnumpy-1.26.4.dist-info/RECORD,,\n");
  add_owned(root.fs, kPySite + "/oldpkg/__init__.py", "old");
  add_owned(root.fs, kPySite + "/oldpkg-1.0.dist-info/METADATA", "Name: oldpkg\nVersion: 1.0\n");
  add_owned(root.fs, kPySite + "/oldpkg-1.0.dist-info/RECORD", "oldpkg/__init__.py,,\noldpkg-1.0.dist-info/METADATA,,\n");
  // The first rule for pip install wins: torch as the step asks, and on
  // pip's own account numpy 1.26.4 -> 2.1.0 (a new folder among its files)
  // and oldpkg uninstalled.
  root.runner.on({"runuser", "-u", "alice", "--", kPyVenv + "/bin/python", "-m", "pip", "install"},
                 [&root](const Command&) {
                   MemoryFileSystem& fs = root.fs;
                   FileAttrs a{0644, 1000, 1000};
                   fs.write_atomic(kPySite + "/torch/__init__.py", "new torch", a);
                   remove_tree(fs, kPySite + "/torch-2.8.0.dist-info");
                   fs.write_atomic(kPySite + "/torch-2.9.0.dist-info/METADATA", "Name: torch\nVersion: 2.9.0\n", a);
                   fs.write_atomic(kPySite + "/torch-2.9.0.dist-info/RECORD", "torch/__init__.py,,\n", a);
                   remove_tree(fs, kPySite + "/numpy-1.26.4.dist-info");
                   fs.write_atomic(kPySite + "/numpy/__init__.py", "numpy 2", a);
                   fs.write_atomic(kPySite + "/numpy/_core/multiarray.py", "new module", a);
                   fs.write_atomic(kPySite + "/numpy/_core/__pycache__/multiarray.cpython-312.pyc", "pyc", a);
                   fs.write_atomic(kPySite + "/numpy-2.1.0.dist-info/METADATA", "Name: numpy\nVersion: 2.1.0\n", a);
                   fs.write_atomic(kPySite + "/numpy-2.1.0.dist-info/RECORD",
                                   "numpy/__init__.py,,\nnumpy/_core/multiarray.py,,\n", a);
                   remove_tree(fs, kPySite + "/oldpkg");
                   remove_tree(fs, kPySite + "/oldpkg-1.0.dist-info");
                   return exited(0);
                 });
  install_fake_pip(root);
  auto before = venv_snapshot(root.fs);
  auto dists_before = dist_set(root.fs, kPySite);
  auto step = build_ok(packages_step("{ name = \"torch\", version = \"2.9.0\" }", "index_url = \"https://i/whl\"\n"));
  auto data = step->apply(root.ctx, step->plan(root.ctx));
  CHECK(dist_set(root.fs, kPySite).at("numpy").version == "2.1.0");
  CHECK_FALSE(dist_set(root.fs, kPySite).count("oldpkg"));
  step->undo(root.ctx, data);
  CHECK(dist_set(root.fs, kPySite) == dists_before);
  CHECK(venv_snapshot(root.fs) == before);  // numpy/_core and its bytecode cache gone too
}

TEST_CASE("a pip killed half way is undone from the snapshot and the store") {
  PythonRoot failing;
  add_torch_venv(failing.fs);
  // pip wrote part of the new torch, then failed (the first rule wins).
  failing.runner.on({"runuser", "-u", "alice", "--", kPyVenv + "/bin/python", "-m", "pip", "install"},
                    [&failing](const Command&) {
                      failing.fs.write_atomic(kPySite + "/torch/__init__.py", "half new", FileAttrs{0644, 1000, 1000});
                      failing.fs.remove(kPySite + "/torch/lib/libtorch.so");
                      // Files of the new build in an old folder and in a new one, in no
                      // RECORD yet (pip writes the RECORD last): review finding 9.
                      failing.fs.write_atomic(kPySite + "/torch/lib/libtorch_cuda126.so", "new build",
                                              FileAttrs{0644, 1000, 1000});
                      failing.fs.add_dir(kPySite + "/torch/only126");
                      failing.fs.write_atomic(kPySite + "/torch/only126/kernels.so", "new build",
                                              FileAttrs{0644, 1000, 1000});
                      return exited(1, "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.\n"
                                       "        Expected sha256 " + kTorchHash + "\n             Got        ffff\n");
                    });
  auto before = venv_snapshot(failing.fs);
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\", sha256 = \"" + kTorchHash + "\" }"));
  StepPlan p = step->plan(failing.ctx);
  auto pre = step->snapshot(failing.ctx);
  CHECK_THROWS_WITH_AS(step->apply(failing.ctx, p), doctest::Contains("Got        ffff"), StepFailure);
  step->undo(failing.ctx, {{"partial", true}, {"pre", pre}});
  CHECK(venv_snapshot(failing.fs) == before);
}

TEST_CASE("undo keeps what the user added since, and a venv changed since is drift") {
  PythonRoot root;
  add_torch_venv(root.fs);
  install_fake_pip(root);
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\" }"));
  auto data = step->apply(root.ctx, step->plan(root.ctx));
  CHECK(step->drift(root.ctx, data).empty());
  // Later, the user's own pip install.
  add_owned(root.fs, kPySite + "/transformers/__init__.py", "hf");
  add_owned(root.fs, kPySite + "/transformers-4.0.dist-info/METADATA", "Name: transformers\nVersion: 4.0\n");
  add_owned(root.fs, kPySite + "/transformers-4.0.dist-info/RECORD", "transformers/__init__.py,,\n");
  CHECK(step->drift(root.ctx, data).empty());  // an addition is not drift
  step->undo(root.ctx, data);
  CHECK(root.fs.read(kPySite + "/transformers/__init__.py") == "hf");
  CHECK(dist_set(root.fs, kPySite).at("transformers").version == "4.0");
  CHECK(dist_set(root.fs, kPySite).at("torch").version == "2.8.0");
  // A distribution the transaction left, changed since: said, with the venv.
  auto again = step->apply(root.ctx, step->plan(root.ctx));
  add_owned(root.fs, kPySite + "/torch-" + kTorchNew + ".dist-info/METADATA", "Name: torch\nVersion: 2.10.0\n");
  root.ctx.made_by_later_steps = nlohmann::json::object();  // a new check: Transactions::drifted makes a new context
  CHECK(step->drift(root.ctx, again) ==
        std::vector<std::string>{"/home/alice/venv: torch " + kTorchNew + ", now 2.10.0 (changed since)"});
}

TEST_CASE("undo acts on the venv and owner the journal recorded, not on the step loaded again for another user") {
  PythonRoot root;
  add_torch_venv(root.fs);
  install_fake_pip(root);
  auto before = venv_snapshot(root.fs);
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\" }"));
  auto data = step->apply(root.ctx, step->plan(root.ctx));
  // What rollback run through bob's sudo used to load: bob's venv.
  root.fs.add_dir("/home/bob/venv");
  auto as_bob = build_ok("id = \"torch\"\nkind = \"python_packages\"\nvenv = \"/home/bob/venv\"\nowner = \"bob\"\n"
                         "python = \"3.12\"\npackages = [{ url = \"" + kTorchUrl + "\" }]\n");
  as_bob->undo(root.ctx, data);
  CHECK(venv_snapshot(root.fs).count("/home/bob/venv"));
  auto now = venv_snapshot(root.fs);
  now.erase("/home/bob/venv");
  now.erase("/home/bob");
  CHECK(now == before);
}

TEST_CASE("the proxy variables reach pip as they reach the tool's own downloads") {
  PythonRoot root;
  add_torch_venv(root.fs);
  install_fake_pip(root);
  ::setenv("https_proxy", "http://proxy.invalid:3128", 1);
  ::setenv("NO_PROXY", "localhost", 1);
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\" }"));
  step->apply(root.ctx, step->plan(root.ctx));
  ::unsetenv("https_proxy");
  ::unsetenv("NO_PROXY");
  const Command* pip = nullptr;
  for (const auto& c : root.runner.calls)
    if (c.argv.size() > 7 && c.argv[6] == "pip") pip = &c;
  REQUIRE(pip);
  CHECK(pip->env.at("https_proxy") == "http://proxy.invalid:3128");
  CHECK(pip->env.at("NO_PROXY") == "localhost");
}

TEST_CASE("a switch of the CUDA build reinstalls torch and the companions built for the old one") {
  PythonRoot root;
  add_owned(root.fs, kPyVenv + "/pyvenv.cfg", "version = 3.12.3\n");
  add_owned(root.fs, kPyVenv + "/bin/python", "");
  auto add_dist = [&](const std::string& name, const std::string& version, const std::string& requires_) {
    std::string di = kPySite + "/" + name + "-" + version + ".dist-info";
    add_owned(root.fs, di + "/METADATA", "Name: " + name + "\nVersion: " + version + "\n" + requires_ + "\n");
    add_owned(root.fs, di + "/RECORD", name + "-" + version + ".dist-info/METADATA,,\n");
  };
  add_dist("torch", "2.14.1+cu130", "");
  add_dist("torchvision", "0.29.1+cu130", "Requires-Dist: torch==2.14.1");
  root.runner.on({"runuser", "-u", "alice", "--", kPyVenv + "/bin/python", "-m", "pip"}, exited(0));
  auto cuda = [](const std::string& build, const std::string& torch) {
    return build_ok(packages_step("{ name = \"torch\", version = \"" + torch + "\" }, { name = \"torchvision\" }",
                                  "index_url = \"https://download.pytorch.org/whl/" + build + "\"\n" +
                                      (build.empty() ? "" : "build = \"" + build + "\"\n")));
  };
  // The same build: converged.
  CHECK(cuda("cu130", "2.14.1+cu130")->plan(root.ctx).verdict == Verdict::noop);
  // The plan names the build it goes to, also where the manifest gives the
  // version without its label (pytorch-cuda's torch_version = "2.14.1").
  StepPlan named = cuda("cu126", "2.14.1")->plan(root.ctx);
  CHECK(std::find(named.details.begin(), named.details.end(),
                  "torch 2.14.1+cu130 → 2.14.1+cu126 from the index https://download.pytorch.org/whl/cu126") !=
        named.details.end());
  CHECK(std::find(named.details.begin(), named.details.end(),
                  "torchvision 0.29.1+cu130 → torchvision (the newest cu126 build the index has that fits) from the "
                  "index https://download.pytorch.org/whl/cu126") != named.details.end());
  // cu130 -> cu126, the same torch version: both are another build.
  auto step = cuda("cu126", "2.14.1+cu126");
  StepPlan p = step->plan(root.ctx);
  CHECK(p.changes.size() == 2);
  step->apply(root.ctx, p);
  std::vector<std::vector<std::string>> pips;
  for (const auto& c : root.runner.calls)
    if (c.argv.size() > 7 && c.argv[6] == "pip") pips.push_back({c.argv.begin() + 7, c.argv.end()});
  REQUIRE(pips.size() == 2);
  // pip keeps an installed torchvision whose pins still hold: it goes first.
  CHECK(pips[0] == std::vector<std::string>{"uninstall", "-y", "--isolated", "--no-input",
                                            "--disable-pip-version-check", "torch", "torchvision"});
  CHECK(pips[1].back() == "torchvision");
  CHECK(pips[1][pips[1].size() - 2] == "torch==2.14.1+cu126");
}

TEST_CASE("a companion that pins another torch than the step's is reinstalled with it (cu128 -> cu130)") {
  PythonRoot root;
  add_owned(root.fs, kPyVenv + "/pyvenv.cfg", "version = 3.12.3\n");
  add_owned(root.fs, kPyVenv + "/bin/python", "");
  add_owned(root.fs, kPySite + "/torch-2.11.0+cu128.dist-info/METADATA", "Name: torch\nVersion: 2.11.0+cu128\n");
  add_owned(root.fs, kPySite + "/torchvision-0.26.0+cu128.dist-info/METADATA",
            "Name: torchvision\nVersion: 0.26.0+cu128\nRequires-Dist: numpy\nRequires-Dist: torch (==2.11.0)\n");
  auto step = build_ok(packages_step("{ name = \"torch\", version = \"2.14.1\" }, { name = \"torchvision\" }",
                                     "index_url = \"https://download.pytorch.org/whl/cu130\"\n"));
  StepPlan p = step->plan(root.ctx);
  REQUIRE(p.changes.size() == 2);
  CHECK(p.changes[1]["name"] == "torchvision");
  CHECK(p.changes[1]["action"] == "replace");
}

TEST_CASE("index packages go to pip as NAME==VERSION with the index and find-links, and undo uninstalls them") {
  PythonRoot root;
  add_owned(root.fs, kPyVenv + "/pyvenv.cfg", "version = 3.12.3\n");
  add_owned(root.fs, kPyVenv + "/bin/python", "");
  root.fs.add_dir(kPySite);
  root.runner.on(
      {"runuser", "-u", "alice", "--", kPyVenv + "/bin/python", "-m", "pip", "install"}, [&root](const Command&) {
        add_owned(root.fs, kPySite + "/numpy-1.26.4.dist-info/METADATA", "Name: numpy\nVersion: 1.26.4\n");
        add_owned(root.fs, kPySite + "/numpy-1.26.4.dist-info/RECORD", "numpy-1.26.4.dist-info/METADATA,,\n");
        return exited(0);
      });
  root.runner.on({"runuser", "-u", "alice", "--", kPyVenv + "/bin/python", "-m", "pip", "uninstall"},
                 exited(0));
  auto step = build_ok(packages_step("{ name = \"numpy\", version = \"1.26.4\" }, { name = \"filelock\" }",
                                     "index_url = \"https://download.pytorch.org/whl/cu128\"\n"
                                     "find_links = [\"file:///srv/wheels/\"]\n"));
  StepPlan p = step->plan(root.ctx);
  CHECK(has_detail(p,
                   "install filelock (the newest version the index has that fits) from the index "
                   "https://download.pytorch.org/whl/cu128"));
  CHECK(has_detail(p, "  not pinned by the manifest: the version the index or find-links folder has, checked against the SHA-256 its page gives"));
  auto data = step->apply(root.ctx, p);
  REQUIRE(root.runner.calls.size() == 1);
  CHECK(root.runner.calls[0].argv ==
        std::vector<std::string>{"runuser", "-u", "alice", "--", "/home/alice/venv/bin/python", "-m", "pip", "install",
                                 "--isolated", "--no-input", "--disable-pip-version-check", "--no-cache-dir",
                                 "--index-url", "https://download.pytorch.org/whl/cu128", "--find-links",
                                 "file:///srv/wheels/", "numpy==1.26.4", "filelock"});
  // No pip.conf (global, user or the venv's) adds an index or find-links the plan did not show.
  CHECK(root.runner.calls[0].env.at("PIP_CONFIG_FILE") == "/dev/null");
  step->undo(root.ctx, data);
  CHECK(root.runner.calls.size() == 1);  // undo needs no pip
  CHECK_FALSE(root.fs.lstat(kPySite + "/numpy-1.26.4.dist-info"));
}

TEST_CASE("bad package entries are load errors at the offending value") {
  auto err = [](const std::string& packages) { return build_errors(packages_step(packages)); };
  CHECK(err("{ url = \"" + kTorchUrl + "\", sha256 = \"abc\" }") ==
        "m.toml:6:" + std::to_string(34 + kTorchUrl.size()) +
            ": \"abc\" is not a SHA-256: it must be 64 hex digits (or \"\" for none, with unverified_note saying why)");
  std::string cp310 = "https://h/pytorch_triton_rocm-3.2.0+rocm6.4.2.git7e948ebf-cp310-cp310-linux_x86_64.whl";
  CHECK(err("{ url = \"" + cp310 + "\" }") ==
        "m.toml:6:21: the wheel pytorch_triton_rocm-3.2.0+rocm6.4.2.git7e948ebf-cp310-cp310-linux_x86_64.whl cannot "
        "run on this step's Python 3.12 (cp310: CPython 3.10, and this Python is 3.12): use the wheel for cp312, or "
        "set python to the venv's version");
  CHECK(contains(err("{ url = \"http://h/torch-2.9-cp312-cp312-linux_x86_64.whl\" }"),
                 "m.toml:6:21: \"http://h/torch-2.9-cp312-cp312-linux_x86_64.whl\" is not an https:// or file:// URL"));
  CHECK(contains(err("{ url = \"https://h/torch-2.9.tar.gz\" }"), "m.toml:6:21: the URL's file \"torch-2.9.tar.gz\""));
  // The platform is the problem, not the Python: the advice says so.
  CHECK(contains(err("{ url = \"https://h/torch-2.9-cp312-cp312-manylinux_2_28_aarch64.whl\" }"),
                 "): use the wheel built for linux_x86_64 (or manylinux_*_x86_64)"));
  CHECK(contains(err("{ name = \"--index-url=https://evil\" }"),
                 "m.toml:6:22: \"--index-url=https://evil\" is not a "
                 "package name"));
  CHECK(contains(err("{ name = \"numpy\", versoin = \"1\" }"), "m.toml:6:41: unknown key \"versoin\""));
  CHECK(contains(err("{ name = \"numpy\", version = \"1.0 --pre\" }"), "is not a version"));
  CHECK(contains(build_errors(packages_step("{ name = \"numpy\" }", "index_url = \"http://pypi\"\n")),
                 "m.toml:7:13: \"http://pypi\" is not an https:// or file:// URL"));
  CHECK(contains(build_errors(packages_step("{ name = \"numpy\" }", "remove_files = [\"../x\"]\n")),
                 "m.toml:7:17: \"../x\" must be a path relative to site-packages"));
}

TEST_CASE("a file remove_files took from an unchanged package is put back by undo") {
  PythonRoot root;
  add_torch_venv(root.fs);
  add_owned(root.fs, kPySite + "/torch/lib/libhsa-runtime64.so.1", "bundled hsa");
  add_owned(root.fs, kPySite + "/torch-2.8.0.dist-info/RECORD",
            root.fs.read(kPySite + "/torch-2.8.0.dist-info/RECORD") + "torch/lib/libhsa-runtime64.so.1,,\n");
  auto before = venv_snapshot(root.fs);
  auto step = build_ok(packages_step("{ url = \"https://h/w/torch-2.8.0-cp312-cp312-linux_x86_64.whl\" }",
                                     "remove_files = [\"torch/lib/libhsa-runtime64.so*\"]\n"));
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "remove 1 file from /home/alice/venv");
  CHECK(has_detail(p, "remove torch/lib/libhsa-runtime64.so.1 from site-packages (kept for undo)"));
  auto data = step->apply(root.ctx, p);
  CHECK_FALSE(root.fs.lstat(kPySite + "/torch/lib/libhsa-runtime64.so.1"));
  for (const auto& c : root.runner.calls) CHECK(c.argv[6] != "pip");  // pip does not run
  CHECK(step->plan(root.ctx).verdict == Verdict::noop);
  step->undo(root.ctx, data);
  CHECK(venv_snapshot(root.fs) == before);
}

TEST_CASE("an index package pinned without a local version is converged by that version's local build (PEP 440 ==)") {
  PythonRoot root;
  add_torch_venv(root.fs);
  // What torch==2.14.1 from download.pytorch.org/whl/cu130 installs.
  add_owned(root.fs, kPySite + "/torch-2.8.0.dist-info/METADATA", "Name: torch\nVersion: 2.14.1+cu130\n");
  auto plan_for = [&](const std::string& version) {
    auto step = build_ok(packages_step("{ name = \"torch\", version = \"" + version + "\" }",
                                       "index_url = \"https://download.pytorch.org/whl/cu130\"\n"));
    return step->plan(root.ctx).verdict;
  };
  CHECK(plan_for("2.14.1") == Verdict::noop);
  CHECK(plan_for("2.14.1+cu130") == Verdict::noop);
  CHECK(plan_for("2.14.1+cu126") == Verdict::change);  // another local build is another version
  CHECK(plan_for("2.14") == Verdict::change);          // a prefix is not the version
  CHECK(plan_for("2.14.2") == Verdict::change);
  CHECK(root.runner.calls.empty());
}

TEST_CASE("packages for an empty owner are refused by the plan, not by the manifest's load, and start no process") {
  auto step = build_ok("id = \"torch\"\nkind = \"python_packages\"\nvenv = \"/.venvs/pytorch\"\nowner = \"\"\n"
                       "python = \"3.12\"\npackages = [{ url = \"" + kTorchUrl + "\" }]\n");
  PythonRoot root;
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::refused);
  CHECK(contains(p.summary, "no user to own the virtual environment"));
  CHECK(root.runner.calls.empty());
}

TEST_CASE("what a later step of the same transaction changed in the venv is not drift of an earlier one") {
  // pytorch-rocm on 6.4.2.1: the torch step leaves numpy 2.3.5, then the
  // numpy step pins 1.26.4. Nothing touched the venv since.
  PythonRoot root;
  add_owned(root.fs, kPySite + "/numpy-1.26.4.dist-info/METADATA", "Name: numpy\nVersion: 1.26.4\n");
  auto torch_step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\" }"));
  auto after = [](const std::string& numpy) {
    return nlohmann::json{{"venv", "/home/alice/venv"},
                          {"site", kPySite},
                          {"after", {{"numpy", {{"name", "numpy"}, {"version", numpy}}}}}};
  };
  // Visited latest first, as Transactions::drifted and rollback do.
  CHECK(torch_step->drift(root.ctx, after("1.26.4")).empty());  // the numpy step's record
  CHECK(torch_step->drift(root.ctx, after("2.3.5")).empty());   // the torch step's, after it
  // Alone, the torch step's record would call the numpy step's pin a change since.
  root.ctx.made_by_later_steps = nlohmann::json::object();
  CHECK(torch_step->drift(root.ctx, after("2.3.5")) ==
        std::vector<std::string>{"/home/alice/venv: numpy 2.3.5, now 1.26.4 (changed since)"});
}

TEST_CASE("a package the user added since that the rollback would break is drift, named with what it needs") {
  // The user's venv had filelock 3.10.0; the install upgraded it to 3.20.0
  // for torch; then the user installed transformers, which needs >=3.20.
  PythonRoot root;
  add_owned(root.fs, kPySite + "/filelock-3.20.0.dist-info/METADATA", "Name: filelock\nVersion: 3.20.0\n");
  add_owned(root.fs, kPySite + "/torch-2.0.dist-info/METADATA", "Name: torch\nVersion: 2.0\nRequires-Dist: filelock>=3.20\n");
  add_owned(root.fs, kPySite + "/transformers-4.50.0.dist-info/METADATA",
            "Name: transformers\nVersion: 4.50.0\nRequires-Dist: filelock>=3.20\nRequires-Dist: torch\n"
            "Requires-Dist: accelerate; extra == \"torch\"\n");
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\" }"));
  auto version = [](const std::string& name, const std::string& v) {
    return nlohmann::json{{"name", name}, {"version", v}};
  };
  nlohmann::json data = {{"venv", "/home/alice/venv"},
                         {"site", kPySite},
                         {"dists", {{"filelock", version("filelock", "3.10.0")}}},
                         {"after", {{"filelock", version("filelock", "3.20.0")}, {"torch", version("torch", "2.0")}}}};
  CHECK(step->drift(root.ctx, data) ==
        std::vector<std::string>{
            "/home/alice/venv: transformers 4.50.0, added since, requires filelock>=3.20: the rollback would put back "
            "filelock 3.10.0 (pip check would fail)",
            "/home/alice/venv: transformers 4.50.0, added since, requires torch: the rollback would remove torch 2.0 "
            "(pip check would fail)"});
  // A venv the run created goes aside whole instead (python_venv's drift says so).
  data["new_venv"] = true;
  root.ctx.made_by_later_steps = nlohmann::json::object();
  CHECK(step->drift(root.ctx, data).empty());
}
