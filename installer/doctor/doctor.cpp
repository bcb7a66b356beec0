#include "installer/doctor/doctor.hpp"
#include "installer/system/text.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <regex>

#include <fmt/format.h>

#include "installer/doctor/checks.hpp"
#include "installer/system/error.hpp"
#include "installer/doctor/support_bundle.hpp"

namespace wslgpu {

namespace doctor {

void DoctorScan::add(std::string id, std::string group, FindingStatus status, std::string seen, std::string cause,
                     std::string fix) {
  findings.push_back(
      Finding{std::move(id), std::move(group), status, std::move(seen), std::move(cause), std::move(fix)});
}

std::optional<std::string> DoctorScan::read(const std::string& path) const {
  try {
    auto info = fs.stat(path);
    if (!info || info->type != FileType::regular) return std::nullopt;
    return fs.read(path);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool DoctorScan::is_dir(const std::string& path) const {
  auto info = fs.stat(path);
  return info && info->type == FileType::directory;
}

std::vector<std::string> DoctorScan::list_prefixed(const std::string& dir, const std::string& prefix) const {
  std::vector<std::string> out;
  try {
    for (const auto& name : fs.list(dir))
      if (name.rfind(prefix, 0) == 0) out.push_back(name);
  } catch (const std::exception&) {
  }
  return out;
}

ProcessResult DoctorScan::run(const std::vector<std::string>& argv,
                              const std::map<std::string, std::string>& env) const {
  Command cmd;
  cmd.argv = argv;
  cmd.env = env;
  cmd.timeout = machine.command_timeout;
  return machine.runner.run(cmd);
}

std::string DoctorScan::timeout_text() const {
  auto ms = machine.command_timeout.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

std::string DoctorScan::dxg_note() const {
  return dxg_missing ? " /dev/dxg is missing (see WSL above), which alone explains this." : "";
}

std::vector<std::string> DoctorScan::login_files() const {
  std::vector<std::string> candidates = {"/etc/environment", "/etc/profile"};
  for (const auto& name : list_prefixed("/etc/profile.d", ""))
    if (name.size() > 3 && name.substr(name.size() - 3) == ".sh") candidates.push_back("/etc/profile.d/" + name);
  candidates.push_back("/etc/bash.bashrc");
  if (!host.user_home.empty()) {
    for (const char* f : {"/.profile", "/.bash_profile", "/.bashrc"}) candidates.push_back(host.user_home + f);
  }
  std::vector<std::string> out;
  for (const auto& c : candidates)
    if (read(c)) out.push_back(c);
  return out;
}

std::string DoctorScan::login_file_with(const std::string& needle) const {
  for (const auto& file : login_files()) {
    for (const auto& line : active_lines(*read(file)))
      if (line.find(needle) != std::string::npos) return file;
  }
  return "";
}

std::vector<std::string> active_lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view line : text::split_lines(text, text::LineEnd::newline_dropped)) {
    std::string t = std::string(text::trim(line));
    if (!t.empty() && t[0] != '#') out.push_back(t);
  }
  return out;
}

// What the regex [0-9]+(\.[0-9]+)+ finds first, in one pass: libstdc++'s
// std::regex_search retried the pattern at every digit of a long run of
// digits (quadratic) and recursed per character, and the output it reads
// comes from outside the tool. A match starts where a run of digits starts
// (a run that fails fails from any digit inside it), so only run starts are
// tried, each run taken whole, as the greedy regex takes it.
std::string version_after(const std::string& text, const std::string& prefix) {
  auto at = text.find(prefix);
  if (at == std::string::npos) return "";
  const auto digit = [&](std::size_t i) { return i < text.size() && text[i] >= '0' && text[i] <= '9'; };
  std::size_t i = at + prefix.size();
  while (i < text.size()) {
    if (!digit(i)) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (digit(i)) ++i;
    if (i >= text.size() || text[i] != '.' || !digit(i + 1)) continue;  // a run without ".N" after it
    while (i < text.size() && text[i] == '.' && digit(i + 1)) {
      ++i;
      while (digit(i)) ++i;
    }
    return text.substr(start, i - start);
  }
  return "";
}

std::string size_text(std::uint64_t bytes) {
  const double gb = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  if (gb >= 1.0) return fmt::format("{:.1f} GB", gb);
  return fmt::format("{} MB", bytes / (1024 * 1024));
}

std::vector<std::string> installed_matching(const DoctorScan& scan, const std::vector<std::string>& patterns) {
  std::vector<std::string> out;
  for (const auto& [name, version] : scan.installed) {
    if (name.find(':') != std::string::npos) continue;  // the "name:arch" duplicates
    for (const auto& p : patterns) {
      bool match = !p.empty() && p.back() == '*' ? name.rfind(p.substr(0, p.size() - 1), 0) == 0 : name == p;
      if (match) {
        out.push_back(name);
        break;
      }
    }
  }
  return out;
}

std::string join_words(const std::vector<std::string>& words, const std::string& last) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? last : ", ";
    out += words[i];
  }
  return out;
}

// The NVIDIA packages that put a Linux driver inside WSL.
const std::vector<std::string>& linux_nvidia_driver_patterns() {
  static const std::vector<std::string> patterns = {"nvidia-driver-*",     "nvidia-driver",   "nvidia-utils-*",
                                                    "libnvidia-compute-*", "cuda-drivers",    "cuda-drivers-*",
                                                    "nvidia-dkms-*",       "nvidia-kernel-*", "libcuda1"};
  return patterns;
}

void learn_packages_and_vendors(DoctorScan& scan) {
  try {
    scan.installed = DpkgStatus::read(scan.fs).installed();
  } catch (const InputError& e) {
    scan.dpkg_problem = e.diagnostics().empty() ? e.what() : e.diagnostics().front().str();
  } catch (const std::exception& e) {
    scan.dpkg_problem = e.what();
  }
  scan.nvidia = scan.exists("/usr/lib/wsl/lib/libcuda.so.1") || scan.exists("/usr/lib/wsl/lib/nvidia-smi") ||
                !installed_matching(scan, linux_nvidia_driver_patterns()).empty() ||
                !installed_matching(scan, {"cuda-*", "nvidia-*", "libnvidia-*"}).empty();
  scan.amd = scan.exists("/opt/rocm") ||
             !installed_matching(scan, {"rocm*", "hsa-*", "hip-*", "hipcc", "amdgpu-*", "amdrocm*", "rock-dkms",
                                        "libhsa-runtime64-1", "libhsakmt1", "libamdhip64-7"})
                  .empty();
  if (auto it = scan.installed.find("rocm-core"); it != scan.installed.end()) scan.rocm_version = it->second;
  // The ROCm Core SDK has no rocm-core: its release is the version of its
  // amdrocmX.Y package (amdrocm10.0-gfx1100 10.0.0-4; AMD's 10.0 install
  // page names the packages). Beside a legacy release it is the one
  // reported, and the two together are a finding of their own.
  static const std::regex release_package(R"(^amdrocm[0-9]+\.[0-9]+(-gfx[0-9a-z]+)?$)");
  for (const auto& [name, version] : scan.installed)
    if (std::regex_match(name, release_package)) {
      scan.rocm_core_package = name;
      scan.rocm_version = version;
      break;
    }
}

}  // namespace doctor

