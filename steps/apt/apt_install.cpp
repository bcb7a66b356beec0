#include "steps/apt/apt_install.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "installer/formats/apt_extended_states.hpp"
#include "installer/formats/apt_madison.hpp"
#include "installer/formats/deb_archive.hpp"
#include "installer/formats/deb_version.hpp"
#include "installer/formats/glob.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/units.hpp"
#include "steps/apt/apt_common.hpp"
#include "steps/apt/apt_keep.hpp"

namespace wslgpu {

namespace {

const char* const kDkmsReason =
    "DKMS modules cannot build against Microsoft's WSL kernel: WSL2 runs Microsoft's own kernel, and no headers "
    "exist for it to build against.";

// How many times plan asks apt again with the exact versions it reported
// missing; each round adds at least one, and dependency chains are short.
constexpr int kMaxResolveRounds = 8;

std::vector<std::string> split_request(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

std::string join_request(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// What undo would have to put back, and whether apt could: VERSION of NAME
// from a source (FETCHABLE) or from apt's cache.
struct Restore {
  std::string name;
  std::string version;
  std::string architecture;
  bool was_auto = false;
};

class AptInstallStep : public Step {
 public:
  std::vector<std::string> packages;
  std::vector<std::pair<std::string, VersionSpec>> versions;  // in `packages` order
  std::vector<std::string> replaces;
  bool install_recommends = false;
  bool no_dkms = true;
  std::int64_t lock_timeout = 120;

  const VersionSpec* spec_of(const std::string& name) const {
    for (const auto& [n, s] : versions)
      if (n == name) return &s;
    return nullptr;
  }

  // What the machine lacks, from dpkg's and apt's records alone.
  struct Gap {
    std::vector<std::string> missing;        // not installed
    std::vector<std::string> wrong_version;  // installed at a version its spec does not match
    std::vector<std::string> replaced;       // asked-for packages that `replaces` matches
    bool empty() const { return missing.empty() && wrong_version.empty() && replaced.empty(); }
  };

  Gap gap(const DpkgStatus& status, const AptExtendedStates& states) const {
    Gap g;
    for (const auto& p : packages) {
      const DpkgPackage* pkg = status.find(p);
      if (!pkg || !pkg->installed()) g.missing.push_back(p);
      else if (const VersionSpec* s = spec_of(p); s && !s->matches(pkg->version)) g.wrong_version.push_back(p);
    }
    if (!replaces.empty()) {
      for (const auto& [name, version] : status.installed()) {
        if (name.find(':') != std::string::npos || contains(packages, name) || states.is_auto(name)) continue;
        for (const auto& pattern : replaces)
          if (glob_match(pattern, name)) {
            g.replaced.push_back(name);
            break;
          }
      }
    }
    return g;
  }

  std::vector<std::string> flags() const {
    if (install_recommends) return {};
    return {"--no-install-recommends"};
  }

  std::string converged_summary(const DpkgStatus& status) const {
    std::string tail = versions.empty() ? "" : " at the versions asked for";
    if (packages.size() == 1) return packages.front() + " " + status.find(packages.front())->version + " is already installed";
    return "all " + std::to_string(packages.size()) + " packages are already installed" + tail;
  }

  std::string purpose() const override {
    std::vector<std::string> named;
    for (const auto& name : packages) named.push_back(spec_of(name) ? name + " " + spec_of(name)->text() : name);
    std::string out = "would install " + name_list(named, named.size());
    if (!replaces.empty()) out += ", in place of installed packages matching " + name_list(replaces, replaces.size());
    return out;
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    DpkgStatus status = read_dpkg_for_plan(ctx.fs, packages, p, std::chrono::seconds(lock_timeout));
    AptExtendedStates states = replaces.empty() ? AptExtendedStates{} : AptExtendedStates::read(ctx.fs);
    Gap g = gap(status, states);
    for (const auto& name : g.replaced) p.fingerprint["dpkg:" + name] = status.find(name)->version;
    if (g.empty()) {
      p.summary = converged_summary(status);
      return p;
    }

    if (ctx.offline && PlanAptConfig::needs_private_lists(ctx)) return plan_offline(g);
    auto config = PlanAptConfig::create(ctx, true);
    if (config->private_lists()) config->update(ctx);

    // The request: the version of each package whose spec is not met yet,
    // the names of the others that are missing, and what they replace.
    std::vector<std::string> request;
    std::vector<std::string> to_resolve;
    for (const auto& name : packages)
      if (spec_of(name) && (contains(g.missing, name) || contains(g.wrong_version, name))) to_resolve.push_back(name);
    auto offered = fetchable_versions(ctx, to_resolve, *config);
    bool changes_versions = !g.wrong_version.empty();
    for (const auto& name : packages) {
      const VersionSpec* spec = spec_of(name);
      bool needed = contains(g.missing, name) || contains(g.wrong_version, name);
      if (!needed) continue;
      if (!spec) {
        request.push_back(name);
        continue;
      }
      std::string best;
      for (const auto& v : offered[name])
        if (spec->matches(v) && (best.empty() || compare_deb_versions(v, best) > 0)) best = v;
      if (best.empty()) {
        const auto& have = offered[name];
        p.verdict = Verdict::refused;
        p.summary = "apt has no " + name + " version matching \"" + spec->text() + "\"";
        p.details.push_back(have.empty() ? "No source offers " + name + " at all."
                                         : "apt can fetch " + name + " " + name_list(have, 8) + ".");
        p.details.push_back("Check that an earlier step adds the repository of that release (apt_repository) and "
                            "refreshes the lists (apt_update), or change the version asked for.");
        return p;
      }
      request.push_back(name + "=" + best);
    }
    for (const auto& name : g.replaced) request.push_back(name + "-");
    const bool autoremove = changes_versions || !g.replaced.empty();

    // Ask apt; a downgrade whose dependencies are pinned exactly comes back
    // as unmet "(= version)" dependencies, which join the request.
    AptTransaction tx;
    std::vector<std::string> errors;
    for (int round = 0;; ++round) {
      std::vector<std::string> args = {"install"};
      for (const auto& f : flags()) args.push_back(f);
      if (autoremove) args.push_back("--auto-remove");
      args.insert(args.end(), request.begin(), request.end());
      errors.clear();
      std::string output;
      tx = simulate_apt(ctx, args, *config, errors, &output);
      if (errors.empty() || round == kMaxResolveRounds) break;
      bool grew = false;
      for (const auto& d : apt_unmet_exact_dependencies(output)) {
        std::string wanted = d.name + "=" + d.version;
        if (contains(request, wanted)) continue;
        // A dependency pinned to another version replaces its old entry.
        request.erase(std::remove_if(request.begin(), request.end(),
                                     [&](const std::string& a) { return a.rfind(d.name + "=", 0) == 0; }),
                      request.end());
        request.push_back(wanted);
        grew = true;
      }
      if (!grew) break;
    }
    if (!errors.empty()) {
      std::vector<std::string> todo = g.missing;
      todo.insert(todo.end(), g.wrong_version.begin(), g.wrong_version.end());
      p.verdict = Verdict::refused;
      p.summary = "apt cannot install " + name_list(todo.empty() ? request : todo) + ": " + errors.front();
      for (const auto& e : errors) p.details.push_back("apt: " + e);
      p.details.push_back("Check that an earlier step adds the repository that provides it (apt_repository) and that "
                          "the package lists are fresh (apt_update).");
      return p;
    }

    // --auto-remove also offers what was unneeded before this request: that
    // is not this step's to remove.
    std::set<std::string> already_unneeded;
    if (autoremove) {
      bool other_removals = false;
      for (const auto& a : tx.changes())
        if ((a.kind == AptAction::Kind::remove || a.kind == AptAction::Kind::purge) && !contains(g.replaced, a.name))
          other_removals = true;
      if (other_removals) {
        std::vector<std::string> baseline_errors;
        AptTransaction baseline = simulate_apt(ctx, {"autoremove"}, *config, baseline_errors);
        for (const auto& a : baseline.changes()) already_unneeded.insert(a.name);
      }
    }

    std::vector<std::string> installs, upgrades, downgrades, removals, forbidden;
    std::vector<AptAction> kept;
    for (const auto& a : tx.changes()) {
      bool removal = a.kind == AptAction::Kind::remove || a.kind == AptAction::Kind::purge;
      if (removal && already_unneeded.count(a.name) && !contains(g.replaced, a.name)) continue;
      kept.push_back(a);
      nlohmann::json change = package_change(a);
      if (tx.pulled_in_by.count(a.name)) change["via"] = tx.chain(a.name);
      p.changes.push_back(change);
      p.details.push_back(describe_action(a));
      // A package the step names shows its versions in the summary.
      std::string shown = contains(packages, a.name) && !removal ? a.name + " " + a.old_version + " → " + a.version : a.name;
      if (a.kind == AptAction::Kind::install) installs.push_back(a.name);
      else if (a.kind == AptAction::Kind::upgrade) upgrades.push_back(shown);
      else if (a.kind == AptAction::Kind::downgrade) downgrades.push_back(shown);
      else removals.push_back(a.name);
      if (!removal && is_kernel_module_package(a.name)) forbidden.push_back(a.name + " " + a.version);
    }
    if (no_dkms && !forbidden.empty()) {
      p.verdict = Verdict::refused;
      p.summary = "would install " + name_list(forbidden) + ", which " +
                  (forbidden.size() == 1 ? "is a kernel-module package" : "are kernel-module packages");
      std::vector<std::string> todo = g.missing;
      todo.insert(todo.end(), g.wrong_version.begin(), g.wrong_version.end());
      std::vector<std::string> why;
      for (const auto& f : forbidden) {
        std::string name = f.substr(0, f.find(' '));
        bool asked = contains(packages, name);
        why.push_back(f + (asked                           ? " is in this step's packages"
                           : tx.pulled_in_by.count(name) ? " is pulled in by " + tx.chain(name)
                                                         : " is pulled in as a dependency of " + name_list(todo)));
      }
      why.push_back(kDkmsReason);
      why.push_back("Install the toolkit without kernel modules (for ROCm: rocm-dev and the WSL runtime, never rocm-dkms).");
      p.details.insert(p.details.begin(), why.begin(), why.end());
      return p;
    }
    if (kept.empty()) {
      // apt has nothing to do: the names are provided by installed packages.
      p.summary = name_list(g.missing) + (g.missing.size() == 1 ? " is" : " are") + " provided by installed packages";
      return p;
    }

    // The removals apply asks for by name: what the request replaces, and
    // what only the replaced packages or the old versions needed.
    for (const auto& name : removals)
      if (!contains(g.replaced, name)) request.push_back(name + "-");
    p.fingerprint["apt:request"] = join_request(request);

    p.verdict = Verdict::change;
    std::vector<std::string> parts;
    if (!installs.empty())
      parts.push_back("install " + std::to_string(installs.size()) + (installs.size() == 1 ? " package: " : " packages: ") +
                      name_list(installs));
    if (!upgrades.empty()) parts.push_back("upgrade " + name_list(upgrades));
    if (!downgrades.empty()) parts.push_back("downgrade " + name_list(downgrades));
    if (!removals.empty()) parts.push_back("REMOVE " + name_list(removals));
    std::string summary;
    for (const auto& part : parts) summary += (summary.empty() ? "" : "; ") + part;
    p.summary = summary;
    if (!g.replaced.empty())
      p.details.push_back("(" + name_list(g.replaced) + (g.replaced.size() == 1 ? " is" : " are") +
                          " replaced by this step's packages: replaces = [" + name_list(replaces, 100) + "])");

    // Undo installs the old versions again: the run keeps their .deb files
    // before it changes anything (steps/apt_keep.hpp).
    std::vector<OldPackage> olds;
    for (const auto& a : kept) {
      if (a.kind == AptAction::Kind::install) continue;
      const DpkgPackage* pkg = status.find(a.name);
      if (!pkg || !pkg->installed()) continue;
      olds.push_back({a.name, pkg->version, pkg->architecture});
    }
    p.keeps = plan_undo_keeps(ctx, olds);
    add_keep_details(p);
    // apt's own figures, before anything changes: for the plan, the
    // disk-space guard and the progress of apply.
    std::vector<std::string> size_args = {"install"};
    for (const auto& f : flags()) size_args.push_back(f);
    if (downgrading(request)) size_args.push_back("--allow-downgrades");
    size_args.insert(size_args.end(), request.begin(), request.end());
    AptSizes sizes = apt_install_sizes(ctx, size_args, *config);
    std::size_t count = installs.size() + upgrades.size() + downgrades.size();
    p.activity = "installing " + std::to_string(count) + (count == 1 ? " package" : " packages");
    if (sizes.known) {
      p.download_bytes = sizes.fetch_bytes;
      p.disk_bytes = sizes.disk_bytes;
      p.summary += " (" + human_size(sizes.fetch_bytes) + " to download, " +
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
    if (config->private_lists())
      p.details.push_back("(resolved against the sources that earlier steps add; an apt_update step must run after "
                          "them and before this one)");
    return p;
  }

  // Offline, with package lists that only the repositories' servers can
  // fill: what the step would install, as asked, and what it did not ask.
  StepPlan plan_offline(const Gap& g) const {
    StepPlan p;
    p.verdict = Verdict::change;
    p.not_asked = "apt's package lists of the repositories";
    std::vector<std::string> named;
    for (const auto& name : packages) {
      const bool missing = contains(g.missing, name);
      if (!missing && !contains(g.wrong_version, name)) continue;
      named.push_back(spec_of(name) ? name + " " + spec_of(name)->text() : name);
      nlohmann::json change = {{"type", "package"}, {"name", name}, {"action", missing ? "install" : "change version"}};
      if (spec_of(name)) change["version"] = spec_of(name)->text();
      change["not_asked"] = p.not_asked;
      p.changes.push_back(change);
    }
    p.summary = "install " + name_list(named, named.size()) + " and what apt adds to " +
                (named.size() == 1 ? "it" : "them") + " (not asked offline)";
    p.activity = p.summary;
    p.details.push_back("not asked offline: " + p.not_asked +
                        ". The plan with the network lists every package apt would install, with its size, and "
                        "refuses a kernel-module (DKMS) package among them.");
    return p;
  }

  // Versions named on the request (NAME=VERSION) may take a package back.
  static bool downgrading(const std::vector<std::string>& request) {
    return std::any_of(request.begin(), request.end(),
                       [](const std::string& a) { return a.find('=') != std::string::npos; });
  }

  Command apt_command(const std::string& verb, const std::vector<std::string>& extra_flags,
                      const std::vector<std::string>& names) const {
    Command cmd;
    cmd.argv = {"apt-get", verb, "-y"};
    cmd.argv.insert(cmd.argv.end(), extra_flags.begin(), extra_flags.end());
    for (const auto& o : apt_dpkg_options(lock_timeout)) cmd.argv.push_back(o);
    cmd.argv.insert(cmd.argv.end(), names.begin(), names.end());
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::hours(3) + std::chrono::seconds(lock_timeout);
    return cmd;
  }

  // A package apt selected but dpkg never unpacked (the disk filled up in
  // the middle of its archive) leaves a record "install ok not-installed" in
  // dpkg's status, which apt-get purge does not touch ("not installed, so
  // not removed"). dpkg forgets a record only when it is asked to purge a
  // package already selected for purge: hence the selection, then the purge.
  void forget_never_unpacked(StepContext& ctx, const DpkgStatus& before) const {
    std::vector<std::string> names;
    const DpkgStatus now = DpkgStatus::read(ctx.fs);
    for (const auto& p : now.packages())
      if (!p.present() && p.want == "install" && !before.find(p.name)) names.push_back(p.name);
    if (names.empty()) return;
    Command select;
    select.argv = {"dpkg", "--set-selections"};
    for (const auto& n : names) select.stdin_data += n + " purge\n";
    select.env = apt_environment();
    Command purge;
    purge.argv = {"dpkg", "--purge"};
    purge.argv.insert(purge.argv.end(), names.begin(), names.end());
    purge.env = apt_environment();
    for (Command* c : {&select, &purge}) {
      c->timeout = std::chrono::minutes(5);
      ProcessResult r = ctx.runner.run(*c);
      if (!r.ok()) spdlog::warn("dpkg's record of {} could not be forgotten: {}", name_list(names, 20), command_failure(*c, r));
    }
  }

  Command purge_command(const std::vector<std::string>& names) const {
    Command cmd = apt_command("purge", {}, names);
    cmd.timeout = std::chrono::hours(1) + std::chrono::seconds(lock_timeout);
    return cmd;
  }

  // The installed and present packages and which were automatic: what undo
  // compares with when apply was interrupted.
  static nlohmann::json package_state(const DpkgStatus& status, const AptExtendedStates& states) {
    nlohmann::json present = nlohmann::json::object(), automatic = nlohmann::json::array();
    for (const auto& p : status.packages()) {
      if (!p.present() || present.contains(p.name)) continue;
      present[p.name] = {{"version", p.version}, {"architecture", p.architecture}, {"installed", p.installed()}};
      if (states.is_auto(p.name)) automatic.push_back(p.name);
    }
    return {{"present", present}, {"auto", automatic}};
  }

  nlohmann::json snapshot(StepContext& ctx) const override {
    return package_state(DpkgStatus::read(ctx.fs), AptExtendedStates::read(ctx.fs));
  }

  // What changed between BEFORE (package_state) and the machine now, in the
  // form apply returns.
  static nlohmann::json changes_since(const nlohmann::json& before, const DpkgStatus& after) {
    nlohmann::json data = {{"installed", nlohmann::json::array()}, {"upgraded", nlohmann::json::array()},
                           {"removed", nlohmann::json::array()}};
    const nlohmann::json& was = before.contains("present") ? before["present"] : nlohmann::json::object();
    std::set<std::string> was_auto;
    if (before.contains("auto"))
      for (const auto& n : before["auto"]) was_auto.insert(n.get<std::string>());
    std::set<std::string> now_present;
    for (const auto& p : after.packages()) {
      if (!p.present() || now_present.count(p.name)) continue;
      now_present.insert(p.name);
      if (!was.contains(p.name)) {
        data["installed"].push_back({{"name", p.name}, {"version", p.version}});
        continue;
      }
      const auto& old = was[p.name];
      if (old.value("installed", false) && p.installed() && old.value("version", "") != p.version)
        data["upgraded"].push_back({{"name", p.name},
                                    {"from", old.value("version", "")},
                                    {"to", p.version},
                                    {"architecture", old.value("architecture", "")},
                                    {"auto", was_auto.count(p.name) > 0}});
    }
    for (const auto& [name, old] : was.items()) {
      if (now_present.count(name) || !old.value("installed", false)) continue;
      data["removed"].push_back({{"name", name},
                                 {"version", old.value("version", "")},
                                 {"architecture", old.value("architecture", "")},
                                 {"auto", was_auto.count(name) > 0}});
    }
    return data;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan& plan) override {
    require_no_pending_dpkg_updates(ctx.fs, std::chrono::seconds(lock_timeout));
    DpkgStatus before = DpkgStatus::read(ctx.fs);
    AptExtendedStates states = AptExtendedStates::read(ctx.fs);
    nlohmann::json data = {{"installed", nlohmann::json::array()}, {"upgraded", nlohmann::json::array()},
                           {"removed", nlohmann::json::array()}};
    Gap g = gap(before, states);
    if (g.empty()) return data;
    // The request plan resolved; without one (a plan made elsewhere), the
    // missing names.
    std::vector<std::string> request;
    if (plan.fingerprint.contains("apt:request")) request = split_request(plan.fingerprint["apt:request"].get<std::string>());
    else request = g.missing;
    if (request.empty()) return data;
    std::vector<std::string> extra = flags();
    // Only versions the manifest named, or their pinned dependencies, are
    // taken back (the plan showed them).
    if (downgrading(request)) extra.push_back("--allow-downgrades");
    nlohmann::json pre = package_state(before, states);
    std::size_t count = 0;  // package N of COUNT in the progress
    for (const auto& c : plan.changes)
      if (c.value("type", "") == "package" && c.value("action", "") != "remove" && c.value("action", "") != "purge")
        ++count;
    if (plan.download_bytes > 0) {
      // Fetching first, on its own, keeps the long part of a big install
      // (gigabytes from the vendor) one that a Ctrl-C may stop at once: no
      // package is touched until everything is in apt's cache.
      std::vector<std::string> fetch_flags = extra;
      fetch_flags.insert(fetch_flags.begin(), "--download-only");
      Command fetch = apt_command("install", fetch_flags, request);
      fetch.stop_on_interrupt = true;
      report_apt_progress(fetch, ctx, plan.download_bytes, count);
      ProcessResult fr = ctx.runner.run(fetch);
      if (fr.interrupted)
        throw_interrupted("while downloading the packages; nothing was installed (what was fetched stays in "
                          "/var/cache/apt/archives for the next run)");
      if (!fr.ok()) throw StepFailure("could not download the packages: " + command_failure(fetch, fr));
    }
    Command cmd = apt_command("install", extra, request);
    report_apt_progress(cmd, ctx, 0, count);
    ProcessResult r = ctx.runner.run(cmd);
    data = changes_since(pre, DpkgStatus::read(ctx.fs));

    if (!r.ok()) {
      std::string message = command_failure(cmd, r);
      forget_never_unpacked(ctx, before);
      std::vector<std::string> fresh;
      for (const auto& p : data["installed"]) fresh.push_back(p.value("name", ""));
      if (!fresh.empty()) {
        // The rollback undoes the rest from the snapshot; what apt half
        // installed goes now, while its output is at hand.
        Command purge = purge_command(fresh);
        ProcessResult pr = ctx.runner.run(purge);
        message += pr.ok() ? "\nThe " + std::to_string(fresh.size()) + " packages it had installed were purged again."
                           : "\nThe packages it had installed could not be purged again: " + command_failure(purge, pr) +
                                 "\nRun `sudo dpkg --configure -a`, then `sudo apt-get purge " + name_list(fresh, 1000) + "`.";
      }
      throw StepFailure(message);
    }
    // apt marks every name on its command line as asked for. A dependency
    // named only for its version stays what it was: automatic, or, when
    // new, automatic as apt would have made it.
    std::vector<std::string> automatic;
    for (const auto& arg : request) {
      if (arg.empty() || arg.back() == '-') continue;
      std::string name = arg.substr(0, arg.find('='));
      if (contains(packages, name)) continue;
      const DpkgPackage* pkg = before.find(name);
      if (states.is_auto(name) || !pkg || !pkg->installed()) automatic.push_back(name);
    }
    mark_automatic(ctx, automatic);
    return data;
  }

  void undo(StepContext& ctx, const nlohmann::json& given) override {
    DpkgStatus now = DpkgStatus::read(ctx.fs);
    // An interrupted apply left only its snapshot: compare with that.
    nlohmann::json data = given.value("partial", false) ? changes_since(given.value("pre", nlohmann::json::object()), now)
                                                        : given;
    std::vector<std::string> fresh;
    if (data.contains("installed"))
      for (const auto& p : data["installed"]) {
        std::string name = p.value("name", "");
        const DpkgPackage* pkg = now.find(name);
        if (pkg && pkg->present()) fresh.push_back(name);
      }
    std::vector<Restore> restores;
    for (const char* list : {"upgraded", "removed"}) {
      if (!data.contains(list)) continue;
      for (const auto& p : data[list]) {
        Restore r{p.value("name", ""), p.value(std::string(list) == "upgraded" ? "from" : "version", ""),
                  p.value("architecture", ""), p.value("auto", false)};
        if (r.name.empty() || r.version.empty()) continue;
        const DpkgPackage* pkg = now.find(r.name);
        if (pkg && pkg->installed() && pkg->version == r.version) continue;  // already back
        restores.push_back(r);
      }
    }
    if (fresh.empty() && restores.empty()) return;
    require_no_pending_dpkg_updates(ctx.fs, std::chrono::seconds(lock_timeout));

    // Every old version must be had: from the transaction's undo store
    // first (kept before the run changed anything, checked now, no network
    // needed), else from a source or apt's cache (a transaction made before
    // the store, or a version the plan did not foresee). Half a set of
    // versions is a broken set, so otherwise nothing moves. The store's
    // copies are checked before anything is asked of apt: a corrupt one
    // stops the undo with nothing installed.
    std::vector<std::string> request, gone, names;
    std::vector<const Restore*> unkept;
    bool from_store = false;
    for (const auto& r : restores) {
      if (std::string deb = kept_deb(ctx, r.name, r.version, r.architecture); !deb.empty()) {
        request.push_back(deb);
        from_store = true;
      } else {
        unkept.push_back(&r);
      }
    }
    for (const Restore* r : unkept) names.push_back(r->name);
    auto offered = offered_now(ctx, names);
    for (const Restore* r : unkept) {
      if (contains(offered[r->name], r->version)) request.push_back(r->name + "=" + r->version);
      else if (std::string deb = cached_deb(ctx, r->name, r->version, r->architecture); !deb.empty()) request.push_back(deb);
      else gone.push_back(r->name + " " + r->version);
    }
    if (!gone.empty()) {
      std::string back;
      for (const auto& r : restores) back += " " + r.name + "=" + r.version;
      spdlog::warn(
          "undo cannot put back {}: the transaction's undo store holds no copy (it was pruned, or the run was "
          "allowed to go without: --allow-partial-undo), no apt source offers {} any more and neither "
          "/var/cache/apt/archives nor wslgpu-setup's download cache holds a copy, so the versions this step changed stay as they are. To go back "
          "by hand, point apt at the "
          "repository of those versions, then run: sudo apt-get install --allow-downgrades{}",
          name_list(gone, 1000), gone.size() == 1 ? "that version" : "those versions", back);
      // What is new goes, unless a package that stays needs it.
      if (fresh.empty()) return;
      std::vector<std::string> errors;
      std::vector<std::string> purge_args = {"purge"};
      purge_args.insert(purge_args.end(), fresh.begin(), fresh.end());
      auto config = PlanAptConfig::create(ctx, false);  // the target's own sources, no cache written
      AptTransaction tx = simulate_apt(ctx, purge_args, *config, errors);
      std::vector<std::string> beyond;
      for (const auto& a : tx.changes())
        if (!contains(fresh, a.name)) beyond.push_back(a.name);
      if (!errors.empty() || !beyond.empty()) {
        spdlog::warn("undo leaves the {} new packages ({}) installed too: {} still need{} them",
                     fresh.size(), name_list(fresh), beyond.empty() ? "the packages that stay" : name_list(beyond),
                     beyond.size() == 1 ? "s" : "");
        return;
      }
      Command purge = purge_command(fresh);
      report_apt_progress(purge, ctx, 0, fresh.size());
      ProcessResult pr = ctx.runner.run(purge);
      if (!pr.ok()) throw StepFailure("could not purge the packages this step installed: " + command_failure(purge, pr));
      return;
    }
    for (const auto& name : fresh) request.push_back(name + "-");
    std::vector<std::string> extra = {"--purge", "--no-install-recommends"};
    if (!restores.empty()) extra.push_back("--allow-downgrades");
    if (from_store) extra.insert(extra.end(), {"-o", kStoreReader});
    Command cmd = restores.empty() ? purge_command(fresh) : apt_command("install", extra, request);
    report_apt_progress(cmd, ctx, 0, fresh.size() + restores.size());
    ProcessResult r = ctx.runner.run(cmd);
    if (!r.ok())
      throw StepFailure("could not put the packages back as they were before this step: " + command_failure(cmd, r));
    // apt marks what it was asked for as asked for; what apt had installed
    // as a dependency is automatic again, so that autoremove sees it as before.
    std::vector<std::string> automatic;
    for (const auto& rs : restores)
      if (rs.was_auto) automatic.push_back(rs.name);
    mark_automatic(ctx, automatic);
  }
};

}  // namespace

std::shared_ptr<Step> make_apt_install_step(StepKeys& keys) {
  auto s = std::make_shared<AptInstallStep>();
  s->packages = keys.packages("packages");
  for (const auto& [name, text] : keys.string_table("versions")) {
    if (!contains(s->packages, name)) {
      keys.error("versions", "\"versions\" names " + name + ", which is not in \"packages\"; a version belongs to a "
                                                           "package this step installs");
      continue;
    }
    std::string why;
    auto spec = VersionSpec::parse(text, why);
    if (!spec) {
      keys.error("versions", "the version of " + name + " is not understood: " + why);
      continue;
    }
    s->versions.emplace_back(name, *spec);
  }
  s->replaces = package_patterns(keys, "replaces", "replace");
  s->install_recommends = keys.boolean("install_recommends", false);
  s->no_dkms = keys.boolean("no_dkms", true);
  s->lock_timeout = keys.integer("lock_timeout", 120, 0, 86400);
  return s;
}

}  // namespace wslgpu
