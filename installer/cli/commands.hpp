// installer/cli/: main() and the commands, the only folder that prints for
// people. Includes everything.
//
// The commands, one function each, called by main.cpp once the command line
// is parsed, and defined one file per verb or family of verbs
// (plan_command.cpp, install_command.cpp, rollback_command.cpp for rollback
// and recover, ...); what several share has a file named for its concept
// (session, plan_record, resolve, terminal, run_report). Each returns an
// exit status (see error.hpp) or throws an Error that main turns into a
// message and a status.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace wslgpu {

enum class OutputFormat { text, json };

struct GlobalOptions {
  std::string root = "/";
  std::string user;
  std::string windows_home;
  int verbosity = 0;   // -1 quiet, 0 normal, 1 -v, 2 -vv
  bool color = false;  // decided in main: a terminal, no NO_COLOR, no --no-color
  std::string log_file;
  std::vector<std::string> sets;  // --set key=value
  bool not_wsl = false;           // --not-wsl
  bool unsupported_distro = false;  // --unsupported-distro
  std::string command_line;       // for the lock holder record
  std::vector<std::string> argv;  // as typed, argv[0] included: for "run it again with sudo: ..."
};

struct PlanOptions {
  std::string profile;
  OutputFormat output = OutputFormat::text;
  bool detailed_exitcode = false;
  std::string out_file;  // --out: save the plan
  bool offline = false;  // --offline: ask no server (a plan to read, never to install)
};

struct ChangeOptions {
  OutputFormat output = OutputFormat::text;
  bool yes = false;
  double lock_timeout_s = 0;
  bool force = false;  // rollback despite drift
  // --allow-partial-undo: install a plan although undo could not put back
  // every package it changes; roll back without a corrupt undo store.
  bool allow_partial_undo = false;
};

struct InstallOptions {
  std::string profile;      // "" with --plan, or to detect the vendor
  std::string saved_plan;   // --plan FILE
  ChangeOptions change;
};

int run_validate(const GlobalOptions& g, const std::vector<std::string>& profiles);
int run_plan(const GlobalOptions& g, const PlanOptions& options);
int run_list(const GlobalOptions& g);
// `list --vars PROFILE`: the [vars] of a bundled profile or a .toml file, one
// NAME=DEFAULT a line, as written (not substituted); what --set may change.
// Reads no machine, so the bash completion can ask it for `--set` names.
int run_list_vars(const std::string& profile_or_file);
int run_kinds(const GlobalOptions& g);
int run_install(const GlobalOptions& g, const InstallOptions& options);
int run_rollback(const GlobalOptions& g, const std::string& id, const ChangeOptions& options);
int run_recover(const GlobalOptions& g, bool rollback, const ChangeOptions& options);
// PRUNE: remove the undo stores that installer/undo/retention.hpp lets go.
int run_history(const GlobalOptions& g, const std::string& show_id, OutputFormat output, bool prune = false);

struct DoctorOptions {
  OutputFormat output = OutputFormat::text;
  std::string bundle;  // --bundle FILE.tar.gz (a path on the running machine), "" for none
  std::string python;  // --python VENV/bin/python (a path under --root), "" for the recorded venv
  std::string image;   // --image NAME: a local container image to inspect, "" for none
};

// The `doctor` command: diagnoses G.root, prints the findings, writes the
// support bundle when asked. Returns 0 when no finding failed, else 1.
int run_doctor(const GlobalOptions& g, const DoctorOptions& options);

// `containers flags`: the docker run flags of the GPU's CDI specs under
// G.root (installer/formats/cdi_docker_flags.hpp), as text or JSON.
int run_containers_flags(const GlobalOptions& g, OutputFormat output);

// --root must be an absolute path that exists (exit 2 otherwise).
void check_root(const std::string& root);

// Parses --set values into a map; a value without '=' is a usage error.
std::map<std::string, std::string> parse_sets(const std::vector<std::string>& sets);

}  // namespace wslgpu
