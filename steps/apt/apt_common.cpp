#include "steps/apt/apt_common.hpp"

#include <unistd.h>
#include <cerrno>
#include <cstring>

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <spdlog/spdlog.h>

#include "installer/formats/apt_madison.hpp"
#include "installer/formats/apt_status.hpp"
#include "installer/plan/overlay_filesystem.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"
#include "installer/undo/undo_store.hpp"
#include "steps/apt/apt_freshness.hpp"

namespace wslgpu {

std::map<std::string, std::string> apt_environment() {
  return {{"DEBIAN_FRONTEND", "noninteractive"}, {"NEEDRESTART_SUSPEND", "1"}};
}

std::vector<std::string> apt_dpkg_options(std::int64_t lock_timeout_s) {
  return {"-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold",
          "-o", "DPkg::Lock::Timeout=" + std::to_string(lock_timeout_s)};
}

namespace {
// "apt-get install", "dpkg -i": the program and its verb, without the -o
// options and package lists that make a full command line unreadable in a
// message. The full line goes to the log (-v, --log-file).
std::string short_command(const Command& cmd) {
  std::string out = cmd.argv.empty() ? std::string("?") : cmd.argv.front();
  for (std::size_t i = 1; i < cmd.argv.size(); ++i) {
    const std::string& a = cmd.argv[i];
    if (a == "-o") {
      ++i;
      continue;
    }
    if (a == "-s" || a == "-i") {  // apt-get -s install, dpkg -i: part of what the command does
      out += " " + a;
      if (a == "-i") break;
      continue;
    }
    if (a.rfind("-", 0) == 0) continue;
    out += " " + a;
    break;
  }
  return out;
}
}  // namespace

std::string command_failure(const Command& cmd, const ProcessResult& result) {
  // Messages carry the cause; the whole command line and its output are for
  // whoever asks (-v shows info, --log-file keeps everything).
  spdlog::info("`{}` failed ({}):\n{}{}", cmd.display(),
               result.not_found   ? std::string("not found")
               : result.timed_out ? std::string("timed out")
                                  : "exit " + std::to_string(result.exit_code),
               result.out, result.err);
  std::string head = "`" + short_command(cmd) + "` ";
  if (result.not_found) return head + "could not run: " + cmd.argv.front() + " was not found in the target root";
  if (result.timed_out)
    return head + "did not finish within " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(cmd.timeout).count()) + " s";
  head += "exited " + std::to_string(result.exit_code);
  auto errors = apt_error_lines(result.err + "\n" + result.out);
  std::string why;
  // dpkg's own reason first: apt's E: line only says that dpkg failed.
  for (const auto& d : dpkg_error_lines(result.out + "\n" + result.err)) why += (why.empty() ? "" : "\n") + d;
  if (!errors.empty()) {
    for (const auto& e : errors) why += (why.empty() ? "" : "\n") + std::string("E: ") + e;
  } else {
    // The last few lines say most; the full output is in the log.
    std::vector<std::string> lines;
    for (std::string_view line :
         text::split_lines(result.err.empty() ? result.out : result.err, text::LineEnd::newline_dropped))
      if (!line.empty()) lines.emplace_back(line);
    std::size_t from = lines.size() > 5 ? lines.size() - 5 : 0;
    for (std::size_t i = from; i < lines.size(); ++i) why += (why.empty() ? "" : "\n") + lines[i];
  }
  return why.empty() ? head : head + ":\n" + why;
}

std::string name_list(const std::vector<std::string>& names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > shown) out += ", … (" + std::to_string(names.size()) + " in all)";
  return out;
}

namespace {

bool is_apt_config_path(const std::string& p) {
  return p.rfind("/etc/apt/", 0) == 0 || p.rfind("/usr/share/keyrings/", 0) == 0;
}

void write_host_file(const std::string& host_path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(host_path).parent_path());
  std::ofstream out(host_path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw StepFailure("cannot write " + host_path + " (the plan's private apt configuration)");
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  std::size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) {
    text.replace(pos, from.size(), to);
    pos += to.size();
  }
  return text;
}

}  // namespace

namespace {

std::int64_t lists_refreshed_ns(const FileSystem& fs) {
  const std::string dir = "/var/lib/apt/lists";
  std::int64_t newest = 0;
  bool any = false;
  for (const auto& name : fs.list(dir)) {
    if (name == "lock") continue;
    auto info = fs.stat(dir + "/" + name);
    if (!info || info->type != FileType::regular) continue;
    any = true;
    newest = std::max(newest, info->mtime_ns);
  }
  if (!any) return 0;
  if (auto d = fs.stat(dir)) newest = std::max(newest, d->mtime_ns);
  return newest;
}

}  // namespace

