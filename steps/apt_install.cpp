#include "steps/apt_install.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "installer/formats/deb_archive.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/units.hpp"
#include "steps/apt_common.hpp"

namespace wslgpu {

namespace {

const char* const kDkmsReason =
    "DKMS modules cannot build against Microsoft's WSL kernel: WSL2 runs Microsoft's own kernel, and no headers "
    "exist for it to build against.";

class AptInstallStep : public Step {
 public:
  std::vector<std::string> packages;
  bool install_recommends = false;
  bool no_dkms = true;
  std::int64_t lock_timeout = 120;

  std::vector<std::string> missing(const DpkgStatus& status) const {
    std::vector<std::string> out;
    for (const auto& p : packages)
      if (!status.is_installed(p)) out.push_back(p);
    return out;
  }

  std::vector<std::string> flags() const {
    if (install_recommends) return {};
    return {"--no-install-recommends"};
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    DpkgStatus status = read_dpkg_for_plan(ctx.fs, packages, p, std::chrono::seconds(lock_timeout));
    auto todo = missing(status);
    if (todo.empty()) {
      p.summary = packages.size() == 1 ? packages.front() + " " + status.find(packages.front())->version + " is already installed"
                                       : "all " + std::to_string(packages.size()) + " packages are already installed";
      return p;
    }

    auto config = PlanAptConfig::create(ctx, true);
    if (config->private_lists()) config->update(ctx);
    std::vector<std::string> args = {"install"};
    for (const auto& f : flags()) args.push_back(f);
    args.insert(args.end(), todo.begin(), todo.end());
    std::vector<std::string> errors;
    AptTransaction tx = simulate_apt(ctx, args, *config, errors);
    if (!errors.empty()) {
      p.verdict = Verdict::refused;
      p.summary = "apt cannot install " + name_list(todo) + ": " + errors.front();
      for (const auto& e : errors) p.details.push_back("apt: " + e);
      p.details.push_back("Check that an earlier step adds the repository that provides it (apt_repository) and that "
                          "the package lists are fresh (apt_update).");
      return p;
    }

    std::vector<std::string> installs, upgrades, removals, forbidden;
    for (const auto& a : tx.changes()) {
      nlohmann::json change = package_change(a);
      if (tx.pulled_in_by.count(a.name)) change["via"] = tx.chain(a.name);
      p.changes.push_back(change);
      p.details.push_back(describe_action(a));
      if (a.kind == AptAction::Kind::install) installs.push_back(a.name);
      else if (a.kind == AptAction::Kind::upgrade) upgrades.push_back(a.name);
      else removals.push_back(a.name);
      if ((a.kind == AptAction::Kind::install || a.kind == AptAction::Kind::upgrade) && is_kernel_module_package(a.name))
        forbidden.push_back(a.name + " " + a.version);
    }
    if (no_dkms && !forbidden.empty()) {
      p.verdict = Verdict::refused;
      p.summary = "would install " + name_list(forbidden) + ", which " +
                  (forbidden.size() == 1 ? "is a kernel-module package" : "are kernel-module packages");
      std::vector<std::string> why;
      for (const auto& f : forbidden) {
        std::string name = f.substr(0, f.find(' '));
        bool asked = std::find(packages.begin(), packages.end(), name) != packages.end();
        why.push_back(f + (asked                           ? " is in this step's packages"
                           : tx.pulled_in_by.count(name) ? " is pulled in by " + tx.chain(name)
                                                         : " is pulled in as a dependency of " + name_list(todo)));
      }
      why.push_back(kDkmsReason);
      why.push_back("Install the toolkit without kernel modules (for ROCm: rocm-dev and the WSL runtime, never rocm-dkms).");
      p.details.insert(p.details.begin(), why.begin(), why.end());
      return p;
    }
    if (tx.empty()) {
      // apt has nothing to do: the names are provided by installed packages.
      p.summary = name_list(todo) + (todo.size() == 1 ? " is" : " are") + " provided by installed packages";
      return p;
    }
    p.verdict = Verdict::change;
    std::string summary = "install " + std::to_string(installs.size()) + (installs.size() == 1 ? " package" : " packages");
    if (!installs.empty()) summary += ": " + name_list(installs);
    if (!upgrades.empty()) summary += "; upgrade " + name_list(upgrades);
    if (!removals.empty()) summary += "; REMOVE " + name_list(removals);
    // apt's own figures, before anything changes: for the plan, the
    // disk-space guard and the progress of apply.
    AptSizes sizes = apt_install_sizes(ctx, args, *config);
    std::size_t count = installs.size() + upgrades.size();
    p.activity = "installing " + std::to_string(count) + (count == 1 ? " package" : " packages");
    if (sizes.known) {
      p.download_bytes = sizes.fetch_bytes;
      p.disk_bytes = sizes.disk_bytes;
      summary += " (" + human_size(sizes.fetch_bytes) + " to download, " +
                 (sizes.disk_bytes >= 0 ? human_size(static_cast<std::uint64_t>(sizes.disk_bytes)) + " more"
                                        : human_size(static_cast<std::uint64_t>(-sizes.disk_bytes)) + " less") +
                 " on disk)";
      if (sizes.fetch_bytes > 0) p.activity += ", " + human_size(sizes.fetch_bytes) + " to download";
      p.details.insert(p.details.begin(),
                       "apt: " + human_size(sizes.fetch_bytes) + " to download (" + human_size(sizes.archive_bytes) +
                           " of packages), " +
                           (sizes.disk_bytes >= 0
                                ? human_size(static_cast<std::uint64_t>(sizes.disk_bytes)) + " of disk space used"
                                : human_size(static_cast<std::uint64_t>(-sizes.disk_bytes)) + " of disk space freed"));
    }
    p.summary = summary;
    if (config->private_lists())
      p.details.push_back("(resolved against the sources that earlier steps add; an apt_update step must run after "
                          "them and before this one)");
    return p;
  }

