// The python_packages step's class, shared by the files that make it up:
// python_packages.cpp (plan, apply, undo), python_packages_keys.cpp (its
// keys, read when the manifest loads), pip_run.cpp (pip's command line and
// what it prints) and wheel_fetch.cpp (the wheels the tool downloads
// itself). The kind's contract is in python_packages.hpp.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "installer/formats/python_dist.hpp"
#include "installer/formats/wheel_name.hpp"
#include "installer/host/accounts.hpp"
#include "installer/net/wheel_sizes.hpp"
#include "steps/python/venv_snapshot.hpp"
#include "steps/python/wheel_fetch_types.hpp"
#include "steps/step.hpp"

namespace wslgpu {

struct WantedPackage {
  std::string name;     // as pip is given it ("torch", "pytorch_triton_rocm")
  std::string key;      // normalize_project_name(name)
  std::string version;  // "" for an index package without one
  std::string url;      // "" for an index package
  std::string sha256;   // lowercase hex, "" when none
  // PEP 508 extras of an index package, as written ("and-cuda" of
  // tensorflow[and-cuda]); each a PEP 685 name, none twice once normalized.
  // A URL package has none: its extras' requirements would not be looked
  // up on an index.
  std::vector<std::string> extras;

  // "tensorflow[and-cuda]"; the name alone without extras.
  std::string name_with_extras() const;
  // What pip is given for an index package: "tensorflow[and-cuda]==2.21.0",
  // or "jax[cuda12]" without a version.
  std::string requirement() const;
};

class PythonPackagesStep : public Step {
 public:
  std::string venv;
  std::string owner;
  std::string python_text;  // "3.12"
  PythonTarget target;
  std::vector<WantedPackage> packages;
  std::string index_url;
  std::vector<std::string> find_links;
  std::vector<std::string> remove_files;
  std::string unverified_note;
  // The local version label (PEP 440, "cu126") every index package of the
  // step must carry: an installed one with another label is reinstalled,
  // so that a switch of PyTorch's CUDA build is one.
  std::string build;

  std::string site() const { return venv + "/lib/python" + python_text + "/site-packages"; }

  StepPlan plan(StepContext& ctx) const override;
  nlohmann::json snapshot(StepContext& ctx) const override;
  nlohmann::json apply(StepContext& ctx, const StepPlan& plan) override;
  void undo(StepContext& ctx, const nlohmann::json& data) override;
  std::vector<std::string> drift(StepContext& ctx, const nlohmann::json& data) const override;
  std::string undo_blocker(StepContext& ctx, const nlohmann::json& data) const override;
  // The distributions the user added since (DATA: apply's record) whose
  // requirements hold now and would not once undo gives back the set
  // before apply ("transformers 4.50.0, added since, requires
  // filelock>=3.20: the rollback would put back filelock 3.10.0"): drift,
  // so that a rollback never leaves the user's own package broken unsaid.
  std::vector<std::string> broken_by_restore(StepContext& ctx, const nlohmann::json& data) const;

