// kind = "python_packages": wheels installed with pip into a virtual
// environment, as the venv's owner, by URL (pinned by SHA-256 where one is
// known) or from an index.
//
//   [[step]]
//   id = "torch"
//   kind = "python_packages"
//   venv = "${host.user_home}/.venvs/pytorch"   # the venv (python_venv's path)
//   owner = "${host.user}"                       # pip runs as this user
//   python = "3.12"                         # the venv's Python the wheels are for
//   packages = [
//     { url =
//     "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2.2/torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl",
//     sha256 = "" }, { name = "numpy", version = "1.26.4" },
//   ]
//   index_url = "https://download.pytorch.org/whl/cu128"   # optional; without it pip runs --no-index
//   find_links = ["file:///srv/wheels/"]                  # optional
//   remove_files = ["torch/lib/libhsa-runtime64.so*"]     # optional; globs under site-packages
//   unverified_note = "AMD publishes no hash for this wheel"   # optional
//   build = "cu128"                                       # optional; the local label index packages carry
//
// Load checks, each at the value's FILE:LINE:COLUMN: a URL that is not
// https:// or file:// (or holds a '#': the hash goes in sha256), a file name
// that is not a wheel's, a wheel whose tags cannot run on CPython PYTHON
// (x86_64), a sha256 that is not 64 hex digits, a name that is not a PEP 508
// name (so that no name can be read as a pip option), an unknown key.
//
// Plan starts no Python: it reads VENV/pyvenv.cfg (a venv of another Python
// than PYTHON refuses the plan, naming both) and the *.dist-info folders of
// VENV/lib/pythonX.Y/site-packages (installer/formats/python_dist.hpp).
// Every package as wanted (names compared as PEP 503 keys; a version
// without a local label is met by its local builds, PEP 440 `==`; with
// `build = "cu126"` an index package must carry that label; an index
// package without a version counts when present and its exact pins on the
// step's other packages hold) and no file matching remove_files make a
// no-op, with no process run. Else each package is an install or "torch
// 2.8.0 → 2.9.1…", with its hash or `not verified: NOTE; TLS only`, and
// what undo keeps (the venv's files, as links or copies).
//
// Apply keeps the whole venv in the transaction's undo store first
// (steps/python/venv_snapshot.hpp), downloads the https:// wheels itself
// (steps/python/wheel_fetch.hpp), removes installed packages that are not
// as wanted (so that pip resolves their companions anew), runs pip
// (steps/python/pip_run.hpp) as OWNER, then removes what remove_files
// names. Undo gives the venv back from the store, file for file, with no
// network and no pip, keeping what the user added since; Step::drift names
// what the transaction left that changed since. docs/steps.md has the
// whole contract, and what is and is not restored.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_python_packages_step(StepKeys& keys);

}  // namespace wslgpu