  // DOWNLOAD_ONLY: `apt-get install --download-only`, which fetches into
  // apt's cache and changes nothing else, so that it may be stopped.
  Command install_command(const std::vector<std::string>& names, bool download_only = false) const {
    Command cmd;
    cmd.argv = {"apt-get", "install", "-y"};
    if (download_only) cmd.argv.push_back("--download-only");
    for (const auto& f : flags()) cmd.argv.push_back(f);
    for (const auto& o : apt_dpkg_options(lock_timeout)) cmd.argv.push_back(o);
    cmd.argv.insert(cmd.argv.end(), names.begin(), names.end());
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::hours(3) + std::chrono::seconds(lock_timeout);
    return cmd;
  }

  Command purge_command(const std::vector<std::string>& names) const {
    Command cmd;
    cmd.argv = {"apt-get", "purge", "-y"};
    for (const auto& o : apt_dpkg_options(lock_timeout)) cmd.argv.push_back(o);
    cmd.argv.insert(cmd.argv.end(), names.begin(), names.end());
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::hours(1) + std::chrono::seconds(lock_timeout);
    return cmd;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan& plan) override {
    require_no_pending_dpkg_updates(ctx.fs, std::chrono::seconds(lock_timeout));
    DpkgStatus before = DpkgStatus::read(ctx.fs);
    auto todo = missing(before);
    nlohmann::json data = {{"installed", nlohmann::json::array()}, {"upgraded", nlohmann::json::array()},
                           {"removed", nlohmann::json::array()}};
    if (todo.empty()) return data;
    std::size_t count = 0;  // package N of COUNT in the progress
    for (const auto& c : plan.changes)
      if (c.value("type", "") == "package" && c.value("action", "") != "remove" && c.value("action", "") != "purge")
        ++count;
    if (plan.download_bytes > 0) {
      // Fetching first, on its own, keeps the long part of a big install
      // (gigabytes from the vendor) one that a Ctrl-C may stop at once: no
      // package is touched until everything is in apt's cache.
      Command fetch = install_command(todo, true);
      fetch.stop_on_interrupt = true;
      report_apt_progress(fetch, ctx, plan.download_bytes, count);
      ProcessResult fr = ctx.runner.run(fetch);
      if (fr.interrupted)
        throw_interrupted("while downloading the packages; nothing was installed (what was fetched stays in "
                             "/var/cache/apt/archives for the next run)");
      if (!fr.ok()) throw StepFailure("could not download the packages: " + command_failure(fetch, fr));
    }
    Command cmd = install_command(todo);
    report_apt_progress(cmd, ctx, 0, count);
    ProcessResult r = ctx.runner.run(cmd);

    DpkgStatus after = DpkgStatus::read(ctx.fs);
    auto was = before.present();
    auto was_installed = before.installed();
    std::vector<std::string> fresh;
    for (const auto& [name, version] : after.present()) {
      if (was.count(name)) continue;
      fresh.push_back(name);
      data["installed"].push_back({{"name", name}, {"version", version}});
    }
    for (const auto& [name, version] : after.installed()) {
      auto it = was_installed.find(name);
      if (it != was_installed.end() && it->second != version)
        data["upgraded"].push_back({{"name", name}, {"from", it->second}, {"to", version}});
    }
    auto now_present = after.present();
    for (const auto& [name, version] : was)
      if (!now_present.count(name)) data["removed"].push_back({{"name", name}, {"version", version}});

    if (!r.ok()) {
      std::string message = command_failure(cmd, r);
      if (!fresh.empty()) {
        // Nobody gets undo data from a step that failed: clean up here.
        Command purge = purge_command(fresh);
        ProcessResult pr = ctx.runner.run(purge);
        message += pr.ok() ? "\nThe " + std::to_string(fresh.size()) + " packages it had installed were purged again."
                           : "\nThe packages it had installed could not be purged again: " + command_failure(purge, pr) +
                                 "\nRun `sudo dpkg --configure -a`, then `sudo apt-get purge " + name_list(fresh, 1000) + "`.";
      }
      throw StepFailure(message);
    }
    return data;
  }

