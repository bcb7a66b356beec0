// The extras of a python_packages name entry (PEP 508's
// `tensorflow[and-cuda]`): their load errors at the value's position, the
// requirement pip is given, the plan's words, convergence on what the
// extras require (read from the installed METADATA), no uninstall of what
// they pulled in, and the download estimate that counts them.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "installer/formats/python_dist.hpp"
#include "installer/formats/wheel_name.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"
#include "installer/system/units.hpp"
#include "steps/python/python_packages_step.hpp"
#include "unit/steps/python/python_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

// The unit tests are one unity build: these names are unique in it.
const std::string kExtrasVenv = "/home/alice/venv";
const std::string kExtrasSite = "/home/alice/venv/lib/python3.12/site-packages";
const std::string kExtrasIndex = "https://pypi.org/simple";

void extras_add_owned(MemoryFileSystem& fs, const std::string& path, const std::string& content) {
  for (std::string p = parent_path(path); p != "/home/alice" && p != "/" && !fs.lstat(p); p = parent_path(p)) {
    fs.add_dir(p);
    fs.set_owner(p, 1000, 1000);
  }
  fs.add_file(path, content, 0644, 1000, 1000);
}

// An installed distribution: its METADATA (with REQUIRES as Requires-Dist
// lines) and a RECORD, as pip leaves them.
void extras_add_dist(MemoryFileSystem& fs, const std::string& name, const std::string& version,
                     const std::vector<std::string>& requires_ = {}) {
  std::string di = kExtrasSite + "/" + name + "-" + version + ".dist-info";
  std::string meta = "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
  for (const auto& r : requires_) meta += "Requires-Dist: " + r + "\n";
  extras_add_owned(fs, di + "/METADATA", meta + "\nThe long description.\n");
  extras_add_owned(fs, di + "/RECORD", name + "-" + version + ".dist-info/METADATA,,\n");
}

void extras_add_venv(MemoryFileSystem& fs) {
  extras_add_owned(fs, kExtrasVenv + "/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n");
  extras_add_owned(fs, kExtrasVenv + "/bin/python", "");
  fs.add_dir(kExtrasSite);
}

// A METADATA shaped like tensorflow's (the pins are illustrative): one
// requirement for all, two of the extra and-cuda, one of and-cuda for
// Windows only, one of and-cuda for a newer Python, one of another extra.
const std::vector<std::string> kTensorflowRequires = {
    "numpy>=1.26.0",
    "nvidia-cublas-cu12==12.5.3.2; extra == \"and-cuda\"",
    "nvidia-cudnn-cu12==9.3.0.75; extra == \"and-cuda\" and sys_platform == \"linux\"",
    "pywin32; extra == \"and-cuda\" and sys_platform == \"win32\"",
    "nvidia-nccl-cu12==2.23.4; extra == \"and-cuda\" and python_version >= \"3.13\"",
    "portpicker; extra == \"test\"",
};

std::string extras_step(const std::string& packages, const std::string& extra = "") {
  return "id = \"tf\"\nkind = \"python_packages\"\nvenv = \"" + kExtrasVenv +
         "\"\nowner = \"alice\"\npython = \"3.12\"\npackages = [" + packages + "]\n" + extra;
}

std::string extras_tensorflow_step(const std::string& version = "2.21.0") {
  return extras_step("{ name = \"tensorflow\", version = \"" + version + "\", extras = [\"and-cuda\"] }",
                     "index_url = \"" + kExtrasIndex + "\"\n");
}

// pip's calls among the runner's, from "install" or "uninstall" on.
std::vector<std::vector<std::string>> extras_pip_calls(const PythonRoot& root) {
  std::vector<std::vector<std::string>> out;
  for (const auto& c : root.runner.calls)
    if (c.argv.size() > 7 && c.argv[6] == "pip") out.push_back({c.argv.begin() + 7, c.argv.end()});
  return out;
}

bool extras_has_detail(const StepPlan& p, const std::string& text) {
  return std::find(p.details.begin(), p.details.end(), text) != p.details.end();
}

std::string extras_details(const StepPlan& p) {
  std::string out;
  for (const auto& d : p.details) out += d + "\n";
  return out;
}

}  // namespace

