// Where a Windows program is, for running it from inside WSL through
// interop, read from files only (nothing runs): interop must not be turned
// off in /etc/wsl.conf ([interop] enabled), WSL must have registered its
// binfmt_misc entry (/proc/sys/fs/binfmt_misc/WSLInterop, or
// WSLInterop-late on newer WSL), and the program is looked for in each
// drive's Windows\System32 under the automount root (/mnt, or [automount]
// root in /etc/wsl.conf), since the Windows folders may not be on PATH.
// Doctor's Windows checks and the host's Windows GPU facts both find their
// programs here, so that they agree on when interop is off.
#pragma once
#include <string>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

struct WindowsProgram {
  // The target path: "/mnt/c/Windows/System32/cmd.exe"; "" when not found.
  std::string path;
  // Why it cannot run, when PATH is "": "interop is turned off in
  // /etc/wsl.conf", "no WSLInterop entry in /proc/sys/fs/binfmt_misc, so
  // Windows programs cannot run", "cmd.exe was not found under
  // /mnt/<drive>/Windows/System32".
  std::string why_not;
  // Interop is on but no drive holds the program: PATH may still find it.
  bool only_not_on_a_drive = false;
};

// PROGRAM relative to System32: "cmd.exe", "WindowsPowerShell/v1.0/powershell.exe".
WindowsProgram find_windows_program(const FileSystem& fs, const std::string& program);

}  // namespace wslgpu
