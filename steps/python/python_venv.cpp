#include "steps/python/python_venv.hpp"

#include <spdlog/spdlog.h>

#include "installer/formats/python_dist.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "steps/commands/command.hpp"
#include "steps/python/python_common.hpp"
#include "steps/python/venv_additions.hpp"

namespace wslgpu {

namespace {

// Where a venv whose Python is gone goes while a new one is made in its
// place: VENV.made-by-python3.10 (-2, -3 ... when taken).
std::string recreate_aside_path(const FileSystem& fs, const std::string& venv, const PyvenvCfg& cfg) {
  return unused_path(fs, venv + ".made-by-python" + python_release(cfg.version));
}

// "3.13" for /usr/bin/python3.13; "" for a name without a release
// (/usr/bin/python3), which is whatever the distribution's is.
std::string release_of_interpreter(const std::string& python) {
  const std::string name = python.substr(python.rfind('/') + 1);
  if (name.rfind("python", 0) != 0) return "";
  const std::string release = name.substr(6);
  return release.find('.') == std::string::npos ? "" : release;
}

class PythonVenvStep : public Step {
 public:
  std::string path;
  std::string owner;
  std::string python = "/usr/bin/python3";

  std::string cfg_path() const { return path + "/pyvenv.cfg"; }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    auto refuse = [&](std::string why) {
      p.verdict = Verdict::refused;
      p.summary = std::move(why);
      return p;
    };
    std::string why;
    auto user = find_venv_owner(ctx.accounts(), owner, why);
    p.fingerprint["user:" + owner] = user ? "uid:" + std::to_string(user->uid) : std::string("absent");
    if (!user) return refuse(why);

    auto info = ctx.fs.lstat(path);
    auto cfg = ctx.fs.stat(cfg_path());
    p.fingerprint["venv:" + path] =
        !info ? std::string("absent") : "uid:" + std::to_string(info->uid) + (cfg ? " venv" : " folder");
    if (info && info->type == FileType::symlink) return refuse(path + " is a symbolic link. " + kNoLinksWhy);
    if (info && info->type != FileType::directory)
      return refuse(path + " exists and is not a folder: remove it, or set path to where the venv should be");
    if (info && info->uid != user->uid) {
      std::string other = user_name_of(ctx.fs, info->uid);
      return refuse(std::string(cfg ? "the virtual environment " : "the folder ") + path + " belongs to " + other +
                    ", not " + owner + " (" + (info->uid == 0 ? "made with sudo, " : "") + "so " + owner +
                    " could not install into it): give it to " + owner + " with `sudo chown -R " + owner + ": " + path +
                    "`, or remove it, then run again");
    }
    if (cfg && cfg->type == FileType::regular) {
      const PyvenvCfg parsed = parse_pyvenv_cfg(ctx.fs.read(cfg_path()));
      const std::string& version = parsed.version;
      if (std::string gone = venv_interpreter_gone(ctx.fs, parsed); !gone.empty()) {
        // Nothing can install into it, and "set python to 3.10" cannot be
        // followed once 3.10 is gone: a new venv, the old one kept aside.
        const std::string aside = recreate_aside_path(ctx.fs, path, parsed);
        p.verdict = Verdict::change;
        p.summary = "recreate the virtual environment " + path + " with `" + python + " -m venv` as " + owner +
                    ": it was made by Python " + version + ", which this machine no longer has (" + gone + ")";
        p.activity = "recreating the virtual environment " + path;
        p.details.push_back("the old venv is moved aside to " + aside +
                            " first, with everything in it (what you installed there is yours to reinstall or "
                            "delete); a rollback moves it back");
        p.changes.push_back(
            {{"type", "venv"}, {"action", "recreate"}, {"path", path}, {"owner", owner}, {"aside", aside}});
        p.fingerprint["venv_python:" + path] = gone + " absent";
        ctx.made_by_earlier_steps[path] = {{"recreated", true}};
        return p;
      }
      // A Python named by release (/usr/bin/python3.13) is the one the venv
      // must run: wheels for 3.13 in a venv of 3.14 would not import.
      const std::string wanted = release_of_interpreter(python);
      if (!wanted.empty() && !version.empty() && python_release(version) != wanted)
        return refuse("the virtual environment " + path + " was made by Python " + version + ", and this plan asks for " +
                      python + " (Python " + wanted + "): packages for " + wanted +
                      " would not run in it. Leave the Python at auto (the distribution's), or give this venv "
                      "another folder (--set venv=PATH), or remove it, then run again");
      p.summary =
          "venv " + path + " (Python " + (version.empty() ? "of unknown version" : version) + "), owned by " + owner;
      return p;
    }
    if (info && !ctx.fs.list(path).empty())
      return refuse(path +
                    " exists, is not empty and is not a virtual environment (it has no pyvenv.cfg): set "
                    "path to another folder, or empty this one, then run again");

