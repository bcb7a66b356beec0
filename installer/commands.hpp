// The commands, one function each, called by main.cpp once the command line
// is parsed. Each returns an exit status (see error.hpp) or throws an Error
// that main turns into a message and a status.
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
  int verbosity = 0;  // -1 quiet, 0 normal, 1 -v, 2 -vv
  bool color = false;  // decided in main: a terminal, no NO_COLOR, no --no-color
  std::string log_file;
  std::vector<std::string> sets;  // --set key=value
};

struct PlanOptions {
  std::string profile;
  OutputFormat output = OutputFormat::text;
  bool detailed_exitcode = false;
};

int run_validate(const GlobalOptions& g, const std::vector<std::string>& profiles);
int run_plan(const GlobalOptions& g, const PlanOptions& options);
int run_list(const GlobalOptions& g);
int run_kinds(const GlobalOptions& g);

// Parses --set values into a map; a value without '=' is a usage error.
std::map<std::string, std::string> parse_sets(const std::vector<std::string>& sets);

}  // namespace wslgpu
