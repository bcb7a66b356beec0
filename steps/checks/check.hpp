// kind = "check": a read-only assertion, used as a precondition or to verify
// an install. Exactly one subject per step:
//
//   [[step]]
//   id = "dxg"
//   kind = "check"
//   path = "/dev/dxg"            # a path exists...
//   type = "char_device"         # ...of this type: file, directory, char_device, block_device,
//                                #   symlink, any (default any)
//   mode = "0666"                # ...optionally with this mode
//   contains_line = "..."        # ...optionally holding this exact line (regular files)
//
// A path is judged by the file it names with symbolic links followed: a link
// to a regular file is a "file", a link to nothing "does not exist". Type
// "symlink" alone looks at PATH itself (FileSystem::lstat): it holds on a link,
// dangling or not, and fails on anything else; mode and contains_line, given
// with it, are still those of the file the link points to.
//
//   kernel_min = "5.10.60.1"     # or: the kernel release is at least this version
//
//   windows_build_min = 22000    # or: the Windows build, asked through interop
//                                #   (`cmd.exe /c ver`), is at least this; older is
//                                #   refused in plan, unknown (no interop) a warning
//
//   command = ["rocminfo"]       # or: a command exits 0 ...
//   output_matches = "gfx[0-9]+" # ...and its output matches this regular expression
//   timeout = 30                 # seconds (default 30): these tools are known to hang
//
//   on_fail = "abort"            # abort (roll the run back) or warn (report and go on)
//   advice = "Run wsl --update"  # told to the user when the check fails
//
// A check never changes anything. In plan, path and kernel checks are
// evaluated at once; command checks run during install, in their place.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_check_step(StepKeys& keys);

}  // namespace wslgpu