const char* finding_status_name(FindingStatus status) {
  switch (status) {
    case FindingStatus::ok:
      return "ok";
    case FindingStatus::warn:
      return "warn";
    case FindingStatus::fail:
      return "fail";
  }
  return "fail";
}

namespace {

const std::vector<std::string> kGroupOrder = {"WSL",        "NVIDIA",     "AMD",           "PyTorch", "TensorFlow",
                                              "JAX",        "ONNX Runtime", "Containers", "Configuration", "Windows"};

std::size_t group_rank(const std::string& group) {
  auto it = std::find(kGroupOrder.begin(), kGroupOrder.end(), group);
  return static_cast<std::size_t>(it - kGroupOrder.begin());
}

std::string plural(std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

}  // namespace

std::vector<Finding> diagnose(const DoctorMachine& machine) {
  doctor::DoctorScan scan(machine);
  doctor::learn_packages_and_vendors(scan);
  doctor::check_wsl(scan);
  doctor::check_nvidia(scan);
  doctor::check_amd(scan);
  doctor::check_amd_windows(scan);  // after check_amd: whether rocminfo found the GPU
  doctor::check_pytorch(scan);  // after both vendors': it uses what they learned (nvidia-smi's output)
  doctor::check_frameworks(scan);  // after NVIDIA's too, and after PyTorch's, which reports a bad --python
  doctor::check_containers(scan);
  doctor::check_configuration(scan);
  doctor::check_windows(scan);
  std::stable_sort(scan.findings.begin(), scan.findings.end(),
                   [](const Finding& a, const Finding& b) { return group_rank(a.group) < group_rank(b.group); });
  return scan.findings;
}

std::size_t count_findings(const std::vector<Finding>& findings, FindingStatus status) {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.status == status; }));
}

std::string render_findings_text(const std::vector<Finding>& findings, bool color, bool only_problems) {
  std::string out;
  std::string group;
  auto paint = [&](const std::string& text, const char* code) {
    return color ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
  };
  for (const auto& f : findings) {
    if (only_problems && f.status == FindingStatus::ok) continue;
    if (f.group != group) {
      group = f.group;
      out += color ? paint(group, "1") + "\n" : group + "\n";
    }
    std::string word = f.status == FindingStatus::ok     ? paint("ok  ", "32")
                       : f.status == FindingStatus::warn ? paint("warn", "33")
                                                         : paint("FAIL", "1;31");
    out += "  " + word + "  " + f.seen + "\n";
    if (f.status == FindingStatus::ok) continue;
    auto indent_lines = [&](const std::string& text, const std::string& first_prefix) {
      bool first = true;
      for (std::string_view line : text::split_lines(text, text::LineEnd::newline_dropped)) {
        out += "        " + (first ? first_prefix : std::string(first_prefix.size(), ' '));
        out += line;
        out += "\n";
        first = false;
      }
    };
    if (!f.cause.empty()) indent_lines(f.cause, "");
    if (!f.fix.empty()) indent_lines(f.fix, "Fix: ");
  }
  std::size_t failures = count_findings(findings, FindingStatus::fail);
  std::size_t warnings = count_findings(findings, FindingStatus::warn);
  out += plural(failures, "failure") + ", " + plural(warnings, "warning") + ".\n";
  return out;
}

nlohmann::ordered_json findings_to_json(const std::vector<Finding>& findings) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& f : findings) {
    list.push_back({{"id", f.id},
                    {"group", f.group},
                    {"status", finding_status_name(f.status)},
                    {"seen", f.seen},
                    {"cause", f.cause},
                    {"fix", f.fix}});
  }
  return {{"format_version", 1},
          {"findings", list},
          {"failures", count_findings(findings, FindingStatus::fail)},
          {"warnings", count_findings(findings, FindingStatus::warn)}};
}

}  // namespace wslgpu
