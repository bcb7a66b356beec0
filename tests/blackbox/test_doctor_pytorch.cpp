// `doctor`'s PyTorch checks through the command line, on a fake WSL root
// read by the real file system: --python names the venv; without it, the
// venv of a committed pytorch transaction (its real journal and plan.json
// layout) is found; and nothing under the root changes.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "harness.hpp"

using namespace wslgpu::blackbox;

// A namespace of its own: the test program is a unity build.
namespace doctor_pytorch_blackbox {

const char* const kSite = "/lib/python3.12/site-packages";

// A venv at VENV holding an AMD 6.4.2 torch and NumPy 2 (so pytorch.numpy fails).
void write_venv(const FakeWslRoot& root, const std::string& venv) {
  root.write(venv + "/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n");
  // The interpreter pyvenv.cfg names (a venv whose Python is gone fails).
  root.write("/usr/bin/python3.12", "#!/bin/sh\ntouch /python-was-started\n", 0755);
  root.write(venv + "/bin/python", "#!/bin/sh\ntouch /python-was-started\n", 0755);
  root.write(venv + kSite + "/torch-2.6.0+rocm6.4.2.git76481f7c.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: torch\nVersion: 2.6.0+rocm6.4.2.git76481f7c\n\n");
  root.write(venv + kSite + "/torch/lib/libtorch.so", "elf");
  root.write(venv + kSite + "/numpy-2.1.3.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: numpy\nVersion: 2.1.3\n\n");
}


TEST_CASE(
    "doctor --python reads the venv it names; without it, the venv a committed install pytorch recorded; the "
    "root is left as it was") {
  FakeWslRoot root;
  root.write("/var/lib/dpkg/status",
             "Package: rocm-core\nStatus: install ok installed\nArchitecture: amd64\nVersion: 6.4.2.60402-120~24.04\n\n"
             "Package: hsa-runtime-rocr4wsl-amdgpu\nStatus: install ok installed\nArchitecture: amd64\n"
             "Version: 1.13.0.60402-120~24.04\n\n");
  write_venv(root, "/home/alice/envs/recorded");
  write_venv(root, "/srv/named");
  const std::string tx = "/var/lib/wslgpu-setup/tx/20261201-120000-abcd";
  root.write(tx + "/journal.jsonl",
             "{\"type\":\"begin\",\"id\":\"20261201-120000-abcd\",\"manifest\":\"pytorch-rocm\"}\n"
             "{\"type\":\"end\",\"status\":\"committed\"}\n",
             0600);
  root.write(tx + "/plan.json", "{\"plan\": {\"vars\": {\"venv\": \"/home/alice/envs/recorded\"}}}\n", 0600);
  const auto before = snapshot(root.path());

  RunResult recorded = run_tool({"--root", root.path(), "doctor", "--output", "json"});
  CHECK(recorded.exit_code == 1);  // pytorch.numpy fails
  CHECK(doctor_finding(recorded, "pytorch.venv")["seen"] ==
        "venv /home/alice/envs/recorded (recorded by `install pytorch-rocm` (transaction 20261201-120000-abcd)): "
        "torch 2.6.0+rocm6.4.2.git76481f7c, Python 3.12.3");
  CHECK(doctor_finding(recorded, "pytorch.numpy")["status"] == "fail");

  RunResult named =
      run_tool({"--root", root.path(), "doctor", "--python", "/srv/named/bin/python", "--output", "json"});
  CHECK(doctor_finding(named, "pytorch.venv")["seen"] ==
        "venv /srv/named (--python): torch 2.6.0+rocm6.4.2.git76481f7c, Python 3.12.3");

  RunResult relative = run_tool({"--root", root.path(), "doctor", "--python", "srv/named/bin/python"});
  CHECK(relative.exit_code == 2);
  CHECK(relative.err.find("must be an absolute path inside --root") != std::string::npos);

  // Read from files alone: the venv's Python (which would leave a file) never ran.
  CHECK(snapshot_difference(before, snapshot(root.path())).empty());
}

}  // namespace doctor_pytorch_blackbox