TEST_CASE("an index package with extras goes to pip as NAME[EXTRAS]==VERSION, and the plan names its extras") {
  PythonRoot root;
  extras_add_venv(root.fs);
  root.runner.on({"runuser", "-u", "alice", "--", kExtrasVenv + "/bin/python", "-m", "pip"}, exited(0));
  auto step = build_ok(extras_step(
      "{ name = \"tensorflow\", version = \"2.21.0\", extras = [\"and-cuda\"] },"
      "{ name = \"jax\", extras = [\"cuda12\"] },"
      "{ name = \"onnxruntime-gpu\", version = \"1.23.2\", extras = [\"cuda\", \"cudnn\"] }",
      "index_url = \"" + kExtrasIndex + "\"\n"));
  StepPlan p = step->plan(root.ctx);
  INFO(extras_details(p));
  CHECK(extras_has_detail(p, "install tensorflow[and-cuda] 2.21.0 from the index https://pypi.org/simple"));
  CHECK(extras_has_detail(
      p, "install jax[cuda12] (the newest version the index has that fits) from the index https://pypi.org/simple"));
  CHECK(extras_has_detail(p, "install onnxruntime-gpu[cuda,cudnn] 1.23.2 from the index https://pypi.org/simple"));
  REQUIRE(p.changes.size() == 3);
  CHECK(p.changes[0]["extras"] == nlohmann::json::array({"and-cuda"}));
  step->apply(root.ctx, p);
  auto pips = extras_pip_calls(root);
  REQUIRE(pips.size() == 1);
  REQUIRE(pips[0].size() >= 3);
  CHECK(std::vector<std::string>(pips[0].end() - 3, pips[0].end()) ==
        std::vector<std::string>{"tensorflow[and-cuda]==2.21.0", "jax[cuda12]", "onnxruntime-gpu[cuda,cudnn]==1.23.2"});
}

TEST_CASE("an upgrade of a package with extras names them on the arrow's new side") {
  PythonRoot root;
  extras_add_venv(root.fs);
  extras_add_dist(root.fs, "tensorflow", "2.20.0", kTensorflowRequires);
  StepPlan p = build_ok(extras_tensorflow_step())->plan(root.ctx);
  INFO(extras_details(p));
  CHECK(extras_has_detail(p, "tensorflow 2.20.0 → tensorflow[and-cuda] 2.21.0 from the index https://pypi.org/simple"));
}

TEST_CASE("a dist at its version without what its extras require plans complete, and is converged once they are there") {
  PythonRoot root;
  extras_add_venv(root.fs);
  extras_add_dist(root.fs, "tensorflow", "2.21.0", kTensorflowRequires);
  extras_add_dist(root.fs, "numpy", "2.1.3");
  // cudnn at another version than the extra pins: missing too.
  extras_add_dist(root.fs, "nvidia-cudnn-cu12", "9.1.0.70");
  root.runner.on({"runuser", "-u", "alice", "--", kExtrasVenv + "/bin/python", "-m", "pip", "install"},
                 [&root](const Command&) {
                   extras_add_dist(root.fs, "nvidia-cublas-cu12", "12.5.3.2");
                   remove_tree(root.fs, kExtrasSite + "/nvidia-cudnn-cu12-9.1.0.70.dist-info");
                   extras_add_dist(root.fs, "nvidia-cudnn-cu12", "9.3.0.75");
                   return exited(0);
                 });
  root.runner.on({"runuser", "-u", "alice", "--", kExtrasVenv + "/bin/python", "-m", "pip", "uninstall"},
                 exited(0));
  auto step = build_ok(extras_tensorflow_step());
  auto& packages_step = dynamic_cast<PythonPackagesStep&>(*step);
  auto dists = installed_dists(root.fs, kExtrasSite);
  CHECK(packages_step.at_wanted_version(root.fs, packages_step.packages[0], dists));
  CHECK_FALSE(packages_step.converged(root.fs, packages_step.packages[0], dists));
  // Not the Windows one, not the newer Python's, not another extra's.
  CHECK(packages_step.missing_for_extras(root.fs, packages_step.packages[0], dists) ==
        std::vector<std::string>{"nvidia-cublas-cu12==12.5.3.2", "nvidia-cudnn-cu12==9.3.0.75"});

  StepPlan p = step->plan(root.ctx);
  INFO(extras_details(p));
  CHECK(p.verdict == Verdict::change);
  CHECK(p.summary == "install 1 Python package into /home/alice/venv as alice");
  CHECK(extras_has_detail(p,
                          "complete tensorflow[and-cuda] 2.21.0 from the index https://pypi.org/simple: its extras need "
                          "nvidia-cublas-cu12==12.5.3.2, nvidia-cudnn-cu12==9.3.0.75, which the venv lacks"));
  REQUIRE(p.changes.size() == 1);
  CHECK(p.changes[0]["action"] == "complete");

  step->apply(root.ctx, p);
  auto pips = extras_pip_calls(root);
  // tensorflow stays (pip adds the rest beside it): no uninstall first.
  REQUIRE(pips.size() == 1);
  CHECK(pips[0].front() == "install");
  CHECK(pips[0].back() == "tensorflow[and-cuda]==2.21.0");

  StepPlan again = step->plan(root.ctx);
  CHECK(again.verdict == Verdict::noop);
  CHECK(again.summary == "tensorflow[and-cuda] 2.21.0 installed in /home/alice/venv");
}