std::string source_newer_than_lists(const FileSystem& fs) {
  std::int64_t refreshed = lists_refreshed_ns(fs);
  std::vector<std::string> sources = {"/etc/apt/sources.list"};
  for (const auto& name : fs.list("/etc/apt/sources.list.d")) sources.push_back("/etc/apt/sources.list.d/" + name);
  std::string newer;
  for (const auto& path : sources) {
    auto info = fs.stat(path);
    if (info && info->type == FileType::regular && info->mtime_ns > refreshed) newer = path;
  }
  return newer;
}

namespace {

// The apt configuration files earlier steps of the plan write (in the overlay).
std::vector<std::string> pending_apt_config(const StepContext& ctx) {
  auto* overlay = dynamic_cast<OverlayFileSystem*>(&ctx.fs);
  std::vector<std::string> pending;
  if (overlay)
    for (const auto& p : overlay->pending_paths())
      if (is_apt_config_path(p)) pending.push_back(p);
  return pending;
}

// Whether the plan needs lists of its own, given the apt files PENDING in the overlay.
bool lists_needed(const StepContext& ctx, const std::vector<std::string>& pending) {
  if (!pending.empty()) return true;
  // The target's own lists do for the plan when they describe its sources:
  // by the tool's record of its last refresh, or, without one, by file times.
  auto fresh = lists_freshness(ctx.fs, ctx.state_dir, now_s());
  return fresh.recorded ? !fresh.matches : !source_newer_than_lists(ctx.fs).empty();
}

}  // namespace

bool PlanAptConfig::needs_private_lists(StepContext& ctx) { return lists_needed(ctx, pending_apt_config(ctx)); }

