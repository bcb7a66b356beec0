// doctor: the OpenPGP keys that the configured apt sources are signed with,
// and when they expire. AMD's repository key has expired twice (2019-08-02,
// 2021-08-01, ../shared/VENDOR-FACTS.md): each time every user's `apt
// update` failed until the key was fetched again. A vendor extends a key by
// republishing the same key with a later expiry, so the fix is always to
// fetch the vendor's current copy.
#include <algorithm>
#include <ctime>
#include <set>

#include "installer/doctor/checks.hpp"
#include "installer/formats/apt_sources.hpp"
#include "installer/formats/openpgp.hpp"
#include "steps/apt/apt_signature_policy.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kAptKeysGroup = "Configuration";
constexpr std::int64_t kSoon = 30 * 24 * 3600;

std::string date_of(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// When a keyring stops working: the latest expiry of its primary keys
// (apt accepts a Release signed by any of them), nullopt when one never
// expires.
std::optional<std::int64_t> keyring_expiry(const std::vector<OpenPgpKey>& keys) {
  std::optional<std::int64_t> latest = 0;
  for (const auto& k : keys) {
    if (!k.expires) return std::nullopt;
    latest = std::max(*latest, *k.expires);
  }
  return latest;
}

struct Keyring {
  std::string where;  // a path, or "the key inside FILE:LINES"
  std::string text;
  std::vector<std::string> sources;  // the entries that use it ("/etc/apt/sources.list.d/rocm.list:1")
};

}  // namespace

void check_apt_keys(DoctorScan& scan) {
  std::vector<AptSourcesFile> files;
  try {
    files = read_apt_sources(scan.fs);
  } catch (const std::exception& e) {
    scan.add("config.apt-keys", kAptKeysGroup, FindingStatus::warn,
             std::string("apt's sources cannot be read: ") + e.what());
    return;
  }
  std::vector<Keyring> keyrings;
  auto use = [&](const std::string& where, const std::string& text, const std::string& source) {
    for (auto& k : keyrings)
      if (k.where == where) {
        k.sources.push_back(source);
        return;
      }
    keyrings.push_back({where, text, {source}});
  };
  for (const auto& f : files) {
    for (const auto& e : f.entries) {
      if (!e.enabled) continue;
      if (!e.signed_by_key.empty()) use("the key inside " + e.where(), e.signed_by_key, e.where());
      for (const auto& s : e.signed_by) {
        if (s.empty() || s.front() != '/') continue;  // a fingerprint names a key in apt's trusted keys
        if (auto text = scan.read(s)) use(s, *text, e.where());
      }
    }
  }
  if (keyrings.empty()) {
    scan.add("config.apt-keys", kAptKeysGroup, FindingStatus::ok, "no apt source names its own signing key");
    return;
  }
  const std::int64_t now = scan.machine.now();
  std::vector<std::string> problems;
  std::size_t checked = 0;
  // apt with sqv refuses a key whose bindings its policy no longer trusts
  // (steps/apt/apt_signature_policy.hpp): a finding of its own, a failure.
  const AptVerifier verifier = apt_verifier(scan.fs);
  std::vector<std::string> refused;
  for (const auto& k : keyrings) {
    std::vector<OpenPgpKey> keys;
    try {
      keys = read_openpgp_keys(k.text);
    } catch (const OpenPgpError& e) {
      problems.push_back(k.where + " cannot be read as an OpenPGP key (" + e.what() + "), used by " +
                         k.sources.front());
      continue;
    }
    for (const auto& key : keys)
      if (std::string why = apt_binding_rejection(verifier, key, now); !why.empty())
        refused.push_back(k.where + ", used by " + k.sources.front() + ": " + why);
    ++checked;
    auto expiry = keyring_expiry(keys);
    if (!expiry) continue;
    const std::string fpr = format_fingerprint(keys.front().fingerprint);
    if (*expiry <= now)
      problems.push_back(k.where + " (key " + fpr + ") expired on " + date_of(*expiry) + ", used by " +
                         k.sources.front());
    else if (*expiry - now <= kSoon)
      problems.push_back(k.where + " (key " + fpr + ") expires on " + date_of(*expiry) + ", used by " +
                         k.sources.front());
  }
  if (!refused.empty()) {
    std::string seen;
    for (const auto& r : refused) seen += (seen.empty() ? "" : "; ") + r;
    scan.add("config.apt-key-bindings", kAptKeysGroup, FindingStatus::fail, seen,
             "apt verifies with sqv here, and sqv refuses every signature of a repository whose key it no longer "
             "trusts: \"Signing key on … is not bound\", and `apt update` fails for that source (NVIDIA's "
             "wsl-ubuntu key: github.com/NVIDIA/cuda-repo-management/issues/44).",
             "Use the vendor's key bound with a stronger hash where it publishes one, or remove that source until "
             "the vendor signs its key again. wslgpu-setup does not change the machine's signature policy.");
  } else if (verifier.sqv && checked > 0) {
    scan.add("config.apt-key-bindings", kAptKeysGroup, FindingStatus::ok,
             "sqv, which apt verifies with here, trusts the bindings of the " + std::to_string(checked) +
                 (checked == 1 ? " signing key" : " signing keys") + " of the apt sources" +
                 (verifier.policy ? " (policy " + verifier.policy->source + ")" : std::string()));
  }
  if (problems.empty()) {
    scan.add("config.apt-keys", kAptKeysGroup, FindingStatus::ok,
             "the " + std::to_string(checked) + (checked == 1 ? " signing key" : " signing keys") +
                 " of the apt sources are valid for more than 30 days");
    return;
  }
  std::string seen;
  for (const auto& p : problems) seen += (seen.empty() ? "" : "; ") + p;
  scan.add("config.apt-keys", kAptKeysGroup, FindingStatus::warn, seen,
           "apt refuses a repository whose key has expired (EXPKEYSIG), and then `apt update` fails for every "
           "source. Vendors extend a key by republishing the same key with a later expiry.",
           "Fetch the vendor's current copy of the key into that file (for a repository wslgpu-setup added, "
           "`sudo wslgpu-setup install` again does it and checks the fingerprint).");
}

}  // namespace wslgpu::doctor