TEST_CASE("an extra's requirement that asks for extras of its own is complete only with what those require") {
  // jax[cuda12] -> jax-cuda12-plugin[with-cuda] -> nvidia-cuda-nvcc-cu12.
  PythonRoot root;
  extras_add_venv(root.fs);
  extras_add_dist(root.fs, "jax", "0.7.2", {"jax-cuda12-plugin[with-cuda]<=0.7.2,>=0.7.2; extra == \"cuda12\""});
  extras_add_dist(root.fs, "jax_cuda12_plugin", "0.7.2",
                  {"jax-cuda12-pjrt==0.7.2", "nvidia-cuda-nvcc-cu12>=12.6.85; extra == \"with-cuda\""});
  auto step = build_ok(extras_step("{ name = \"jax\", version = \"0.7.2\", extras = [\"cuda12\"] }",
                                   "index_url = \"" + kExtrasIndex + "\"\n"));
  auto& packages_step = dynamic_cast<PythonPackagesStep&>(*step);
  CHECK(packages_step.missing_for_extras(root.fs, packages_step.packages[0], installed_dists(root.fs, kExtrasSite)) ==
        std::vector<std::string>{"nvidia-cuda-nvcc-cu12>=12.6.85"});
  // Missing, the plugin itself is named with its extra and both clauses.
  remove_tree(root.fs, kExtrasSite + "/jax_cuda12_plugin-0.7.2.dist-info");
  CHECK(packages_step.missing_for_extras(root.fs, packages_step.packages[0], installed_dists(root.fs, kExtrasSite)) ==
        std::vector<std::string>{"jax-cuda12-plugin[with-cuda]<=0.7.2,>=0.7.2"});
  extras_add_dist(root.fs, "jax_cuda12_plugin", "0.7.2",
                  {"jax-cuda12-pjrt==0.7.2", "nvidia-cuda-nvcc-cu12>=12.6.85; extra == \"with-cuda\""});
  extras_add_dist(root.fs, "nvidia-cuda-nvcc-cu12", "12.9.86");
  CHECK(step->plan(root.ctx).verdict == Verdict::noop);
}

TEST_CASE("an upgrade uninstalls the old package only, never the dists its extras pulled in") {
  PythonRoot root;
  extras_add_venv(root.fs);
  extras_add_dist(root.fs, "tensorflow", "2.20.0", kTensorflowRequires);
  extras_add_dist(root.fs, "nvidia-cublas-cu12", "12.5.3.2");
  extras_add_dist(root.fs, "nvidia-cudnn-cu12", "9.3.0.75");
  root.runner.on({"runuser", "-u", "alice", "--", kExtrasVenv + "/bin/python", "-m", "pip"}, exited(0));
  auto step = build_ok(extras_tensorflow_step());
  step->apply(root.ctx, step->plan(root.ctx));
  auto pips = extras_pip_calls(root);
  REQUIRE(pips.size() == 2);
  CHECK(pips[0] ==
        std::vector<std::string>{"uninstall", "-y", "--isolated", "--no-input", "--disable-pip-version-check", "tensorflow"});
  CHECK(pips[1].back() == "tensorflow[and-cuda]==2.21.0");
}

