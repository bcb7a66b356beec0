// What the two Python kinds (python_venv, python_packages) share: the
// venv's owner, and running a program as that user in the root. Every
// program the kinds run goes through `runuser -u OWNER --` (util-linux,
// Essential in Debian and Ubuntu): a venv root wrote into would be one the
// user cannot change afterwards, the trouble `sudo pip install` leaves.
#pragma once
#include "installer/formats/python_dist.hpp"
#include <optional>
#include <string>
#include <vector>

#include "installer/host/accounts.hpp"
#include "installer/manifest/step_keys.hpp"
#include "installer/system/process.hpp"
#include "steps/step.hpp"

namespace wslgpu {

// Reads the required "owner" key: a user name the shadow tools accept,
// never root (the whole point is a venv the user owns).
std::string read_venv_owner(StepKeys& keys);

// OWNER's passwd entry in the target, or the reason the plan must refuse
// ("user bob does not exist in the root's /etc/passwd ...").
std::optional<UserEntry> find_venv_owner(const Accounts& accounts, const std::string& owner, std::string& why);

// `runuser -u USER.name -- ARGV...` in the root, with HOME set to the user's
// home (pip and venv read it) and a timeout of TIMEOUT.
Command as_user(const UserEntry& user, std::vector<std::string> argv, std::chrono::seconds timeout);

// Creates DIRS (target paths, parents first or not) as USER with
// `mkdir -p --`, a few hundred per command; throws StepFailure with mkdir's
// words when one cannot be made.
void make_dirs_as(StepContext& ctx, const UserEntry& user, const std::vector<std::string>& dirs);

// The folders of PATH, from the top, that do not exist yet (PATH itself not
// included): what mkdir -p would create for PATH's parent.
std::vector<std::string> missing_parents(const FileSystem& fs, const std::string& path);

// The name of uid UID in the target's /etc/passwd, or "uid UID".
std::string user_name_of(const FileSystem& fs, std::uint32_t uid);

// The interpreter a venv's pyvenv.cfg names ("home = /usr/bin", "version =
// 3.10.12": /usr/bin/python3.10) when this machine no longer has it, as
// after a distribution upgrade (22.04's 3.10 gone on 24.04): the venv's
// bin/python then points nowhere, or at another Python that cannot import
// what lib/python3.10 holds. "" when it is there, or the file says too
// little to tell. python_venv recreates such a venv; doctor fails it.
std::string venv_interpreter_gone(const FileSystem& fs, const PyvenvCfg& cfg);

// "3.12" of a Python version "3.12.3" (pyvenv.cfg's), the release whose
// pythonX.Y interpreter runs it.
std::string python_release(const std::string& version);

// BASE when nothing is there, else BASE-2, BASE-3 ...: where a venv is
// moved aside without taking anyone's folder.
std::string unused_path(const FileSystem& fs, const std::string& base);

}  // namespace wslgpu