std::unique_ptr<PlanAptConfig> PlanAptConfig::create(StepContext& ctx, bool with_sources) {
  const std::vector<std::string> pending = pending_apt_config(ctx);
  const bool private_lists = with_sources && lists_needed(ctx, pending);

  std::unique_ptr<PlanAptConfig> cfg(new PlanAptConfig());
  cfg->private_lists_ = private_lists;
  // Empty names turn off what apt would write during a simulation: its
  // planner log (Dir::Log::Planner, /var/log/apt/eipp.log.xz) and its binary
  // caches (built in memory instead).
  cfg->options_ = {"-o", "Dir::Log::Planner=", "-o", "Dir::Cache::pkgcache=", "-o", "Dir::Cache::srcpkgcache="};
  if (!private_lists) return cfg;

  const std::string parent_target = ctx.state_dir + "/plan-apt";
  const std::string parent_host = ctx.fs.host_path(parent_target);
  const std::string state_host = ctx.fs.host_path(ctx.state_dir);
  std::error_code ec;
  if (!std::filesystem::exists(state_host, ec)) cfg->made_state_dir_ = state_host;
  std::filesystem::create_directories(parent_host, ec);
  std::string tmpl = parent_host + "/XXXXXX";
  if (!::mkdtemp(tmpl.data())) {
    // Without root: the planner's NeedsRoot says to use sudo, as for a read.
    const int err = errno;
    std::string why = "cannot create a scratch folder under " + parent_target +
                      " for the plan's private apt configuration: " + std::strerror(err);
    if (err == EACCES && ::geteuid() != 0) throw NeedsRoot(why);
    throw StepFailure(why);
  }
  cfg->host_dir_ = tmpl;
  cfg->target_dir_ = parent_target + "/" + base_name(tmpl);
  std::filesystem::permissions(cfg->host_dir_, std::filesystem::perms(0755), ec);
  const std::string& T = cfg->target_dir_;
  const std::string& H = cfg->host_dir_;

  // Keys that exist only in the overlay get a copy here, and every source
  // naming them is pointed at the copy.
  std::vector<std::pair<std::string, std::string>> key_copies;  // target path in overlay -> target path of copy
  auto with_keys_redirected = [&](std::string text) {
    for (const auto& p : pending) {
      if (text.find(p) == std::string::npos) continue;
      auto info = ctx.fs.stat(p);
      if (!info || info->type != FileType::regular) continue;
      std::string copy = T + "/keys/" + base_name(p);
      bool known = false;
      for (const auto& kc : key_copies) known = known || kc.first == p;
      if (!known) {
        write_host_file(H + "/keys/" + base_name(p), ctx.fs.read(p));
        key_copies.emplace_back(p, copy);
      }
      text = replace_all(text, p, copy);
    }
    return text;
  };
  auto copy_file = [&](const std::string& from, const std::string& to_rel, bool redirect) {
    auto info = ctx.fs.stat(from);
    if (!info || info->type != FileType::regular) return;
    std::string text = ctx.fs.read(from);
    write_host_file(H + "/" + to_rel, redirect ? with_keys_redirected(text) : text);
  };
  auto copy_dir = [&](const std::string& from, const std::string& to_rel, bool redirect) {
    std::filesystem::create_directories(H + "/" + to_rel);
    for (const auto& name : ctx.fs.list(from)) copy_file(from + "/" + name, to_rel + "/" + name, redirect);
  };

  // The target's apt.conf.d may hook `apt-get update` (command-not-found,
  // appstream, packagekit refresh their own caches after it): those hooks
  // must not run for the plan's private lists.
  write_host_file(H + "/plan.conf",
                  "#clear APT::Update::Pre-Invoke;\n#clear APT::Update::Post-Invoke;\n"
                  "#clear APT::Update::Post-Invoke-Success;\n");
  write_host_file(H + "/sources.list", "");
  copy_file("/etc/apt/sources.list", "sources.list", true);
  copy_dir("/etc/apt/sources.list.d", "sources.list.d", true);
  copy_file("/etc/apt/preferences", "preferences", false);
  copy_dir("/etc/apt/preferences.d", "preferences.d", false);
  copy_file("/etc/apt/trusted.gpg", "trusted.gpg", false);
  copy_dir("/etc/apt/trusted.gpg.d", "trusted.gpg.d", false);

  // Lists: hard links to the target's own, which apt replaces by rename and
  // never writes in place, so the target's copies stay as they are.
  std::filesystem::create_directories(H + "/lists/partial");
  std::filesystem::create_directories(H + "/cache/archives/partial");
  const std::string lists_host = ctx.fs.host_path("/var/lib/apt/lists");
  for (const auto& name : ctx.fs.list("/var/lib/apt/lists")) {
    if (name == "lock" || name == "partial") continue;
    auto info = ctx.fs.stat("/var/lib/apt/lists/" + name);
    if (!info || info->type != FileType::regular) continue;
    std::filesystem::create_hard_link(lists_host + "/" + name, H + "/lists/" + name, ec);
    if (ec) std::filesystem::copy_file(lists_host + "/" + name, H + "/lists/" + name, ec);
  }

  std::vector<std::string> more = {
      "-c", T + "/plan.conf",
      "-o", "Dir::Etc::SourceList=" + T + "/sources.list",
      "-o", "Dir::Etc::SourceParts=" + T + "/sources.list.d",
      "-o", "Dir::Etc::Preferences=" + T + "/preferences",
      "-o", "Dir::Etc::PreferencesParts=" + T + "/preferences.d",
      "-o", "Dir::Etc::Trusted=" + T + "/trusted.gpg",
      "-o", "Dir::Etc::TrustedParts=" + T + "/trusted.gpg.d",
      "-o", "Dir::State::Lists=" + T + "/lists",
      "-o", "Dir::Cache=" + T + "/cache",
      "-o", "Dir::State::status=/var/lib/dpkg/status",
  };
  // The archives stay the target's, only read: --print-uris leaves out the
  // files apt already holds.
  more.insert(more.end(), {"-o", "Dir::Cache::Archives=/var/cache/apt/archives/"});
  cfg->options_.insert(cfg->options_.begin(), more.begin(), more.end());
  spdlog::debug("plan: private apt configuration in {} for the sources earlier steps add", T);
  return cfg;
}

PlanAptConfig::~PlanAptConfig() {
  if (host_dir_.empty()) return;  // no scratch folder
  std::error_code ec;
  std::filesystem::remove_all(host_dir_, ec);
  if (ec) spdlog::warn("could not remove the plan's scratch folder {}: {}", host_dir_, ec.message());
  // The parent too when no other plan is using it, and the state folder when
  // this made it, so that a plan leaves no trace.
  ::rmdir(host_dir_.substr(0, host_dir_.rfind('/')).c_str());
  if (!made_state_dir_.empty()) ::rmdir(made_state_dir_.c_str());
}

