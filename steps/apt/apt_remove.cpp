#include "steps/apt/apt_remove.hpp"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "installer/formats/apt_extended_states.hpp"
#include "installer/formats/glob.hpp"
#include "installer/system/error.hpp"
#include "steps/apt/apt_common.hpp"
#include "steps/apt/apt_keep.hpp"

namespace wslgpu {

namespace {

class AptRemoveStep : public Step {
 public:
  std::vector<std::string> packages;
  std::vector<std::string> matching;  // patterns of installed packages, removed too
  bool auto_remove = false;
  // Names or patterns: the step acts only while one of them is installed.
  std::vector<std::string> if_installed;
  std::int64_t lock_timeout = 120;

  // The installed package IF_INSTALLED names first, "" when none (or no
  // such condition).
  std::string trigger(const DpkgStatus& status) const {
    for (const auto& [name, version] : status.installed())
      for (const auto& pattern : if_installed)
        if (glob_match(pattern, name)) return name;
    return "";
  }

  std::vector<std::string> installed(const DpkgStatus& status) const {
    std::vector<std::string> out;
    for (const auto& p : packages)
      if (status.is_installed(p)) out.push_back(p);
    if (!matching.empty())
      for (const auto& [name, version] : status.installed()) {
        if (name.find(':') != std::string::npos || std::find(out.begin(), out.end(), name) != out.end()) continue;
        for (const auto& pattern : matching)
          if (glob_match(pattern, name)) {
            out.push_back(name);
            break;
          }
      }
    return out;
  }

  std::vector<std::string> asked() const {
    std::vector<std::string> all = packages;
    all.insert(all.end(), matching.begin(), matching.end());
    return all;
  }

  std::string purpose() const override {
    const std::vector<std::string> all = asked();
    if (all.size() == 1 && matching.empty()) return "would remove " + all.front();
    return "would remove whichever of " + name_list(all, all.size()) + " is installed";
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    DpkgStatus status = read_dpkg_for_plan(ctx.fs, packages, p, std::chrono::seconds(lock_timeout));
    auto todo = installed(status);
    if (!todo.empty() && !if_installed.empty() && trigger(status).empty()) {
      p.summary = "none of " + name_list(if_installed) + " is installed, so " + name_list(todo) + " stay" +
                  (todo.size() == 1 ? "s" : "");
      return p;
    }
    if (todo.empty()) {
      const std::vector<std::string> all = asked();
      p.summary = all.size() == 1 && matching.empty() ? all.front() + " is not installed"
                                                      : "none of " + name_list(all) + " is installed";
      return p;
    }
    std::vector<std::string> args = {"remove"};
    if (auto_remove) args.push_back("--auto-remove");
    args.insert(args.end(), todo.begin(), todo.end());
    std::vector<std::string> errors;
    auto config = PlanAptConfig::create(ctx, false);  // removals need no lists, only a place for apt's log
    AptTransaction tx = simulate_apt(ctx, args, *config, errors);
    // --auto-remove also offers what was unneeded before: not this step's.
    std::set<std::string> already_unneeded;
    if (auto_remove && errors.empty()) {
      std::vector<std::string> baseline_errors;
      for (const auto& a : simulate_apt(ctx, {"autoremove"}, *config, baseline_errors).changes())
        if (std::find(todo.begin(), todo.end(), a.name) == todo.end()) already_unneeded.insert(a.name);
    }
    if (!errors.empty()) {
      p.verdict = Verdict::refused;
      p.summary = "apt cannot remove " + name_list(todo) + ": " + errors.front();
      for (const auto& e : errors) p.details.push_back("apt: " + e);
      return p;
    }
    std::vector<std::string> removed, others, request;
    for (const auto& a : tx.changes()) {
      if (already_unneeded.count(a.name)) continue;
      if (a.kind == AptAction::Kind::remove || a.kind == AptAction::Kind::purge) request.push_back(a.name);
      p.changes.push_back(package_change(a));
      p.details.push_back(describe_action(a));
      if (a.kind != AptAction::Kind::remove && a.kind != AptAction::Kind::purge) continue;
      removed.push_back(a.name + (a.old_version.empty() ? "" : " " + a.old_version));
      if (std::find(todo.begin(), todo.end(), a.name) == todo.end()) others.push_back(a.name);
    }
    p.verdict = Verdict::change;
    p.summary = "remove " + name_list(removed);
    // For the later steps of the same plan, which read dpkg's status as it
    // is now: a deb_install of a package removed here installs it again.
    for (const auto& a : tx.changes())
      if (a.kind == AptAction::Kind::remove || a.kind == AptAction::Kind::purge)
        ctx.made_by_earlier_steps[StepContext::kPackagesRemovedByEarlierSteps][a.name] = a.old_version;
    // Apply removes exactly these: with auto_remove, what only they needed
    // is named here, so that apply takes nothing the plan did not show.
    if (auto_remove) p.fingerprint["apt:remove"] = request;
    // Undo installs them again from copies kept before the run (steps/apt_keep.hpp).
    std::vector<OldPackage> olds;
    for (const auto& a : tx.changes()) {
      if (a.kind != AptAction::Kind::remove && a.kind != AptAction::Kind::purge) continue;
      if (already_unneeded.count(a.name)) continue;
      const DpkgPackage* pkg = status.find(a.name);
      if (pkg && pkg->installed()) olds.push_back({a.name, pkg->version, pkg->architecture});
    }
    p.keeps = plan_undo_keeps(ctx, olds);
    add_keep_details(p);
    p.activity = "removing " + std::to_string(removed.size()) + (removed.size() == 1 ? " package" : " packages");
    if (!others.empty())
      p.details.insert(p.details.begin(), "apt also removes " + name_list(others, 1000) +
                                              (auto_remove ? ", which depend on them or which only they needed"
                                                           : ", which depend on them"));
    return p;
  }