TEST_CASE("bad extras are load errors at the offending value") {
  auto err = [](const std::string& entry) { return build_errors(extras_step(entry)); };
  // packages = [{ name = "tensorflow", extras = ...: the value starts at column 45, its first item at 46.
  CHECK(err("{ name = \"tensorflow\", extras = \"and-cuda\" }") ==
        "m.toml:6:45: \"extras\" of a package must be an array of strings such as [\"and-cuda\"], not a string");
  CHECK(err("{ name = \"tensorflow\", extras = [\"and-cuda\", 12] }") ==
        "m.toml:6:58: \"extras\" must hold only strings, not an integer");
  CHECK(err("{ name = \"tensorflow\", extras = [\"and cuda\"] }") ==
        "m.toml:6:46: \"and cuda\" is not an extra's name (PEP 508 and PEP 685: letters, digits, '.', '_' and '-', "
        "starting and ending with a letter or digit, such as \"and-cuda\")");
  CHECK(err("{ name = \"tensorflow\", extras = [\"-and-cuda\"] }") ==
        "m.toml:6:46: \"-and-cuda\" is not an extra's name (PEP 508 and PEP 685: letters, digits, '.', '_' and '-', "
        "starting and ending with a letter or digit, such as \"and-cuda\")");
  CHECK(err("{ name = \"tensorflow\", extras = [\"\"] }") ==
        "m.toml:6:46: \"\" is not an extra's name (PEP 508 and PEP 685: letters, digits, '.', '_' and '-', "
        "starting and ending with a letter or digit, such as \"and-cuda\")");
  CHECK(err("{ name = \"tensorflow\", extras = [\"and-cuda\", \"and-cuda\"] }") ==
        "m.toml:6:58: the extra \"and-cuda\" is listed twice");
  CHECK(err("{ name = \"tensorflow\", extras = [\"and-cuda\", \"AND__Cuda\"] }") ==
        "m.toml:6:58: the extra \"AND__Cuda\" is listed twice (as \"and-cuda\" before: PEP 685 compares extras "
        "lowercased, with each run of '-', '_' and '.' as one '-')");
  const std::string url = "https://h/w/tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl";
  CHECK(err("{ url = \"" + url + "\", extras = [\"and-cuda\"] }") ==
        "m.toml:6:" + std::to_string(34 + url.size()) +
            ": \"extras\" goes with name, not url: pip would not look up the requirements of a URL wheel's extras on "
            "an index. Give the package as { name = \"...\", version = \"...\", extras = [...] } with index_url, or "
            "list what the extras require as packages of their own");
}

TEST_CASE("a manifest with a bad extra does not load: exit status 2, the message at FILE:LINE:COLUMN") {
  const std::string text = "[manifest]\nname = \"tf\"\nschema_version = 1\n\n[[step]]\n" +
                           extras_step("{ name = \"jax\", extras = [\"cuda 12\"] }");
  try {
    load_manifest(ManifestSource{"tf.toml", text, false}, {}, fake_wsl_host());
    FAIL("the manifest loaded");
  } catch (const InputError& e) {
    INFO(std::string(e.what()));
    CHECK(e.code() == ExitCode::bad_input);
    CHECK(std::string(e.what()) ==
          "tf.toml:11:39: \"cuda 12\" is not an extra's name (PEP 508 and PEP 685: letters, digits, '.', '_' and '-', "
          "starting and ending with a letter or digit, such as \"and-cuda\")");
  }
}

