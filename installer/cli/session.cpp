#include "installer/cli/session.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "installer/cli/suggested_commands.hpp"
#include "installer/host/nvidia_driver.hpp"
#include "installer/host/windows_gpus.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"

namespace wslgpu {

Session::Session(const GlobalOptions& g) : fs((check_root(g.root), g.root)), runner(g.root) {
  HostOptions options;
  options.user = g.user;
  options.windows_home = g.windows_home;
  if (const char* sudo_user = std::getenv("SUDO_USER")) options.sudo_user = sudo_user;
  host = probe_host(fs, g.root, options);
  // Only for manifests that name host.nvidia_*: one run, with a timeout.
  host.nvidia_driver = std::make_shared<const LazyNvidiaDriver>(
      [this] { return probe_nvidia_driver(fs, runner, std::chrono::seconds(10)); });
  // Only for manifests that name host.amd_* or host.windows_gpus: one
  // powershell.exe run through interop, with the same timeout (unsloth's
  // `_wsl_amd_gpu_name` waits 10 s too).
  host.windows_gpus = std::make_shared<const LazyWindowsGpus>(
      [this] { return probe_windows_gpus(fs, runner, std::chrono::seconds(10)); });
}

void refuse_unless_root(const GlobalOptions& g, const std::string& command) {
  if (::geteuid() == 0) return;
  throw Refusal("refused by guard root: `wslgpu-setup " + command +
                "` changes the machine and must run as root; nothing was changed.\n  Run it again with sudo: " +
                again_with_sudo(g));
}

namespace {

std::chrono::milliseconds lock_timeout(const ChangeOptions& o) {
  return std::chrono::milliseconds(static_cast<long long>(o.lock_timeout_s * 1000));
}

}  // namespace

RunLock lock_state(Session& s, const Transactions& tx, const ChangeOptions& o) {
  tx.refuse_newer_state();
  s.fs.make_dirs(kStateDir, 0755);
  return RunLock(s.fs.host_path(std::string(kStateDir) + "/lock"), lock_timeout(o));
}

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

}  // namespace wslgpu
