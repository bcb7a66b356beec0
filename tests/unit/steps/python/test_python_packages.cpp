#include <doctest/doctest.h>

#include "installer/formats/python_dist.hpp"
#include "installer/formats/wheel_name.hpp"
#include "installer/system/error.hpp"
#include "installer/system/units.hpp"
#include "unit/steps/python/python_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

const std::string kPyVenv = "/home/alice/venv";
const std::string kPySite = "/home/alice/venv/lib/python3.12/site-packages";
const std::string kTorchUrl =
    "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.2/"
    "torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl";
const std::string kTorchNew = "2.9.1+rocm7.2.2.lw.git127a149a";
const std::string kTorchHash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

void add_owned(MemoryFileSystem& fs, const std::string& path, const std::string& content) {
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
  // The old RECORD's sizes: 9 + 1000000 + 12 bytes.
  CHECK(p.details.back() ==
        "space kept for undo: " + human_size(1000021) +
            " (torch 2.8.0), moved to /home/alice/venv/.wslgpu-setup-undo/ and kept there after the "
            "install, for rollback");
  CHECK(root.runner.calls.empty());
}

TEST_CASE("a URL package without a hash is said to be unverified, in the manifest's words") {
  PythonRoot root;
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\", sha256 = \"\" }",
                                     "unverified_note = \"AMD publishes no hash for this wheel\"\n"));
  StepPlan p = step->plan(root.ctx);
  CHECK(has_detail(p, "install torch " + kTorchNew + " from " + kTorchUrl));
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

TEST_CASE("apply runs pip as the owner with the exact arguments, then moves remove_files aside") {
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
                                            "--no-cache-dir", "--cert", "/etc/ssl/certs/ca-certificates.crt",
                                            "--no-index", "torch @ " + kTorchUrl + "#sha256=" + kTorchHash});
  CHECK(sink.subjects == std::vector<std::string>{"Processing torch", "Installing collected packages: torch",
                                                  "Successfully installed torch-" + kTorchNew});
  // The bundled runtime is gone from torch/lib, kept in the undo folder.
  CHECK_FALSE(root.fs.lstat(kPySite + "/torch/lib/libhsa-runtime64.so.1"));
  std::string undo_dir = data["undo_dir"].get<std::string>();
  CHECK(root.fs.read(undo_dir + "/lib/python3.12/site-packages/torch/lib/libhsa-runtime64.so.1") == "bundled hsa");
  CHECK(root.fs.read(undo_dir + "/lib/python3.12/site-packages/torch-2.8.0.dist-info/METADATA").find("2.8.0") !=
        std::string::npos);
  CHECK(root.fs.read(undo_dir + "/bin/torchrun") == "old torchrun");
  CHECK(root.fs.stat(undo_dir)->uid == 1000);  // the user can still remove their venv
  // Converged now: the plan runs nothing and has nothing to do.
  root.runner.calls.clear();
  root.ctx.progress = nullptr;
  CHECK(step->plan(root.ctx).verdict == Verdict::noop);
  CHECK(root.runner.calls.empty());
}

TEST_CASE("undo puts the replaced version back file for file, and can run twice") {
  PythonRoot root;
  add_torch_venv(root.fs);
  install_fake_pip(root);
  auto before = snapshot(root.fs);
  auto step = build_ok(
      packages_step("{ url = \"" + kTorchUrl + "\" }", "remove_files = [\"torch/lib/libhsa-runtime64.so*\"]\n"));
  auto data = step->apply(root.ctx, step->plan(root.ctx));
  CHECK(root.fs.read(kPySite + "/torch/__init__.py") == "new torch");
  step->undo(root.ctx, data);
  for (const auto& [path, node] : snapshot(root.fs))
    if (!before.count(path) || before.at(path) != node) MESSAGE("after undo: " << path);
  for (const auto& [path, node] : before)
    if (!snapshot(root.fs).count(path)) MESSAGE("gone after undo: " << path);
  CHECK(snapshot(root.fs) == before);
  std::size_t calls = root.runner.calls.size();
  step->undo(root.ctx, data);
  CHECK(snapshot(root.fs) == before);
  CHECK(root.runner.calls.size() == calls);  // nothing left to uninstall or move
}

TEST_CASE("a pip that fails after the old files were moved aside is undone from the snapshot") {
  // The first rule for pip install wins in the fake: put the failing one first.
  PythonRoot failing;
  add_torch_venv(failing.fs);
  failing.runner.on({"runuser", "-u", "alice", "--", kPyVenv + "/bin/python", "-m", "pip", "install"},
                    exited(1,
                                     "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.\n"
                                     "        Expected sha256 " +
                                         kTorchHash +
                                         "\n"
                                         "             Got        ffff\n"));
  install_fake_pip(failing);
  auto before = snapshot(failing.fs);
  auto step = build_ok(packages_step("{ url = \"" + kTorchUrl + "\", sha256 = \"" + kTorchHash + "\" }"));
  StepPlan p = step->plan(failing.ctx);
  auto pre = step->snapshot(failing.ctx);
  CHECK_THROWS_WITH_AS(step->apply(failing.ctx, p), doctest::Contains("Got        ffff"), StepFailure);
  CHECK_FALSE(failing.fs.lstat(kPySite + "/torch-2.8.0.dist-info"));  // moved aside before pip ran
  step->undo(failing.ctx, {{"partial", true}, {"pre", pre}});
  CHECK(snapshot(failing.fs) == before);
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
  CHECK(has_detail(p, "  not pinned by hash: the version the index or find-links folder has"));
  auto data = step->apply(root.ctx, p);
  REQUIRE(root.runner.calls.size() == 1);
  CHECK(root.runner.calls[0].argv ==
        std::vector<std::string>{"runuser", "-u", "alice", "--", "/home/alice/venv/bin/python", "-m", "pip", "install",
                                 "--isolated", "--no-input", "--disable-pip-version-check", "--no-cache-dir",
                                 "--index-url", "https://download.pytorch.org/whl/cu128", "--find-links",
                                 "file:///srv/wheels/", "numpy==1.26.4", "filelock"});
  step->undo(root.ctx, data);
  REQUIRE(root.runner.calls.size() == 2);
  CHECK(root.runner.calls[1].argv == std::vector<std::string>{"runuser", "-u", "alice", "--",
                                                              "/home/alice/venv/bin/python", "-m", "pip", "uninstall",
                                                              "-y", "--isolated", "--no-input",
                                                              "--disable-pip-version-check", "numpy"});
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
  auto before = snapshot(root.fs);
  auto step = build_ok(packages_step("{ url = \"https://h/w/torch-2.8.0-cp312-cp312-linux_x86_64.whl\" }",
                                     "remove_files = [\"torch/lib/libhsa-runtime64.so*\"]\n"));
  StepPlan p = step->plan(root.ctx);
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "remove 1 file from /home/alice/venv");
  CHECK(has_detail(p, "remove torch/lib/libhsa-runtime64.so.1 from site-packages (kept for undo)"));
  auto data = step->apply(root.ctx, p);
  CHECK_FALSE(root.fs.lstat(kPySite + "/torch/lib/libhsa-runtime64.so.1"));
  for (const auto& c : root.runner.calls) CHECK(c.argv[4] == "mkdir");  // pip does not run
  CHECK(step->plan(root.ctx).verdict == Verdict::noop);
  step->undo(root.ctx, data);
  CHECK(snapshot(root.fs) == before);
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
