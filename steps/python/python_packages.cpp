#include "steps/python/python_packages.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>

#include "installer/formats/glob.hpp"
#include "installer/formats/python_dist.hpp"
#include "installer/formats/wheel_name.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"
#include "installer/system/units.hpp"
#include "steps/commands/command.hpp"
#include "steps/files/download.hpp"
#include "steps/python/python_common.hpp"

namespace wslgpu {

namespace {

constexpr const char* kCaStore = "/etc/ssl/certs/ca-certificates.crt";

struct WantedPackage {
  std::string name;     // as pip is given it ("torch", "pytorch_triton_rocm")
  std::string key;      // normalize_project_name(name)
  std::string version;  // "" for an index package without one
  std::string url;      // "" for an index package
  std::string sha256;   // lowercase hex, "" when none
};

bool is_alnum_ascii(char c) { return text::is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// PEP 508's name: ^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$, case-insensitive.
bool valid_pep508_name(const std::string& n) {
  if (n.empty() || !is_alnum_ascii(n.front()) || !is_alnum_ascii(n.back())) return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return is_alnum_ascii(c) || c == '.' || c == '_' || c == '-'; });
}

// A PEP 440 version or its prefix pattern as pip reads after "==":
// letters, digits and . + ! _ * , starting with a letter or digit.
bool valid_pip_version(const std::string& v) {
  if (v.empty() || !is_alnum_ascii(v.front())) return false;
  return std::all_of(v.begin(), v.end(), [](char c) {
    return is_alnum_ascii(c) || c == '.' || c == '+' || c == '!' || c == '_' || c == '*';
  });
}

bool is_hex64(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return text::is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

// "" when URL may be given to pip, else why not.
std::string url_problem(const std::string& url) {
  if (url.rfind("https://", 0) != 0 && url.rfind("file://", 0) != 0)
    return "\"" + url + "\" is not an https:// or file:// URL: pip would fetch it without TLS or not at all";
  if (url.find_first_of(" \t\r\n#") != std::string::npos)
    return "\"" + url + "\" holds a space or a '#': give the hash in sha256, and encode spaces as %20";
  return "";
}

std::string wanted_text(const WantedPackage& w) { return w.name + (w.version.empty() ? "" : " " + w.version); }

// VENV's installed distributions by key, from its site-packages for PYTHON.
std::map<std::string, InstalledDist> dists_by_key(const FileSystem& fs, const std::string& site) {
  std::map<std::string, InstalledDist> out;
  for (auto& d : installed_dists(fs, site)) out.emplace(d.key, d);
  return out;
}

class PythonPackagesStep : public Step {
 public:
  std::string venv;
  std::string owner;
  int minor = 0;  // python = "3.MINOR"
  std::string python_text;
  std::vector<WantedPackage> packages;
  std::string index_url;
  std::vector<std::string> find_links;
  std::vector<std::string> remove_files;
  std::string unverified_note;

  std::string site() const { return venv + "/lib/python" + python_text + "/site-packages"; }
  std::string undo_root() const { return venv + "/" + kPythonUndoFolder; }

  // The files of SITE matching remove_files now, as paths relative to it.
  std::vector<std::string> remove_matches(const FileSystem& fs) const {
    std::vector<std::string> out;
    for (const auto& pattern : remove_files) {
      auto slash = pattern.rfind('/');
      std::string dir = slash == std::string::npos ? "" : pattern.substr(0, slash);
      std::string name = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
      std::string folder = dir.empty() ? site() : site() + "/" + dir;
      for (const auto& entry : fs.list(folder)) {
        if (!glob_match(name, entry)) continue;
        auto info = fs.lstat(folder + "/" + entry);
        if (!info || info->type == FileType::directory) continue;
        std::string rel = dir.empty() ? entry : dir + "/" + entry;
        if (std::find(out.begin(), out.end(), rel) == out.end()) out.push_back(rel);
      }
    }
    return out;
  }

  // PEP 440's `==`: a wanted version without a local part ("2.14.1") is
  // satisfied by the same public version with one ("2.14.1+cu130", what a
  // cuXYZ index installs for torch==2.14.1); one with a local part, or a URL
  // package's version from its file name, must match exactly.
  static bool version_satisfies(const std::string& installed, const WantedPackage& w) {
    if (w.version.empty() || installed == w.version) return true;
    if (!w.url.empty() || w.version.find('+') != std::string::npos) return false;
    return installed.compare(0, installed.find('+'), w.version) == 0 && installed.find('+') == w.version.size();
  }

  bool converged(const WantedPackage& w, const std::map<std::string, InstalledDist>& dists) const {
    auto it = dists.find(w.key);
    return it != dists.end() && version_satisfies(it->second.version, w);
  }

  // The bytes a distribution's RECORD says it has: what moving it aside keeps.
  std::uint64_t record_bytes(const FileSystem& fs, const InstalledDist& d) const {
    std::uint64_t total = 0;
    try {
      for (const auto& e : parse_record(fs.read(d.dist_info + "/RECORD")))
        if (!e.size.empty() && std::all_of(e.size.begin(), e.size.end(), text::is_digit)) total += std::stoull(e.size);
    } catch (const std::exception&) {
    }
    return total;
  }

  std::string source_text(const WantedPackage& w) const {
    if (!w.url.empty()) return "from " + w.url;
    if (!index_url.empty()) return "from the index " + index_url;
    return "from the find-links folders";
  }

  std::string hash_text(const WantedPackage& w) const {
    if (w.url.empty()) return "not pinned by hash: the version the index or find-links folder has";
    if (!w.sha256.empty()) return "sha256 " + w.sha256 + " (pip refuses any other file)";
    std::string note = unverified_note.empty() ? "no sha256 given" : unverified_note;
    return "not verified: " + note + (w.url.rfind("file://", 0) == 0 ? "; a local file" : "; TLS only");
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    std::string why;
    auto user = find_venv_owner(ctx.accounts(), owner, why);
    p.fingerprint["user:" + owner] = user ? "uid:" + std::to_string(user->uid) : std::string("absent");
    if (!user) {
      p.verdict = Verdict::refused;
      p.summary = why;
      return p;
    }
    bool venv_there = ctx.fs.stat(venv + "/pyvenv.cfg").has_value();
    std::map<std::string, InstalledDist> dists;
    if (venv_there) {
      std::string version = parse_pyvenv_cfg(ctx.fs.read(venv + "/pyvenv.cfg")).version;
      p.fingerprint["venv:" + venv] = version;
      if (!version.empty() && version != python_text && version.rfind(python_text + ".", 0) != 0) {
        p.verdict = Verdict::refused;
        p.summary = "the venv " + venv + " has Python " + version + ", and this step's packages are for Python " +
                    python_text +
                    ": set python to the venv's version (with wheels for it), or remove the venv so "
                    "that it is made again with the distribution's Python";
        return p;
      }
      dists = dists_by_key(ctx.fs, site());
    } else {
      p.fingerprint["venv:" + venv] = "absent";
    }
    std::vector<std::string> todo, done;
    std::uint64_t kept_bytes = 0;
    std::vector<std::string> kept;
    for (const auto& w : packages) {
      auto it = dists.find(w.key);
      p.fingerprint["python_dist:" + w.key] = it == dists.end() ? std::string("absent") : it->second.version;
      if (converged(w, dists)) {
        done.push_back(it->second.name + " " + it->second.version);
        continue;
      }
      nlohmann::json change = {{"type", "python_package"}, {"name", w.name}, {"version", w.version}};
      std::string what = w.version.empty() ? w.name + " (the newest version the index has that fits)" : wanted_text(w);
      if (it == dists.end()) {
        todo.push_back("install " + what + " " + source_text(w));
        change["action"] = "install";
      } else {
        todo.push_back(it->second.name + " " + it->second.version + " → " + (w.version.empty() ? what : w.version) +
                       " " + source_text(w));
        change["action"] = "replace";
        change["from"] = it->second.version;
        std::uint64_t bytes = record_bytes(ctx.fs, it->second);
        kept_bytes += bytes;
        kept.push_back(it->second.name + " " + it->second.version);
      }
      if (!w.url.empty()) change["url"] = w.url;
      p.changes.push_back(change);
      todo.push_back("  " + hash_text(w));
    }
    auto matches = venv_there ? remove_matches(ctx.fs) : std::vector<std::string>{};
    for (const auto& m : matches)
      p.changes.push_back({{"type", "python_file"}, {"action", "remove"}, {"path", site() + "/" + m}});
    if (p.changes.empty()) {
      p.summary = (done.size() == 1 ? done.front() : std::to_string(done.size()) + " packages") + " installed in " +
                  venv + (remove_files.empty() ? "" : ", none of the files remove_files names");
      if (done.size() > 1) p.details = done;
      return p;
    }
    p.verdict = Verdict::change;
    std::size_t n = static_cast<std::size_t>(std::count_if(
        p.changes.begin(), p.changes.end(), [](const auto& c) { return c.value("type", "") == "python_package"; }));
    p.summary = n > 0 ? "install " + std::to_string(n) + " Python package" + (n == 1 ? "" : "s") + " into " + venv +
                            " as " + owner
                      : "remove " + std::to_string(matches.size()) + " file" + (matches.size() == 1 ? "" : "s") +
                            " from " + venv;
    p.activity =
        n > 0 ? "pip installing " + std::to_string(n) + " package" + (n == 1 ? "" : "s") + " into " + venv : p.summary;
    p.details = todo;
    if (!venv_there)
      p.details.push_back("the venv " + venv + " does not exist yet (an earlier python_venv step makes it)");
    if (!done.empty())
      p.details.push_back("already installed: " + [&] {
        std::string s;
        for (const auto& d : done) s += (s.empty() ? "" : ", ") + d;
        return s;
      }());
    for (const auto& m : matches) p.details.push_back("remove " + m + " from site-packages (kept for undo)");
    if (n > 0)
      for (const auto& r : remove_files) p.details.push_back("after pip: remove what matches " + r);
    if (!kept.empty()) {
      std::string names;
      for (const auto& k : kept) names += (names.empty() ? "" : ", ") + k;
      p.details.push_back("space kept for undo: " + human_size(kept_bytes) + " (" + names + "), moved to " +
                          undo_root() + "/ and kept there after the install, for rollback");
    }
    if (index_url.empty() &&
        std::any_of(packages.begin(), packages.end(), [](const auto& w) { return w.url.empty(); }) &&
        find_links.empty())
      p.details.push_back("no index_url or find_links: pip runs with --no-index and finds only what is given by URL");
    return p;
  }

  nlohmann::json snapshot(StepContext& ctx) const override {
    nlohmann::json dists = nlohmann::json::object();
    for (const auto& [key, d] : dists_by_key(ctx.fs, site())) dists[key] = {{"name", d.name}, {"version", d.version}};
    return {{"dists", dists}, {"undo_dirs", ctx.fs.list(undo_root())}};
  }

  // Moves MOVES ({"from", "to"} target paths) with the folders they need
  // made as USER; the undo direction when BACK.
  void carry_out(StepContext& ctx, const UserEntry& user, const nlohmann::json& moves, bool back) const {
    std::vector<std::pair<std::string, std::string>> todo;
    std::set<std::string> dirs;
    for (const auto& m : moves) {
      std::string from = m.at(back ? "to" : "from").get<std::string>();
      std::string to = m.at(back ? "from" : "to").get<std::string>();
      // Done already, or never started. Moving back, a file the new version
      // left in the old one's place is replaced; a folder there is kept.
      if (!ctx.fs.lstat(from)) continue;
      if (auto there = ctx.fs.lstat(to); there && (!back || there->type == FileType::directory)) continue;
      if (!ctx.fs.lstat(parent_path(to))) dirs.insert(parent_path(to));
      todo.emplace_back(from, to);
    }
    if (!dirs.empty()) make_dirs_as(ctx, user, std::vector<std::string>(dirs.begin(), dirs.end()));
    for (const auto& [from, to] : todo) ctx.fs.rename(from, to);
  }

  // Where FROM (inside the venv) goes inside UNDO_DIR.
  std::string aside(const std::string& undo_dir, const std::string& from) const {
    return undo_dir + from.substr(venv.size());
  }

  void save_moves(StepContext& ctx, const UserEntry& user, const std::string& undo_dir,
                  const nlohmann::json& moves) const {
    ctx.fs.write_atomic(undo_dir + "/moves.json", moves.dump(1) + "\n", FileAttrs{0644, user.uid, user.gid});
  }

  // The moves that set the old distribution D aside: its .dist-info as one
  // folder, and every file its RECORD names inside the venv.
  nlohmann::json moves_for(const FileSystem& fs, const InstalledDist& d, const std::string& undo_dir) const {
    nlohmann::json moves = nlohmann::json::array();
    auto add = [&](const std::string& from) {
      moves.push_back({{"from", from},
                       {"to", aside(undo_dir, from)},
                       {"why", "replaced"},
                       {"dist", d.key},
                       {"version", d.version}});
    };
    std::vector<RecordEntry> record;
    try {
      record = parse_record(fs.read(d.dist_info + "/RECORD"));
    } catch (const StepFailure&) {
    }
    std::string site_dir = parent_path(d.dist_info);
    std::set<std::string> seen;
    for (const auto& e : record) {
      // "../../../bin/torchrun" is the venv's bin/; nothing outside the venv moves.
      std::string resolved = record_target(site_dir, e.path);
      if (resolved.rfind(venv + "/", 0) != 0 || resolved.rfind(undo_root() + "/", 0) == 0) continue;
      if (resolved.rfind(d.dist_info + "/", 0) == 0) continue;  // moves with its folder
      auto info = fs.lstat(resolved);
      if (!info || info->type == FileType::directory || !seen.insert(resolved).second) continue;
      add(resolved);
    }
    add(d.dist_info);
    return moves;
  }

  Command pip(const UserEntry& user, std::vector<std::string> args) const {
    std::vector<std::string> argv = {venv + "/bin/python", "-m", "pip"};
    argv.insert(argv.end(), args.begin(), args.end());
    return as_user(user, argv, std::chrono::seconds(3600));
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan& plan) override {
    // The moves themselves (thousands for torch) stay in UNDO_DIR/moves.json,
    // not in the journal: undo needs that folder's files anyway.
    nlohmann::json data = {{"venv", venv}, {"pre", snapshot(ctx)}};
    if (plan.verdict != Verdict::change) return data;
    std::string why;
    auto user = find_venv_owner(Accounts(ctx.fs), owner, why);
    if (!user) throw StepFailure(why);
    auto dists = dists_by_key(ctx.fs, site());
    std::vector<const WantedPackage*> todo;
    for (const auto& w : packages)
      if (!converged(w, dists)) todo.push_back(&w);

    static thread_local std::mt19937_64 rng{std::random_device{}()};
    std::string undo_dir = undo_root() + "/" +
                           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count()) +
                           "-" + std::to_string(rng() % 1000000);
    data["undo_dir"] = undo_dir;
    nlohmann::json moves = nlohmann::json::array();
    for (const auto* w : todo) {
      auto it = dists.find(w->key);
      if (it == dists.end()) continue;
      for (auto& m : moves_for(ctx.fs, it->second, undo_dir)) moves.push_back(m);
    }
    if (!moves.empty()) {
      // The list first, so that a run killed halfway through the renames
      // can still be undone from the snapshot.
      make_dirs_as(ctx, *user, {undo_dir});
      save_moves(ctx, *user, undo_dir, moves);
      carry_out(ctx, *user, moves, false);
    }

    if (!todo.empty()) {
      std::vector<std::string> args = {"install", "--isolated", "--no-input", "--disable-pip-version-check",
                                       "--no-cache-dir"};
      if (ctx.fs.stat(kCaStore)) args.insert(args.end(), {"--cert", kCaStore});
      if (!index_url.empty())
        args.insert(args.end(), {"--index-url", index_url});
      else
        args.push_back("--no-index");
      for (const auto& f : find_links) args.insert(args.end(), {"--find-links", f});
      for (const auto* w : todo) {
        if (!w->url.empty())
          args.push_back(w->name + " @ " + w->url + (w->sha256.empty() ? "" : "#sha256=" + w->sha256));
        else
          args.push_back(w->version.empty() ? w->name : w->name + "==" + w->version);
      }
      Command c = pip(*user, args);
      if (ctx.progress) {
        ProgressSink* sink = ctx.progress;
        auto item = std::make_shared<std::size_t>(0);
        std::size_t items = todo.size();
        c.on_stdout_line = [sink, item, items](const std::string& line) {
          std::string_view t = text::trim(line);
          if (t.empty()) return;
          ProgressEvent ev;
          ev.phase = t.rfind("Downloading", 0) == 0 ? ProgressEvent::Phase::download : ProgressEvent::Phase::work;
          if (t.rfind("Collecting", 0) == 0 || t.rfind("Processing", 0) == 0) ++*item;
          ev.subject = std::string(t);
          ev.item = std::min(*item, items);
          ev.items = items;
          sink->update(ev);
        };
      }
      ProcessResult r = ctx.runner.run(c);
      if (!r.ok()) throw StepFailure(pip_failure(c, r));
    }

    // Then what remove_files names, from the files pip has just written.
    auto matches = remove_matches(ctx.fs);
    if (!matches.empty()) {
      auto now = dists_by_key(ctx.fs, site());
      nlohmann::json removed = nlohmann::json::array();
      for (const auto& rel : matches) {
        std::string from = site() + "/" + rel;
        nlohmann::json m = {{"from", from}, {"to", aside(undo_dir, from)}, {"why", "remove_files"}};
        // Whose file it is, from the RECORDs: undo puts it back only while
        // that version is installed.
        for (const auto& [key, d] : now) {
          bool listed = false;
          try {
            for (const auto& e : parse_record(ctx.fs.read(d.dist_info + "/RECORD")))
              if (record_target(site(), e.path) == from) listed = true;
          } catch (const StepFailure&) {
          }
          if (listed) {
            m["dist"] = key;
            m["version"] = d.version;
            break;
          }
        }
        removed.push_back(m);
        moves.push_back(m);
      }
      make_dirs_as(ctx, *user, {undo_dir});
      save_moves(ctx, *user, undo_dir, moves);
      carry_out(ctx, *user, removed, false);
    }
    return data;
  }

  std::string pip_failure(const Command& c, const ProcessResult& r) const {
    // pip's own words, the hash mismatch's expected and got lines included:
    // the last dozen lines of what it wrote.
    std::string text = r.err.find_first_not_of(" \t\r\n") == std::string::npos ? r.out : r.err;
    std::vector<std::string> lines = wslgpu::text::output_lines(text);
    if (r.not_found || r.timed_out || lines.empty()) return process_failure_message(c, r);
    std::string out =
        "pip could not install into " + venv + " (`" + c.display() + "` exited " + std::to_string(r.exit_code) + "):";
    constexpr std::size_t keep = 12;
    for (std::size_t i = lines.size() > keep ? lines.size() - keep : 0; i < lines.size(); ++i) out += "\n  " + lines[i];
    if (text.find("DO NOT MATCH THE HASHES") != std::string::npos)
      out +=
          "\nThe file at the URL is not the one the manifest pins: nothing was installed. Check the sha256 "
          "against the vendor's, or the URL.";
    return out;
  }

  void undo(StepContext& ctx, const nlohmann::json& data) override {
    nlohmann::json pre;
    nlohmann::json moves = nlohmann::json::array();
    std::vector<std::string> undo_dirs;
    if (data.value("partial", false)) {
      pre = data.value("pre", nlohmann::json::object());
      if (!pre.contains("dists")) return;
      auto before = pre.value("undo_dirs", std::vector<std::string>{});
      for (const auto& name : ctx.fs.list(undo_root())) {
        if (std::find(before.begin(), before.end(), name) != before.end()) continue;
        std::string dir = undo_root() + "/" + name;
        undo_dirs.push_back(dir);
        try {
          for (auto& m : nlohmann::json::parse(ctx.fs.read(dir + "/moves.json"))) moves.push_back(m);
        } catch (const std::exception&) {
          // No list yet: apply was killed before it moved anything.
        }
      }
    } else {
      pre = data.value("pre", nlohmann::json::object());
      if (data.contains("undo_dir")) {
        std::string dir = data["undo_dir"].get<std::string>();
        undo_dirs.push_back(dir);
        try {
          if (ctx.fs.stat(dir + "/moves.json")) moves = nlohmann::json::parse(ctx.fs.read(dir + "/moves.json"));
        } catch (const std::exception& e) {
          throw StepFailure("cannot read what apply moved aside, " + dir + "/moves.json: " + e.what() +
                            "; the old files are in " + dir);
        }
      }
    }
    const nlohmann::json before = pre.value("dists", nlohmann::json::object());
    std::set<std::string> set_aside;  // keys whose old files apply moved aside
    for (const auto& m : moves)
      if (m.value("why", "") == "replaced") set_aside.insert(m.value("dist", ""));

    Accounts accounts(ctx.fs);
    auto user = accounts.user(owner);
    if (!user)
      throw StepFailure("cannot undo the packages of " + venv + ": user " + owner + " is gone from /etc/passwd");
    std::vector<std::string> problems;

    // 1. What pip installed in place of what was there: uninstalled.
    std::vector<std::string> uninstall;
    for (const auto& [key, d] : dists_by_key(ctx.fs, site())) {
      bool absent_before = !before.contains(key);
      bool changed = !absent_before && before[key].value("version", "") != d.version;
      if (absent_before || (changed && set_aside.count(key))) uninstall.push_back(d.name);
    }
    if (!uninstall.empty() && ctx.fs.stat(venv + "/bin/python")) {
      std::vector<std::string> args = {"uninstall", "-y", "--isolated", "--no-input", "--disable-pip-version-check"};
      args.insert(args.end(), uninstall.begin(), uninstall.end());
      Command c = pip(*user, args);
      ProcessResult r = ctx.runner.run(c);
      if (!r.ok()) problems.push_back(process_failure_message(c, r));
    }

    // 2. The old versions' files, back where they were.
    nlohmann::json replaced = nlohmann::json::array(), removed = nlohmann::json::array();
    for (const auto& m : moves) (m.value("why", "") == "replaced" ? replaced : removed).push_back(m);
    try {
      carry_out(ctx, *user, replaced, true);
    } catch (const StepFailure& e) {
      problems.push_back(e.what());
    }

    // 3. Files remove_files took, while their distribution is the version they came from.
    auto now = dists_by_key(ctx.fs, site());
    nlohmann::json back = nlohmann::json::array();
    for (const auto& m : removed) {
      // A file no RECORD listed belongs to nobody's version: it goes back.
      auto it = now.find(m.value("dist", ""));
      if (!m.contains("dist") || (it != now.end() && it->second.version == m.value("version", ""))) back.push_back(m);
    }
    try {
      carry_out(ctx, *user, back, true);
    } catch (const StepFailure& e) {
      problems.push_back(e.what());
    }
    if (!problems.empty()) {
      std::string all;
      for (const auto& p : problems) all += (all.empty() ? "" : "\n") + p;
      throw StepFailure(all);
    }
    // 4. Nothing left to put back: the folders go.
    for (const auto& dir : undo_dirs) remove_tree(ctx.fs, dir);
    if (ctx.fs.lstat(undo_root()) && ctx.fs.list(undo_root()).empty()) ctx.fs.remove(undo_root());
  }
};

// Reads one entry of `packages` (a table) into W; false after reporting why not.
bool read_package_entry(StepKeys& keys, const toml::node& item, const PythonTarget& target,
                        const std::string& python_text, WantedPackage& w) {
  if (!item.is_table()) {
    keys.error_at(keys.pos_of(item),
                  "each entry of \"packages\" must be an inline table such as { url = \"...\", "
                  "sha256 = \"...\" } or { name = \"numpy\", version = \"1.26.4\" }, not " +
                      toml_type_name(item));
    return false;
  }
  const toml::table& t = *item.as_table();
  bool ok = true;
  auto str = [&](const char* key) -> std::optional<std::string> {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) {
      keys.error_at(keys.pos_of(*n),
                    std::string("\"") + key + "\" of a package must be a string, not " + toml_type_name(*n));
      ok = false;
      return std::nullopt;
    }
    return keys.substitute_node(*n);
  };
  for (const auto& [k, v] : t) {
    std::string name(k.str());
    if (name != "url" && name != "sha256" && name != "name" && name != "version") {
      keys.error_at(keys.pos_of(v), "unknown key \"" + name +
                                        "\" in a package entry: a package has url and sha256, "
                                        "or name and version");
      ok = false;
    }
  }
  auto url = str("url"), sha = str("sha256"), name = str("name"), version = str("version");
  if (!ok) return false;
  if (url && name) {
    keys.error_at(keys.pos_of(*t.get("name")),
                  "a package has url (its name and version come from the wheel's file "
                  "name) or name, not both");
    return false;
  }
  if (!url && !name) {
    keys.error_at(keys.pos_of(item), "a package needs url (a wheel) or name (from index_url or find_links)");
    return false;
  }
  if (url) {
    if (version) {
      keys.error_at(keys.pos_of(*t.get("version")), "a package given by url takes its version from the wheel's name");
      return false;
    }
    const toml::node& url_node = *t.get("url");
    if (auto why = url_problem(*url); !why.empty()) {
      keys.error_at(keys.pos_of(url_node), why);
      return false;
    }
    std::string error;
    auto wheel = parse_wheel_name(url_file_name(*url), error);
    if (!wheel) {
      keys.error_at(keys.pos_of(url_node), "the URL's file " + error);
      return false;
    }
    std::string why;
    if (!wheel_runs_on(*wheel, target, why)) {
      keys.error_at(keys.pos_of(url_node), "the wheel " + percent_decode(url_file_name(*url)) +
                                               " cannot run on this step's Python " + python_text + " (" + why +
                                               "): use the wheel for cp" + std::to_string(target.major) +
                                               std::to_string(target.minor) + ", or set python to the venv's version");
      return false;
    }
    w.url = *url;
    w.name = wheel->distribution;
    w.version = wheel->version;
    if (sha && !sha->empty()) {
      if (!is_hex64(*sha)) {
        keys.error_at(keys.pos_of(*t.get("sha256")), "\"" + *sha +
                                                         "\" is not a SHA-256: it must be 64 hex digits "
                                                         "(or \"\" for none, with unverified_note saying why)");
        return false;
      }
      w.sha256 = text::lower(*sha);
    }
  } else {
    if (sha) {
      keys.error_at(keys.pos_of(*t.get("sha256")),
                    "sha256 goes with url: pip checks an index package's hash from "
                    "the index itself");
      return false;
    }
    if (!valid_pep508_name(*name)) {
      keys.error_at(keys.pos_of(*t.get("name")), "\"" + *name +
                                                     "\" is not a package name (PEP 508: letters, digits, "
                                                     "'.', '_' and '-', starting and ending with a letter or digit)");
      return false;
    }
    w.name = *name;
    w.version = version.value_or("");
    if (!w.version.empty() && !valid_pip_version(w.version)) {
      keys.error_at(keys.pos_of(*t.get("version")), "\"" + w.version +
                                                        "\" is not a version (PEP 440, such as "
                                                        "\"1.26.4\"; \"\" for whatever the index has that fits)");
      return false;
    }
  }
  w.key = normalize_project_name(w.name);
  return true;
}

