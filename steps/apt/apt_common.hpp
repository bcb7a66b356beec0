// What apt_update, apt_install and apt_remove share: how apt is called
// (non-interactively, keeping the user's changed configuration files, waiting
// for dpkg's lock rather than failing on it; we never take dpkg's locks
// ourselves), how its failures are told, and the private apt configuration a
// plan uses when earlier steps of the same run add repositories.
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "installer/formats/apt_simulation.hpp"
#include "installer/formats/dpkg_status.hpp"
#include "installer/manifest/step_keys.hpp"
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

// KEY's list of package names or shell patterns ('*', '?'), as apt_install's
// `replaces` and apt_remove's `matching` and `if_installed` take them: each
// checked, an error at its key otherwise. EVERYTHING names what a pattern
// matching every package would do ("replace", "remove"), which is refused;
// empty allows it.
std::vector<std::string> package_patterns(StepKeys& keys, const std::string& key, const std::string& everything);

// A sources file newer than the newest list (which then does not describe
// it), or "". Only where the tool has no record of its own refresh
// (apt_freshness.hpp): file times say little once apt has refreshed, since
// it keeps the old time of a list whose content did not change.
std::string source_newer_than_lists(const FileSystem& fs);

// The plan's view of apt. Always: the options that keep apt's simulation
// from writing in the target (it would write its planner log,
// /var/log/apt/eipp.log.xz, and its binary caches, /var/cache/apt/*.bin).
//
// With WITH_SOURCES, and when earlier steps of the same run add sources,
// keys or pins that are not on disk yet, or the target's lists do not
// describe its sources (apt_freshness.hpp; a run killed between adding a
// repository and refreshing), also a scratch folder under
// STATE_DIR/plan-apt/ that the destructor removes (and STATE_DIR itself,
// when it made it): the sources and pins as the overlay sees them (keys that
// exist only in the overlay are copied beside them and the sources point
// there), private lists (seeded from the target's by hard links, so
// `apt-get update` mostly finds them fresh) and caches. The target's
// sources, lists and caches are never written; its archives are read, so
// that files apt already holds are not counted as downloads.
class PlanAptConfig {
 public:
  static std::unique_ptr<PlanAptConfig> create(StepContext& ctx, bool with_sources);
  // Whether create(ctx, true) would need private lists, which only
  // `apt-get update` fills, from the repositories' servers. Makes nothing.
  static bool needs_private_lists(StepContext& ctx);
  ~PlanAptConfig();
  PlanAptConfig(const PlanAptConfig&) = delete;
  PlanAptConfig& operator=(const PlanAptConfig&) = delete;

  // The -o options that point apt at the scratch configuration.
  const std::vector<std::string>& options() const { return options_; }
  const std::string& target_dir() const { return target_dir_; }
  // True when it holds its own sources and lists, which update() must fill.
  bool private_lists() const { return private_lists_; }

  // Runs `apt-get update` against the private lists; throws StepFailure
  // when a source cannot be read.
  void update(StepContext& ctx) const;

 private:
  PlanAptConfig() = default;
  std::string target_dir_;  // target path of the scratch folder
  std::string host_dir_;    // the same on the machine running the tool
  std::string made_state_dir_;  // host path of STATE_DIR when this made it
  bool private_lists_ = false;
  std::vector<std::string> options_;
};

// A command that only reads apt's state: HEAD (`apt-get`), then ARGS' verb
// and flags, then OPTIONS, then ARGS' package names; stopped at once by a
// caught signal.
Command apt_query(const std::vector<std::string>& head, const std::vector<std::string>& args,
                  const std::vector<std::string>& options);

// Runs `apt-get -s ARGS...` with CONFIG's options. Returns the parsed
// transaction; throws StepFailure when apt could not run at all. When apt
// ran but could not resolve the request, ERRORS receives its error lines and
// the transaction is empty. OUTPUT, when given, receives everything apt
// printed (its "unmet dependencies" report is not made of error lines).
AptTransaction simulate_apt(StepContext& ctx, const std::vector<std::string>& args, const PlanAptConfig& config,
                            std::vector<std::string>& errors, std::string* output = nullptr);

// What `apt-get install --print-uris ARGS...` says the install would fetch
// and take on disk (apt's own figures); unknown (known == false) when apt
// does not say. Like the simulation, it changes nothing.
AptSizes apt_install_sizes(StepContext& ctx, const std::vector<std::string>& args, const PlanAptConfig& config);

// The versions apt can fetch for NAMES (apt-cache madison), with CONFIG's
// options. Throws StepFailure when apt-cache cannot run at all: that must
// not read as "apt has no such version".
std::map<std::string, std::vector<std::string>> fetchable_versions(StepContext& ctx,
                                                                   const std::vector<std::string>& names,
                                                                   const PlanAptConfig& config);

// For undo: the versions the target's own sources offer for NAMES
// (fetchable_versions without the plan's sources), or none when apt cannot
// say (logged): undo then treats them as not offered.
std::map<std::string, std::vector<std::string>> offered_now(StepContext& ctx, const std::vector<std::string>& names);

// A copy of NAME VERSION ARCH in apt's cache (/var/cache/apt/archives) or
// the tool's own download cache (STATE_DIR/cache, where a `download` step
// keeps a vendor's .deb under apt's name: librocdxg's
// rocdxg-roct_1.2.2_amd64.deb, which no apt repository holds): its target
// path, or "" when there is none.
std::string cached_deb(StepContext& ctx, const std::string& name, const std::string& version, const std::string& arch);

// apt-mark auto NAMES (nothing when empty); a failure is a warning: the
// packages are there, only autoremove would see them differently.
void mark_automatic(StepContext& ctx, const std::vector<std::string>& names);

// Makes CMD report apt's progress to CTX.progress through
// -o APT::Status-Fd (nothing when nobody listens). DOWNLOAD_BYTES and
// PACKAGES are the plan's figures, for bytes and "package N of M".
void report_apt_progress(Command& cmd, StepContext& ctx, std::uint64_t download_bytes, std::size_t packages);

// The dpkg state a package step plans against: refuses pending dpkg work
// (with the `dpkg --configure -a` advice), reads ROOT/var/lib/dpkg/status and
// records each of PACKAGES' installed version (or "absent") in PLAN's
// fingerprint, so that a saved plan notices when they change.
DpkgStatus read_dpkg_for_plan(const FileSystem& fs, const std::vector<std::string>& packages, StepPlan& plan,
                              std::chrono::seconds lock_wait);

// A package change record for StepPlan::changes.
nlohmann::json package_change(const AptAction& action);

// "install rocm-dev 6.4.2 (repo.radeon.com)", "upgrade libfoo 1.0 -> 1.1", "remove libbar 1.0".
std::string describe_action(const AptAction& action);

}  // namespace wslgpu
