// The commands a message tells the user to type next, spelled as the user
// typed this one (the program's path, --root and the other options), quoted
// for a shell.
#pragma once
#include <string>

#include "installer/cli/commands.hpp"

namespace wslgpu {

// The program as the user typed it (argv[0]), for the commands we suggest.
std::string program(const GlobalOptions& g);

// " --root DIR" when the command acts on another root than /, else "".
std::string root_option(const GlobalOptions& g);

// This very command again, as root: what to type after a refusal for want of it.
std::string again_with_sudo(const GlobalOptions& g);

// The command that applies exactly the plan that PROFILE_ARG and G's options
// shaped: without the --set values, say, install would apply the profile's
// defaults instead.
std::string apply_command(const GlobalOptions& g, const std::string& profile_arg);

}  // namespace wslgpu