    p.verdict = Verdict::change;
    p.summary = "create the virtual environment " + path + " with `" + python + " -m venv` as " + owner;
    p.activity = "creating the virtual environment " + path;
    auto parents = missing_parents(ctx.fs, path);
    if (!parents.empty()) p.details.push_back("create " + parents.front() + " as " + owner);
    if (!ctx.fs.stat(python))
      p.details.push_back(python + " is not there yet: needs python3 and python3-venv (installed by an earlier step)");
    p.changes.push_back({{"type", "venv"}, {"action", "create"}, {"path", path}, {"owner", owner}});
    return p;
  }

  // The folder a venv whose Python is gone is moved to, or "".
  std::string aside_for_recreate(const FileSystem& fs) const {
    if (!fs.stat(cfg_path())) return "";
    const PyvenvCfg parsed = parse_pyvenv_cfg(fs.read(cfg_path()));
    return venv_interpreter_gone(fs, parsed).empty() ? "" : recreate_aside_path(fs, path, parsed);
  }

  nlohmann::json snapshot(StepContext& ctx) const override {
    nlohmann::json pre = {{"path", path},
                          {"owner", owner},
                          {"existed", ctx.fs.lstat(path).has_value()},
                          {"was_venv", ctx.fs.stat(cfg_path()).has_value()},
                          {"missing_parents", missing_parents(ctx.fs, path)}};
    // Recorded before apply moves anything: a run killed after the move
    // must find the old venv again.
    if (std::string aside = aside_for_recreate(ctx.fs); !aside.empty()) pre["recreate_aside"] = aside;
    return pre;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan& plan) override {
    // Undo removes what this records, never the path of a manifest loaded
    // again later with another user.
    nlohmann::json data = {{"path", path}, {"owner", owner}, {"created", false}};
    if (plan.verdict != Verdict::change) return data;
    std::string why;
    auto user = find_venv_owner(Accounts(ctx.fs), owner, why);
    if (!user) throw StepFailure(why);
    if (std::string aside = aside_for_recreate(ctx.fs); !aside.empty()) {
      ctx.fs.rename(path, aside);
      data["recreated_aside"] = aside;
      spdlog::info("moved the venv {} (its Python is gone) aside to {}", path, aside);
    }
    bool existed = ctx.fs.lstat(path).has_value();
    auto parents = missing_parents(ctx.fs, path);
    data["existed"] = existed;
    data["parents"] = parents;
    data["created"] = true;  // from here on, what is at PATH is this run's
    if (!parents.empty()) make_dirs_as(ctx, *user, {parents.back()});
    Command c = as_user(*user, {python, "-m", "venv", path}, std::chrono::seconds(600));
    ProcessResult r = ctx.runner.run(c);
    if (!r.ok()) throw StepFailure(venv_failure(c, r));
    if (!ctx.fs.stat(cfg_path()))
      throw StepFailure("`" + c.display() + "` exited 0 but " + cfg_path() + " is not there");
    // What `python -m venv` made, so that a rollback tells it from what the user adds.
    data["skeleton"] = venv_skeleton(ctx.fs, path).to_json();
    ctx.made_by_earlier_steps[path] = {{"created", true}};
    return data;
  }

  // What the venv this transaction created holds now that the transaction
  // did not put there (venv_additions.hpp), or nothing: for a venv that was
  // there before, or an apply that never finished (killed while `python -m
  // venv` ran: nobody can have added anything since).
  VenvAdditions additions(StepContext& ctx, const nlohmann::json& data) const {
    if (data.value("partial", false) || !data.value("created", false)) return {};
    const std::string at = data.value("path", this->path);
    const nlohmann::json made = ctx.made_by_later_steps.value(at, nlohmann::json::object());
    if (made.value("whole", false)) return {};
    const nlohmann::json versions = made.value("versions", nlohmann::json::object());
    std::set<std::string> dists;
    for (const auto& [key, version] : versions.items()) dists.insert(key);
    return venv_additions(ctx.fs, at, skeleton_of(data), dists);
  }

  // The skeleton apply recorded; for a transaction recorded before it did,
  // what `python -m venv` makes by name (pyvenv.cfg, bin/python*, the
  // activate scripts) and pip's own distributions.
  static VenvSkeleton skeleton_of(const nlohmann::json& data) {
    if (data.contains("skeleton")) return VenvSkeleton::from_json(data["skeleton"]);
    VenvSkeleton s;
    s.dists = {"pip", "setuptools", "wheel"};
    s.loose_files = {"pyvenv.cfg", "bin/activate", "bin/activate.csh", "bin/activate.fish", "bin/Activate.ps1"};
    return s;
  }

  std::vector<std::string> drift(StepContext& ctx, const nlohmann::json& data) const override {
    VenvAdditions added = additions(ctx, data);
    if (added.empty()) return {};
    const std::string at = data.value("path", this->path);
    return {at + ": " + added.text() + ", added since this transaction created the venv (rolling back with --force "
            "moves the venv aside to " + moved_aside_path(ctx.fs, at) + " instead of removing it)"};
  }