// A list of URLs for pip (find_links), each checked where it is written.
std::vector<std::string> read_url_list(StepKeys& keys, const std::string& key) {
  std::vector<std::string> out;
  const toml::node* n = keys.node(key);
  if (!n) return out;
  if (!n->is_array()) {
    keys.error(key, "\"" + key + "\" must be an array of strings, not " + toml_type_name(*n));
    return out;
  }
  for (const toml::node& item : *n->as_array()) {
    if (!item.is_string()) {
      keys.error_at(keys.pos_of(item), "\"" + key + "\" must hold only strings, not " + toml_type_name(item));
      continue;
    }
    std::string url = keys.substitute_node(item);
    if (auto why = url_problem(url); !why.empty())
      keys.error_at(keys.pos_of(item), why);
    else
      out.push_back(url);
  }
  return out;
}

}  // namespace

std::shared_ptr<Step> make_python_packages_step(StepKeys& keys) {
  auto s = std::make_shared<PythonPackagesStep>();
  s->venv = normalize_path(keys.required_path("venv"));
  s->owner = read_venv_owner(keys);
  s->python_text = keys.required_string("python");
  PythonTarget target;
  {
    const std::string& v = s->python_text;
    auto dot = v.find('.');
    bool ok = dot == 1 && v[0] == '3' && dot + 1 < v.size() && v.size() <= 4 &&
              std::all_of(v.begin() + 2, v.end(), text::is_digit);
    if (!ok) {
      if (keys.has("python") && keys.node("python")->is_string())
        keys.error("python", "\"" + v +
                                 "\" is not a Python version such as \"3.12\" (major.minor, the venv's "
                                 "Python the wheels are for)");
    } else {
      target.minor = std::stoi(v.substr(2));
      s->minor = target.minor;
    }
  }
  if (auto idx = keys.optional_string("index_url")) {
    if (auto why = url_problem(*idx); !why.empty()) keys.error("index_url", why);
    s->index_url = *idx;
  }
  s->find_links = read_url_list(keys, "find_links");
  const toml::node* list = keys.node("packages");
  if (!list) {
    keys.error("packages", "step kind \"python_packages\" needs the key \"packages\"");
  } else if (!list->is_array() || list->as_array()->empty()) {
    keys.error("packages", "\"packages\" must be a non-empty array of inline tables, not " +
                               (list->is_array() ? std::string("an empty array") : toml_type_name(*list)));
  } else if (s->minor > 0) {
    for (const toml::node& item : *list->as_array()) {
      WantedPackage w;
      if (!read_package_entry(keys, item, target, s->python_text, w)) continue;
      bool twice = std::any_of(s->packages.begin(), s->packages.end(), [&](const auto& o) { return o.key == w.key; });
      if (twice)
        keys.error_at(keys.pos_of(item), "the package " + w.name + " is listed twice");
      else
        s->packages.push_back(w);
    }
  }
  if (const toml::node* rf = keys.node("remove_files")) {
    if (!rf->is_array()) {
      keys.error("remove_files", "\"remove_files\" must be an array of strings, not " + toml_type_name(*rf));
    } else {
      for (const toml::node& item : *rf->as_array()) {
        if (!item.is_string()) {
          keys.error_at(keys.pos_of(item), "\"remove_files\" must hold only strings, not " + toml_type_name(item));
          continue;
        }
        std::string g = keys.substitute_node(item);
        auto slash = g.rfind('/');
        std::string dir = slash == std::string::npos ? "" : g.substr(0, slash);
        bool dotdot =
            ("/" + g + "/").find("/../") != std::string::npos || ("/" + g + "/").find("/./") != std::string::npos;
        if (g.empty() || g.front() == '/' || dotdot || dir.find_first_of("*?") != std::string::npos ||
            g.back() == '/') {
          keys.error_at(keys.pos_of(item),
                        "\"" + g +
                            "\" must be a path relative to site-packages, without '.' or "
                            "'..', with '*' and '?' only in its last part (\"torch/lib/libhsa-runtime64.so*\")");
          continue;
        }
        s->remove_files.push_back(g);
      }
    }
  }
  s->unverified_note = keys.string_or("unverified_note", "");
  return s;
}

}  // namespace wslgpu
