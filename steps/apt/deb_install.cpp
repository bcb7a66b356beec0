#include "steps/apt/deb_install.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "installer/formats/apt_status.hpp"
#include "installer/formats/deb_archive.hpp"
#include "installer/net/download.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/formats/dpkg_status.hpp"
#include "installer/system/error.hpp"
#include "steps/apt/apt_common.hpp"
#include "steps/files/download.hpp"

namespace wslgpu {

namespace {
// dpkg -i does not wait for its lock; we do, as long as apt_install's
// default lock_timeout, so that a package manager that is busy (an
// unattended upgrade) delays the step instead of failing it.
constexpr std::chrono::seconds kDpkgLockWait{120};
}  // namespace

namespace {

const char* const kKernelReason =
    "Kernel modules cannot be built or loaded under WSL2: it runs Microsoft's own kernel, and no headers exist for it.";

// Makes dpkg report its stages to CTX.progress (--status-fd), when someone listens.
void report_dpkg_progress(Command& cmd, StepContext& ctx) {
  if (!ctx.progress || cmd.argv.empty()) return;
  cmd.argv.insert(cmd.argv.begin() + 1, {"--status-fd", std::to_string(kStatusFd)});
  auto tracker = std::make_shared<DpkgProgress>();
  ProgressSink* sink = ctx.progress;
  cmd.on_status_line = [tracker, sink](const std::string& line) {
    if (auto ev = tracker->feed(line)) sink->update(*ev);
  };
}

class DebInstallStep : public Step {
 public:
  std::string path;  // target path of the .deb, when given as path
  std::string url;
  std::string sha256;

  std::string deb_path(const StepContext& ctx) const {
    if (!path.empty()) return path;
    return ctx.state_dir + "/cache/" + sha256.substr(0, 16) + "-" + url_file_name(url);
  }

  // With url: makes sure the cache holds the checked file (reporting its
  // progress when apply runs with a progress display).
  void fetch(StepContext& ctx) const {
    if (url.empty()) return;
    const std::string p = deb_path(ctx);
    auto info = ctx.fs.stat(p);
    if (info && info->type == FileType::regular && sha256_of_host_file(ctx.fs.host_path(p)) == sha256) return;
    DownloadRequest req;
    req.url = url;
    req.sha256 = sha256;
    req.host_path = ctx.fs.host_path(p);
    req.on_progress = download_progress(ctx, url_file_name(url));
    fetch_file(req);
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    fetch(ctx);
    const std::string deb = deb_path(ctx);
    auto info = ctx.fs.stat(deb);
    if (!info) {
      p.verdict = Verdict::change;
      p.summary = "install the package in " + deb + " (not there yet: an earlier step creates it)";
      p.activity = "installing " + deb;
      p.details.push_back("its contents are checked for kernel modules before dpkg runs");
      p.fingerprint["file:" + deb] = "absent";
      return p;
    }
    DebInfo pkg = read_deb(ctx.fs.host_path(deb));
    p.fingerprint["file:" + deb] = "sha256:" + sha256_of_host_file(ctx.fs.host_path(deb));
    DpkgStatus status = DpkgStatus::read(ctx.fs);
    const DpkgPackage* now = status.find(pkg.name);
    // An earlier step of this plan removes it (rocm's legacy-rocdxg, which
    // takes librocdxg away with the release it lies in): by then it is not
    // installed, and this step puts it back.
    if (now && ctx.made_by_earlier_steps.value(StepContext::kPackagesRemovedByEarlierSteps, nlohmann::json::object())
                   .contains(pkg.name))
      now = nullptr;
    p.fingerprint["dpkg:" + pkg.name] = now && now->installed() ? now->version : std::string("absent");

    std::string problem = kernel_module_problem(pkg);
    if (!problem.empty()) {
      p.verdict = Verdict::refused;
      p.summary = "refused: " + problem;
      p.details.push_back(kKernelReason);
      p.changes.push_back({{"type", "package"}, {"action", "install"}, {"name", pkg.name}, {"version", pkg.version}});
      return p;
    }
    if (now && now->installed() && now->version == pkg.version) {
      p.summary = pkg.name + " " + pkg.version + " is already installed";
      return p;
    }
    p.verdict = Verdict::change;
    bool upgrade = now && now->installed();
    p.activity = (upgrade ? "upgrading " : "installing ") + pkg.name + " " + pkg.version;
    p.summary = (upgrade ? "upgrade " + pkg.name + " " + now->version + " -> " + pkg.version
                         : "install " + pkg.name + " " + pkg.version) +
                " from " + deb + " (" + std::to_string(pkg.files.size()) + (pkg.files.size() == 1 ? " file)" : " files)");
    nlohmann::json change = {{"type", "package"}, {"action", upgrade ? "upgrade" : "install"}, {"name", pkg.name},
                             {"version", pkg.version}};
    if (upgrade) change["from"] = now->version;
    p.changes.push_back(change);
    if (!pkg.pre_depends.empty()) p.details.push_back("pre-depends: " + pkg.pre_depends);
    if (!pkg.depends.empty()) p.details.push_back("depends: " + pkg.depends);
    p.details.push_back("files:");
    for (const auto& f : pkg.files) p.details.push_back("  " + f);
    return p;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan&) override {
    fetch(ctx);
    const std::string deb = deb_path(ctx);
    if (!ctx.fs.stat(deb)) throw StepFailure("the package " + deb + " does not exist; the step that downloads it must come first");
    DebInfo pkg = read_deb(ctx.fs.host_path(deb));
    std::string problem = kernel_module_problem(pkg);
    if (!problem.empty()) throw Refusal("refusing to install " + deb + ": " + problem + ". " + kKernelReason);
    require_no_pending_dpkg_updates(ctx.fs, kDpkgLockWait);
    DpkgStatus before = DpkgStatus::read(ctx.fs);
    const DpkgPackage* was = before.find(pkg.name);
    nlohmann::json data = {{"name", pkg.name}, {"version", pkg.version}, {"previous_version", nullptr}};
    if (was && was->present()) data["previous_version"] = was->version;
    if (was && was->installed() && was->version == pkg.version) {
      data["unchanged"] = true;
      return data;
    }
    Command cmd;
    cmd.argv = {"dpkg", "--force-confdef", "--force-confold", "-i", deb};
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::minutes(30);
    report_dpkg_progress(cmd, ctx);
    ProcessResult r = ctx.runner.run(cmd);
    if (!r.ok()) {
      std::string message = command_failure(cmd, r);
      std::string out = r.err + r.out;
      if (out.find("dependency problems") != std::string::npos || out.find("depends on") != std::string::npos)
        message += "\ndpkg installs no dependencies: install them with an apt_install step before this one.";
      if (!(was && was->present())) {
        DpkgStatus after = DpkgStatus::read(ctx.fs);
        const DpkgPackage* left = after.find(pkg.name);
        if (left && left->present()) {
          Command purge = purge_command(pkg.name);
          ProcessResult pr = ctx.runner.run(purge);
          message += pr.ok() ? "\nThe half-installed " + pkg.name + " was purged again."
                             : "\n" + pkg.name + " is left half-installed: " + command_failure(purge, pr);
        }
      }
      throw StepFailure(message);
    }
    return data;
  }

