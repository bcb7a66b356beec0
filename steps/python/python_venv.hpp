// kind = "python_venv": a Python virtual environment that belongs to a user,
// made with the distribution's own `python3 -m venv`.
//
//   [[step]]
//   id = "venv"
//   kind = "python_venv"
//   path = "${host.user_home}/.venvs/pytorch"   # the venv folder (a target path)
//   owner = "${host.user}"                       # who it belongs to; never root
//   python = "/usr/bin/python3"             # optional; the interpreter (target path)
//
// Plan reads PATH/pyvenv.cfg and the folder's owner and runs nothing: a
// venv owned by OWNER is a no-op ("venv PATH (Python 3.12.3), owned by
// alice"). A venv owned by someone else (root, after a `sudo pip`), or a
// folder that is neither empty nor a venv, refuses the plan with what to do.
// A PYTHON that is not there yet is only a detail ("needs python3 and
// python3-venv (installed by an earlier step)"): the plan cannot see what
// an earlier apt step installs, so only apply fails on it.
//
// Apply creates the missing parent folders as OWNER (`runuser -u OWNER --
// mkdir -p --`), then runs, in the root, `runuser -u OWNER -- PYTHON -m venv
// PATH` with HOME set to OWNER's home. "ensurepip is not available" (Debian
// and Ubuntu ship venv's pip separately) is answered with `apt install
// python3-venv`.
//
// State touched: PATH and the parents apply created. Undo removes the venv
// folder and those parents (when empty) only when this run created them
// (an empty folder that was there keeps existing, emptied); it removes
// trees through FileSystem, never following a link out of the venv. It is
// idempotent. When apply did not finish, the snapshot (whether PATH existed,
// which parents were missing) says what is this run's.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_python_venv_step(StepKeys& keys);

}  // namespace wslgpu
