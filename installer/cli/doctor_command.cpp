// `wslgpu-setup doctor`: the command around installer/doctor/ (which
// diagnoses and never writes): it reads the target under --root, prints the
// findings and writes the support bundle when asked.
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "installer/cli/commands.hpp"
#include "installer/doctor/doctor.hpp"
#include "installer/doctor/support_bundle.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

// --python as a target path: absolute, or relative to the working folder
// when the root is the running system (under another root a relative path
// means nothing).
std::string venv_python(const GlobalOptions& g, const std::string& python) {
  if (python.empty() || python.front() == '/') return python;
  if (g.root != "/")
    throw InputError(SourcePos{"--python", 0, 0},
                     "\"" + python + "\" must be an absolute path inside --root " + g.root + " (VENV/bin/python)");
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr)
    throw InputError(SourcePos{"--python", 0, 0},
                     "\"" + python + "\": the working folder is unknown; give an absolute path");
  return std::string(cwd) + "/" + python;
}

}  // namespace

int run_doctor(const GlobalOptions& g, const DoctorOptions& options) {
  if (g.root.empty() || g.root.front() != '/')
    throw InputError(SourcePos{"--root", 0, 0}, "\"" + g.root + "\" must be an absolute path");
  if (::access(g.root.c_str(), F_OK) != 0)
    throw InputError(SourcePos{"--root", 0, 0}, "\"" + g.root + "\" does not exist");
  RootedFileSystem fs(g.root);
  RealProcessRunner runner(g.root);
  HostOptions host_options;
  host_options.user = g.user;
  host_options.windows_home = g.windows_home;
  if (const char* sudo_user = std::getenv("SUDO_USER")) host_options.sudo_user = sudo_user;
  DoctorMachine machine{fs, runner, probe_host(fs, g.root, host_options), {}, std::chrono::seconds(30)};
  machine.python = venv_python(g, options.python);
  machine.image = options.image;
  machine.as_root = ::geteuid() == 0;
  machine.free_disk_bytes = [&fs]() -> std::optional<std::uint64_t> {
    struct statvfs st {};
    if (::statvfs(fs.host_path("/").c_str(), &st) != 0) return std::nullopt;
    return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  };

  std::vector<Finding> findings = diagnose(machine);
  nlohmann::ordered_json document = findings_to_json(findings);
  if (options.output == OutputFormat::json) {
    std::cout << document.dump(2) << "\n";
  } else {
    std::cout << render_findings_text(findings, g.color, g.verbosity < 0);
  }
  std::cout.flush();

  if (!options.bundle.empty()) {
    auto files = collect_bundle_files(fs, machine.host, document);
    write_support_bundle(options.bundle, files);
    if (g.verbosity >= 0)
      std::cerr << "Support bundle written to " << options.bundle << " (" << files.size()
                << " files, secrets redacted). Read it before you share it.\n";
  }
  return count_findings(findings, FindingStatus::fail) == 0 ? 0 : 1;
}

}  // namespace wslgpu