  static Command purge_command(const std::string& name) {
    Command cmd;
    cmd.argv = {"dpkg", "--purge", name};
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::minutes(30);
    return cmd;
  }

  void undo(StepContext& ctx, const nlohmann::json& data) override {
    if (data.value("unchanged", false)) return;
    const std::string name = data.value("name", "");
    if (name.empty()) return;
    if (!data.contains("previous_version") || !data["previous_version"].is_null()) {
      spdlog::warn("{} {} was installed over {} {}; undo cannot bring the earlier version back, so it stays",
                   name, data.value("version", ""), name,
                   data.contains("previous_version") && data["previous_version"].is_string()
                       ? data["previous_version"].get<std::string>()
                       : std::string("?"));
      return;
    }
    DpkgStatus now = DpkgStatus::read(ctx.fs);
    const DpkgPackage* pkg = now.find(name);
    if (!pkg || !pkg->present()) return;
    require_no_pending_dpkg_updates(ctx.fs, kDpkgLockWait);
    Command cmd = purge_command(name);
    report_dpkg_progress(cmd, ctx);
    ProcessResult r = ctx.runner.run(cmd);
    if (!r.ok()) throw StepFailure("could not purge " + name + ": " + command_failure(cmd, r));
  }
};

}  // namespace

std::shared_ptr<Step> make_deb_install_step(StepKeys& keys) {
  auto s = std::make_shared<DebInstallStep>();
  bool has_path = keys.has("path"), has_url = keys.has("url");
  if (has_path == has_url)
    keys.error_at(keys.pos(has_path ? "url" : "kind"), has_path ? "give either \"path\" or \"url\", not both"
                                                                : "step kind \"deb_install\" needs the key \"path\" or \"url\"");
  if (has_path) {
    s->path = keys.required_path("path");
    if (keys.has("sha256")) {
      keys.error("sha256", "\"sha256\" goes with \"url\"; a local path is checked by the step that downloads it");
      keys.optional_string("sha256");
    }
  }
  if (has_url) {
    s->url = keys.required_string("url");
    std::string problem = download_url_problem(s->url, false);
    if (!problem.empty()) keys.error("url", problem);
    else if (url_file_name(s->url).empty()) keys.error("url", "the URL does not end in a file name");
    s->sha256 = keys.required_string("sha256");
    std::transform(s->sha256.begin(), s->sha256.end(), s->sha256.begin(),
                   [](char c) { return static_cast<char>(std::tolower(c)); });
    if (keys.has("sha256") && !is_sha256_hex(s->sha256))
      keys.error("sha256", "\"sha256\" must be 64 hexadecimal digits (the output of `sha256sum`)");
  }
  return s;
}

}  // namespace wslgpu
