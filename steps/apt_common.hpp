// What apt_update, apt_install and apt_remove share: how apt is called
// (non-interactively, keeping the user's changed configuration files, waiting
// for dpkg's lock rather than failing on it; we never take dpkg's locks
// ourselves), how its failures are told, and the private apt configuration a
// plan uses when earlier steps of the same run add repositories.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "installer/formats/apt_simulation.hpp"
#include "installer/formats/dpkg_status.hpp"
#include "steps/step.hpp"

namespace wslgpu {

// DEBIAN_FRONTEND=noninteractive and NEEDRESTART_SUSPEND=1 (Ubuntu's
// needrestart would otherwise ask which services to restart).
std::map<std::string, std::string> apt_environment();

// -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold
// -o DPkg::Lock::Timeout=LOCK_TIMEOUT
std::vector<std::string> apt_dpkg_options(std::int64_t lock_timeout_s);

// "`apt-get ...` exited 100: E: ...": apt's error lines when it printed
// any, else the last lines of its output. For StepFailure messages.
std::string command_failure(const Command& cmd, const ProcessResult& result);

// Package names for a summary line: "a, b, c, … (12 in all)".
std::string name_list(const std::vector<std::string>& names, std::size_t shown = 5);

// When apt last refreshed its lists: the newest list file or the lists
// folder itself (apt stamps list files with the server's Last-Modified time,
// but renaming a fresh list into the folder moves the folder's mtime), or
// the stamp apt_update leaves in STATE_DIR after an `apt-get update` that
// succeeded (an update that found every list unchanged moves neither: after
// a repository's old source is replaced by a new one with the same URI, the
// lists stay as they were and would look older than the new source forever).
// 0 when there are no lists.
std::int64_t lists_refreshed_ns(const FileSystem& fs, const std::string& state_dir);

// STATE_DIR/apt-update-succeeded: touched by apt_update after a successful refresh.
std::string apt_update_stamp(const std::string& state_dir);

// A sources file newer than the lists (which then do not describe it), or "".
std::string source_newer_than_lists(const FileSystem& fs, const std::string& state_dir);

// The plan's view of apt when earlier steps of the same run add sources:
// a scratch folder under STATE_DIR/plan-apt/ holding the target's sources
// and pins as the overlay sees them (keys the sources name that exist only
// in the overlay are copied beside them and the sources point there), its
// own lists (seeded from the target's by hard links, so `apt-get update`
// mostly finds them fresh) and its own cache. The target's sources, lists
// and caches are never written. The folder is removed by the destructor.
class PlanAptConfig {
 public:
  // A private configuration when ctx.fs is an overlay holding apt sources,
  // keys or pins that are not on disk yet, or when the target's lists are
  // older than its sources (a run killed between adding a repository and
  // refreshing); nullptr when the target's own apt state already says everything.
  static std::unique_ptr<PlanAptConfig> create_if_needed(StepContext& ctx);
  ~PlanAptConfig();
  PlanAptConfig(const PlanAptConfig&) = delete;
  PlanAptConfig& operator=(const PlanAptConfig&) = delete;

  // The -o options that point apt at the private configuration.
  const std::vector<std::string>& options() const { return options_; }
  const std::string& target_dir() const { return target_dir_; }

  // Runs `apt-get update` against the private configuration; throws
  // StepFailure when a source cannot be read.
  void update(StepContext& ctx) const;

 private:
  PlanAptConfig() = default;
  std::string target_dir_;  // target path of the scratch folder
  std::string host_dir_;    // the same on the machine running the tool
  std::vector<std::string> options_;
};

// Runs `apt-get -s ARGS...` (with the private options when CONFIG is set).
// Returns the parsed transaction; throws StepFailure when apt could not run
// at all. When apt ran but could not resolve the request, ERRORS receives
// its error lines and the transaction is empty. OUTPUT, when given,
// receives everything apt printed (its "unmet dependencies" report is not
// made of error lines).
AptTransaction simulate_apt(StepContext& ctx, const std::vector<std::string>& args, const PlanAptConfig* config,
                            std::vector<std::string>& errors, std::string* output = nullptr);

// The dpkg state a package step plans against: refuses pending dpkg work
// (with the `dpkg --configure -a` advice), reads ROOT/var/lib/dpkg/status and
// records each of PACKAGES' installed version (or "absent") in PLAN's
// fingerprint, so that a saved plan notices when they change.
DpkgStatus read_dpkg_for_plan(const FileSystem& fs, const std::vector<std::string>& packages, StepPlan& plan);

// A package change record for StepPlan::changes.
nlohmann::json package_change(const AptAction& action);

// "install rocm-dev 6.4.2 (repo.radeon.com)", "upgrade libfoo 1.0 -> 1.1", "remove libbar 1.0".
std::string describe_action(const AptAction& action);

}  // namespace wslgpu
