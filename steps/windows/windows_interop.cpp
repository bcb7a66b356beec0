#include "steps/windows/windows_interop.hpp"
#include "installer/system/text.hpp"

#include <chrono>
#include <regex>

#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

// A positive decimal count of at most six digits (no machine has a million
// CPUs; a longer answer is not a count).
unsigned interop_count_of(const std::string& s) {
  if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<unsigned>(std::stoul(s));
}

// The "processor : N" lines of /proc/cpuinfo, one per logical CPU on x86 and
// on arm64 alike.
unsigned cpuinfo_processors(const std::string& text) {
  unsigned n = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? text.size() : nl + 1;
    if (line.rfind("processor", 0) != 0) continue;
    std::string rest = std::string(text::trim(line.substr(9)));
    if (!rest.empty() && rest[0] == ':') ++n;
  }
  return n;
}

}  // namespace

std::string windows_cmd_exe(const FileSystem& fs) {
  for (const auto& drive : fs.list("/mnt")) {
    std::string candidate = "/mnt/" + drive + "/Windows/System32/cmd.exe";
    if (fs.stat(candidate)) return candidate;
  }
  return "cmd.exe";
}

std::string windows_echo(StepContext& ctx, const std::string& text, std::vector<std::string>& tried) {
  Command echo;
  echo.argv = {windows_cmd_exe(ctx.fs), "/c", "echo", text};
  echo.timeout = std::chrono::seconds(5);
  ProcessResult r = ctx.runner.run(echo);
  if (!r.ok()) {
    tried.push_back("`" + echo.display() + "` " +
                    (r.not_found   ? std::string("was not found (is interop off?)")
                     : r.timed_out ? std::string("did not answer within 5 s")
                                   : "exited " + std::to_string(r.exit_code)));
    return "";
  }
  std::string last;
  std::size_t start = 0;
  while (start < r.out.size()) {
    auto nl = r.out.find('\n', start);
    std::string line =
        std::string(text::trim(r.out.substr(start, nl == std::string::npos ? std::string::npos : nl - start)));
    if (!line.empty()) last = line;
    start = nl == std::string::npos ? r.out.size() : nl + 1;
  }
  return last;
}

LogicalCpus windows_logical_cpus(StepContext& ctx) {
  std::vector<std::string> tried;
  std::string answer = windows_echo(ctx, "%NUMBER_OF_PROCESSORS%", tried);
  if (unsigned n = interop_count_of(answer))
    return {n, "Windows has " + std::to_string(n) + " logical CPUs, by %NUMBER_OF_PROCESSORS% through interop"};
  if (tried.empty())
    tried.push_back("`" + windows_cmd_exe(ctx.fs) + " /c echo %NUMBER_OF_PROCESSORS%` printed \"" + answer +
                    "\", not a count");

  unsigned n = 0;
  auto info = ctx.fs.stat("/proc/cpuinfo");
  if (info && info->type == FileType::regular) {
    try {
      n = cpuinfo_processors(ctx.fs.read("/proc/cpuinfo"));
    } catch (const StepFailure&) {
      n = 0;  // unreadable: as if absent
    }
  }
  if (n)
    return {n, "the WSL VM has " + std::to_string(n) + " logical CPUs, by /proc/cpuinfo; Windows may have more, but " +
                   tried.front()};
  return {0, "the logical CPUs could not be counted: " + tried.front() + ", and /proc/cpuinfo lists no processor"};
}

int windows_build_from_ver(const std::string& output, std::string* full) {
  static const std::regex version(R"(([0-9]+)\.([0-9]+)\.([0-9]+)(\.([0-9]+))?)");
  std::smatch m;
  if (!std::regex_search(output, m, version) || m[3].length() > 6) return 0;
  if (full) *full = m[0].str();
  return std::stoi(m[3].str());
}

int windows_build(StepContext& ctx, std::string& why_unknown) {
  Command ver;
  ver.argv = {windows_cmd_exe(ctx.fs), "/c", "ver"};
  ver.timeout = std::chrono::seconds(5);
  ProcessResult r = ctx.runner.run(ver);
  if (!r.ok()) {
    why_unknown = "`" + ver.display() + "` " +
                  (r.not_found   ? std::string("was not found (is interop off?)")
                   : r.timed_out ? std::string("did not answer within 5 s")
                                 : "exited " + std::to_string(r.exit_code));
    return 0;
  }
  int build = windows_build_from_ver(r.out);
  if (!build) why_unknown = "`" + ver.display() + "` printed no Windows version";
  return build;
}

}  // namespace wslgpu
