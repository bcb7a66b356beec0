#include "installer/doctor/support_bundle.hpp"
#include "installer/system/paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <regex>
#include <sstream>

#include "installer/formats/archive_api.hpp"
#include "installer/formats/dpkg_status.hpp"
#include "installer/formats/ini.hpp"
#include "installer/system/error.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

constexpr const char* kPrefix = "wslgpu-doctor/";

// Replaces every PEM private key block with a marker (done on the whole
// text, before the line rules, because a block spans lines).
std::string redact_private_keys(std::string text) {
  const std::string begin_mark = "-----BEGIN ";
  std::size_t pos = 0;
  while ((pos = text.find(begin_mark, pos)) != std::string::npos) {
    auto line_end = text.find('\n', pos);
    std::string header = text.substr(pos, line_end == std::string::npos ? std::string::npos : line_end - pos);
    if (header.find("PRIVATE KEY-----") == std::string::npos) {
      pos += begin_mark.size();
      continue;
    }
    auto end = text.find("-----END ", pos);
    auto end_line = end == std::string::npos ? std::string::npos : text.find("-----", end + 9);
    std::size_t stop = end_line == std::string::npos ? text.size() : end_line + 5;
    const std::string marker = "[private key REDACTED]";
    text.replace(pos, stop - pos, marker);
    pos += marker.size();
  }
  return text;
}