  std::vector<std::string> options() const {
    std::vector<std::string> out = {"-y"};
    for (const auto& o : apt_dpkg_options(lock_timeout)) out.push_back(o);
    return out;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan& plan) override {
    require_no_pending_dpkg_updates(ctx.fs, std::chrono::seconds(lock_timeout));
    DpkgStatus before = DpkgStatus::read(ctx.fs);
    // Which were apt's automatic choices: undo puts the marks back too, so
    // that autoremove sees the machine as before.
    AptExtendedStates states = AptExtendedStates::read(ctx.fs);
    auto todo = installed(before);
    if (!if_installed.empty() && trigger(before).empty()) todo.clear();
    if (plan.fingerprint.contains("apt:remove")) {
      // The plan's whole removal, those still installed.
      todo.clear();
      for (const auto& name : plan.fingerprint["apt:remove"])
        if (name.is_string() && before.is_installed(name.get<std::string>())) todo.push_back(name.get<std::string>());
    }
    nlohmann::json data = {{"removed", nlohmann::json::array()}};
    if (todo.empty()) return data;
    Command cmd;
    cmd.argv = {"apt-get", "remove"};
    for (const auto& o : options()) cmd.argv.push_back(o);
    cmd.argv.insert(cmd.argv.end(), todo.begin(), todo.end());
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::hours(1) + std::chrono::seconds(lock_timeout);
    report_apt_progress(cmd, ctx, 0, todo.size());
    ProcessResult r = ctx.runner.run(cmd);
    DpkgStatus after = DpkgStatus::read(ctx.fs);
    std::vector<std::string> gone;
    for (const auto& pkg : before.packages()) {
      if (!pkg.installed() || after.is_installed(pkg.name)) continue;
      data["removed"].push_back({{"name", pkg.name},
                                 {"version", pkg.version},
                                 {"architecture", pkg.architecture},
                                 {"auto", states.is_auto(pkg.name)}});
      gone.push_back(pkg.name + "=" + pkg.version);
    }
    if (!r.ok()) {
      throw StepFailure(command_failure(cmd, r) +
                        (gone.empty() ? std::string()
                                      : "\nBefore it failed, apt had removed " + name_list(gone, 1000) +
                                            "; reinstall them with `sudo apt-get install " + name_list(gone, 1000) + "`."));
    }
    return data;
  }

