#include "installer/cli/commands.hpp"
#include "installer/system/paths.hpp"

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>
#include <toml++/toml.h>

#include "installer/cli/progress_display.hpp"
#include "installer/guards/disk_space.hpp"
#include "installer/guards/guards.hpp"
#include "installer/host/gpu_vendor.hpp"
#include "installer/host/host.hpp"
#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/defaults_changed.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/manifest/step_kind.hpp"
#include "installer/manifest/toml_input.hpp"
#include "installer/plan/plan_output.hpp"
#include "installer/planner/planner.hpp"
#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/process.hpp"
#include "installer/system/text.hpp"
#include "installer/transaction/lock.hpp"
#include "installer/transaction/state_format.hpp"
#include "installer/transaction/transaction.hpp"
#include "installer/undo/retention.hpp"
#include "installer/undo/undo_store.hpp"
#include "installer/system/units.hpp"

namespace wslgpu {

namespace {

constexpr int kSavedPlanFormat = 1;

// The program as the user typed it (argv[0]), for the commands we suggest.
std::string program(const GlobalOptions& g) { return g.argv.empty() ? "wslgpu-setup" : text::shell_word(g.argv[0]); }

// " --root DIR" when the command acts on another root than /, else "".
std::string root_option(const GlobalOptions& g) { return g.root == "/" ? "" : " --root " + text::shell_word(g.root); }

// This very command again, as root: what to type after a refusal for want of it.
std::string again_with_sudo(const GlobalOptions& g) {
  std::string out = "sudo " + program(g);
  for (std::size_t i = 1; i < g.argv.size(); ++i) out += " " + text::shell_word(g.argv[i]);
  return out;
}

// install, rollback and recover change the machine. Without root they are
// refused here, by the root guard (exit 3), before they touch the state
// folder or the lock, whose files only root may write: otherwise the first
// thing the user saw was a permission error and the exit status of a failed
// step.
void refuse_unless_root(const GlobalOptions& g, const std::string& command) {
  if (::geteuid() == 0) return;
  throw Refusal("refused by guard root: `wslgpu-setup " + command +
                "` changes the machine and must run as root; nothing was changed.\n  Run it again with sudo: " +
                again_with_sudo(g));
}

// The command that applies exactly the plan that PROFILE_ARG and G's options
// shaped, quoted for a shell: without the --set values, say, install would
// apply the profile's defaults instead.
std::string apply_command(const GlobalOptions& g, const std::string& profile_arg) {
  std::string out = "sudo " + program(g) + " install " + text::shell_word(profile_arg);
  auto option = [&](const char* name, const std::string& value) {
    out += std::string(" ") + name + " " + text::shell_word(value);
  };
  if (g.root != "/") option("--root", g.root);
  if (!g.user.empty()) option("--user", g.user);
  if (!g.windows_home.empty()) option("--windows-home", g.windows_home);
  for (const auto& set : g.sets) option("--set", set);
  if (g.not_wsl) out += " --not-wsl";
  if (g.unsupported_distro) out += " --unsupported-distro";
  return out;
}

// The machine a command acts on: its files, its processes and its facts.
struct Session {
  RootedFileSystem fs;
  RealProcessRunner runner;
  HostFacts host;