  void undo(StepContext& ctx, const nlohmann::json& data) override {
    DpkgStatus now = DpkgStatus::read(ctx.fs);
    std::vector<std::string> names;
    if (data.contains("installed"))
      for (const auto& p : data["installed"]) {
        std::string name = p.value("name", "");
        const DpkgPackage* pkg = now.find(name);
        if (pkg && pkg->present()) names.push_back(name);
      }
    if (data.contains("upgraded"))
      for (const auto& p : data["upgraded"])
        spdlog::warn("apt upgraded {} from {} to {} during this step; undo does not downgrade it",
                     p.value("name", ""), p.value("from", ""), p.value("to", ""));
    if (data.contains("removed"))
      for (const auto& p : data["removed"])
        spdlog::warn("apt removed {} {} during this step; undo does not reinstall it", p.value("name", ""),
                     p.value("version", ""));
    if (names.empty()) return;
    require_no_pending_dpkg_updates(ctx.fs, std::chrono::seconds(lock_timeout));
    Command cmd = purge_command(names);
    report_apt_progress(cmd, ctx, 0, names.size());
    ProcessResult r = ctx.runner.run(cmd);
    if (!r.ok()) throw StepFailure("could not purge the packages this step installed: " + command_failure(cmd, r));
  }
};

}  // namespace

std::shared_ptr<Step> make_apt_install_step(StepKeys& keys) {
  auto s = std::make_shared<AptInstallStep>();
  s->packages = keys.packages("packages");
  s->install_recommends = keys.boolean("install_recommends", false);
  s->no_dkms = keys.boolean("no_dkms", true);
  s->lock_timeout = keys.integer("lock_timeout", 120, 0, 86400);
  return s;
}

}  // namespace wslgpu
