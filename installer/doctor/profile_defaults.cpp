#include "installer/doctor/profile_defaults.hpp"

#include <stdexcept>

#include <toml++/toml.h>

#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/substitute.hpp"

namespace wslgpu::doctor {

std::string bundled_default(const std::string& profile, const std::string& var, const HostFacts& host) {
  for (const auto& m : bundled_manifests()) {
    if (m.name != profile) continue;
    toml::table t = toml::parse(m.content, std::string(m.path));
    std::optional<std::string> value = t["vars"][var].value<std::string>();
    if (!value) break;
    std::vector<Diagnostic> problems;
    std::string out = substitute(*value, host.as_variables(), SourcePos{std::string(m.path), 0, 0}, problems);
    if (!problems.empty()) throw std::logic_error(problems.front().str());
    return out;
  }
  throw std::logic_error("the bundled profile " + profile + " has no [vars] " + var);
}

}  // namespace wslgpu::doctor