void PlanAptConfig::update(StepContext& ctx) const {
  Command cmd;
  cmd.argv = {"apt-get", "update", "--error-on=any", "-o", "APT::Sandbox::User=root"};
  cmd.argv.insert(cmd.argv.end(), options_.begin(), options_.end());
  cmd.env = apt_environment();
  cmd.timeout = std::chrono::minutes(30);
  cmd.stop_on_interrupt = true;  // private lists in a scratch folder: nothing to leave halfway
  ProcessResult r = ctx.runner.run(cmd);
  if (r.interrupted) throw_interrupted("while planning; nothing was changed");
  if (!r.ok())
    throw StepFailure("could not read the package lists of the repositories this plan would add, so the plan "
                      "cannot say what would be installed. " +
                      command_failure(cmd, r) + "\nCheck the URIs, suites and key of the apt_repository step.");
}

Command apt_query(const std::vector<std::string>& head, const std::vector<std::string>& args,
                  const std::vector<std::string>& options) {
  Command cmd;
  cmd.argv = head;
  std::size_t first_package = 0;
  while (first_package < args.size() && (first_package == 0 || args[first_package].rfind("-", 0) == 0)) ++first_package;
  cmd.argv.insert(cmd.argv.end(), args.begin(), args.begin() + static_cast<std::ptrdiff_t>(first_package));
  cmd.argv.insert(cmd.argv.end(), options.begin(), options.end());
  cmd.argv.insert(cmd.argv.end(), args.begin() + static_cast<std::ptrdiff_t>(first_package), args.end());
  cmd.env = apt_environment();
  cmd.timeout = std::chrono::minutes(10);
  cmd.stop_on_interrupt = true;  // it only reads
  return cmd;
}

AptTransaction simulate_apt(StepContext& ctx, const std::vector<std::string>& args, const PlanAptConfig& config,
                            std::vector<std::string>& errors, std::string* output) {
  // Debug::pkgDepCache::AutoInstall makes apt say which package pulled in
  // which, for "pulled in by" messages.
  std::vector<std::string> options = {"-o", "Debug::pkgDepCache::AutoInstall=1"};
  options.insert(options.end(), config.options().begin(), config.options().end());
  Command cmd = apt_query({"apt-get", "-s"}, args, options);
  ProcessResult r = ctx.runner.run(cmd);
  if (r.interrupted) throw_interrupted("while planning; nothing was changed");
  if (r.not_found || r.timed_out) throw StepFailure(command_failure(cmd, r));
  if (output) *output = r.out + "\n" + r.err;
  if (r.exit_code != 0) {
    errors = apt_error_lines(r.err + "\n" + r.out);
    if (errors.empty()) errors.push_back(command_failure(cmd, r));
    return {};
  }
  return parse_apt_simulation(r.out + "\n" + r.err);
}

AptSizes apt_install_sizes(StepContext& ctx, const std::vector<std::string>& args, const PlanAptConfig& config) {
  // --print-uris lists what apt would fetch, with the summary of sizes,
  // and stops there: no lock, no download, no log.
  std::vector<std::string> flags = {args.empty() ? std::string("install") : args.front(), "--print-uris"};
  std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  flags.insert(flags.end(), rest.begin(), rest.end());
  Command cmd = apt_query({"apt-get"}, flags, config.options());
  ProcessResult r = ctx.runner.run(cmd);
  if (r.interrupted) throw_interrupted("while planning; nothing was changed");
  if (!r.ok()) {
    spdlog::info("apt did not say what the install would download: {}", command_failure(cmd, r));
    return {};
  }
  return parse_apt_sizes(r.out);
}

std::map<std::string, std::vector<std::string>> fetchable_versions(StepContext& ctx,
                                                                   const std::vector<std::string>& names,
                                                                   const PlanAptConfig& config) {
  if (names.empty()) return {};
  Command cmd;
  cmd.argv = {"apt-cache", "madison"};
  cmd.argv.insert(cmd.argv.end(), config.options().begin(), config.options().end());
  cmd.argv.insert(cmd.argv.end(), names.begin(), names.end());
  cmd.env = apt_environment();
  cmd.timeout = std::chrono::minutes(5);
  cmd.stop_on_interrupt = true;  // it only reads
  ProcessResult r = ctx.runner.run(cmd);
  if (r.interrupted) throw_interrupted("while asking apt which versions it can fetch; nothing was changed");
  // madison exits 0 and prints nothing for a name no source has; any other
  // status means it could not answer (a chroot refused without root, apt's
  // own error).
  if (!r.ok()) throw StepFailure(command_failure(cmd, r));
  return parse_apt_madison(r.out);
}

