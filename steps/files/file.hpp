// kind = "file": a file with the given content, mode and owner.
//
//   [[step]]
//   id = "motd"
//   kind = "file"
//   path = "/etc/motd"          # target path, inside the root
//   content = "GPU ready\n"     # ${var} substituted
//   mode = "0644"               # optional, default "0644"
//   owner = "root"              # optional user name or uid, default root
//   group = "root"              # optional group name or gid, default root
//   state = "present"           # or "absent" to remove the file
//
// State touched: that one file. Undo: the runner restores the file it backed
// up (content, mode, owner), or removes it when it did not exist.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_file_step(StepKeys& keys);

}  // namespace wslgpu
