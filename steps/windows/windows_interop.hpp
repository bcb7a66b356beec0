// Asking Windows from inside WSL through interop: cmd.exe runs as a Windows
// process and prints what Windows knows (%USERPROFILE%, the logical CPUs)
// that the distribution cannot see. Interop can be off, or hang while the
// Windows side is busy, so every call has a timeout and a failure is a
// reason in words, never an exception: the steps fall back or refuse.
#pragma once
#include <string>
#include <vector>

#include "steps/step.hpp"

namespace wslgpu {

// cmd.exe as /mnt/<drive>/Windows/System32/cmd.exe when a drive has it (the
// Windows folders may not be on PATH), else "cmd.exe" for PATH to find.
std::string windows_cmd_exe(const FileSystem& fs);

// What `cmd.exe /c echo TEXT` prints: its last non-empty line, trimmed
// (cmd.exe may first warn that it started in a UNC folder), waiting at most
// 5 s. "" with the reason added to TRIED when it cannot run or fails. A
// variable Windows does not have comes back as written ("%NAME%").
std::string windows_echo(StepContext& ctx, const std::string& text, std::vector<std::string>& tried);

// How many logical CPUs the Windows machine has, and how that is known.
struct LogicalCpus {
  unsigned count = 0;  // 0: unknown
  // One clause for a plan's detail, saying where COUNT comes from or why it
  // is unknown: "Windows has 16 logical CPUs, by %NUMBER_OF_PROCESSORS%
  // through interop".
  std::string description;
};

// The logical CPUs of Windows: %NUMBER_OF_PROCESSORS% through interop; when
// interop does not answer, the processors listed in the root's
// /proc/cpuinfo, which are only those the VM got (.wslconfig's processors
// may have limited them), so a lower bound.
LogicalCpus windows_logical_cpus(StepContext& ctx);

// The Windows build in what `cmd.exe /c ver` prints ("Microsoft Windows
// [Version 10.0.22631.4460]"): the third number, 22631, with the whole
// version in FULL; 0 when OUTPUT holds no version. Windows 11 is build 22000
// and later, though it still calls itself 10.0.
int windows_build_from_ver(const std::string& output, std::string* full = nullptr);

// The Windows build asked through interop (`cmd.exe /c ver`, at most 5 s);
// 0 with the reason in WHY_UNKNOWN when it cannot be asked or read.
int windows_build(StepContext& ctx, std::string& why_unknown);

}  // namespace wslgpu
