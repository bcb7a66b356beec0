// What an apt_repository step was given (its keys: steps/apt/apt_repository.hpp
// has the kind's whole contract), and the few helpers its parts share. The
// kind's plan is made in four files, one concept each:
//   apt_repository_key.*      the signing key: fetched, cached, checked against its pin
//   apt_repository_sources.*  the other sources of the same repository: reused or taken over
//   apt_repository_pins.*     the preferences.d pin, and leftover pins of the same origin
//   apt_repository.cpp        the step: its plan from those parts, and its keys' checks
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "installer/plan/plan.hpp"

namespace wslgpu {

struct AptRepositorySpec {
  std::string name;  // repo_name: names the files in /etc/apt
  std::vector<std::string> uris, suites, components, architectures;
  std::string key_url, key_file, key_sha256, key_fingerprint;
  std::string key_url_variable;  // "rocm_key_url" when key_url is "${rocm_key_url}"
  std::string pin_origin;
  // What the profile says to do when the target's apt would refuse the key
  // (the vendor's other ways, the profile's own): shown with that refusal.
  std::string advice;
  std::int64_t pin_priority = 0;

  std::string sources_path() const { return "/etc/apt/sources.list.d/" + name + ".sources"; }
  std::string pref_path() const { return "/etc/apt/preferences.d/" + name + ".pref"; }
  std::string key_source() const { return key_url.empty() ? key_file : key_url; }
};

namespace apt_repo {

// A refused plan with SUMMARY and DETAILS.
StepPlan refusal(const std::string& summary, const std::vector<std::string>& details);

// ITEMS joined by SEP.
std::string join_repo(const std::vector<std::string>& items, const std::string& sep = " ");

// "2026-03-01": the UTC day of the Unix time T, as key expiries are shown.
std::string utc_date(std::int64_t t);

// Now, as a Unix time, to compare key expiries with.
std::int64_t now_seconds();

}  // namespace apt_repo
}  // namespace wslgpu