std::map<std::string, std::vector<std::string>> offered_now(StepContext& ctx, const std::vector<std::string>& names) {
  if (names.empty()) return {};
  auto config = PlanAptConfig::create(ctx, false);
  try {
    return fetchable_versions(ctx, names, *config);
  } catch (const StepFailure& e) {
    spdlog::debug("undo: apt-cache cannot say which versions it can fetch: {}", e.what());
    return {};
  }
}

std::string cached_deb(StepContext& ctx, const std::string& name, const std::string& version, const std::string& arch) {
  std::string file = deb_file_name(name, version, arch);
  for (const std::string& dir : {std::string("/var/cache/apt/archives"), ctx.state_dir + "/cache"})
    if (ctx.fs.stat(dir + "/" + file)) return dir + "/" + file;
  return "";
}

void mark_automatic(StepContext& ctx, const std::vector<std::string>& names) {
  if (names.empty()) return;
  Command mark;
  mark.argv = {"apt-mark", "auto"};
  mark.argv.insert(mark.argv.end(), names.begin(), names.end());
  mark.env = apt_environment();
  mark.timeout = std::chrono::minutes(5);
  ProcessResult r = ctx.runner.run(mark);
  if (!r.ok())
    spdlog::warn("could not mark {} as automatically installed again: {}", name_list(names), command_failure(mark, r));
}

void report_apt_progress(Command& cmd, StepContext& ctx, std::uint64_t download_bytes, std::size_t packages) {
  if (!ctx.progress || cmd.argv.empty()) return;
  cmd.argv.insert(cmd.argv.begin() + 1, {"-o", "APT::Status-Fd=" + std::to_string(kStatusFd)});
  auto tracker = std::make_shared<AptProgress>(download_bytes, packages);
  ProgressSink* sink = ctx.progress;
  cmd.on_status_line = [tracker, sink](const std::string& line) {
    if (auto ev = tracker->feed(line)) sink->update(*ev);
  };
}

nlohmann::json package_change(const AptAction& a) {
  nlohmann::json j = {{"type", "package"}, {"action", apt_action_name(a.kind)}, {"name", a.name}};
  j["version"] = a.version.empty() ? a.old_version : a.version;
  if (a.kind == AptAction::Kind::upgrade || a.kind == AptAction::Kind::downgrade) j["from"] = a.old_version;
  if (!a.architecture.empty()) j["architecture"] = a.architecture;
  return j;
}

std::string describe_action(const AptAction& a) {
  switch (a.kind) {
    case AptAction::Kind::install:
      return "install " + a.name + " " + a.version + (a.origin.empty() ? "" : " (" + a.origin + ")");
    case AptAction::Kind::upgrade:
      return "upgrade " + a.name + " " + a.old_version + " -> " + a.version + (a.origin.empty() ? "" : " (" + a.origin + ")");
    case AptAction::Kind::downgrade:
      return "downgrade " + a.name + " " + a.old_version + " -> " + a.version + (a.origin.empty() ? "" : " (" + a.origin + ")");
    case AptAction::Kind::configure: return "configure " + a.name + " " + a.version;
    case AptAction::Kind::remove: return "remove " + a.name + (a.old_version.empty() ? "" : " " + a.old_version);
    case AptAction::Kind::purge: return "purge " + a.name + (a.old_version.empty() ? "" : " " + a.old_version);
  }
  return "";
}

DpkgStatus read_dpkg_for_plan(const FileSystem& fs, const std::vector<std::string>& packages, StepPlan& plan,
                              std::chrono::seconds lock_wait) {
  require_no_pending_dpkg_updates(fs, lock_wait);
  DpkgStatus status = DpkgStatus::read(fs);
  for (const auto& name : packages) {
    const DpkgPackage* pkg = status.find(name);
    plan.fingerprint["dpkg:" + name] = pkg && pkg->installed() ? pkg->version : std::string("absent");
  }
  return status;
}

std::vector<std::string> package_patterns(StepKeys& keys, const std::string& key, const std::string& everything) {
  std::vector<std::string> out;
  for (const auto& pattern : keys.string_list(key)) {
    if (pattern.empty() || pattern.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789+-.*?") != std::string::npos) {
      keys.error(key, "\"" + pattern + "\" is not a package name or pattern: use only lowercase letters, digits, '+', "
                      "'-', '.' and the wildcards '*' and '?'");
      continue;
    }
    if (!everything.empty() && pattern.find_first_not_of("*?") == std::string::npos) {
      keys.error(key, "\"" + pattern + "\" would " + everything + " every package; name the packages this step " +
                          everything + "s");
      continue;
    }
    out.push_back(pattern);
  }
  return out;
}

}  // namespace wslgpu
