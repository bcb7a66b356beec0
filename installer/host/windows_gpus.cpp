#include "installer/host/windows_gpus.hpp"

#include <cctype>

#include "installer/formats/ini.hpp"
#include "installer/host/amd_gpu_targets.hpp"
#include "installer/host/windows_programs.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

constexpr const char* kPowershell = "WindowsPowerShell/v1.0/powershell.exe";

// One line per video controller, then one per display adapter's registry
// key (0000, 0001, ...; the key's other subkeys, such as Properties, deny
// access and are skipped). "|" separates the fields: no adapter name holds
// one, and a table (Select-Object's own output) is cut to the console's
// width. No double quotes, which would need escaping on the Windows command
// line that interop builds from the arguments.
constexpr const char* kGpuQuery =
    "Get-CimInstance Win32_VideoController | ForEach-Object { 'adapter|' + $_.Name + '|' + $_.DriverVersion }; "
    "Get-ItemProperty 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\0*' "
    "-ErrorAction SilentlyContinue | ForEach-Object { 'memory|' + $_.DriverDesc + '|' + "
    "$_.'HardwareInformation.qwMemorySize' }";

// "25769803776", or a REG_BINARY value as PowerShell joins its bytes
// ("0 0 0 128 1 0 0 0", little-endian); 0 when neither.
std::uint64_t memory_size(std::string_view field) {
  field = text::trim(field);
  if (field.empty()) return 0;
  if (field.size() <= 20 && field.find_first_not_of("0123456789") == std::string_view::npos) {
    try {
      return std::stoull(std::string(field));
    } catch (const std::exception&) {
      return 0;
    }
  }
  std::vector<unsigned> bytes;
  std::size_t i = 0;
  while (i < field.size()) {
    while (i < field.size() && field[i] == ' ') ++i;
    std::size_t start = i;
    while (i < field.size() && text::is_digit(field[i])) ++i;
    if (i == start || i - start > 3 || (i < field.size() && field[i] != ' ')) return 0;
    unsigned byte = static_cast<unsigned>(std::stoul(std::string(field.substr(start, i - start))));
    if (byte > 255) return 0;
    bytes.push_back(byte);
  }
  if (bytes.size() != 8) return 0;
  std::uint64_t value = 0;
  for (std::size_t b = 8; b-- > 0;) value = (value << 8) | bytes[b];
  return value;
}

std::string timeout_seconds(std::chrono::milliseconds timeout) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) + " s";
}

}  // namespace

