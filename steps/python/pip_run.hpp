// Running pip for the python_packages step: its command line, the progress
// its output shows, and its failure in its own words.
//
// pip runs in the root as the venv's owner (`runuser -u OWNER --`,
// python_common.hpp), --isolated (no pip.conf and no PIP_* variable of
// whoever ran the tool: the plan is the whole truth) but with the proxy
// variables the tool's own downloads get (installer/net/fetch_helper.hpp's
// fetch_environment()), since --isolated leaves those to the HTTP library.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "installer/host/accounts.hpp"
#include "installer/system/process.hpp"
#include "steps/step.hpp"

namespace wslgpu {

// The CA store pip is given with --cert when the root has one: the root's
// own, which the tool's downloads trust too.
inline constexpr const char* kCaStore = "/etc/ssl/certs/ca-certificates.crt";

// `VENV/bin/python -m pip ARGS...` as USER, with TIMEOUT and the proxy
// variables. An hour is plenty for pip working on local files; a pip run
// that downloads itself (what the tool could not resolve) gets
// kPipNetworkTimeout, so that no fixed limit cuts a slow link off.
inline constexpr std::chrono::seconds kPipLocalTimeout{3600};
inline constexpr std::chrono::seconds kPipNetworkTimeout{30 * 24 * 3600};
Command pip_command(const UserEntry& user, const std::string& venv, std::vector<std::string> args,
                    std::chrono::seconds timeout = kPipLocalTimeout);

// pip's progress lines ("Collecting torch", "Downloading ...") for CTX's
// progress display, ITEMS packages in all; nothing when nobody shows it.
void show_pip_progress(StepContext& ctx, Command& c, std::size_t items);

// "pip could not install into VENV (`...` exited N):" and pip's last dozen
// lines, with what a hash mismatch means.
std::string pip_failure(const std::string& venv, const Command& c, const ProcessResult& r);

}  // namespace wslgpu
