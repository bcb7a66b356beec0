// `doctor --bundle FILE.tar.gz`: what a maintainer needs to see a user's
// machine, in one gzipped tar written with libarchive. Everything is read
// through the FileSystem under --root and every text passes through
// redact_secrets() first, because configuration files and apt sources carry
// passwords and tokens more often than people remember:
//   wslgpu-doctor/README.txt        what each file is and where it came from
//   wslgpu-doctor/findings.json     the doctor's findings (findings_to_json)
//   wslgpu-doctor/wslconfig         %USERPROFILE%\.wslconfig (UTF-16 decoded to UTF-8)
//   wslgpu-doctor/etc/wsl.conf
//   wslgpu-doctor/etc/apt/...       sources.list, sources.list.d/*, preferences.d/*
//                                   (never auth.conf or auth.conf.d: those hold only secrets)
//   wslgpu-doctor/os-release, osrelease (the kernel release)
//   wslgpu-doctor/packages.txt      the GPU-related dpkg packages and their states
//   wslgpu-doctor/dpkg-pending.txt  unfinished dpkg journal entries
//   wslgpu-doctor/transaction/<id>/ the newest transaction's journal.jsonl,
//                                   plan.json and log (never its file backups)
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/filesystem.hpp"
#include "installer/host/host.hpp"

namespace wslgpu {

struct BundleFile {
  std::string name;     // path inside the archive
  std::string content;  // already redacted
};

// TEXT with anything that looks like a secret replaced by "REDACTED": the
// user information of URLs ("https://user:pass@host/" -> "https://REDACTED@host/"),
// the value of Authorization and Proxy-Authorization headers, and the value
// of every key=value or key: value (quoted or not, JSON included) whose key
// contains "pass", "token", "secret" or "key" (any case). Comments are not
// spared: "# token=abc123" loses its value too.
std::string redact_secrets(std::string_view text);

// Collects the files listed above from FS (missing ones are left out),
// FINDINGS being findings_to_json()'s document.
std::vector<BundleFile> collect_bundle_files(const FileSystem& fs, const HostFacts& host,
                                             const nlohmann::ordered_json& findings);

// Writes FILES as a gzipped tar (pax) to PATH, a path on the running machine,
// readable by its owner only. Throws StepFailure, naming PATH, when it
// cannot; a partial file is removed.
void write_support_bundle(const std::string& path, const std::vector<BundleFile>& files);

}  // namespace wslgpu
