// Doctor, PyTorch group: one venv, the one `doctor --python VENV/bin/python`
// names, else the `venv` of the newest committed pytorch-rocm or
// pytorch-cuda transaction (its plan.json records the resolved variables),
// else the pytorch profiles' default venv (their [vars] venv, read from the
// bundled profile: ~USER/.venvs/pytorch). Everything is read from the venv's files first:
// torch's and numpy's *.dist-info (installer/formats/python_dist.hpp), their
// direct_url.json, the listing of torch/lib. The venv's Python runs only
// where no file can tell (a Python whose site-packages is not where a venv
// keeps it), as the WSL user, with the machine's timeout.
//
// The findings are the field failures of PyTorch on WSL (AMD: ROCm/ROCm#5461,
// #4749, #6053, ROCm/librocdxg#34, #35, #46; NVIDIA: pytorch/pytorch#97501,
// #107960, microsoft/WSL#8587, #5548), each for the builds it concerns: the
// AMD ones for a ROCm torch on a machine where the AMD checks apply, the
// NVIDIA ones for a CUDA torch where the NVIDIA checks apply.
#include <algorithm>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "installer/doctor/checks.hpp"
#include "installer/doctor/profile_defaults.hpp"
#include "installer/formats/python_dist.hpp"
#include "installer/formats/python_requirement.hpp"
#include "installer/formats/wheel_name.hpp"
#include "installer/host/nvidia_driver.hpp"
#include "installer/system/paths.hpp"
#include "steps/python/python_common.hpp"
#include "installer/system/text.hpp"
#include "installer/transaction/journal.hpp"

