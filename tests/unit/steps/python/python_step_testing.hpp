// A target root for the tests of the Python step kinds (python_venv,
// python_packages): users alice (1000) and bob (1001) in /etc/passwd, a
// scripted runner that carries out `runuser -u alice -- mkdir -p` and
// `runuser -u alice -- /usr/bin/python3 -m venv` in the MemoryFileSystem
// the way the real programs change the disk (owned by alice), and the step
// context over both.
#pragma once
#include <optional>

#include "installer/system/paths.hpp"
#include "support/helpers.hpp"
#include "unit/steps/system_step_testing.hpp"

namespace wslgpu::testing {

struct PythonRoot {
  MemoryFileSystem fs;
  FakeProcessRunner runner;
  HostFacts host = fake_wsl_host();
  StepContext ctx{fs, runner, host, "pytorch"};
  // The transaction's undo store, where python_packages keeps the venv.
  UndoStore store{"/fake/var/lib/wslgpu-setup/tx/T/undo", "/var/lib/wslgpu-setup/tx/T/undo"};
  // When set, what `python3 -m venv` answers instead of making the venv.
  std::optional<ProcessResult> venv_answer;

  PythonRoot() {
    ctx.undo_store = &store;
    ctx.step_id = "torch";
    // Unit tests reach no server: every size is unknown unless a test answers.
    ctx.ask_urls = [](const std::vector<UrlQuery>& queries, const QueryOptions&) {
      std::vector<UrlAnswer> out(queries.size());
      for (auto& a : out) a.error = "no server in unit tests";
      return out;
    };
    fs.add_file("/etc/passwd",
                "root:x:0:0:root:/root:/bin/bash\n"
                "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n"
                "bob:x:1001:1001::/home/bob:/bin/bash\n");
    fs.add_file("/etc/group", "root:x:0:\nalice:x:1000:\nbob:x:1001:\n");
    // The interpreter the venvs' pyvenv.cfg names (home = /usr/bin, 3.12):
    // a venv whose Python is gone is made anew (python_venv).
    fs.add_file("/usr/bin/python3.12", "");
    fs.add_dir("/home/alice");
    fs.set_owner("/home/alice", 1000, 1000);
    runner.on({"runuser", "-u", "alice", "--", "mkdir", "-p", "--"}, [this](const Command& c) {
      for (std::size_t i = 7; i < c.argv.size(); ++i) {
        for (std::string p = c.argv[i]; p != "/" && !fs.lstat(p); p = parent_path(p)) {
          fs.add_dir(p);
          fs.set_owner(p, 1000, 1000);
        }
      }
      return exited(0);
    });
    runner.on({"runuser", "-u", "alice", "--", "/usr/bin/python3", "-m", "venv"}, [this](const Command& c) {
      if (venv_answer) return *venv_answer;
      const std::string& venv = c.argv.back();
      fs.add_dir(venv);
      fs.set_owner(venv, 1000, 1000);
      fs.write_atomic(venv + "/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n", FileAttrs{0644, 1000, 1000});
      fs.write_atomic(venv + "/bin/python", "", FileAttrs{0755, 1000, 1000});
      fs.write_atomic(venv + "/lib/python3.12/site-packages/pip-24.0.dist-info/METADATA", "Name: pip\nVersion: 24.0\n",
                      FileAttrs{0644, 1000, 1000});
      return exited(0);
    });
  }
};

}  // namespace wslgpu::testing