  void undo(StepContext& ctx, const nlohmann::json& data) override {
    if (!data.contains("removed")) return;
    DpkgStatus now = DpkgStatus::read(ctx.fs);
    // The copies kept before the run first (checked before apt is asked
    // anything, no network needed), else what the sources still offer.
    std::vector<std::string> wanted, automatic, unkept;
    std::vector<std::pair<std::string, std::string>> asked;  // name, version: not in the store
    bool from_store = false;
    for (const auto& p : data["removed"]) {
      std::string name = p.value("name", ""), version = p.value("version", "");
      if (name.empty() || now.is_installed(name)) continue;
      if (p.value("auto", false)) automatic.push_back(name);
      if (std::string deb = version.empty() ? "" : kept_deb(ctx, name, version, p.value("architecture", ""));
          !deb.empty()) {
        wanted.push_back(deb);
        from_store = true;
      } else {
        asked.emplace_back(name, version);
      }
    }
    if (!asked.empty()) {
      std::vector<std::string> names;
      for (const auto& [n, v] : asked) names.push_back(n);
      auto offered = offered_now(ctx, names);
      std::vector<std::string> gone;
      for (const auto& [n, v] : asked) {
        const auto& have = offered[n];
        if (v.empty() || std::find(have.begin(), have.end(), v) != have.end()) wanted.push_back(v.empty() ? n : n + "=" + v);
        else if (std::string deb = cached_deb(ctx, n, v, ""); !deb.empty()) wanted.push_back(deb);
        else gone.push_back(n + " " + v);
      }
      // What no copy and no source provides stays removed, said plainly;
      // the rest comes back (apt refuses below if it needs what stays away).
      if (!gone.empty())
        spdlog::warn("undo cannot put back {}: the transaction's undo store holds no copy (the run was allowed to go "
                     "without one: --allow-partial-undo, or the store was pruned) and no apt source offers {} any "
                     "more, so {} stay{} removed",
                     name_list(gone, 1000), gone.size() == 1 ? "that version" : "those versions",
                     gone.size() == 1 ? "it" : "they", gone.size() == 1 ? "s" : "");
    }
    if (wanted.empty()) return;
    require_no_pending_dpkg_updates(ctx.fs, std::chrono::seconds(lock_timeout));
    Command cmd;
    cmd.argv = {"apt-get", "install", "--no-install-recommends"};
    if (from_store) cmd.argv.insert(cmd.argv.end(), {"-o", kStoreReader});
    for (const auto& o : options()) cmd.argv.push_back(o);
    cmd.argv.insert(cmd.argv.end(), wanted.begin(), wanted.end());
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::hours(1) + std::chrono::seconds(lock_timeout);
    report_apt_progress(cmd, ctx, 0, wanted.size());
    ProcessResult r = ctx.runner.run(cmd);
    if (r.ok()) {
      mark_automatic(ctx, automatic);
      return;
    }
    bool unfetchable = false;
    for (const auto& e : apt_error_lines(r.err + "\n" + r.out))
      unfetchable = unfetchable || e.find("was not found") != std::string::npos ||
                    e.find("Unable to locate") != std::string::npos || e.find("Failed to fetch") != std::string::npos;
    throw StepFailure(std::string(unfetchable ? "apt cannot fetch the removed versions any more, so they were not "
                                                "reinstalled: "
                                              : "could not reinstall the removed packages: ") +
                      name_list(wanted, 1000) + ".\n" + command_failure(cmd, r) +
                      "\nIf you still need them, install them by hand (`sudo apt-get install " + name_list(wanted, 1000) +
                      "`, or without the version for the current one).");
  }
};

}  // namespace

std::shared_ptr<Step> make_apt_remove_step(StepKeys& keys) {
  auto s = std::make_shared<AptRemoveStep>();
  s->packages = keys.has("packages") || !keys.has("matching") ? keys.packages("packages") : std::vector<std::string>{};
  s->matching = package_patterns(keys, "matching", "remove");
  s->auto_remove = keys.boolean("auto_remove", false);
  s->if_installed = package_patterns(keys, "if_installed", "");
  s->lock_timeout = keys.integer("lock_timeout", 120, 0, 86400);
  return s;
}

}  // namespace wslgpu