  // Whether W is installed as the step wants it, among DISTS: at its
  // version (at_wanted_version) and with its extras complete
  // (missing_for_extras is empty).
  bool converged(const FileSystem& fs, const WantedPackage& w, const std::vector<InstalledDist>& dists) const;
  // Whether W's distribution is installed at the version (and build) the
  // step wants, its extras aside: pip then has nothing to replace, and the
  // step nothing to uninstall first.
  bool at_wanted_version(const FileSystem& fs, const WantedPackage& w, const std::vector<InstalledDist>& dists) const;
  // The requirements W's extras add (`Requires-Dist: X ; extra == "and-cuda"`
  // in the installed METADATA, markers evaluated for the venv's Python on
  // Linux) that DISTS do not hold at a version that satisfies them, as PEP
  // 508 text without the marker ("nvidia-cublas-cu12==12.5.3.2"); and, for
  // one that is installed but asks for extras of its own
  // ("jax-cuda12-plugin[with-cuda]"), what those add. Empty when W has no
  // extras or is not installed.
  std::vector<std::string> missing_for_extras(const FileSystem& fs, const WantedPackage& w,
                                              const std::vector<InstalledDist>& dists) const;
  // The distributions of DISTS that only an extra of the step's packages
  // that it does not ask for (any more) required, through the installed
  // METADATA, and that nothing else installed requires: the other CUDA
  // plugin and its nvidia-* wheels after a switch of jax[cuda13] to
  // jax[cuda12]. A package the step names without extras is left alone.
  std::vector<const InstalledDist*> left_by_other_extras(const FileSystem& fs,
                                                         const std::vector<InstalledDist>& dists) const;
  // The plan's download sizes, asked of the servers (installer/net/
  // wheel_sizes.hpp), and the room they need for the disk-space guard.
  void add_download_estimate(StepContext& ctx, StepPlan& p, const std::vector<InstalledDist>& dists) const;
  // The packages of the step not yet as wanted among DISTS, as the download
  // resolution takes them (installer/net/wheel_sizes.hpp), with INSTALLED
  // (key -> version) made from DISTS less what is reinstalled; a package
  // named by URL is given as STAGED's file:// URL when it has one there
  // (key -> the staged file's target path).
  std::vector<WantedWheel> wanted_wheels(const FileSystem& fs, const std::vector<InstalledDist>& dists,
                                         std::map<std::string, std::string>& installed,
                                         const std::map<std::string, std::string>& staged = {}) const;
  // What pip would download for the step given DISTS, asked of the index
  // and find-links pages: the plan's estimate, and at apply the list the
  // tool downloads itself.
  DownloadEstimate resolve_downloads(
      StepContext& ctx, const std::vector<InstalledDist>& dists, const std::map<std::string, std::string>& staged = {},
      std::function<std::optional<std::string>(const std::string&)> local_metadata = nullptr) const;
  // apply's downloads and pip run, after the venv is in the store: the
  // wheels named by URL, then what they and the index packages need (both
  // by the tool, steps/python/wheel_fetch.hpp), then pip from those files.
  // LEFTOVER: left_by_other_extras(), uninstalled first.
  void fetch_and_install(StepContext& ctx, const UserEntry& user, const std::vector<const WantedPackage*>& todo,
                         const std::vector<const InstalledDist*>& leftover, const std::vector<InstalledDist>& dists,
                         const std::string& staging);
  // Its work; BY_URL and FROM_INDEX get what it downloaded, for the cache
  // to let go of.
  void fetch_and_run_pip(StepContext& ctx, const UserEntry& user, const std::vector<const WantedPackage*>& todo,
                         const std::vector<const InstalledDist*>& leftover, const std::vector<InstalledDist>& dists, const std::string& staging,
                         std::vector<WheelDownload>& by_url, std::vector<WheelDownload>& from_index);
  // The files of site-packages matching remove_files now, relative to it.
  std::vector<std::string> remove_matches(const FileSystem& fs) const;
};

// What a wheel takes unpacked in the venv, in tenths of its own size: 2.5
// times. Inferred, not published: wheels are zip archives whose shared
// libraries (most of torch's bytes) deflate to about 40 %; the disk-space
// guard counts this with its margin (installer/guards/disk_space.hpp).
inline constexpr std::uint64_t kUnpackedPerWheelByte10 = 25;

// The undo store folder (a target path) of the step STEP_ID in CTX's transaction.
std::string venv_store_dir(const StepContext& ctx, const std::string& step_id);

// PEP 440's `==` for what pip is given: a wanted version without a local
// part ("2.14.1") is satisfied by the same public version with one
// ("2.14.1+cu130"); one with a local part, or a URL package's version,
// must match exactly.
bool version_satisfies(const std::string& installed, const WantedPackage& w);

// The local label of VERSION ("cu130" of "2.14.1+cu130"), "" when none.
std::string local_label(const std::string& version);

}  // namespace wslgpu
