// wslgpu-setup: the command line. Only wiring lives here: options are parsed
// with CLI11, logging is set up, and each subcommand calls its function
// (installer/cli/commands.hpp; one file per verb, as plan_command.cpp).
// Every error reaches the one catch chain below, which prints it and
// returns its exit status.
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "installer/cli/commands.hpp"
#include "installer/doctor/doctor.hpp"
#include "installer/manifest/suggest.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {
// The commit this build is made from: a file of its own that CMake writes
// (cmake/version.cmake), so that a new commit recompiles that line, not
// this file, the build's slowest.
extern const char* const kGitRevision;
// The day the bundled profiles (their release matrices) last changed.
extern const char* const kProfileDataDate;
}  // namespace wslgpu

namespace {

const char* kExitCodes =
    "Exit status:\n"
    "  0   success, or nothing to do\n"
    "  1   a step or a check failed (what the run had done was rolled back), or an unexpected\n"
    "      error stopped the run (the message says what to do); doctor: a check failed\n"
    "  2   bad input: malformed manifest, unknown option or value, or no profile could be chosen;\n"
    "      or the state was written by a newer wslgpu-setup (upgrade it)\n"
    "  3   refused (a guard, not root, an unsupported distribution; plan too), the machine no\n"
    "      longer matches a saved plan or the plan is stale (another version made it), or a\n"
    "      rollback found files changed since\n"
    "  4   another run holds the lock\n"
    "  5   an interrupted run must be recovered first, or a rollback failed half way\n"
    "      (sudo wslgpu-setup recover --rollback)\n"
    "  10  changes pending (plan --detailed-exitcode)\n"
    "  130 interrupted by Ctrl-C (SIGINT); 143 by SIGTERM, 129 by SIGHUP: the step in progress\n"
    "      was let finish, then what the run had done was undone\n";

void setup_logging(const wslgpu::GlobalOptions& g) {
  std::vector<spdlog::sink_ptr> sinks;
  auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>(
      g.color ? spdlog::color_mode::always : spdlog::color_mode::never);
  console->set_level(g.verbosity >= 2 ? spdlog::level::debug
                     : g.verbosity == 1 ? spdlog::level::info
                     : g.verbosity < 0  ? spdlog::level::err
                                        : spdlog::level::warn);
  console->set_pattern("%^%l%$: %v");
  sinks.push_back(console);
  if (!g.log_file.empty()) {
    auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(g.log_file);
    file->set_level(spdlog::level::trace);
    file->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
    sinks.push_back(file);
  }
  auto logger = std::make_shared<spdlog::logger>("wslgpu", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::trace);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wslgpu;
  CLI::App app{"wslgpu-setup: turn a WSL2 distribution into a GPU compute machine (AMD ROCm, NVIDIA CUDA)",
               "wslgpu-setup"};
  app.footer(kExitCodes);
  app.require_subcommand(1);
  app.fallthrough();
  app.set_version_flag("--version",
                       std::string("wslgpu-setup ") + WSLGPU_VERSION + " (git " + wslgpu::kGitRevision +
                           ", profile data of " + wslgpu::kProfileDataDate + ")");

  GlobalOptions g;
  bool no_color = false;
  int verbose = 0;
  bool quiet = false;
  app.add_option("--root", g.root, "The machine to act on: every path and host fact is read under it")
      ->capture_default_str();
  app.add_option("--user", g.user, "The Linux user to provision (default: SUDO_USER, wsl.conf, first uid >= 1000)");
  app.add_option("--windows-home", g.windows_home, "The Windows profile folder that holds .wslconfig (a target path)");
  app.add_option("--set", g.sets, "Override a manifest variable: NAME=VALUE (repeatable)");
  app.add_flag("-v,--verbose", verbose, "More output: every detail line, the commands run (-vv: their output)");
  app.add_flag("-q,--quiet", quiet, "Print only errors");
  app.add_flag("--no-color", no_color, "No colour, even on a terminal (NO_COLOR does the same)");
  app.add_option("--log-file", g.log_file, "Log every decision and every command's output here, with timestamps");
  app.add_flag("--not-wsl", g.not_wsl,
               "Run outside WSL2 (image builders, tests): the WSL, kernel and /dev/dxg guards are off, the package "
               "guards stay on");
  app.add_flag("--unsupported-distro", g.unsupported_distro,
               "Plan and install on a distribution or release the vendor does not publish for (at your own risk)");

  auto* validate = app.add_subcommand("validate", "Check manifests; print ok or every error found");
  std::vector<std::string> validate_profiles;
  validate->add_option("profile", validate_profiles, "Bundled profile names or paths to .toml files")->required();

  auto* plan = app.add_subcommand("plan", "Show exactly what install would change, changing nothing");
  PlanOptions plan_options;
  std::string plan_output = "text";
  plan->add_option("profile", plan_options.profile,
                   "A bundled profile name or a path to a .toml file (default: cuda or rocm, from the mounted Windows driver)");
  plan->add_option("--output,-o", plan_output, "text or json")->check(CLI::IsMember({"text", "json"}));
  plan->add_flag("--detailed-exitcode", plan_options.detailed_exitcode,
                 "Exit 0 when nothing would change, 10 when changes are pending, 3 when the plan is refused, "
                 "5 when an interrupted run must be recovered first");

  auto* plan_out = plan->add_option("--out", plan_options.out_file, "Save the plan to FILE for `install --plan FILE`");
  plan->add_flag("--offline", plan_options.offline,
                 "Ask no server: what needs one (a vendor's key, package lists, wheel sizes) is said, not asked; "
                 "a plan to read, never to install")
      ->excludes(plan_out);

  // Options shared by the commands that change the machine.
  auto add_change_options = [](CLI::App* cmd, ChangeOptions& o, std::string& output) {
    cmd->add_flag("-y,--yes", o.yes, "Do not ask for confirmation (also the case without a terminal)");
    cmd->add_option("--output,-o", output, "text or json (json never prompts)")->check(CLI::IsMember({"text", "json"}));
    cmd->add_option("--lock-timeout", o.lock_timeout_s, "Seconds to wait for another run's lock (default 0)");
    cmd->add_flag("--allow-partial-undo", o.allow_partial_undo,
                  "Go ahead although undo could not put back every package version (install), or without a "
                  "corrupt undo store (rollback, recover)");
  };
  auto* install = app.add_subcommand("install", "Apply a profile as one transaction, rolled back if a step fails");
  InstallOptions install_options;
  std::string install_output = "text";
  install->add_option("profile", install_options.profile,
                      "A bundled profile name or a path to a .toml file (default: cuda or rocm, from the mounted Windows driver)");
  install->add_option("--plan", install_options.saved_plan, "Run exactly this saved plan (from `plan --out`)");
  add_change_options(install, install_options.change, install_output);

  auto* rollback = app.add_subcommand("rollback", "Undo a finished transaction");
  ChangeOptions rollback_options;
  std::string rollback_output = "text", rollback_id;
  rollback->add_option("id", rollback_id, "Transaction id (see `history`)")->required();
  rollback->add_flag("--force", rollback_options.force, "Roll back even when files changed since");
  add_change_options(rollback, rollback_options, rollback_output);

  auto* recover = app.add_subcommand("recover", "Roll back or finish an interrupted transaction");
  ChangeOptions recover_options;
  std::string recover_output = "text";
  bool recover_rollback = false, recover_resume = false;
  auto* rb = recover->add_flag("--rollback", recover_rollback, "Undo what the interrupted run did");
  auto* rs = recover->add_flag("--resume", recover_resume, "Finish the interrupted run");
  rb->excludes(rs);
  recover->add_flag("--force", recover_options.force, "With --rollback: even when what the run changed has changed since")
      ->needs(rb);
  add_change_options(recover, recover_options, recover_output);

  auto* history = app.add_subcommand("history", "List transactions, or show one");
  std::string history_show, history_output = "text";
  history->add_option("id", history_show, "Show this transaction");
  history->add_option("--output,-o", history_output, "text or json")->check(CLI::IsMember({"text", "json"}));
  bool history_prune = false;
  history->add_flag("--prune", history_prune,
                    "Remove the undo stores of transactions that can no longer be rolled back (superseded or rolled "
                    "back) and empty the wheel cache; with an ID, give up that transaction's offline rollback and "
                    "remove its store");

  auto* list = app.add_subcommand("list", "List the bundled profiles");
  std::string list_vars;
  list->add_option("--vars", list_vars,
                   "Print the variables of this profile (or .toml file) that --set can change, NAME=DEFAULT");
  auto* kinds = app.add_subcommand("kinds", "List the step kinds a manifest can use");

  auto* doctor = app.add_subcommand("doctor", "Diagnose GPU compute on this machine, read-only (exit 1 when a check fails)");
  DoctorOptions doctor_options;
  std::string doctor_output = "text";
  doctor->add_option("--output,-o", doctor_output, "text or json")->check(CLI::IsMember({"text", "json"}));
  doctor->add_option("--bundle", doctor_options.bundle, "Also write a support bundle (secrets redacted) to FILE.tar.gz");
  doctor->add_option("--python", doctor_options.python,
                     "The Python of the venv to check (VENV/bin/python): the PyTorch checks, and those of TensorFlow, "
                     "JAX and ONNX Runtime for what it holds (default: each framework's venv as `install` recorded "
                     "it, else ~USER/.venvs/NAME)");
  doctor->add_option("--image", doctor_options.image,
                     "Also inspect this local container image for driver libraries of its own (docker or podman "
                     "image save; never pulled, never run)");

  auto* containers = app.add_subcommand("containers", "What containers need to see the GPU");
  containers->require_subcommand(1);
  auto* containers_flags =
      containers->add_subcommand("flags", "Print the docker run flags of the GPU's CDI specs (install containers wrote them)");
  std::string containers_output = "text";
  containers_flags->add_option("--output,-o", containers_output, "text or json")
      ->check(CLI::IsMember({"text", "json"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 says "A subcommand is required" for a mistyped one; name it.
    auto extra = app.remaining();
    if (app.get_subcommands().empty() && !extra.empty() && !extra.front().empty() && extra.front()[0] != '-') {
      std::vector<std::string> names;
      for (const auto* sub : app.get_subcommands({})) names.push_back(sub->get_name());
      std::string hint = suggest(extra.front(), names), all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      std::cerr << "error: unknown command \"" << extra.front() << "\""
                << (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") << "; the commands are " << all
                << ". Run with --help for more information.\n";
      return static_cast<int>(ExitCode::bad_input);
    }
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(ExitCode::bad_input);
  }

  g.verbosity = quiet ? -1 : verbose;
  g.color = !no_color && std::getenv("NO_COLOR") == nullptr && ::isatty(STDOUT_FILENO);
  auto format = [](const std::string& s) { return s == "json" ? OutputFormat::json : OutputFormat::text; };
  plan_options.output = format(plan_output);
  install_options.change.output = format(install_output);
  rollback_options.output = format(rollback_output);
  recover_options.output = format(recover_output);
  for (int i = 0; i < argc; ++i) {
    g.command_line += (i ? " " : "") + std::string(argv[i]);
    g.argv.emplace_back(argv[i]);
  }

  try {
    setup_logging(g);
    spdlog::debug("wslgpu-setup {} started", WSLGPU_VERSION);
    if (*validate) return run_validate(g, validate_profiles);
    if (*plan) return run_plan(g, plan_options);
    if (*install) return run_install(g, install_options);
    if (*rollback) return run_rollback(g, rollback_id, rollback_options);
    if (*recover) {
      if (!recover_rollback && !recover_resume) {
        std::cerr << "error: say what to do with the interrupted run: recover --rollback or recover --resume\n";
        return static_cast<int>(ExitCode::bad_input);
      }
      return run_recover(g, recover_rollback, recover_options);
    }
    if (*history) return run_history(g, history_show, format(history_output), history_prune);
    if (*list) return list_vars.empty() ? run_list(g) : run_list_vars(list_vars);
    if (*kinds) return run_kinds(g);
    if (*containers_flags) return run_containers_flags(g, format(containers_output));
    if (*doctor) {
      doctor_options.output = format(doctor_output);
      return run_doctor(g, doctor_options);
    }
  } catch (const InputError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << "error: " << d.str() << "\n";
    return static_cast<int>(e.code());
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const spdlog::spdlog_ex& e) {
    std::cerr << "error: cannot open the log file: " << e.what() << "\n";
    return static_cast<int>(ExitCode::bad_input);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::failed);
  }
  return 0;
}
