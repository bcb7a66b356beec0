// kind = "user_groups": adds the provisioned user to groups (video, render),
// creating a missing group as a system group.
//
//   [[step]]
//   id = "gpu-groups"
//   kind = "user_groups"
//   groups = ["video", "render"]
//   user = "alice"            # optional; default the provisioned user (--user, SUDO_USER, wsl.conf, passwd)
//   create_missing = true     # optional; false: a missing group refuses the plan
//
// Plan reads ROOT/etc/passwd and ROOT/etc/group and runs nothing; it says
// when the user is already a member. Apply runs, in the root,
// `groupadd --system G` for each missing group, then one
// `usermod -aG G1,G2 USER` (never -G alone, which would drop the user from
// every other group). Membership takes effect at the next login: in WSL,
// `wsl --terminate <distro>` from Windows, or a new login shell.
//
// State touched: /etc/group and /etc/gshadow, through the root's own shadow
// tools. Undo runs `gpasswd -d USER G` for exactly the groups apply added the
// user to, then `groupdel G` for exactly the groups it created, each only
// while /etc/group still shows it (so undo can run twice). When apply did not
// finish, undo compares the snapshot taken before it with /etc/group to find
// what was done.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_user_groups_step(StepKeys& keys);

}  // namespace wslgpu