std::string redact_line(const std::string& line) {
  static const std::regex url_userinfo(R"(([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@'"<>]+@)");
  static const std::regex authorization(R"(((?:proxy-)?authorization["']?\s*[:=]\s*["']?)[^\r\n"']+)",
                                        std::regex::icase);
  static const std::regex bearer(R"((\bbearer\s+)[A-Za-z0-9._~+/=-]+)", std::regex::icase);
  static const std::regex key_value(
      R"(([A-Za-z0-9_.-]*(?:pass|token|secret|key)[A-Za-z0-9_.-]*["']?\s*[=:]\s*)("[^"\r\n]*"|'[^'\r\n]*'|[^\s"'&;,{}\[\]]+))",
      std::regex::icase);
  std::string out = std::regex_replace(line, url_userinfo, "$1REDACTED@");
  out = std::regex_replace(out, authorization, "$1REDACTED");
  out = std::regex_replace(out, bearer, "$1REDACTED");
  std::string result;
  auto last = out.cbegin();
  for (auto it = std::sregex_iterator(out.begin(), out.end(), key_value); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    result.append(last, m[0].first);
    std::string value = m[2].str();
    result += m[1].str();
    if (value == "REDACTED" || value == "\"REDACTED\"" || value == "'REDACTED'")
      result += value;
    else if (value.front() == '"')
      result += "\"REDACTED\"";
    else if (value.front() == '\'')
      result += "'REDACTED'";
    else
      result += "REDACTED";
    last = m[0].second;
  }
  result.append(last, out.cend());
  return result;
}

bool relevant_package(const std::string& name) {
  for (const char* part : {"nvidia", "cuda", "rocm", "rocr", "hsa", "amdgpu", "dkms", "miopen", "rccl", "linux-headers",
                           "linux-image", "linux-modules"})
    if (name.find(part) != std::string::npos) return true;
  for (const char* prefix : {"hip", "roc"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::optional<std::string> read_file(const FileSystem& fs, const std::string& path) {
  try {
    auto info = fs.stat(path);
    if (!info || info->type != FileType::regular) return std::nullopt;
    return fs.read(path);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string redact_secrets(std::string_view text) {
  std::string whole = redact_private_keys(std::string(text));
  std::string out;
  out.reserve(whole.size());
  for (std::string_view line : text::split_lines(whole, text::LineEnd::kept)) {
    const bool lf = line.ends_with('\n');
    if (lf) line.remove_suffix(1);
    out += redact_line(std::string(line));
    if (lf) out += '\n';
  }
  return out;
}

std::vector<BundleFile> collect_bundle_files(const FileSystem& fs, const HostFacts& host,
                                             const nlohmann::ordered_json& findings) {
  std::vector<BundleFile> files;
  std::vector<std::string> readme = {
      "wslgpu-setup doctor support bundle, made by wslgpu-setup " WSLGPU_VERSION ".",
      "Values that looked like secrets (passwords, tokens, keys, URL credentials, Authorization headers)",
      "were replaced with REDACTED. Read the files before you share them.", "", "Files:"};
  auto add = [&](const std::string& name, const std::string& content, const std::string& origin) {
    files.push_back({kPrefix + name, redact_secrets(content)});
    readme.push_back("  " + name + ": " + origin);
  };

  add("findings.json", findings.dump(2) + "\n", "the findings of `wslgpu-setup doctor --output json`");
  if (auto k = read_file(fs, "/proc/sys/kernel/osrelease")) add("osrelease", *k, "/proc/sys/kernel/osrelease");
  if (auto os = read_file(fs, "/etc/os-release")) add("os-release", *os, "/etc/os-release");

  if (!host.windows_home.empty()) {
    const std::string path = host.windows_home + "/.wslconfig";
    if (auto text = read_file(fs, path)) {
      std::string origin = path;
      if (looks_like_utf16(*text)) {
        if (auto decoded = utf16_to_utf8(*text)) {
          *text = *decoded;
          origin += " (saved as UTF-16, which WSL ignores; decoded to UTF-8 here)";
        }
      }
      add("wslconfig", *text, origin);
    }
  }
  if (auto conf = read_file(fs, "/etc/wsl.conf")) add("etc/wsl.conf", *conf, "/etc/wsl.conf");

  if (auto list = read_file(fs, "/etc/apt/sources.list")) add("etc/apt/sources.list", *list, "/etc/apt/sources.list");
  for (const char* dir : {"/etc/apt/sources.list.d", "/etc/apt/preferences.d"}) {
    for (const auto& name : fs.list(dir)) {
      const std::string path = std::string(dir) + "/" + name;
      if (auto text = read_file(fs, path)) add(path.substr(1), *text, path);
    }
  }

  std::string packages;
  try {
    DpkgStatus status = DpkgStatus::read(fs);
    for (const auto& p : status.packages()) {
      if (!relevant_package(p.name)) continue;
      packages += p.name + " " + p.version + " " + p.architecture + " " + p.want + " " + p.flag + " " + p.status + "\n";
    }
    if (packages.empty()) packages = "(no GPU-related package is known to dpkg)\n";
  } catch (const std::exception& e) {
    packages = std::string("the dpkg status could not be read: ") + e.what() + "\n";
  }
  add("packages.txt", "# name version architecture want flag status\n" + packages,
      "the GPU-related packages in /var/lib/dpkg/status (NVIDIA, CUDA, ROCm, HSA, HIP, DKMS, kernels)");
  auto pending = pending_dpkg_updates(fs);
  std::string pending_text;
  for (const auto& p : pending) pending_text += p + "\n";
  add("dpkg-pending.txt", pending.empty() ? "(none)\n" : pending_text,
      "the unfinished entries in /var/lib/dpkg/updates (an interrupted dpkg)");

  const std::string tx_dir = std::string(kStateDir) + "/tx";
  auto transactions = fs.list(tx_dir);
  if (!transactions.empty()) {
    const std::string id = transactions.back();  // ids sort by time
    for (const char* name : {"journal.jsonl", "plan.json", "log"}) {
      const std::string path = tx_dir + "/" + id + "/" + name;
      if (auto text = read_file(fs, path)) add("transaction/" + id + "/" + name, *text, path);
    }
  }

  std::string readme_text;
  for (const auto& line : readme) readme_text += line + "\n";
  files.insert(files.begin(), BundleFile{std::string(kPrefix) + "README.txt", readme_text});
  return files;
}

void write_support_bundle(const std::string& path, const std::vector<BundleFile>& files) {
  const ArchiveApi& la = archive_api();
  struct archive* a = la.write_new();
  auto fail = [&](const std::string& what) {
    std::string message = "cannot write the support bundle " + path + ": " + what;
    la.write_free(a);
    ::unlink(path.c_str());
    throw StepFailure(message + ". Choose a writable place, such as --bundle /tmp/wslgpu-doctor.tar.gz.");
  };
  if (la.write_add_filter_gzip(a) != ARCHIVE_OK || la.write_set_format_pax_restricted(a) != ARCHIVE_OK)
    fail(la.error_string(a) ? la.error_string(a) : "libarchive has no gzip support");
  mode_t old_mask = ::umask(077);
  int opened = la.write_open_filename(a, path.c_str());
  ::umask(old_mask);
  if (opened != ARCHIVE_OK) fail(la.error_string(a) ? la.error_string(a) : "cannot open it");
  const std::time_t now = std::time(nullptr);
  for (const auto& f : files) {
    struct archive_entry* entry = la.entry_new();
    la.entry_set_pathname(entry, f.name.c_str());
    la.entry_set_size(entry, static_cast<la_int64_t>(f.content.size()));
    la.entry_set_filetype(entry, AE_IFREG);
    la.entry_set_perm(entry, 0644);
    la.entry_set_mtime(entry, now, 0);
    bool ok = la.write_header(a, entry) == ARCHIVE_OK &&
              (f.content.empty() ||
               la.write_data(a, f.content.data(), f.content.size()) == static_cast<la_ssize_t>(f.content.size()));
    la.entry_free(entry);
    if (!ok) fail(la.error_string(a) ? la.error_string(a) : "write error");
  }
  if (la.write_close(a) != ARCHIVE_OK) fail(la.error_string(a) ? la.error_string(a) : "write error");
  la.write_free(a);
}

}  // namespace wslgpu