namespace wslgpu::doctor {

// ---------------------------------------------------------------- which venv
// Shared with the framework checks (checks_frameworks.cpp) through checks.hpp.

std::string lines_joined(const std::string& text) {
  std::string out;
  for (const auto& line : active_lines(text)) out += (out.empty() ? "" : "; ") + line;
  return out;
}

// A namespace of its own, for the unity build (see namespace pytorch below).
namespace venv_choice {
namespace {

std::string parent_dir(const std::string& path) {
  auto at = path.find_last_of('/');
  if (at == std::string::npos || at == 0) return "/";
  return path.substr(0, at);
}

bool one_of(const std::string& name, const std::vector<std::string>& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The newest committed transaction of one of PROFILES with its `venv`,
// read from its journal (the begin record's manifest, the end record's
// status) and its plan.json (the resolved variables): no manifest is loaded.
// Sets NOTE when the history cannot be read.
std::optional<VenvChoice> recorded_venv(const DoctorScan& scan, const std::vector<std::string>& profiles,
                                        std::string& note) {
  const std::string tx = std::string(kStateDir) + "/tx";
  if (!scan.is_dir(tx)) return std::nullopt;
  std::vector<std::string> ids;
  try {
    ids = scan.fs.list(tx);
  } catch (const std::exception&) {
  }
  // The folder is root's alone (0700), and an unreadable folder lists as
  // empty: never read that as "nothing was recorded".
  if (ids.empty()) {
    if (!scan.machine.as_root)
      note = "the transaction history (" + tx +
             ") is root's: run doctor with sudo to use the venv an install "
             "recorded";
    return std::nullopt;
  }
  std::sort(ids.rbegin(), ids.rend());  // ids sort by time: newest first
  for (const auto& id : ids) {
    auto journal = scan.read(tx + "/" + id + "/journal.jsonl");
    if (!journal) {
      if (scan.is_dir(tx + "/" + id) && note.empty())
        note = "transaction " + id +
               "'s journal is unreadable: run doctor with sudo to use the venv an install "
               "recorded";
      continue;
    }
    std::vector<nlohmann::json> records;
    for (std::string_view line : text::split_lines(*journal, text::LineEnd::newline_dropped)) {
      auto record = nlohmann::json::parse(line, nullptr, false);
      if (!record.is_discarded() && record.is_object()) records.push_back(std::move(record));
      // The begin record comes first: a journal of another profile is not read further.
      if (records.size() == 1 && records.front().value("type", "") == "begin") {
        const std::string m = records.front().value("manifest", "");
        if (!one_of(m, profiles)) break;
      }
    }
    TransactionSummary s = summarize(id, records);
    if (!one_of(s.manifest, profiles) || s.status != "committed") continue;
    auto plan_text = scan.read(tx + "/" + id + "/plan.json");
    auto plan = nlohmann::json::parse(plan_text.value_or(""), nullptr, false);
    const nlohmann::json* vars = nullptr;
    if (plan.is_object() && plan.contains("plan") && plan["plan"].is_object() && plan["plan"].contains("vars"))
      vars = &plan["plan"]["vars"];
    if (!vars || !vars->is_object() || !vars->contains("venv") || !(*vars)["venv"].is_string()) {
      note = "transaction " + id + " (install " + s.manifest + ") recorded no venv in its plan.json";
      continue;
    }
    VenvChoice c;
    c.venv = (*vars)["venv"].get<std::string>();
    c.python = c.venv + "/bin/python";
    c.how = "recorded by `install " + s.manifest + "` (transaction " + id + ")";
    c.recorded_or_given = true;
    return c;
  }
  return std::nullopt;
}

}  // namespace
}  // namespace venv_choice

VenvChoice choose_venv(const DoctorScan& scan, const std::vector<std::string>& profiles,
                       const std::vector<std::string>& defaults) {
  using namespace venv_choice;
  if (!scan.machine.python.empty()) {
    VenvChoice c;
    c.python = scan.machine.python;
    c.venv = parent_dir(parent_dir(c.python));  // VENV/bin/python
    c.how = "--python";
    c.recorded_or_given = true;
    return c;
  }
  std::string note;
  if (auto c = recorded_venv(scan, profiles, note)) return *c;
  VenvChoice c;
  c.note = note;
  for (const auto& venv : defaults) {
    if (!scan.is_dir(venv)) continue;
    c.venv = venv;
    c.python = c.venv + "/bin/python";
    c.how = "the default";
    break;
  }
  return c;
}

ProcessResult run_python(const DoctorScan& scan, const std::string& python, const std::string& code) {
  std::vector<std::string> argv;
  if (scan.machine.as_root && scan.host.user != "root") {
    if (scan.host.user.empty()) {
      ProcessResult none;
      none.err = "no WSL user to run it as (pass --user)";
      return none;
    }
    argv = {"/usr/sbin/runuser", "-u", scan.host.user, "--"};
  }
  argv.insert(argv.end(), {python, "-I", "-c", code});
  return scan.run(argv);
}

std::vector<std::string> find_site_packages(DoctorScan& scan, const VenvChoice& c, std::string& problem) {
  std::vector<std::string> found;
  try {
    found = venv_site_packages(scan.fs, c.venv);
  } catch (const std::exception&) {
  }
  if (!found.empty()) return found;
  if (!scan.exists(c.python)) {
    problem = c.venv + " has no lib/python3.*/site-packages and no " + c.python;
    return {};
  }
  // Not a venv's layout (a system or conda Python, say): only it knows.
  ProcessResult r = run_python(scan, c.python, "import sysconfig; print(sysconfig.get_paths()['purelib'])");
  std::string folder(text::trim(r.out));
  if (r.ok() && !folder.empty() && folder.front() == '/' && scan.is_dir(folder)) return {folder};
  problem = r.timed_out ? c.python + " did not answer within " + scan.timeout_text()
                        : c.python + " did not name its site-packages" +
                              (lines_joined(r.err).empty() ? "" : ": " + lines_joined(r.err));
  return {};
}

// A namespace of its own: the core is a unity build, and the other check
// files' unnamed namespaces share its translation unit.
namespace pytorch {
namespace {

constexpr const char* kGroup = "PyTorch";
constexpr const char* kStubDir = "/usr/lib/wsl/lib";

// The GPU architectures (compute capabilities) of download.pytorch.org's
// CUDA wheels, per index. Source: pytorch/pytorch RELEASE.md, "Release
// Compatibility Matrix", for torch 2.12 to 2.14: cu126 (CUDA 12.6.3) builds
// Maxwell 5.0 through Hopper 9.0; cu130 and cu132 (13.0.2, 13.2.1) build
// Turing 7.5 through Blackwell 10.0 and 12.0, with PTX for 12.0 (so newer
// GPUs compile it at first use), and drop Maxwell, Pascal and Volta. An
// index not listed (cu128, cu129) is not checked.
struct WheelArchitectures {
  const char* index_prefix;  // "cu13" matches cu130 and cu132
  const char* lowest;
  const char* highest;
  bool ptx_above;  // PTX for the highest, which newer GPUs can compile
};
constexpr WheelArchitectures kWheelArchitectures[] = {
    {"cu126", "5.0", "9.0", false},
    {"cu13", "7.5", "12.0", true},
};

// "sm_120" for "12.0".
std::string sm(const std::string& capability) {
  std::string out = "sm_";
  for (char ch : capability)
    if (ch != '.') out += ch;
  return out;
}

// What torch's version and direct_url.json say about its build.
struct TorchBuild {
  std::string version;  // "2.9.1+rocm7.2.1.lw.gitff65f5bc"
  std::string local;    // after '+': "rocm7.2.1.lw.gitff65f5bc", "cu130", "cpu", ""
  std::string url;      // direct_url.json's url, "" when installed from an index or without one
  bool rocm = false;
  bool lightweight = false;  // AMD's ".lw" wheels: ROCm's libraries come from /opt/rocm
  bool pytorch_org = false;  // download.pytorch.org's ROCm wheel (for regular Linux)
  std::string cuda;          // "13.0" for +cu130, "" for other builds
  std::string cuda_index;    // "cu130"
};

TorchBuild torch_build(const DoctorScan& scan, const InstalledDist& torch) {
  TorchBuild b;
  b.version = torch.version;
  auto plus = b.version.find('+');
  if (plus != std::string::npos) b.local = b.version.substr(plus + 1);
  if (b.local.rfind("rocm", 0) == 0) {
    b.rocm = true;
    b.lightweight = b.local.find(".lw") != std::string::npos;
    // AMD's repo.radeon.com builds carry a ".git<commit>" (and ".lw") after
    // the ROCm release; download.pytorch.org's carry the release alone.
    static const std::regex release_only(R"(^rocm[0-9]+(\.[0-9]+)*$)");
    b.pytorch_org = std::regex_match(b.local, release_only);
  }
  static const std::regex cuda(R"(^cu([0-9]+)([0-9])$)");
  std::smatch m;
  if (std::regex_match(b.local, m, cuda)) {
    b.cuda = m[1].str() + "." + m[2].str();
    b.cuda_index = b.local;
  }
  // PEP 610: pip records the URL of a wheel installed from a URL (not from
  // an index); where it names the server, that is the better witness.
  if (auto text = scan.read(torch.dist_info + "/direct_url.json")) {
    auto doc = nlohmann::json::parse(*text, nullptr, false);
    if (doc.is_object() && doc.contains("url") && doc["url"].is_string()) b.url = doc["url"].get<std::string>();
    if (b.rocm && b.url.find("://download.pytorch.org/") != std::string::npos) b.pytorch_org = true;
    if (b.rocm &&
        (b.url.find("://repo.radeon.com/") != std::string::npos || b.url.find("://repo.amd.com/") != std::string::npos))
      b.pytorch_org = false;
  }
  return b;
}

struct Venv {
  VenvChoice choice;
  std::vector<std::string> site_packages;
  std::string torch_site;  // the site-packages holding torch
  std::optional<InstalledDist> torch;
  std::optional<InstalledDist> numpy;
  std::vector<InstalledDist> all;  // every distribution, the first of each key
};

// ---------------------------------------------------------------- AMD

// A1: the libhsa-runtime64.so torch bundles, loaded instead of the legacy WSL runtime.
void check_bundled_hsa(DoctorScan& scan, const Venv& v) {
  const std::string lib = v.torch_site + "/torch/lib";
  std::vector<std::string> bundled;
  for (const auto& name : scan.list_prefixed(lib, "libhsa-runtime64.so")) bundled.push_back(lib + "/" + name);
  if (bundled.empty()) {
    scan.add("pytorch.torch-hsa", kGroup, FindingStatus::ok, lib + " bundles no libhsa-runtime64.so");
    return;
  }
  if (!scan.legacy_wsl_runtime()) {
    scan.add("pytorch.torch-hsa", kGroup, FindingStatus::ok,
             lib +
                 " bundles libhsa-runtime64.so, which the librocdxg releases use (it must find librocdxg: see "
                 "pytorch.librocdxg)");
    return;
  }
  scan.add("pytorch.torch-hsa", kGroup, FindingStatus::fail,
           "torch bundles its own HSA runtime on the legacy WSL runtime: " + join_words(bundled, ", "),
           "torch loads the libhsa-runtime64.so in torch/lib instead of the WSL runtime "
           "(hsa-runtime-rocr4wsl-amdgpu), and it cannot reach the GPU under WSL: torch.cuda.is_available() is "
           "False, and AMD_LOG_LEVEL=3 shows hipErrorNoDevice, while rocminfo works (ROCm/ROCm#5461)." +
               scan.dxg_note(),
           "rm " + lib +
               "/libhsa-runtime64.so* (AMD's WSL step from 6.4.1 on; as the venv's owner), or sudo "
               "wslgpu-setup install pytorch, which installs AMD's wheels and removes it.");
}

// A1: download.pytorch.org's ROCm wheels are for regular Linux.
void check_wheel_source(DoctorScan& scan, const TorchBuild& b) {
  const std::string from = b.url.empty() ? "" : " (from " + b.url + ")";
  if (!b.pytorch_org) {
    scan.add("pytorch.wheel-source", kGroup, FindingStatus::ok, "torch " + b.version + " is AMD's build" + from);
    return;
  }
  if (!scan.legacy_wsl_runtime()) {
    scan.add("pytorch.wheel-source", kGroup, FindingStatus::ok,
             "torch " + b.version + " is download.pytorch.org's ROCm build" + from +
                 ", which bundles its own ROCm runtime (on the librocdxg releases it must find librocdxg)");
    return;
  }
  scan.add("pytorch.wheel-source", kGroup, FindingStatus::fail,
           "torch " + b.version + " is download.pytorch.org's ROCm build" + from + ", on the legacy WSL runtime",
           "AMD: \"WSL on ROCm requires the wheels I shared above. The download.pytorch.org/whl/rocm wheels are "
           "meant for use on regular Linux\" (ROCm/ROCm#5461, ROCm/hip#3710): they bundle a ROCm runtime that "
           "cannot reach the GPU under WSL, and torch.cuda.is_available() is False." +
               scan.dxg_note(),
           "sudo wslgpu-setup install pytorch: AMD's repo.radeon.com wheels for the installed ROCm, pinned by "
           "version and source, with the bundled libhsa-runtime64.so removed.");
}

// A3: AMD's ".lw" wheels load ROCm's libraries from /opt/rocm.
void check_rocm_userspace(DoctorScan& scan, const TorchBuild& b) {
  if (!b.lightweight) return;
  std::vector<std::string> missing;
  for (const char* prefix : {"libroctx64.so.4", "librocprofiler64.so", "librocm_smi64.so"})
    if (scan.list_prefixed("/opt/rocm/lib", prefix).empty()) missing.push_back(std::string(prefix) + "*");
  if (missing.empty()) {
    scan.add("pytorch.rocm-userspace", kGroup, FindingStatus::ok,
             "torch " + b.version +
                 " is a lightweight (.lw) build, and /opt/rocm/lib has the ROCm libraries it "
                 "loads (libroctx64.so.4, librocprofiler64.so, librocm_smi64.so)");
    return;
  }
  scan.add("pytorch.rocm-userspace", kGroup, FindingStatus::fail,
           "torch " + b.version + " is a lightweight (.lw) build, and /opt/rocm/lib has no " + join_words(missing),
           "AMD's .lw wheels leave out the ROCm libraries a full ROCm install provides and load them from "
           "/opt/rocm (ROCm/ROCm#4224); with only the runtime installed, `import torch` fails with \"ImportError: "
           "libroctx64.so.4: cannot open shared object file\" (ROCm/ROCm#6053; librocm_smi64.so.1 in "
           "pytorch/pytorch#191450).",
           "Install ROCm's full user space (`sudo apt install rocm` from AMD's repository of the installed release; "
           "AMD names no fix in ROCm/ROCm#6053), or use AMD's wheel for this release that bundles its libraries.");
}

// Whether the root runs a librocdxg release: not the legacy runtime, and
// the rocm profile's matrix row says librocdxg (a release without a row:
// 7.2.1 or later, the first librocdxg release).
bool librocdxg_release(const DoctorScan& scan, const std::map<std::string, std::string>& row) {
  if (scan.legacy_wsl_runtime() || scan.rocm_version.empty()) return false;
  if (auto it = row.find("rocm_wsl"); it != row.end() && it->second != "unlisted") return it->second == "librocdxg";
  return compare_versions(rocm_release(scan.rocm_version), "7.2.1") >= 0;
}

// A4: the runtime dlopens librocdxg.so by name; /opt/rocm/lib is not one of
// the loader's default folders, so it must be in its cache or on LD_LIBRARY_PATH.
void check_librocdxg_loadable(DoctorScan& scan) {
  const std::string lib = kLibrocdxg;
  const std::string symptom =
      "\"Cannot load librocdxg.so\", then \"undefined symbol: hsaKmtOpenKFD\" or a segmentation fault";
  if (!scan.exists(lib)) {
    scan.add("pytorch.librocdxg", kGroup, FindingStatus::fail, "torch cannot load librocdxg: " + lib + " is missing",
             "On the librocdxg releases the runtime reaches the GPU through librocdxg; without it torch fails with " +
                 symptom + " (ROCm/librocdxg#35). amd.librocdxg above says what is installed." + scan.dxg_note(),
             "sudo wslgpu-setup install rocm --set rocm_version=" + rocm_release(scan.rocm_version) +
                 " (ROCm/librocdxg's release .deb, checked by its SHA-256).");
    return;
  }
  // ld.so.cache holds the paths of the libraries it lists as strings (the
  // output of `ldconfig -p`, which AMD asks for in ROCm/librocdxg#35).
  auto cache = scan.read("/etc/ld.so.cache");
  if (cache && cache->find("/librocdxg.so") != std::string::npos) {
    scan.add("pytorch.librocdxg", kGroup, FindingStatus::ok, "librocdxg is in the loader's cache (" + lib + ")");
    return;
  }
  static const std::regex ld_path(R"(\bLD_LIBRARY_PATH\s*=)");
  for (const auto& file : scan.login_files()) {
    for (const auto& line : active_lines(*scan.read(file))) {
      if (std::regex_search(line, ld_path) && line.find("/opt/rocm/lib") != std::string::npos) {
        scan.add("pytorch.librocdxg", kGroup, FindingStatus::ok,
                 "librocdxg's folder /opt/rocm/lib is on LD_LIBRARY_PATH for login shells (" + file + ")");
        return;
      }
    }
  }
  scan.add("pytorch.librocdxg", kGroup, FindingStatus::fail,
           "librocdxg is not in the loader's cache (/etc/ld.so.cache), and /opt/rocm/lib is not on LD_LIBRARY_PATH",
           "The runtime opens librocdxg.so by name, and the loader looks in its cache, not in /opt/rocm/lib: torch "
           "fails with " +
               symptom + " (ROCm/librocdxg#35, #46; the cache bug is fixed in ROCm/librocdxg PR #47).",
           "echo /opt/rocm/lib | sudo tee /etc/ld.so.conf.d/rocm.conf && sudo ldconfig, then check with `ldconfig "
           "-p | grep librocdxg` (or `export LD_LIBRARY_PATH=/opt/rocm/lib:$LD_LIBRARY_PATH` in ~/.bashrc).");
}

// A5 / librocdxg#34: the variable must be in torch's environment before it initializes HIP.
void check_dxg_detection(DoctorScan& scan, const std::map<std::string, std::string>& row) {
  const std::string release = rocm_release(scan.rocm_version);
  bool needed = compare_versions(release, "7.13") < 0;
  if (auto it = row.find("rocm_dxg_env"); it != row.end() && row.count("rocm_wsl") && row.at("rocm_wsl") != "unlisted")
    needed = it->second == "true";
  if (!needed) {
    scan.add("pytorch.dxg-detection", kGroup, FindingStatus::ok,
             "ROCm " + release + " finds librocdxg without HSA_ENABLE_DXG_DETECTION (7.13 and later)");
    return;
  }
  const std::string file = scan.dxg_detection_file();
  if (!file.empty()) {
    scan.add("pytorch.dxg-detection", kGroup, FindingStatus::ok,
             "HSA_ENABLE_DXG_DETECTION=1 for login shells (" + file + "), as ROCm " + release + " needs");
    return;
  }
  scan.add("pytorch.dxg-detection", kGroup, FindingStatus::fail,
           "ROCm " + release + ", and no login file sets HSA_ENABLE_DXG_DETECTION=1",
           "The runtime loads librocdxg only when HSA_ENABLE_DXG_DETECTION=1 is in the environment before torch "
           "initializes HIP; AMD: it \"is to pair with rocm prev 7.13\" (ROCm/librocdxg#34). Without it "
           "torch.cuda.is_available() is False and rocminfo shows no GPU agent.",
           "sudo wslgpu-setup install rocm --set rocm_version=" + release +
               " (sets it for every login shell in /etc/profile.d), or `export HSA_ENABLE_DXG_DETECTION=1` in "
               "~/.bashrc; then start Python from a new login shell.");
}

// A9: AMD's 6.x wheels were built against NumPy 1.x.
void check_numpy(DoctorScan& scan, const Venv& v, const TorchBuild& b) {
  if (b.local.rfind("rocm6.", 0) != 0) return;
  if (!v.numpy) {
    scan.add("pytorch.numpy", kGroup, FindingStatus::ok, "no NumPy in the venv (torch " + b.version + " needs 1.x)");
    return;
  }
  const std::string& version = v.numpy->version;
  if (compare_versions(version, "2") < 0) {
    scan.add("pytorch.numpy", kGroup, FindingStatus::ok, "NumPy " + version + " with torch " + b.version);
    return;
  }
  scan.add("pytorch.numpy", kGroup, FindingStatus::fail, "NumPy " + version + " with torch " + b.version,
           "AMD: \"The latest version of Python module numpy v2.0 is incompatible with the torch wheels for this "
           "version\" (the ROCm 6.3 and 6.4.2 PyTorch pages): importing torch fails with NumPy ABI errors.",
           v.choice.python +
               " -m pip install numpy==1.26.4 (as the venv's owner), or sudo wslgpu-setup install "
               "pytorch, which pins it.");
}

// The ROCm Core SDK as wheels (AMD's whl-next: `rocm[libraries,
// device-gfxNNNN]`): the kernels of a GPU target come with its device-
// extra. pip only warns when asked for an extra a distribution does not
// provide ("does not provide the extra"), and then installs it without
// kernels, so torch fails at its first kernel ("no kernel image", "invalid
// device function"). What the venv holds is read from the rocm wheel's own
// METADATA: its device-* extras, and whether what each requires is there.
void check_rocm_device_kernels(DoctorScan& scan, const Venv& v, const std::string& python_version) {
  const InstalledDist* rocm = nullptr;
  for (const auto& d : v.all)
    if (d.key == "rocm") rocm = &d;
  if (!rocm || scan.rocminfo_gfx.empty()) return;
  const std::string gfx = scan.rocminfo_gfx.front();
  auto text = scan.read(rocm->dist_info + "/METADATA");
  if (!text) return;
  const DistMetadata meta = parse_metadata(*text);
  PythonTarget target;
  if (auto dot = python_version.find('.'); dot != std::string::npos) {
    target.major = std::atoi(python_version.substr(0, dot).c_str());
    target.minor = std::atoi(python_version.substr(dot + 1).c_str());
  }
  const MarkerEnvironment env = marker_environment(target, python_version);
  auto installed = [&](const std::string& name) {
    const std::string key = normalize_project_name(name);
    return std::any_of(v.all.begin(), v.all.end(), [&](const InstalledDist& d) { return d.key == key; });
  };
  std::vector<std::string> device_extras, present;
  for (const auto& extra : meta.provides_extra) {
    const std::string e = normalize_project_name(extra);
    if (e.rfind("device-", 0) != 0) continue;
    device_extras.push_back(e);
    bool all_there = true, any = false;
    for (const auto& line : meta.requires_dist) {
      std::string error;
      auto r = parse_python_requirement(line, error);
      if (!r || !requirement_applies(*r, env, {e}) || requirement_applies(*r, env, {})) continue;
      any = true;
      all_there = all_there && installed(r->name);
    }
    if (any && all_there) present.push_back(e);
  }
  if (device_extras.empty()) return;  // not a wheel that splits its kernels by target
  const std::string want = "device-" + gfx;
  const bool provided = std::find(device_extras.begin(), device_extras.end(), want) != device_extras.end();
  const bool covered = std::find(present.begin(), present.end(), want) != present.end() ||
                       std::find(present.begin(), present.end(), "device-all") != present.end();
  const std::string where = "rocm " + rocm->version + " in " + v.choice.venv;
  if (covered) {
    scan.add("pytorch.rocm-kernels", kGroup, FindingStatus::ok,
             where + " has the kernels of " + gfx + " (" + join_words(present, ", ") + ")");
    return;
  }
  if (!provided) {
    scan.add("pytorch.rocm-kernels", kGroup, FindingStatus::fail,
             where + " has no " + want + " extra: AMD builds no kernels of " + gfx + " into it",
             "rocminfo names this GPU " + gfx + "; AMD's wheel offers " + join_words(device_extras, ", ") +
                 ". pip only warns when asked for an extra that does not exist, and installs the rest.",
             "Use a GPU AMD lists for the ROCm Core SDK, or `sudo wslgpu-setup install pytorch --set rocm_gfx=all` "
             "(every target AMD builds).");
    return;
  }
  scan.add("pytorch.rocm-kernels", kGroup, FindingStatus::fail,
           where + " lacks the kernels of " + gfx + " (installed: " +
               (present.empty() ? std::string("no device extra") : join_words(present, ", ")) + ")",
           "The ROCm Core SDK's wheels carry the kernels of one GPU target per device- extra, and rocminfo names "
           "this GPU " + gfx + ": torch fails at its first kernel (\"no kernel image\", \"invalid device "
           "function\").",
           "sudo wslgpu-setup install pytorch --set rocm_gfx=" + gfx + " (or, as the venv's owner, pip install "
           "\"rocm[libraries," + want + "]==" + rocm->version + "\" from AMD's index).");
}

void check_amd_torch(DoctorScan& scan, const Venv& v, const TorchBuild& b, const std::string& python_version) {
  check_bundled_hsa(scan, v);
  check_rocm_device_kernels(scan, v, python_version);
  if (!b.rocm) return;
  check_wheel_source(scan, b);
  check_rocm_userspace(scan, b);
  const auto row = scan.rocm_version.empty() ? std::map<std::string, std::string>{}
                                             : rocm_matrix_row(scan, rocm_release(scan.rocm_version));
  if (librocdxg_release(scan, row)) {
    check_librocdxg_loadable(scan);
    check_dxg_detection(scan, row);
  }
  check_numpy(scan, v, b);
}

// ---------------------------------------------------------------- NVIDIA

// N3: the CUDA runtime the wheel carries against the CUDA the Windows driver supports.
void check_cuda_driver(DoctorScan& scan, const TorchBuild& b) {
  if (!scan.nvidia_smi_full) return;  // nvidia.smi says why nvidia-smi did not answer
  NvidiaDriverFacts driver = nvidia_driver_from(*scan.nvidia_smi_full, scan.machine.command_timeout);
  if (driver.cuda.empty()) return;  // windows.nvidia-driver says why the CUDA version is unknown
  const std::string major = b.cuda.substr(0, b.cuda.find('.'));
  if (compare_versions(b.cuda, driver.cuda) <= 0) {
    scan.add("pytorch.cuda-driver", kGroup, FindingStatus::ok,
             "torch's CUDA " + b.cuda + " (" + b.cuda_index + ") is not newer than the CUDA " + driver.cuda +
                 " the Windows driver supports");
    return;
  }
  const std::string minimum = min_cuda_driver_for_major(major);
  const bool runs = !minimum.empty() && !driver.driver.empty() && compare_versions(driver.driver, minimum) >= 0;
  const std::string older_index =
      "or install the wheels of an index this driver supports: sudo wslgpu-setup install pytorch chooses it from "
      "the driver.";
  if (runs) {
    scan.add("pytorch.cuda-driver", kGroup, FindingStatus::warn,
             "torch's CUDA " + b.cuda + " (" + b.cuda_index + ") is newer than the CUDA " + driver.cuda +
                 " NVIDIA's Windows driver " + driver.driver + " supports",
             "It runs under minor-version compatibility (driver " + minimum + " or later for CUDA " + major +
                 ".x), with limits: kernels torch.compile generates as PTX cannot be compiled by this driver, and "
                 "newer runtime calls fail.",
             "On Windows, update NVIDIA's driver, then run `wsl --shutdown`; " + older_index);
    return;
  }
  scan.add("pytorch.cuda-driver", kGroup, FindingStatus::fail,
           "torch's CUDA " + b.cuda + " (" + b.cuda_index + ") needs a newer Windows driver than " +
               (driver.driver.empty() ? std::string("this one") : driver.driver) + " (it supports CUDA " + driver.cuda +
               ")",
           "torch fails with \"The NVIDIA driver on your system is too old\" (sgl-project/sglang#11395): CUDA " +
               major + ".x needs NVIDIA's driver " +
               (minimum.empty() ? std::string("for CUDA ") + major : minimum + " or later") + " on Windows.",
           "On Windows, install NVIDIA's driver " +
               (minimum.empty() ? std::string("for CUDA ") + b.cuda : minimum + " or later") +
               ", then run `wsl --shutdown`; " + older_index);
}

// N4: the GPU's compute capability among the wheel's architectures.
void check_gpu_arch(DoctorScan& scan, const TorchBuild& b) {
  const WheelArchitectures* archs = nullptr;
  for (const auto& a : kWheelArchitectures)
    if (b.cuda_index.rfind(a.index_prefix, 0) == 0) archs = &a;
  if (!archs) {
    scan.add("pytorch.gpu-arch", kGroup, FindingStatus::ok,
             "the GPU architectures of " + b.cuda_index + " wheels are not in doctor's table; not checked");
    return;
  }
  const std::string smi = std::string(kStubDir) + "/nvidia-smi";
  if (!scan.exists(smi)) return;  // nvidia.stubs says so
  ProcessResult r = scan.run({smi, "--query-gpu=compute_cap", "--format=csv,noheader"});
  static const std::regex cc(R"(^\s*([0-9]+\.[0-9]+)\s*$)");
  std::vector<std::string> caps;
  std::smatch m;
  for (std::string_view v : text::split_lines(r.out, text::LineEnd::newline_dropped)) {
    std::string line(v);
    if (std::regex_match(line, m, cc)) caps.push_back(m[1].str());
  }
  if (!r.ok() || caps.empty()) {
    scan.add("pytorch.gpu-arch", kGroup, FindingStatus::warn,
             r.timed_out ? "nvidia-smi --query-gpu=compute_cap did not answer within " + scan.timeout_text()
                         : "nvidia-smi --query-gpu=compute_cap gave no compute capability" +
                               (lines_joined(r.out + r.err).empty() ? "" : ": " + lines_joined(r.out + r.err)),
             "Without it, doctor cannot tell whether torch's " + b.cuda_index + " wheel has code for this GPU.",
             "Run `nvidia-smi --query-gpu=name,compute_cap --format=csv` and compare it with " + sm(archs->lowest) +
                 " to " + sm(archs->highest) + ".");
    return;
  }
  const std::string range = sm(archs->lowest) + " to " + sm(archs->highest) + (archs->ptx_above ? " (+PTX)" : "");
  std::vector<std::string> outside;
  bool through_ptx = false;
  for (const auto& c : caps) {
    if (compare_versions(c, archs->lowest) < 0) {
      outside.push_back(c);
    } else if (compare_versions(c, archs->highest) > 0) {
      if (archs->ptx_above)
        through_ptx = true;
      else
        outside.push_back(c);
    }
  }
  if (outside.empty()) {
    scan.add("pytorch.gpu-arch", kGroup, FindingStatus::ok,
             "compute capability " + join_words(caps, ", ") + " is among the " + b.cuda_index + " wheel's " + range +
                 (through_ptx ? ", through PTX compiled at first use" : ""));
    return;
  }
  scan.add(
      "pytorch.gpu-arch", kGroup, FindingStatus::fail,
      "compute capability " + join_words(outside, ", ") + " is not among the " + b.cuda_index + " wheel's " + range,
      "torch.cuda.is_available() is True, but every kernel fails with \"no kernel image is available for "
      "execution on the device\" (\"... is not compatible with the current PyTorch installation\"): "
      "pytorch/pytorch RELEASE.md lists the architectures each index builds (cu126 has no Blackwell; cu13x "
      "has no Maxwell, Pascal or Volta).",
      std::string(compare_versions(outside.front(), archs->lowest) < 0
                      ? "Use the cu126 index, whose wheels still build this GPU's architecture"
                      : "Use a cu13x index (CUDA 13.0 or later), whose wheels build this GPU's architecture") +
          ": sudo wslgpu-setup install pytorch --set ... with the index the pytorch-cuda profile names.");
}

// N1: torch.compile links its kernels with -lcuda, and the loader cache lists only libcuda.so.1.
void check_libcuda(DoctorScan& scan) {
  const std::string unversioned = std::string(kStubDir) + "/libcuda.so";
  const std::string symptom =
      "torch.compile fails with \"/usr/bin/ld: cannot find -lcuda\" or \"libcuda.so cannot found!\" "
      "(pytorch/pytorch#97501, #107960)";
  if (!scan.exists(unversioned)) {
    scan.add("pytorch.libcuda", kGroup, FindingStatus::fail, unversioned + " is missing",
             "The Windows driver mounts libcuda.so next to libcuda.so.1; without it " + symptom + ".",
             "On Windows: update NVIDIA's driver, then run `wsl --shutdown`. /usr/lib/wsl/lib is the Windows "
             "driver's folder (C:\\Windows\\System32\\lxss\\lib): change nothing in it.");
    return;
  }
  static const std::regex setting(R"(\b(LD_LIBRARY_PATH|LIBRARY_PATH)\s*=)");
  for (const auto& file : scan.login_files()) {
    for (const auto& line : active_lines(*scan.read(file))) {
      std::smatch m;
      if (std::regex_search(line, m, setting) && line.find(kStubDir) != std::string::npos) {
        scan.add("pytorch.libcuda", kGroup, FindingStatus::ok,
                 "libcuda.so is found for torch.compile: /usr/lib/wsl/lib is on " + m[1].str() + " for login shells (" +
                     file + ")");
        return;
      }
    }
  }
  scan.add("pytorch.libcuda", kGroup, FindingStatus::fail,
           "/usr/lib/wsl/lib is on neither LIBRARY_PATH nor LD_LIBRARY_PATH for login shells",
           "The loader's cache lists only libcuda.so.1 (libcuda.so has that soname), so the unversioned "
           "libcuda.so is found only on a search path (microsoft/WSL#8587): " +
               symptom + ".",
           "sudo wslgpu-setup install cuda (puts /usr/lib/wsl/lib on LD_LIBRARY_PATH for login shells), or "
           "`export LIBRARY_PATH=/usr/lib/wsl/lib${LIBRARY_PATH:+:$LIBRARY_PATH}` in ~/.profile; then open a new "
           "shell. Leave /usr/lib/wsl/lib itself alone: it is the Windows driver's folder.");
}

// N2: information only.
void note_ldconfig_warning(DoctorScan& scan) {
  scan.add("pytorch.ldconfig", kGroup, FindingStatus::ok,
           "ldconfig's \"/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\" (seen during pip installs) is "
           "harmless: the Windows driver ships copies, not links (microsoft/WSL#5548, #11229); leave "
           "/usr/lib/wsl/lib as it is");
}

void check_nvidia_torch(DoctorScan& scan, const TorchBuild& b) {
  if (b.cuda.empty()) return;
  check_cuda_driver(scan, b);
  check_gpu_arch(scan, b);
  check_libcuda(scan);
  note_ldconfig_warning(scan);
}

// ---------------------------------------------------------------- the venv

const char* const kPointAtOne =
    "`wslgpu-setup doctor --python VENV/bin/python` checks a venv of your own; sudo wslgpu-setup install pytorch "
    "creates one";

}  // namespace
}  // namespace pytorch

void check_pytorch(DoctorScan& scan) {
  using namespace pytorch;
  Venv v;
  // The pytorch profiles' own default (${host.user_home}/.venvs/pytorch).
  std::vector<std::string> defaults;
  if (!scan.host.user_home.empty())
    for (const char* profile : {"pytorch-rocm", "pytorch-cuda"})
      defaults.push_back(bundled_default(profile, "venv", scan.host));
  v.choice = choose_venv(scan, {"pytorch-rocm", "pytorch-cuda"}, defaults);
  const VenvChoice& c = v.choice;
  const std::string note = c.note.empty() ? "" : " (" + c.note + ")";
  if (c.venv.empty()) {
    scan.add("pytorch.venv", kGroup, FindingStatus::ok,
             "no PyTorch venv: no `install pytorch` recorded one" + note +
                 (scan.host.user_home.empty()
                      ? std::string()
                      : ", and " + bundled_default("pytorch-rocm", "venv", scan.host) + " does not exist") +
                 ". " + kPointAtOne);
    return;
  }
  if (!scan.is_dir(c.venv)) {
    scan.add("pytorch.venv", kGroup, FindingStatus::warn, "the PyTorch venv " + c.venv + " (" + c.how + ") is missing",
             "It was removed or moved after it was created, or --python names a Python outside a venv.",
             std::string(kPointAtOne) + ".");
    return;
  }
  std::string problem;
  v.site_packages = find_site_packages(scan, c, problem);
  if (v.site_packages.empty()) {
    scan.add("pytorch.venv", kGroup, FindingStatus::warn,
             "cannot read the PyTorch venv " + c.venv + " (" + c.how + "): " + problem,
             "Its installed packages are what the PyTorch checks read.",
             "Recreate it: sudo wslgpu-setup install pytorch; or " + std::string(kPointAtOne) + ".");
    return;
  }
  for (const auto& sp : v.site_packages) {
    std::vector<InstalledDist> dists;
    try {
      dists = installed_dists(scan.fs, sp);
    } catch (const std::exception&) {
      continue;  // an unreadable folder: as if empty, and the venv finding says torch is missing
    }
    for (auto& d : dists) {
      if (std::none_of(v.all.begin(), v.all.end(), [&](const InstalledDist& seen) { return seen.key == d.key; }))
        v.all.push_back(d);
      if (d.key == "torch" && !v.torch) {
        v.torch = d;
        v.torch_site = sp;
      }
      if (d.key == "numpy" && !v.numpy) v.numpy = d;
    }
  }
  std::string python_version;
  PyvenvCfg venv_cfg;
  if (auto cfg = scan.read(c.venv + "/pyvenv.cfg")) {
    venv_cfg = parse_pyvenv_cfg(*cfg);
    python_version = venv_cfg.version;
  }
  const std::string python_text = python_version.empty() ? "" : ", Python " + python_version;
  // After a distribution upgrade the venv's own Python may be gone: its
  // bin/python then runs nothing, or another Python that cannot import
  // what lib/pythonX.Y holds, whatever the dist-info folders say.
  if (std::string gone = venv_interpreter_gone(scan.fs, venv_cfg); !gone.empty()) {
    scan.add("pytorch.venv", kGroup, FindingStatus::fail,
             "the venv " + c.venv + " (" + c.how + ") was made by Python " + python_version +
                 ", which this system no longer has (" + gone + " is gone): nothing installed in it can run",
             "A distribution upgrade replaces the system's Python; a venv keeps pointing at the one it was made "
             "with.",
             "sudo wslgpu-setup install pytorch makes it anew with today's Python, inside a transaction: the old one "
             "is moved aside to " + c.venv + ".made-by-python" + python_version.substr(0, python_version.rfind('.')) +
                 " (a rollback moves it back).");
    return;
  }
  if (!v.torch) {
    scan.add("pytorch.venv", kGroup, FindingStatus::warn,
             "torch is not installed in the venv " + c.venv + " (" + c.how + ")" + python_text,
             "No *.dist-info of torch is in " + join_words(v.site_packages, ", ") + ".",
             "sudo wslgpu-setup install pytorch; or " + std::string(kPointAtOne) + ".");
    return;
  }
  scan.add("pytorch.venv", kGroup, FindingStatus::ok,
           "venv " + c.venv + " (" + c.how + "): torch " + v.torch->version + python_text);
  TorchBuild b = torch_build(scan, *v.torch);
  if (scan.amd) check_amd_torch(scan, v, b, python_version);
  if (scan.nvidia) check_nvidia_torch(scan, b);
}

}  // namespace wslgpu::doctor