std::vector<WindowsGpu> parse_windows_gpus(const std::string& output) {
  std::string text_out = output;
  if (looks_like_utf16(text_out)) {
    if (auto decoded = utf16_to_utf8(text_out)) text_out = *decoded;
  }
  std::vector<WindowsGpu> adapters;
  std::vector<std::pair<std::string, std::uint64_t>> memory;
  for (std::string_view line : text::split_lines(text_out)) {
    line = text::trim(line);
    const auto first = line.find('|');
    if (first == std::string_view::npos) continue;
    const auto second = line.find('|', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view kind = line.substr(0, first);
    const std::string name = std::string(text::trim(line.substr(first + 1, second - first - 1)));
    const std::string_view value = text::trim(line.substr(second + 1));
    if (name.empty()) continue;
    if (kind == "adapter")
      adapters.push_back({name, std::string(value), 0});
    else if (kind == "memory")
      memory.emplace_back(name, memory_size(value));
  }
  for (auto& adapter : adapters) {
    for (const auto& m : memory)
      if (text::lower(m.first) == text::lower(adapter.name) && m.second > adapter.memory) adapter.memory = m.second;
  }
  return adapters;
}

bool is_amd_gpu_name(const std::string& name) {
  const std::string n = text::lower(name);
  // "AMD" as a word: "amd64" never names a GPU, but keep to whole words anyway.
  std::size_t at = n.find("amd");
  bool amd_word = false;
  while (at != std::string::npos && !amd_word) {
    const bool start = at == 0 || !std::isalnum(static_cast<unsigned char>(n[at - 1]));
    const bool end = at + 3 >= n.size() || !std::isalnum(static_cast<unsigned char>(n[at + 3]));
    amd_word = start && end;
    at = n.find("amd", at + 1);
  }
  return amd_word || n.find("radeon") != std::string::npos;
}

bool is_integrated_amd_gpu(const WindowsGpu& adapter) {
  if (const AmdGpuTarget* row = amd_gpu_target(adapter.name)) return row->integrated;
  return normalized_gpu_name(adapter.name) == "radeon";
}

WindowsGpuFacts windows_gpu_facts(std::vector<WindowsGpu> adapters) {
  WindowsGpuFacts f;
  f.answer = WindowsGpuAnswer::answered;
  f.adapters = std::move(adapters);
  const WindowsGpu* discrete = nullptr;
  const WindowsGpu* integrated = nullptr;
  std::size_t amd_count = 0;
  for (const auto& a : f.adapters) {
    if (!is_amd_gpu_name(a.name)) continue;
    ++amd_count;
    const WindowsGpu*& best = is_integrated_amd_gpu(a) ? integrated : discrete;
    if (!best || a.memory > best->memory) best = &a;
  }
  if (!discrete && !integrated) {
    std::vector<std::string> names;
    for (const auto& a : f.adapters) names.push_back(a.name);
    std::string listed;
    for (const auto& n : names) listed += (listed.empty() ? "" : ", ") + n;
    f.said = f.adapters.empty() ? "Windows lists no video controller" : "Windows lists no AMD GPU (" + listed + ")";
    return f;
  }
  const WindowsGpu& chosen = discrete ? *discrete : *integrated;
  f.amd_gpu = chosen.name;
  f.amd_windows_driver = chosen.driver_version;
  if (const AmdGpuTarget* row = amd_gpu_target(chosen.name)) f.amd_gfx = row->gfx;
  f.amd_igpu = discrete && integrated;
  if (f.amd_igpu) f.amd_igpu_name = integrated->name;
  f.said = chosen.name + " (" + (f.amd_gfx.empty() ? std::string("gfx target unknown") : f.amd_gfx) +
           "), Windows driver " +
           (chosen.driver_version.empty() ? std::string("version not reported") : chosen.driver_version);
  if (f.amd_igpu) f.said += ", beside the integrated " + integrated->name;
  if (amd_count > 1 && !f.amd_igpu)
    f.said += ", the one of " + std::to_string(amd_count) + " AMD GPUs with the most memory";
  return f;
}

WindowsGpuFacts windows_gpus_from(const ProcessResult& r, std::chrono::milliseconds timeout) {
  WindowsGpuFacts f;
  if (r.not_found) {
    f.said = "powershell.exe could not run (is interop off?)";
    return f;
  }
  if (r.timed_out) {
    f.said = "powershell.exe did not answer within " + timeout_seconds(timeout);
    return f;
  }
  std::vector<WindowsGpu> adapters = parse_windows_gpus(r.out);
  if (!r.ok() && adapters.empty()) {
    std::string why = text::first_line(r.err);
    f.said = "powershell.exe failed (exit " + std::to_string(r.exit_code) + ")" + (why.empty() ? "" : ": " + why);
    return f;
  }
  if (adapters.empty() && r.out.find("adapter|") == std::string::npos && !text::first_line(r.out).empty()) {
    f.said = "powershell.exe printed no video controller: " + text::first_line(r.out);
    return f;
  }
  return windows_gpu_facts(std::move(adapters));
}

Command windows_gpu_command(const std::string& powershell, std::chrono::milliseconds timeout) {
  Command cmd;
  cmd.argv = {powershell, "-NoProfile", "-NonInteractive", "-Command", kGpuQuery};
  cmd.timeout = timeout;
  return cmd;
}

WindowsGpuFacts probe_windows_gpus(const FileSystem& fs, ProcessRunner& runner, std::chrono::milliseconds timeout) {
  WindowsProgram ps = find_windows_program(fs, kPowershell);
  if (ps.path.empty() && !ps.only_not_on_a_drive) {
    WindowsGpuFacts f;
    f.answer = WindowsGpuAnswer::interop_off;
    f.said = ps.why_not;
    return f;
  }
  // Interop is on: PATH may hold it where no drive does (as windows_cmd_exe falls back to "cmd.exe").
  return windows_gpus_from(runner.run(windows_gpu_command(ps.path.empty() ? "powershell.exe" : ps.path, timeout)),
                           timeout);
}

const std::vector<std::string>& windows_gpu_fact_names() {
  static const std::vector<std::string> names = {"host.amd_gfx", "host.amd_gpu", "host.amd_windows_driver",
                                                 "host.amd_igpu", "host.windows_gpus"};
  return names;
}

}  // namespace wslgpu
