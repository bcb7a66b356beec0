// The GPUs Windows has, asked through interop before ROCm runs: inside WSL
// a discrete AMD GPU's model and gfx target are unknown until ROCm works
// (unslothai/unsloth PR 6915, `_wsl_amd_gpu_name`, asks Windows for the
// same reason), and the driver store folders in /usr/lib/wsl/drivers/ do
// not name the model. One powershell.exe run (with a timeout: interop can
// hang) lists each video controller's Name and DriverVersion from WMI
// (Win32_VideoController, as daMustermann/rocm-wsl-ai's documentation
// asks) and each display adapter's memory from the registry
// (HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-...}\000N,
// HardwareInformation.qwMemorySize beside DriverDesc), because WMI's
// AdapterRAM is 32 bits and stops at 4 GB.
//
// Like the NVIDIA driver's facts, these are probed only for a manifest that
// names one (host.amd_gfx, host.amd_gpu, host.amd_windows_driver,
// host.amd_igpu, host.windows_gpus), once per command; doctor asks the same
// way for its AMD Windows findings. What Windows says is parsed apart from
// running it, so that tests give the parser recorded outputs.
//
// DriverVersion is Windows' version of the driver (32.0.21041.1000 for
// AMD), not the Adrenalin release (25.10.1) AMD's requirements name, and
// AMD publishes no rule from one to the other (GPUOpen, "Decoding Radeon
// Vulkan versions": "there's no solid way for you to map" the release to
// what is on disk), so no Adrenalin release is derived from it here.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "installer/host/lazy_facts.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/system/process.hpp"

namespace wslgpu {

struct WindowsGpu {
  std::string name;            // "AMD Radeon RX 9070 XT"
  std::string driver_version;  // "32.0.21041.1000", "" when Windows gives none
  std::uint64_t memory = 0;    // bytes of its own memory (qwMemorySize); 0 when unknown
};

enum class WindowsGpuAnswer {
  answered,     // powershell.exe printed the adapters (perhaps none)
  interop_off,  // nothing ran: interop is off, or powershell.exe is not on a drive
  failed,       // it ran and failed, timed out or printed nothing readable
};

struct WindowsGpuFacts {
  WindowsGpuAnswer answer = WindowsGpuAnswer::failed;
  std::vector<WindowsGpu> adapters;  // every video controller Windows lists
  std::string amd_gpu;               // the AMD GPU ROCm would use: "AMD Radeon RX 9070 XT", "" when none
  std::string amd_windows_driver;    // its DriverVersion
  std::string amd_gfx;               // its gfx target ("gfx1201"), "" when the table has no such model
  bool amd_igpu = false;             // an AMD integrated GPU beside a discrete AMD GPU
  std::string amd_igpu_name;         // that integrated GPU's name
  // One phrase for messages: what was seen ("AMD Radeon RX 9070 XT
  // (gfx1201), Windows driver 32.0.21041.1000"), or why nothing was:
  // "powershell.exe did not answer within 10 s", "interop is turned off in
  // /etc/wsl.conf", "Windows lists no AMD GPU (NVIDIA GeForce RTX 4090)".
  std::string said;
};

// The adapters in OUTPUT, what windows_gpu_command() prints: "adapter|NAME|
// DRIVERVERSION" lines, and "memory|DRIVERDESC|SIZE" lines whose size (a
// number, or the eight bytes of a binary value) goes to the adapter of that
// name. Other lines (blank ones, PowerShell's warnings) are skipped; CRLF
// and UTF-16 output read as well.
std::vector<WindowsGpu> parse_windows_gpus(const std::string& output);

// Whether Windows' NAME is AMD's: it contains "AMD" or "Radeon" (as
// unsloth's `Name -match 'AMD|Radeon'`).
bool is_amd_gpu_name(const std::string& name);

// Whether ADAPTER is an APU's graphics: the table says so
// (installer/host/amd_gpu_targets.hpp), or its name is the generic "AMD
// Radeon(TM) Graphics" Windows gives integrated GPUs.
bool is_integrated_amd_gpu(const WindowsGpu& adapter);

// The facts ADAPTERS give: the AMD GPU ROCm would use is a discrete one
// when there is one (of several, the one with the most memory, as the
// tools that read qwMemorySize choose), else the integrated one.
WindowsGpuFacts windows_gpu_facts(std::vector<WindowsGpu> adapters);

// What RESULT (a run of windows_gpu_command()) says. TIMEOUT is only for
// the message when it timed out.
WindowsGpuFacts windows_gpus_from(const ProcessResult& result, std::chrono::milliseconds timeout);

// The one powershell.exe run: POWERSHELL (a target path) with the query.
Command windows_gpu_command(const std::string& powershell, std::chrono::milliseconds timeout);

// Finds powershell.exe (installer/host/windows_programs.hpp; "powershell.exe"
// for PATH when interop is on but no drive holds it) and runs it once with
// TIMEOUT. Runs nothing when interop is off.
WindowsGpuFacts probe_windows_gpus(const FileSystem& fs, ProcessRunner& runner, std::chrono::milliseconds timeout);

using LazyWindowsGpus = LazyFacts<WindowsGpuFacts>;

// host.amd_gfx, host.amd_gpu, host.amd_windows_driver, host.amd_igpu,
// host.windows_gpus: the names of the facts this run gives.
const std::vector<std::string>& windows_gpu_fact_names();

}  // namespace wslgpu