  explicit Session(const GlobalOptions& g) : fs((check_root(g.root), g.root)), runner(g.root) {
    HostOptions options;
    options.user = g.user;
    options.windows_home = g.windows_home;
    if (const char* sudo_user = std::getenv("SUDO_USER")) options.sudo_user = sudo_user;
    host = probe_host(fs, g.root, options);
    // Only for manifests that name host.nvidia_*: one run, with a timeout.
    host.nvidia_driver = std::make_shared<const LazyNvidiaDriver>(
        [this] { return probe_nvidia_driver(fs, runner, std::chrono::seconds(10)); });
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

// Everything needed to resolve a plan again later: stored as plan.json in
// each transaction and written by `plan --out`.
nlohmann::json plan_record(const GlobalOptions& g, const ManifestSource& source, const Plan& plan) {
  nlohmann::json chosen = nlohmann::json::object();
  for (const auto& c : plan.choices) chosen[c.variable] = c.value;
  nlohmann::json fingerprints = nlohmann::json::object();
  for (const auto& s : plan.steps) fingerprints[s.id] = {{"action", verdict_name(s.plan.verdict)},
                                                          {"facts", s.plan.fingerprint},
                                                          {"changes", s.plan.changes}};
  return {{"saved_plan_format", kSavedPlanFormat},
          {"state_format", kStateFormat},
          {"tool_version", WSLGPU_VERSION},
          {"root", g.root},
          {"source", source.display},
          {"manifest_text", source.text},
          {"base_source", source.base_display},
          {"base_text", source.base_text},
          {"sets", parse_sets(g.sets)},
          {"user", g.user},
          {"windows_home", g.windows_home},
          {"not_wsl", g.not_wsl},
          {"unsupported_distro", g.unsupported_distro},
          {"choices", chosen},
          {"fingerprints", fingerprints},
          {"plan", plan_to_json(plan)}};
}

// The manifest a saved plan or a transaction recorded (a layer with its base).
ManifestSource recorded_source(const nlohmann::json& record) {
  return {record.value("source", ""), record.value("manifest_text", ""), false, record.value("base_source", ""),
          record.value("base_text", "")};
}

struct Resolved {
  ManifestSource source;
  Manifest manifest;
  Plan plan;
};

// CHOSEN: [matrix] rows a transaction recorded (resume), else empty.
Resolved resolve(const GlobalOptions& g, Session& s, ManifestSource source, const Variables& sets, bool changing,
                 const std::map<std::string, std::string>& chosen = {}) {
  Manifest manifest = load_manifest(source, sets, s.host, LoadOptions{g.unsupported_distro, chosen});
  // A layer's base as loaded now: what the record keeps, so that undo and
  // resume read the same profile after an upgrade changed the bundled one.
  source.base_display = manifest.base_source;
  source.base_text = manifest.base_text;
  Plan plan = resolve_plan(manifest, source.display, s.fs, s.runner, s.host);
  GuardOptions guard_options{g.not_wsl, changing, ::geteuid() == 0, g.unsupported_distro};
  plan.refusals = guard_environment(s.host, manifest.guards, manifest.vars, s.fs, guard_options);
  plan.warnings = guard_warnings(s.host, manifest.guards, manifest.vars);
  for (auto& refusal : guard_disk_space(plan, s.fs)) plan.refusals.push_back(std::move(refusal));
  return {std::move(source), std::move(manifest), std::move(plan)};
}

// What the profile's defaults changed since the transaction that last
// provisioned the machine with R's profile (installer/manifest/defaults_changed.hpp):
// today's profile is loaded once more with that run's --set values, so that
// what differs is the profile's doing. Without root the transactions cannot
// be read: then nothing, as for a machine never provisioned (install, which
// needs root, says it).
std::optional<DefaultsChanged> since_provisioned(const GlobalOptions& g, Session& s, const Resolved& r) {
  std::optional<Transactions::CommittedRun> last;
  try {
    last = Transactions(s.fs, s.runner, s.host, kStateDir).last_committed(r.manifest.name);
  } catch (const TransactionsNeedRoot& e) {
    spdlog::debug("cannot compare with the last install: {}", e.what());
  }
  if (!last) return std::nullopt;
  auto then = provisioned_from(last->summary.id, last->summary.time, last->plan_record);
  if (!then) return std::nullopt;
  // A --set of a variable the profile no longer has cannot be asked again.
  Variables sets;
  for (const auto& [name, value] : then->sets)
    if (r.manifest.vars.count(name)) sets[name] = value;
  // Asked the same way as now (the common case): today's load is that one.
  if (sets == parse_sets(g.sets)) return defaults_changed(r.manifest, r.manifest, r.source, *then);
  try {
    Manifest as_then = load_manifest(r.source, sets, s.host, LoadOptions{g.unsupported_distro, {}});
    return defaults_changed(r.manifest, as_then, r.source, *then);
  } catch (const InputError& e) {
    spdlog::debug("cannot ask the profile as transaction {} did: {}", then->transaction, e.what());
    return std::nullopt;
  }
}

// Re-creates the manifest a transaction ran, for its step objects.
Manifest manifest_of(const Journal& journal, Session& s) {
  nlohmann::json record = journal.read_plan();
  ManifestSource source = recorded_source(record);
  return load_manifest(source, record.value("sets", Variables{}), s.host,
                       LoadOptions{record.value("unsupported_distro", false),
                                   record.value("choices", std::map<std::string, std::string>{})});
}

// Reads the answer with poll and read rather than std::getline, so that a
// Ctrl-C at the question is noticed at once (the signal handler restarts
// reads, and getline would wait for Enter).
bool confirm(const std::string& question) {
  std::cout << question << " [y/N] " << std::flush;
  std::string answer;
  for (;;) {
    if (interrupt_signal()) {
      std::cout << "\n";
      return false;
    }
    pollfd in{STDIN_FILENO, POLLIN, 0};
    int n = ::poll(&in, 1, 1000);
    if (n <= 0) continue;  // EINTR from the signal, or nothing yet
    char c = 0;
    ssize_t got = ::read(STDIN_FILENO, &c, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || c == '\n') break;
    answer += c;
  }
  return answer == "y" || answer == "Y" || answer == "yes";
}

// What the signal handler says at once (installer/system/interrupt.hpp);
// the leading line break moves off a progress line.
constexpr const char* kChangeInterrupted =
    "\nwslgpu-setup: interrupted: the step in progress is let reach a safe point, then everything this run did is "
    "undone. Please wait.\n";
constexpr const char* kChangeAgain =
    "\nwslgpu-setup: still finishing safely: stopping apt or dpkg halfway would leave the machine broken, so the "
    "step in progress ends first, then the run is undone. (kill -9 would leave it for `recover`.)\n";
constexpr const char* kRollbackInterrupted =
    "\nwslgpu-setup: interrupted: the rollback goes on to its end, since stopping it halfway would leave the "
    "machine half undone. Please wait.\n";
constexpr const char* kRollbackAgain = "\nwslgpu-setup: still finishing the rollback safely; please wait.\n";
constexpr const char* kPlanInterrupted = "\nwslgpu-setup: interrupted; nothing has been changed.\n";

bool interactive(const ChangeOptions& o) { return !o.yes && o.output == OutputFormat::text && ::isatty(STDIN_FILENO); }

std::string refusal_text(const Plan& plan) {
  std::string out;
  for (const auto& r : plan.refusals) out += "error: " + r + "\n";
  for (const auto& s : plan.steps) {
    if (s.plan.verdict != Verdict::refused) continue;
    out += "error: step " + std::to_string(s.index) + " \"" + s.id + "\": " + s.plan.summary + "\n";
    for (const auto& d : s.plan.details) out += "  " + d + "\n";
  }
  // A refusal about a release the user did not name says which one was chosen.
  for (const auto& c : plan.choices)
    if (c.how == "auto" || c.how == "fallback")
      out += "Chose " + c.variable + "=" + c.value + " (" + c.how + ")" + (c.why.empty() ? "" : ": " + c.why) + "\n";
  return out + "Nothing was changed (exit 3).\n";
}

nlohmann::json result_json(const RunResult& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps)
    steps.push_back({{"id", s.id}, {"kind", s.kind}, {"changed", s.changed}, {"failed", s.failed}, {"msg", s.msg},
                     {"diff", s.diff}});
  nlohmann::json doc = {{"changed", r.changed},   {"failed", r.failed}, {"rc", r.rc},
                        {"transaction_id", r.transaction_id},
                        {"steps", steps},         {"undone", r.undone}, {"notices", r.notices}, {"error", r.error}};
  if (!r.undo_error.empty()) doc["undo_error"] = r.undo_error;
  if (r.interrupted) doc["interrupted"] = signal_name(r.interrupted);
  return doc;
}

// The terminal's width for the progress line, 0 when unknown.
std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

// What people see while a run works: each step's start, its progress while
// a long program runs, and its result. Nothing in JSON mode or with -q.
RunCallbacks text_callbacks(const GlobalOptions& g, bool enabled) {
  RunCallbacks cb;
  if (!enabled || g.verbosity < 0) return cb;
  const char* term = std::getenv("TERM");
  bool terminal = ::isatty(STDOUT_FILENO) && !(term && std::string(term) == "dumb");
  auto display = std::make_shared<ProgressDisplay>(
      std::cout, terminal ? ProgressDisplay::Mode::terminal : ProgressDisplay::Mode::lines, terminal ? terminal_width() : 0);
  cb.progress = display.get();  // the lambdas below keep it alive as long as CB
  cb.step_started = [display](std::size_t index, std::size_t total, const std::string& id, const std::string& activity) {
    display->step_started(index, total, id, activity);
  };
  cb.step_finished = [g, display](const StepReport& r) {
    display->clear();
    if (!r.changed && !r.failed && r.msg.rfind("ok: ", 0) != 0 && r.msg.find("check failed") == std::string::npos)
      return;
    std::string status = r.failed ? paint({g.color, false}, "1;31", "failed: " + r.msg)
                         : r.changed ? paint({g.color, false}, "33", "changed")
                                     : r.msg;
    std::cout << "  " << r.id << std::string(r.id.size() < 20 ? 20 - r.id.size() : 1, ' ') << status << "\n"
              << std::flush;
  };
  cb.undo_started = [display](const std::string& id) { display->undo_started(id); };
  cb.step_undone = [display](const std::string& id, const std::string& what) {
    display->clear();
    std::cout << "  undo " << id << ": " << what << "\n" << std::flush;
  };
  return cb;
}

// EXTRA: fields added to the JSON result (install's profile_choice).
int finish_run(const GlobalOptions& g, const ChangeOptions& o, const RunResult& r, const std::string& verb,
               const nlohmann::json& extra = nlohmann::json::object()) {
  if (o.output == OutputFormat::json) {
    nlohmann::json doc = result_json(r);
    doc.update(extra);
    std::cout << doc.dump(2) << "\n";
    return r.rc;
  }
  if (g.verbosity < 0) {
    if (!r.undo_error.empty())
      std::cerr << "error: " << r.error << "; then the rollback stopped: " << r.undo_error
                << " (half undone: recover --rollback; exit " << r.rc << ")\n";
    else if (r.failed)
      std::cerr << "error: " << r.error << " (rolled back; exit " << r.rc << ")\n";
    return r.rc;
  }
  if (!r.undo_error.empty()) {
    // The step that failed first, then the undo that failed: the user needs both.
    if (!r.error.empty()) std::cerr << "error: " << r.error << "\n";
    std::cerr << "error: then the rollback stopped: " << r.undo_error << "\n";
    std::cout << "Transaction " << r.transaction_id << " is half undone: " << r.undone.size()
              << (r.undone.size() == 1 ? " step was" : " steps were") << " undone, the rest is still applied (exit "
              << r.rc << ").\n"
              << "Fix the cause above, then finish the rollback: sudo " << program(g) << " recover --rollback"
              << root_option(g) << "\n"
              << "The journal: sudo " << program(g) << " history " << r.transaction_id << root_option(g) << "\n";
    return r.rc;
  }
  if (r.interrupted) {
    std::string undone;
    for (const auto& id : r.undone) undone += (undone.empty() ? "" : ", ") + id;
    std::cerr << "error: " << r.error << "\n";
    std::cout << "Transaction " << r.transaction_id << " was interrupted (" << signal_name(r.interrupted)
              << "): the step in progress was let finish, then " << r.undone.size()
              << (r.undone.size() == 1 ? " step was" : " steps were") << " undone" << (undone.empty() ? "" : " (" + undone + ")")
              << "; the machine is as it was (exit " << r.rc << ").\n";
    return r.rc;
  }
  for (const auto& n : r.notices) std::cout << "note: " << n << "\n";
  if (r.failed) {
    std::cerr << "error: " << r.error << "\n";
    std::cout << "Transaction " << r.transaction_id << " rolled back " << r.undone.size()
              << (r.undone.size() == 1 ? " step" : " steps") << "; the machine is as it was (exit " << r.rc << ").\n"
              << "What it did and undid: sudo " << program(g) << " history " << r.transaction_id << root_option(g)
              << (g.log_file.empty() ? "; for every command's output, run again with --log-file FILE" : "") << "\n";
  } else {
    std::cout << "Transaction " << r.transaction_id << " " << verb << ".\n";
  }
  return r.rc;
}

std::chrono::milliseconds lock_timeout(const ChangeOptions& o) {
  return std::chrono::milliseconds(static_cast<long long>(o.lock_timeout_s * 1000));
}

// What install, rollback and recover do before they read the state: refuse
// a newer format while nothing has been touched, then make the state folder
// and take the lock (waiting as O says).
RunLock lock_state(Session& s, const Transactions& tx, const ChangeOptions& o) {
  tx.refuse_newer_state();
  s.fs.make_dirs(kStateDir, 0755);
  return RunLock(s.fs.host_path(std::string(kStateDir) + "/lock"), lock_timeout(o));
}

// What is unfinished about transaction T, and the commands that finish it.
std::string unfinished_text(const TransactionSummary& t) {
  if (t.status == "half_undone")
    return "transaction " + t.id + " (" + t.manifest + ") is half undone: its rollback " +
           (t.undo_failure.empty() ? std::string("was stopped before its end")
                                   : "stopped when undoing " + t.undo_failure) +
           "\n  Finish the rollback (once the cause is fixed):   sudo wslgpu-setup recover --rollback";
  return "transaction " + t.id + " (" + t.manifest + ") was interrupted" +
         (!t.interrupted_step.empty()    ? " at step \"" + t.interrupted_step + "\""
          : !t.last_applied_step.empty() ? " after step \"" + t.last_applied_step + "\""
                                         : std::string(" before its first step")) +
         "\n  Roll it back:   sudo wslgpu-setup recover --rollback\n"
         "  Or finish it:   sudo wslgpu-setup recover --resume";
}

void refuse_if_interrupted(const Transactions& tx) {
  if (auto t = tx.interrupted()) throw Error(ExitCode::needs_recovery, unfinished_text(*t));
}

// Compares a freshly resolved plan with a saved one; returns the differences.
std::vector<std::string> plan_drift(const nlohmann::json& saved, const Plan& fresh) {
  std::vector<std::string> out;
  const auto& fp = saved["fingerprints"];
  std::set<std::string> seen;
  for (const auto& s : fresh.steps) {
    seen.insert(s.id);
    if (!fp.contains(s.id)) {
      out.push_back("step \"" + s.id + "\" is not in the saved plan");
      continue;
    }
    const auto& old = fp[s.id];
    if (old.value("action", "") != verdict_name(s.plan.verdict))
      out.push_back("step \"" + s.id + "\" was " + old.value("action", "") + ", now " + verdict_name(s.plan.verdict));
    for (const auto& [fact, value] : s.plan.fingerprint.items()) {
      auto it = old["facts"].find(fact);
      if (it == old["facts"].end() || *it != value)
        out.push_back("step \"" + s.id + "\": " + fact + " was " +
                      (it == old["facts"].end() ? std::string("not probed") : it->dump()) + ", now " + value.dump());
    }
    if (old["changes"] != s.plan.changes && old.value("action", "") == verdict_name(s.plan.verdict))
      out.push_back("step \"" + s.id + "\" would now change something else");
  }
  for (const auto& [id, v] : fp.items())
    if (!seen.count(id)) out.push_back("step \"" + id + "\" of the saved plan is gone");
  return out;
}

// `plan` and `install` with no profile: the one the mounted Windows driver
// asks for. Both vendors or neither is for the user to decide (exit 2).
// FAMILY ("pytorch"): a family of bundled layers, one per GPU profile
// (pytorch-rocm, pytorch-cuda), of which the one for that GPU is chosen.
ProfileChoice pick_profile(const Session& s, const std::string& command, const std::string& family = "") {
  ProfileChoice c = choose_profile(s.host.gpu_evidence);
  const std::string prefix = family.empty() ? "" : family + "-";
  if (c.profile.empty())
    throw Error(ExitCode::bad_input, "cannot choose a profile: " + c.why + ".\nName the one you want:\n  sudo wslgpu-setup " +
                                         command + " " + prefix + "cuda    # NVIDIA\n  sudo wslgpu-setup " + command +
                                         " " + prefix + "rocm    # AMD");
  c.profile = prefix + c.profile;
  return c;
}

// Whether NAME is a family of bundled layers rather than a profile: no
// bundled NAME, but NAME-rocm and NAME-cuda (docs/manifest.md, "Layers").
bool is_profile_family(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return false;
  bool self = false, rocm = false, cuda = false;
  for (const auto& m : bundled_manifests()) {
    self = self || m.name == name;
    rocm = rocm || m.name == name + "-rocm";
    cuda = cuda || m.name == name + "-cuda";
  }
  return !self && rocm && cuda;
}

// The profile a command names, or chooses from the GPU (none given, or a
// family); CHOICE says how it was chosen.
std::string profile_to_run(const Session& s, const std::string& command, const std::string& given,
                           ProfileChoice& choice) {
  if (given.empty()) choice = pick_profile(s, command);
  else if (is_profile_family(given)) choice = pick_profile(s, command, given);
  else return given;
  return choice.profile;
}

std::string choice_line(const ProfileChoice& c) {
  return "Profile " + c.profile + ", chosen because " + c.why + ".\n";
}

// {"profile_choice": {...}} when the profile was chosen, else {}.
nlohmann::json choice_json(const ProfileChoice& c) {
  if (c.profile.empty()) return nlohmann::json::object();
  return {{"profile_choice", {{"profile", c.profile}, {"why", c.why}}}};
}

}  // namespace

void check_root(const std::string& root) {
  if (root.empty() || root.front() != '/')
    throw InputError(SourcePos{"--root", 0, 0}, "\"" + root + "\" must be an absolute path");
  if (::access(root.c_str(), F_OK) != 0)
    throw InputError(SourcePos{"--root", 0, 0}, "\"" + root + "\" does not exist");
}

std::map<std::string, std::string> parse_sets(const std::vector<std::string>& sets) {
  std::map<std::string, std::string> out;
  for (const auto& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(SourcePos{"--set", 0, 0}, "\"" + s + "\" must be written as NAME=VALUE");
    out[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return out;
}

int run_validate(const GlobalOptions& g, const std::vector<std::string>& profiles) {
  Session s(g);
  auto sets = parse_sets(g.sets);
  bool all_ok = true;
  std::vector<std::string> names;  // a family is its members
  for (const auto& p : profiles) {
    if (is_profile_family(p)) {
      names.push_back(p + "-rocm");
      names.push_back(p + "-cuda");
    } else {
      names.push_back(p);
    }
  }
  for (const auto& profile : names) {
    try {
      ManifestSource source = find_manifest(profile);
      Manifest m = load_manifest(source, sets, s.host, LoadOptions{g.unsupported_distro, {}});
      std::cout << source.display << ": ok (" << m.steps.size() << (m.steps.size() == 1 ? " step)" : " steps)") << "\n";
    } catch (const InputError& e) {
      all_ok = false;
      for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    }
  }
  return all_ok ? 0 : static_cast<int>(ExitCode::bad_input);
}

int run_plan(const GlobalOptions& g, const PlanOptions& options) {
  // Caught so that a plan stopped halfway still removes its scratch folder.
  InterruptScope interrupts(kPlanInterrupted, kPlanInterrupted);
  Session s(g);
  // An unfinished run makes install refuse (exit 5): the plan says so too,
  // and a script asking --detailed-exitcode gets the status install would.
  std::optional<TransactionSummary> unfinished;
  try {
    unfinished = Transactions(s.fs, s.runner, s.host, kStateDir).interrupted();
  } catch (const TransactionsNeedRoot& e) {
    // Without root the transactions cannot be read; install, which needs
    // root, looks again. Any other error (a newer format) stops the plan.
    spdlog::debug("cannot look for an interrupted run: {}", e.what());
  }
  if (unfinished && options.detailed_exitcode) throw Error(ExitCode::needs_recovery, unfinished_text(*unfinished));
  if (unfinished && options.output == OutputFormat::text && g.verbosity >= 0)
    std::cerr << "warning: " << unfinished_text(*unfinished) << "\n  Until then, install refuses (exit 5).\n";
  ProfileChoice choice;
  const std::string profile = profile_to_run(s, "plan", options.profile, choice);
  Resolved r = resolve(g, s, find_manifest(profile), parse_sets(g.sets), false);
  r.plan.since = since_provisioned(g, s, r);
  throw_if_interrupted("while planning; nothing was changed");
  if (!options.out_file.empty()) {
    std::ofstream out(options.out_file, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(SourcePos{"--out", 0, 0}, "cannot write \"" + options.out_file + "\"");
    out << plan_record(g, r.source, r.plan).dump(2) << "\n";
  }
  if (options.output == OutputFormat::json) {
    nlohmann::json doc = plan_to_json(r.plan);
    doc.update(choice_json(choice));
    if (unfinished)
      doc["unfinished_transaction"] = {
          {"id", unfinished->id}, {"status", unfinished->status}, {"message", unfinished_text(*unfinished)}};
    std::cout << doc.dump(2) << "\n";
  } else if (g.verbosity >= 0) {
    if (!choice.profile.empty()) std::cout << choice_line(choice);
    // With --out, the command to run is the one that runs exactly the saved plan.
    std::string apply = options.out_file.empty()
                            ? apply_command(g, profile)
                            : "sudo " + program(g) + " install --plan " + text::shell_word(options.out_file);
    std::cout << render_plan_text(r.plan, TextStyle{g.color, g.verbosity > 0}, apply);
    if (!options.out_file.empty())
      std::cout << "Saved to " << options.out_file
                << ": install --plan runs exactly this plan, and refuses if the machine has changed since.\n";
  }
  // Refused is 3 with or without --detailed-exitcode: install would refuse,
  // and a script must not read a refused plan as a good one.
  if (r.plan.refused()) return static_cast<int>(ExitCode::refused);
  if (options.detailed_exitcode && r.plan.changes_pending()) return static_cast<int>(ExitCode::changes_pending);
  return 0;
}

int run_install(const GlobalOptions& given, const InstallOptions& options) {
  refuse_unless_root(given, "install");
  InterruptScope interrupts(kChangeInterrupted, kChangeAgain);
  GlobalOptions g = given;
  nlohmann::json saved;
  ManifestSource source;
  if (!options.saved_plan.empty()) {
    std::ifstream in(options.saved_plan, std::ios::binary);
    if (!in) throw InputError(SourcePos{options.saved_plan, 0, 0}, "cannot read the saved plan");
    try {
      saved = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(SourcePos{options.saved_plan, 0, 0}, std::string("not a saved plan: ") + e.what());
    }
    // A plan saved by another version is stale, whatever else it says: the
    // profiles' defaults and the plan's own format may differ (exit 3).
    std::string made_by = saved.value("tool_version", std::string("an unknown version"));
    if (!saved.contains("saved_plan_format") || saved["saved_plan_format"] != kSavedPlanFormat)
      throw Refusal("the saved plan " + options.saved_plan + " is stale: it is of saved-plan format " +
                    (saved.contains("saved_plan_format") ? saved["saved_plan_format"].dump() : std::string("none")) +
                    " (made by wslgpu-setup " + made_by +
                    "), and this is wslgpu-setup " WSLGPU_VERSION ", which reads format " +
                    std::to_string(kSavedPlanFormat) + ". Nothing was changed. Make it again with `plan --out`.");
    if (made_by != WSLGPU_VERSION)
      throw Refusal("the saved plan " + options.saved_plan + " is stale: it was made by wslgpu-setup " + made_by +
                    "; this is " WSLGPU_VERSION
                    ": the profiles' defaults and the plan format may differ. Nothing was changed. Make it again "
                    "with `plan --out`.");
    if (saved.value("root", "") != g.root)
      throw Error(ExitCode::refused, "the saved plan was made for --root " + saved.value("root", "") + ", not " + g.root);
    source = recorded_source(saved);
    g.sets.clear();
    for (const auto& [k, v] : saved["sets"].items()) g.sets.push_back(k + "=" + v.get<std::string>());
    g.user = saved.value("user", "");
    g.windows_home = saved.value("windows_home", "");
    g.not_wsl = saved.value("not_wsl", false);
    g.unsupported_distro = saved.value("unsupported_distro", false);
  }
  Session s(g);
  ProfileChoice choice;
  if (options.saved_plan.empty()) {
    source = find_manifest(profile_to_run(s, "install", options.profile, choice));
  }
  const ChangeOptions& o = options.change;
  if (!choice.profile.empty() && o.output == OutputFormat::text && g.verbosity >= 0) std::cout << choice_line(choice);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  RunLock lock = lock_state(s, tx, options.change);
  refuse_if_interrupted(tx);

  Resolved r = resolve(g, s, source, parse_sets(g.sets), true);
  r.plan.since = since_provisioned(g, s, r);  // the plan install shows says it too
  throw_if_interrupted("while planning; nothing was changed");
  if (!saved.is_null()) {
    auto drift = plan_drift(saved, r.plan);
    if (!drift.empty()) {
      std::string msg = "the machine no longer matches the saved plan " + options.saved_plan + ":";
      for (const auto& d : drift) msg += "\n  " + d;
      throw Error(ExitCode::refused, msg + "\nNothing was changed. Make a new plan with `plan --out`.");
    }
  }
  if (r.plan.refused()) {
    if (o.output == OutputFormat::json) {
      nlohmann::json doc{{"changed", false}, {"failed", true}, {"rc", 3}, {"transaction_id", ""},
                         {"refusals", plan_to_json(r.plan)["refusals"]}, {"steps", plan_to_json(r.plan)["steps"]}};
      doc.update(choice_json(choice));
      std::cout << doc.dump(2) << "\n";
    } else {
      std::cerr << refusal_text(r.plan);
    }
    return static_cast<int>(ExitCode::refused);
  }
  // Undo must be able to put back every package version the plan changes,
  // or the person running it must have said it need not.
  if (r.plan.changes_pending() && !r.plan.undo_gaps().empty() && !o.allow_partial_undo) {
    std::string why = undo_store_text(r.plan);
    std::string msg = "undo could not put back every package this plan changes, so nothing was changed:\n" + why +
                      "Make a copy available (bring back the source of the old versions, or keep apt's cache), or "
                      "run again with --allow-partial-undo to accept a rollback that leaves those packages as the "
                      "install leaves them.";
    if (o.output == OutputFormat::json) {
      nlohmann::json doc{{"changed", false}, {"failed", true}, {"rc", 3}, {"transaction_id", ""},
                         {"error", msg}, {"undo_store", undo_store_json(r.plan)}};
      doc.update(choice_json(choice));
      std::cout << doc.dump(2) << "\n";
      return static_cast<int>(ExitCode::refused);
    }
    throw Refusal(msg);
  }
  if (!r.plan.changes_pending()) {
    // Converged: run the checks, write nothing, record no transaction.
    bool has_checks = r.plan.count(Verdict::verify) > 0;
    RunResult result;
    if (has_checks) {
      StepContext ctx{s.fs, s.runner, s.host, r.manifest.name, kStateDir};
      for (const auto& ps : r.plan.steps) {
        if (ps.plan.verdict != Verdict::verify) continue;
        for (const auto& ms : r.manifest.steps) {
          if (ms.id != ps.id) continue;
          StepReport rep{ps.id, ps.kind, false, false, "ok: " + ps.plan.summary, ""};
          ctx.manifest_name = step_manifest_name(r.manifest, ms);
          try {
            auto w = ms.step->apply(ctx, ps.plan);
            if (w.contains("warning")) rep.msg = w["warning"].get<std::string>();
          } catch (const StepFailure& e) {
            rep.failed = true;
            rep.msg = e.what();
            result.failed = true;
            result.rc = static_cast<int>(ExitCode::failed);
            // The check's own message starts "check failed: "; say it once.
            std::string why = e.what();
            if (why.rfind("check failed: ", 0) == 0) why.erase(0, std::string("check failed: ").size());
            result.error = "check \"" + ps.id + "\" failed: " + why;
          }
          result.steps.push_back(rep);
        }
      }
    }
    if (!result.failed) keep_remembered(s.fs, r.plan);
    throw_if_interrupted("while running the checks; nothing was changed");
    if (o.output == OutputFormat::json) {
      nlohmann::json doc = result_json(result);
      doc.update(choice_json(choice));
      std::cout << doc.dump(2) << "\n";
    } else if (g.verbosity >= 0) {
      for (const auto& rep : result.steps) std::cout << "  " << rep.id << ": " << rep.msg << "\n";
      if (result.failed) {
        std::cerr << "error: " << result.error << "\n";
        std::cout << "The machine already has every change of " << r.manifest.name
                  << ", but a check failed; nothing was changed (exit " << result.rc << "). `" << program(g)
                  << " doctor" << root_option(g) << "` explains most failures.\n";
      } else {
        std::cout << "Nothing to do: the machine already matches " << r.manifest.name << ".\n";
      }
    }
    return result.rc;
  }
  if (o.output == OutputFormat::text && g.verbosity >= 0)
    std::cout << render_plan_text(r.plan, TextStyle{g.color, g.verbosity > 0}, "") << "\n";
  if (interactive(o) && !confirm("Apply these changes?")) {
    throw_if_interrupted("at the question; nothing was changed");
    std::cout << "Nothing was changed.\n";
    return 0;
  }
  throw_if_interrupted("before the first step; nothing was changed");
  lock.record_holder(g.command_line);
  tx.set_allow_partial_undo(o.allow_partial_undo);
  RunResult result = tx.run(r.manifest, r.plan, plan_record(g, r.source, r.plan),
                            text_callbacks(g, o.output == OutputFormat::text));
  if (result.rc == 0) keep_remembered(s.fs, r.plan);
  nlohmann::json extra = choice_json(choice);
  extra["undo_store"] = undo_store_json(r.plan);
  return finish_run(g, o, result, "committed", extra);
}

// `rollback ID` and `recover --rollback`: undoes JOURNAL's transaction. An
// undo that fails is reported, not thrown: the run says what was undone and
// that the rest is still applied (exit 5).
static RunResult undo_transaction(Transactions& tx, Journal& journal, const Manifest& manifest,
                                  const RunCallbacks& callbacks) {
  RunResult r;
  r.transaction_id = journal.id();
  try {
    r.undone = tx.rollback(journal, manifest, callbacks);
  } catch (const RollbackFailure& e) {
    r.undone = e.undone();
    r.undo_error = e.what();
    r.failed = true;
    r.rc = static_cast<int>(ExitCode::needs_recovery);
  }
  r.changed = !r.undone.empty();
  return r;
}

// After a rollback that a signal could not stop: the exit status says it
// came (128 + the signal), and what was done is said plainly.
static int finish_rollback(const GlobalOptions& g, const ChangeOptions& o, RunResult& r) {
  int signo = interrupt_signal();
  if (!signo || !r.undo_error.empty()) return finish_run(g, o, r, "rolled back");
  r.interrupted = signo;
  r.rc = 128 + signo;
  if (o.output == OutputFormat::json || g.verbosity < 0) return finish_run(g, o, r, "rolled back");
  std::cerr << "error: interrupted (" << signal_name(signo) << ") during the rollback, which was finished first\n";
  std::cout << "Transaction " << r.transaction_id << " rolled back " << r.undone.size()
            << (r.undone.size() == 1 ? " step" : " steps") << "; the machine is as it was before it (exit " << r.rc
            << ").\n";
  return r.rc;
}

int run_rollback(const GlobalOptions& g, const std::string& id, const ChangeOptions& o) {
  refuse_unless_root(g, "rollback");
  InterruptScope interrupts(kRollbackInterrupted, kRollbackAgain);
  Session s(g);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  RunLock lock = lock_state(s, tx, o);
  Journal journal = Journal::open(tx.tx_root(), id);
  journal.cut_torn_tail();
  TransactionSummary summary = summarize(id, journal.records());
  if (summary.status == "rolled_back") {
    std::cout << "Transaction " << id << " is already rolled back; nothing to do.\n";
    return 0;
  }
  if (summary.status == "interrupted")
    throw Error(ExitCode::needs_recovery, "transaction " + id + " was interrupted; use `wslgpu-setup recover --rollback`");
  auto drift = tx.drifted_files(journal);
  if (!drift.empty() && !o.force) {
    std::string msg = "files that transaction " + id + " wrote have changed since:";
    for (const auto& d : drift) msg += "\n  " + d;
    throw Error(ExitCode::refused, msg + "\nRolling back would overwrite those changes. Nothing was changed; "
                                         "pass --force to roll back anyway.");
  }
  if (interactive(o) && !confirm("Roll back transaction " + id + " (" + summary.manifest + ")?")) {
    throw_if_interrupted("at the question; nothing was changed");
    return 0;
  }
  throw_if_interrupted("before the rollback began; nothing was changed");
  lock.record_holder(g.command_line);
  Manifest manifest = manifest_of(journal, s);
  tx.set_allow_partial_undo(o.allow_partial_undo);
  RunResult r = undo_transaction(tx, journal, manifest, text_callbacks(g, o.output == OutputFormat::text));
  return finish_rollback(g, o, r);
}

int run_recover(const GlobalOptions& given, bool rollback, const ChangeOptions& o) {
  refuse_unless_root(given, "recover");
  InterruptScope interrupts(rollback ? kRollbackInterrupted : kChangeInterrupted, rollback ? kRollbackAgain : kChangeAgain);
  GlobalOptions g = given;
  Session s(g);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  RunLock lock = lock_state(s, tx, o);
  auto t = tx.interrupted();
  if (!t) {
    if (o.output == OutputFormat::json) std::cout << nlohmann::json{{"changed", false}, {"rc", 0}}.dump(2) << "\n";
    else std::cout << "No interrupted transaction: nothing to recover.\n";
    return 0;
  }
  if (!rollback && t->status == "half_undone")
    throw Refusal("transaction " + t->id +
                  " is half undone: a rollback began, so it can only be finished by "
                  "rolling back; nothing was changed.\n  Run: sudo wslgpu-setup recover --rollback");
  Journal journal = Journal::open(tx.tx_root(), t->id);
  journal.cut_torn_tail();
  lock.record_holder(g.command_line);
  Manifest manifest = manifest_of(journal, s);
  tx.set_allow_partial_undo(o.allow_partial_undo);
  if (rollback) {
    RunResult r = undo_transaction(tx, journal, manifest, text_callbacks(g, o.output == OutputFormat::text));
    return finish_rollback(g, o, r);
  }
  nlohmann::json record = journal.read_plan();
  ManifestSource source = recorded_source(record);
  g.not_wsl = record.value("not_wsl", g.not_wsl);
  g.unsupported_distro = record.value("unsupported_distro", g.unsupported_distro);
  Resolved r = resolve(g, s, source, record.value("sets", Variables{}), true,
                       record.value("choices", std::map<std::string, std::string>{}));
  throw_if_interrupted("while planning the rest of the run; nothing was changed, and it can still be resumed");
  if (r.plan.refused()) {
    std::cerr << refusal_text(r.plan);
    return static_cast<int>(ExitCode::refused);
  }
  RunResult result = tx.resume(journal, r.manifest, r.plan, text_callbacks(g, o.output == OutputFormat::text));
  if (result.rc == 0) keep_remembered(s.fs, r.plan);
  return finish_run(g, o, result, "finished");
}

namespace {

// Every package a transaction's steps installed, upgraded, downgraded or
// removed (their undo data), for the retention policy.
std::set<std::string> packages_changed(const std::vector<nlohmann::json>& records) {
  std::set<std::string> out;
  for (const auto& r : records) {
    if (r.value("type", "") != "outcome" || !r.contains("undo") || !r["undo"].is_object()) continue;
    for (const char* list : {"installed", "upgraded", "removed"})
      if (r["undo"].contains(list) && r["undo"][list].is_array())
        for (const auto& p : r["undo"][list])
          if (p.is_object()) out.insert(p.value("name", ""));
  }
  out.erase("");
  return out;
}

// "412 MB (7 packages)", "none", "pruned (...)"
std::string store_text(std::uint64_t bytes, std::size_t kept, bool had) {
  if (bytes > 0) return human_size(bytes) + " (" + std::to_string(kept) + (kept == 1 ? " package)" : " packages)");
  return had ? "removed" : "none";
}

std::size_t kept_count(const std::vector<nlohmann::json>& records) {
  std::size_t n = 0;
  for (const auto& r : records) n += r.value("type", "") == "kept";
  return n;
}

int prune_stores(const GlobalOptions& g, OutputFormat output) {
  refuse_unless_root(g, "history --prune");
  Session s(g);
  Transactions tx(s.fs, s.runner, s.host, kStateDir);
  // The stores are what a rollback reads: never pruned under a running one.
  RunLock lock = lock_state(s, tx, ChangeOptions{});
  std::vector<StoreUse> uses;
  for (const auto& id : list_transactions(tx.tx_root())) {
    auto records = Journal::open(tx.tx_root(), id).records();
    TransactionSummary summary = summarize(id, records);
    uses.push_back({id, summary.status, packages_changed(records), store_folder_bytes(tx.tx_root() + "/" + id + "/undo")});
  }
  nlohmann::json pruned = nlohmann::json::array();
  std::uint64_t freed = 0;
  for (const auto& p : prunable_stores(uses)) {
    prune_store_folder(tx.tx_root() + "/" + p.id + "/undo", p.why);
    freed += p.store_bytes;
    pruned.push_back({{"id", p.id}, {"why", p.why}, {"bytes", p.store_bytes}});
    if (output == OutputFormat::text)
      std::cout << "Removed the undo store of " << p.id << " (" << human_size(p.store_bytes) << "): " << p.why << "\n";
  }
  if (output == OutputFormat::json) {
    std::cout << nlohmann::json{{"pruned", pruned}, {"freed_bytes", freed}}.dump(2) << "\n";
  } else if (pruned.empty()) {
    std::cout << "No undo store can go: every one still serves a transaction that can be rolled back.\n";
  } else {
    std::cout << "Freed " << human_size(freed) << ". Those transactions stay in the history; rolling one back now "
              << "asks apt's sources for the old versions.\n";
  }
  return 0;
}

}  // namespace

// A function-try-block: wherever the journal finds the transactions
// unreadable (the folder is root's alone), history says so with the command
// to type, never "No transactions yet."
int run_history(const GlobalOptions& g, const std::string& show_id, OutputFormat output, bool prune) try {
  check_root(g.root);
  if (prune) return prune_stores(g, output);
  RootedFileSystem fs(g.root);
  std::string tx_root = fs.host_path(std::string(kStateDir) + "/tx");
  check_state_stamp(fs.host_path(std::string(kStateDir) + "/state-format"));  // each journal's own: Journal::open
  // What history shows for a status a person must act on.
  auto shown = [](const std::string& status) {
    if (status == "half_undone") return std::string("half_undone (rollback unfinished: run it again)");
    if (status == "interrupted") return std::string("interrupted (recover --rollback or --resume)");
    return status;
  };
  if (!show_id.empty()) {
    Journal j = Journal::open(tx_root, show_id);
    auto records = j.records();
    TransactionSummary s = summarize(show_id, records);
    const std::uint64_t store_bytes = store_folder_bytes(j.dir() + "/undo");
    const std::size_t kept = kept_count(records);
    if (output == OutputFormat::json) {
      std::cout << nlohmann::json{{"id", s.id}, {"time", s.time}, {"manifest", s.manifest}, {"source", s.source},
                                  {"status", s.status}, {"changed_steps", s.changed_steps},
                                  {"undo_store_bytes", store_bytes}, {"records", records}}
                       .dump(2)
                << "\n";
      return 0;
    }
    std::cout << "Transaction " << s.id << "\n  time      " << s.time << "\n  profile   " << s.manifest << " ("
              << s.source << ")\n  result    " << shown(s.status) << "\n  changed   " << s.changed_steps
              << " steps\n  undo      " << store_text(store_bytes, kept, kept > 0) << "\n";
    if (!s.undo_failure.empty()) std::cout << "  stopped   undoing " << s.undo_failure << "\n";
    for (const auto& r : records) {
      std::string type = r.value("type", "");
      if (type == "kept")
        std::cout << "  kept for undo: " << r.value("name", "") << " " << r.value("version", "") << " ("
                  << r.value("from", "") << ", " << human_size(r.value("size", std::uint64_t{0})) << ")\n";
      if (type == "outcome") std::cout << "  step " << r.value("step", "") << ": " << r.value("status", "") << "\n";
      if (type == "written")
        std::cout << "    " << (r["sha256"].is_null() ? "removed " : "wrote ") << r.value("path", "") << "\n";
      if (type == "undone") std::cout << "  step " << r.value("step", "") << ": undone\n";
      if (type == "undo_failed")
        std::cout << "  step " << r.value("step", "") << ": undo failed: " << r.value("msg", "") << "\n";
    }
    return 0;
  }
  nlohmann::json all = nlohmann::json::array();
  for (const auto& id : list_transactions(tx_root)) {
    auto records = Journal::open(tx_root, id).records();
    TransactionSummary s = summarize(id, records);
    all.push_back({{"id", s.id}, {"time", s.time}, {"manifest", s.manifest}, {"status", s.status},
                   {"changed_steps", s.changed_steps}, {"undo_store_bytes", store_folder_bytes(tx_root + "/" + id + "/undo")},
                   {"kept", kept_count(records)}});
  }
  if (output == OutputFormat::json) {
    std::cout << all.dump(2) << "\n";
    return 0;
  }
  if (all.empty()) std::cout << "No transactions yet.\n";
  for (const auto& t : all) {
    std::uint64_t bytes = t["undo_store_bytes"].get<std::uint64_t>();
    std::size_t kept = t["kept"].get<std::size_t>();
    std::cout << t["id"].get<std::string>() << "  " << t["time"].get<std::string>() << "  "
              << t["manifest"].get<std::string>() << "  " << shown(t["status"].get<std::string>()) << "  "
              << t["changed_steps"].get<std::size_t>() << " changed"
              << (kept ? "  undo store " + store_text(bytes, kept, true) : std::string()) << "\n";
  }
  return 0;
} catch (const TransactionsNeedRoot& e) {
  throw Refusal("history needs root: " + e.reason() + ".\n  Run it again with sudo: " + again_with_sudo(g));
}

int run_list(const GlobalOptions&) {
  std::size_t width = 0;
  for (const auto& m : bundled_manifests()) width = std::max(width, m.name.size());
  for (const auto& m : bundled_manifests()) {
    std::string description;
    try {
      auto t = toml::parse(m.content, std::string(m.path));
      description = t["manifest"]["description"].value_or(std::string());
    } catch (const std::exception&) {
      description = "(does not parse: run `wslgpu-setup validate " + std::string(m.name) + "`)";
    }
    std::cout << std::string(m.name) << std::string(width - m.name.size() + 2, ' ') << description << "\n";
  }
  // Families: "pytorch" names pytorch-rocm or pytorch-cuda, by the GPU.
  std::set<std::string> families;
  for (const auto& m : bundled_manifests()) {
    std::string name(m.name);
    if (auto dash = name.rfind('-'); dash != std::string::npos && is_profile_family(name.substr(0, dash)))
      families.insert(name.substr(0, dash));
  }
  for (const auto& f : families)
    std::cout << f << std::string(width > f.size() ? width - f.size() + 2 : 2, ' ') << f << "-rocm or " << f
              << "-cuda, for the GPU whose Windows driver is mounted\n";
  return 0;
}

int run_list_vars(const std::string& profile_or_file) {
  ManifestSource source = find_manifest(profile_or_file);
  toml::table doc;
  try {
    doc = parse_toml(source.text, source.display);
  } catch (const toml::parse_error& e) {
    throw InputError(
        SourcePos{source.display, e.source().begin.line, e.source().begin.column},
        std::string(e.description()) + " (`wslgpu-setup validate " + profile_or_file + "` lists every error)");
  }
  if (const auto* vars = doc["vars"].as_table()) {
    for (const auto& [name, value] : *vars) {
      std::cout << name.str() << "=";
      if (const auto* text = value.as_string()) {
        std::cout << text->get();
      } else {  // a number or a boolean, as TOML writes it (validate rejects the rest)
        value.visit([](const auto& v) { std::cout << v; });
      }
      std::cout << "\n";
    }
  }
  return 0;
}

int run_kinds(const GlobalOptions&) {
  std::size_t width = 0;
  for (const auto& k : step_kinds()) width = std::max(width, k.name.size());
  for (const auto& k : step_kinds()) std::cout << k.name << std::string(width - k.name.size() + 2, ' ') << k.summary << "\n";
  return 0;
}

}  // namespace wslgpu