TEST_CASE("the download estimate counts what the extras require, and only that for a dist at its version") {
  PythonRoot root;
  extras_add_venv(root.fs);
  const std::string files = "https://files.example/";
  std::string tf_meta = "Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.21.0\n";
  for (const auto& r : kTensorflowRequires) tf_meta += "Requires-Dist: " + r + "\n";
  // The index's PEP 691 pages: every file sized, tensorflow's METADATA served beside its wheel (PEP 658).
  auto page = [&](const std::string& name, const std::string& file, std::uint64_t size, bool metadata) {
    nlohmann::json f{{"filename", file}, {"url", files + file}, {"hashes", nlohmann::json::object()}, {"size", size}};
    if (metadata) f["core-metadata"] = true;
    return nlohmann::json{{"meta", {{"api-version", "1.1"}}}, {"name", name}, {"files", {f}}}.dump();
  };
  const std::map<std::string, std::string> pages = {
      {kExtrasIndex + "/tensorflow/",
       page("tensorflow", "tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl", 600'000'000, true)},
      {kExtrasIndex + "/numpy/", page("numpy", "numpy-2.1.3-cp312-cp312-manylinux_2_17_x86_64.whl", 16'000'000, false)},
      {kExtrasIndex + "/nvidia-cublas-cu12/",
       page("nvidia-cublas-cu12", "nvidia_cublas_cu12-12.5.3.2-py3-none-manylinux2014_x86_64.whl", 363'000'000, false)},
      {kExtrasIndex + "/nvidia-cudnn-cu12/",
       page("nvidia-cudnn-cu12", "nvidia_cudnn_cu12-9.3.0.75-py3-none-manylinux2014_x86_64.whl", 577'000'000, false)},
      {files + "tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl.metadata", tf_meta},
  };
  std::vector<std::string> asked;
  root.ctx.ask_urls = [&](const std::vector<UrlQuery>& queries, const QueryOptions&) {
    std::vector<UrlAnswer> out(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) {
      asked.push_back(queries[i].url);
      auto it = pages.find(queries[i].url);
      if (it == pages.end()) {
        out[i].error = "404";
        continue;
      }
      out[i].body = it->second;
      out[i].content_type = "application/vnd.pypi.simple.v1+json";
      out[i].final_url = queries[i].url;
    }
    return out;
  };
  auto downloads = [](const StepPlan& p) {
    for (const auto& d : p.details)
      if (d.rfind("downloads ", 0) == 0) return d;
    return std::string("no downloads line");
  };
  auto step = build_ok(extras_tensorflow_step());
  // Nothing installed: tensorflow, numpy and the two wheels of and-cuda.
  StepPlan fresh = step->plan(root.ctx);
  CHECK(downloads(fresh) ==
        "downloads " + human_size(1'556'000'000) +
            " (4 wheels, resolved from the servers' pages; the tool downloads them, then pip installs from those files): tensorflow 2.21.0 " +
            human_size(600'000'000) + ", numpy 2.1.3 (for tensorflow) " + human_size(16'000'000) +
            ", nvidia_cublas_cu12 12.5.3.2 (for tensorflow) " + human_size(363'000'000) +
            ", nvidia_cudnn_cu12 9.3.0.75 (for tensorflow) " + human_size(577'000'000));
  // tensorflow 2.21.0 there: only what and-cuda requires, from its
  // installed METADATA; its page is not asked for.
  extras_add_dist(root.fs, "tensorflow", "2.21.0", kTensorflowRequires);
  extras_add_dist(root.fs, "numpy", "2.1.3");
  asked.clear();
  StepPlan complete = step->plan(root.ctx);
  CHECK(downloads(complete) ==
        "downloads " + human_size(940'000'000) +
            " (2 wheels, resolved from the servers' pages; the tool downloads them, then pip installs from those files): nvidia_cublas_cu12 12.5.3.2 (for "
            "tensorflow) " +
            human_size(363'000'000) + ", nvidia_cudnn_cu12 9.3.0.75 (for tensorflow) " + human_size(577'000'000));
  CHECK(std::find(asked.begin(), asked.end(), kExtrasIndex + "/tensorflow/") == asked.end());
}

namespace {

// jax 0.11.0 as its METADATA has it (shape only): a plugin per CUDA extra,
// each plugin's with-cuda extra the nvidia-* wheels of its CUDA.
void extras_add_jax(MemoryFileSystem& fs) {
  extras_add_dist(fs, "jax", "0.11.0",
                  {"jaxlib<=0.11.0,>=0.11.0", "jax-cuda12-plugin[with-cuda]==0.11.0; extra == \"cuda12\"",
                   "jax-cuda13-plugin[with-cuda]==0.11.0; extra == \"cuda13\"", "libtpu; extra == \"tpu\""});
  // Provides-Extra is header too: written before the Requires-Dist lines' end.
  const std::string meta = kExtrasSite + "/jax-0.11.0.dist-info/METADATA";
  std::string text = fs.read(meta);
  text.insert(text.find("\n\n"), "\nProvides-Extra: cuda12\nProvides-Extra: cuda13\nProvides-Extra: tpu");
  fs.write_atomic(meta, text, FileAttrs{0644, 1000, 1000});
  extras_add_dist(fs, "jaxlib", "0.11.0", {"numpy>=1.26"});
  extras_add_dist(fs, "numpy", "2.1.3");
}

void extras_add_plugin(MemoryFileSystem& fs, const std::string& cuda, const std::string& cublas) {
  extras_add_dist(fs, "jax-" + cuda + "-plugin", "0.11.0",
                  {"jax-" + cuda + "-pjrt==0.11.0", cublas + "; extra == \"with-cuda\""});
  extras_add_dist(fs, "jax-" + cuda + "-pjrt", "0.11.0");
  extras_add_dist(fs, cublas.substr(0, cublas.find_first_of("=<>")), "13.0.0");
}

std::string extras_jax_step(const std::string& cuda) {
  return extras_step("{ name = \"jax\", version = \"0.11.0\", extras = [\"" + cuda + "\"] }",
                     "index_url = \"" + kExtrasIndex + "\"\n");
}

}  // namespace

TEST_CASE("a switch of jax's CUDA extra removes what only the other extra required, both ways, and keeps what the "
          "user's own package requires") {
  // Named copies, not structured bindings: clang 14 (the sanitizer build)
  // cannot capture those in CAPTURE's lambda.
  for (const auto& row :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"cuda13", "cuda12", "nvidia-cublas>=13"},
                                                                       {"cuda12", "cuda13", "nvidia-cublas-cu12>=12"}}) {
    const std::string from = std::get<0>(row), to = std::get<1>(row), from_cublas = std::get<2>(row);
    CAPTURE(from);
    PythonRoot root;
    extras_add_venv(root.fs);
    extras_add_jax(root.fs);
    extras_add_plugin(root.fs, from, from_cublas);
    root.runner.on({"runuser", "-u", "alice", "--", kExtrasVenv + "/bin/python", "-m", "pip", "uninstall"},
                   exited(0));
    root.runner.on({"runuser", "-u", "alice", "--", kExtrasVenv + "/bin/python", "-m", "pip", "install"}, exited(0));
    auto step = build_ok(extras_jax_step(to));
    StepPlan p = step->plan(root.ctx);
    INFO(extras_details(p));
    REQUIRE(p.verdict == Verdict::change);
    const std::string cublas = from_cublas.substr(0, from_cublas.find_first_of("=<>"));
    CHECK(extras_has_detail(p, "remove jax-" + from + "-pjrt 0.11.0, jax-" + from + "-plugin 0.11.0, " + cublas +
                                   " 13.0.0: installed for an extra this step no longer asks for, and nothing else "
                                   "installed requires them"));
    step->apply(root.ctx, p);
    auto pips = extras_pip_calls(root);
    REQUIRE(pips.size() == 2);
    CHECK(pips[0][0] == "uninstall");
    CHECK(std::find(pips[0].begin(), pips[0].end(), "jax-" + from + "-plugin") != pips[0].end());
    CHECK(std::find(pips[0].begin(), pips[0].end(), cublas) != pips[0].end());
    CHECK(std::find(pips[0].begin(), pips[0].end(), "jax") == pips[0].end());  // jax itself stays
    CHECK(std::find(pips[0].begin(), pips[0].end(), "numpy") == pips[0].end());
    CHECK(pips[1].back() == "jax[" + to + "]==0.11.0");
  }
  // The user's own package that requires the old CUDA's cuBLAS keeps it.
  PythonRoot root;
  extras_add_venv(root.fs);
  extras_add_jax(root.fs);
  extras_add_plugin(root.fs, "cuda13", "nvidia-cublas>=13");
  extras_add_dist(root.fs, "mylib", "1.0", {"nvidia-cublas"});
  auto step = build_ok(extras_jax_step("cuda12"));
  auto& packages_step = dynamic_cast<PythonPackagesStep&>(*step);
  auto dists = installed_dists(root.fs, kExtrasSite);
  std::vector<std::string> left;
  for (const auto* d : packages_step.left_by_other_extras(root.fs, dists)) left.push_back(d->key);
  CHECK(left == std::vector<std::string>{"jax-cuda13-pjrt", "jax-cuda13-plugin"});
}
