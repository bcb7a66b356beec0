// kind = "wslconfig": keys in the Windows-side %USERPROFILE%\.wslconfig,
// which configures the WSL 2 virtual machine (memory, processors, swap).
// kind = "wslconf": keys in the distribution's own /etc/wsl.conf (systemd,
// default user, GPU, interop, automount). Both share one engine over the
// line-preserving IniDocument (installer/formats/ini.hpp):
//
//   [[step]]
//   id = "wsl-memory"
//   kind = "wslconfig"
//   settings.wsl2 = { memory = "16GB", processors = 8, swap = "0" }
//   settings.experimental = { sparseVhd = true }
//   allow_unknown = false        # true: accept keys and sections not in Microsoft's documentation
//   rewrite_utf16 = false        # true: a file saved as UTF-16 (which WSL ignores) is rewritten as UTF-8
//
//   [[step]]
//   id = "systemd"
//   kind = "wslconf"
//   settings.boot = { systemd = true }
//
// Every key is checked by type against Microsoft's wsl-config documentation
// (a size such as "16GB", a count, a boolean, a Windows path, one of a few
// words). A size or a count may be a minimum instead of a value, so that a
// profile never lowers what the user chose:
//
//   settings.wsl2 = { memory = { at_least = "${memory}" }, swap = "${swap}" }
//
// keeps a larger memory (compared in bytes, as WSL reads it) and says so in
// the plan ("kept: memory 48GB (above 16GB)"), leaves a value WSL cannot
// read as it is, and caps processors at Windows' logical CPUs (interop,
// else /proc/cpuinfo), asked only when a count would be raised. A minimum
// that uses a variable given with --set is the user's word: written as
// given. A value that comes out empty from a variable ("${swap}" with
// swap = "") leaves the key alone.
//
// Editing keeps comments, order, other keys and sections, the BOM and the
// line endings; a key that appears more than once is set on every line
// that holds it; a new key goes after the last line of its section's last
// block. A file WSL would misread (UTF-16 unless allowed, a key outside
// any section, text after a [section] header, a line that is not key=value)
// stops the plan with FILE:LINE and leaves it untouched.
//
// The .wslconfig path is HOST.windows_home + "/.wslconfig" (--windows-home,
// or the one user folder under /mnt/*/Users); failing those, interop
// (`cmd.exe /c echo %USERPROFILE%`, then `wslpath -u`, 5 s each); failing
// that, the step refuses and asks for --windows-home.
//
// State touched: that one file, as a plan write. Undo: the runner restores
// it byte for byte, or removes it when it did not exist. Changes take effect
// after `wsl --shutdown` (.wslconfig) or a restart of the distribution
// (wsl.conf), both run from Windows; the plan's notice says so.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_wslconfig_step(StepKeys& keys);
std::shared_ptr<Step> make_wslconf_step(StepKeys& keys);

}  // namespace wslgpu