  std::string venv_failure(const Command& c, const ProcessResult& r) const {
    std::string out = process_failure_message(c, r);
    if ((r.err + r.out).find("ensurepip is not") != std::string::npos)
      out +=
          "\nThe distribution ships venv's pip separately: install python3-venv (`apt install python3-venv`, or "
          "add it to the profile's apt_install step before this one), then run again.";
    else if (r.not_found || r.exit_code == 126 || r.exit_code == 127 ||
             (r.err.find("No such file or directory") != std::string::npos && r.err.find(python) != std::string::npos))
      out += "\n" + python +
             " is not in the root: the profile's earlier apt step must install python3 and "
             "python3-venv.";
    return out;
  }

  void undo(StepContext& ctx, const nlohmann::json& data) override {
    bool existed = false;
    std::vector<std::string> parents;
    const bool partial = data.value("partial", false);
    const std::string at = partial ? data.value("pre", nlohmann::json::object()).value("path", this->path)
                                     : data.value("path", this->path);
    if (partial) {
      const nlohmann::json pre = data.value("pre", nlohmann::json::object());
      if (pre.contains("recreate_aside")) {
        // Killed while recreating: what is at the path is this run's, the
        // old venv (if it was moved) is aside.
        const std::string aside = pre["recreate_aside"].get<std::string>();
        if (ctx.fs.lstat(aside)) {
          if (ctx.fs.lstat(at)) remove_tree(ctx.fs, at);
          ctx.fs.rename(aside, at);
        }
        return;
      }
      if (pre.empty() || pre.value("was_venv", false)) return;  // the venv was there before: nothing is ours
      existed = pre.value("existed", true);
      parents = pre.value("missing_parents", std::vector<std::string>{});
    } else {
      if (!data.value("created", false)) return;
      existed = data.value("existed", true);
      parents = data.value("parents", std::vector<std::string>{});
      // What the user added since is never deleted: the venv goes aside
      // whole (its contents, where the folder was there before), named.
      VenvAdditions added = additions(ctx, data);
      if (!added.empty()) {
        move_aside(ctx, data, at, existed, added);
        put_back_recreated(ctx, data, at);
        return;
      }
    }
    if (existed) {
      // An empty folder that was there: empty it again, keep it.
      if (ctx.fs.lstat(at) && ctx.fs.lstat(at)->type == FileType::directory)
        for (const auto& name : ctx.fs.list(at)) remove_tree(ctx.fs, at + "/" + name);
    } else {
      remove_tree(ctx.fs, at);
    }
    for (auto it = parents.rbegin(); it != parents.rend(); ++it) {
      auto info = ctx.fs.lstat(*it);
      if (info && info->type == FileType::directory && ctx.fs.list(*it).empty()) ctx.fs.remove(*it);
    }
    if (!partial) put_back_recreated(ctx, data, at);
  }

  // The venv whose Python was gone, back in its place once the new one left it.
  static void put_back_recreated(StepContext& ctx, const nlohmann::json& data, const std::string& at) {
    if (!data.contains("recreated_aside")) return;
    const std::string aside = data["recreated_aside"].get<std::string>();
    if (!ctx.fs.lstat(aside)) throw StepFailure("cannot put the old venv back at " + at + ": " + aside + " is gone");
    if (ctx.fs.lstat(at)) throw StepFailure("cannot put the old venv back from " + aside + ": " + at + " is taken");
    ctx.fs.rename(aside, at);
  }

  void move_aside(StepContext& ctx, const nlohmann::json& data, const std::string& at, bool existed,
                  const VenvAdditions& added) {
    const std::string aside = moved_aside_path(ctx.fs, at);
    if (existed) {
      std::string why;
      auto user = find_venv_owner(Accounts(ctx.fs), data.value("owner", owner), why);
      if (!user) throw StepFailure("cannot move the venv " + at + " aside: " + why);
      make_dirs_as(ctx, *user, {aside});
      for (const auto& name : ctx.fs.list(at)) ctx.fs.rename(at + "/" + name, aside + "/" + name);
    } else {
      ctx.fs.rename(at, aside);
    }
    std::string note = "the venv " + at + " that this transaction created held what was added since (" + added.text() +
                       "): it was moved aside to " + aside + ", not removed";
    spdlog::info("{}", note);
    if (ctx.notices) ctx.notices->push_back(note);
  }
};

}  // namespace

std::shared_ptr<Step> make_python_venv_step(StepKeys& keys) {
  auto s = std::make_shared<PythonVenvStep>();
  s->path = normalize_path(keys.required_path("path"));
  s->owner = read_venv_owner(keys);
  if (auto py = keys.optional_path("python")) s->python = normalize_path(*py);
  if (s->path == "/" || s->path.empty()) keys.error("path", "the venv's folder cannot be the root itself");
  return s;
}

}  // namespace wslgpu
