// kind = "python_packages": wheels installed with pip into a virtual
// environment, as the venv's owner, by URL (pinned by SHA-256 where one is
// known) or from an index.
//
//   [[step]]
//   id = "torch"
//   kind = "python_packages"
//   venv = "/home/${user}/.venvs/pytorch"   # the venv (python_venv's path)
//   owner = "${user}"                       # pip runs as this user
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
// Every package at the wanted version (names compared as PEP 503 keys,
// versions as text; an index package without a version counts when present)
// and no file matching remove_files make a no-op, with no process run. Else
// each package is an install or "torch 2.8.0 → 2.9.1…", with its hash or
// `not verified: NOTE; TLS only`. A venv that does not exist yet (an earlier
// python_venv step makes it) means every package is an install. Download
// sizes are not shown: the net layer cannot ask a server for a size without
// downloading.
//
// Apply runs, in the root, `runuser -u OWNER -- VENV/bin/python -m pip
// install --isolated --no-input --disable-pip-version-check --no-cache-dir
// [--cert /etc/ssl/certs/ca-certificates.crt] [--index-url X | --no-index]
// [--find-links F]… REQ…`, REQ being `NAME @ URL[#sha256=HEX]` (pip checks
// the hash and refuses a mismatch before installing anything) or
// `NAME==VERSION` (NAME alone without a version), for the packages that
// change only. The --cert, only when the root has that file, makes pip trust
// the distribution's CA store (a proxy's CA) rather than its bundled
// certifi. pip's output lines go to the progress display. Then files
// matching remove_files are moved aside. A pip failure fails the step with
// pip's last lines.
//
// State touched: VENV's site-packages (and VENV/bin, where wheels put
// scripts). Undo (idempotent, from apply's data or, when apply did not
// finish, from the snapshot): packages absent before are uninstalled with
// `pip uninstall -y`; a package that had another version is put back.
// Before pip runs, apply moves the old distribution's files (its RECORD
// entries inside the venv, and its .dist-info) into
// VENV/.wslgpu-setup-undo/<id>/, by rename (instant even for torch), with
// the list of moves in moves.json written first; undo uninstalls the new
// version and renames the old files back. Files removed by remove_files are
// moved aside there too, and moved back by undo while their distribution is
// still the version they came from (a file no RECORD lists, always). The
// journal holds the undo folder's name; the moves are in its moves.json. A dependency that pip upgraded on its
// own is not moved aside and keeps its new version after undo.
//
// After a commit the moved-aside files stay in VENV/.wslgpu-setup-undo/<id>/:
// a later `rollback` of that transaction needs them. The plan reports their
// size as space kept for undo; delete the folder by hand once that rollback
// is no longer wanted (undo deletes it after moving everything back; when
// the venv itself was created in the same run, python_venv's undo removes
// all of it).
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_python_packages_step(StepKeys& keys);

// The folder, inside VENV, where apply moves files aside for undo.
inline constexpr const char* kPythonUndoFolder = ".wslgpu-setup-undo";

}  // namespace wslgpu
