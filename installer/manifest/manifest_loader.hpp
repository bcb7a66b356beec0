// The manifest loader, shared by the files that read each part of a
// manifest; load_manifest() (manifest.hpp) is its interface, and nothing
// outside installer/manifest/ includes this header. One Loader reads one
// manifest (a layer with its base: compose.hpp) and collects every problem
// it finds as a Diagnostic, so that the user sees all of them at once.
//   manifest.cpp          parsing, [manifest], [vars], [[step]], `when`
//   manifest_guards.cpp   [guards]: refuse_packages, kernel, WSL, refuse_if, warn_if, supported
//   host_fact_references  which host facts a manifest's strings name
#pragma once
#include <set>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "installer/host/host.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/system/error.hpp"

namespace wslgpu::manifest_loading {

class Loader {
 public:
  Loader(const ManifestSource& source, const Variables& overrides, const HostFacts& host, const LoadOptions& options)
      : source_(source), overrides_(overrides), host_(host), options_(options) {}

  // The manifest, or throws InputError with every diagnostic (exit 2), or a
  // Refusal (exit 3) for a system the profile does not support.
  Manifest load();

 private:
  void error(const SourcePos& pos, const std::string& message) { diagnostics_.push_back({pos, message}); }

  // [manifest] requires = "NAME": parses the required profile (the recorded
  // text, else the bundled one) and puts ROOT on it. BASE_STEPS: how many
  // of the composed steps are the base's. False when the base cannot be had.
  bool compose_with_base(toml::table& root, std::size_t& base_steps);

  // toml++'s parse error said as one sentence, with what usually causes it;
  // may move POS (from a redefined key's value to the key).
  std::string syntax_error_message(const std::string& description, SourcePos& pos) const;

  // Reports keys of T outside KNOWN, naming WHERE.
  void check_keys(const toml::table& t, const std::vector<std::string>& known, const std::string& where);

  // ROOT's table KEY; null (with a diagnostic when REQUIRED or not a table) otherwise.
  const toml::table* table_at(const toml::table& root, const std::string& key, bool required);

  static std::string join(const std::vector<std::string>& items);
  static std::set<std::string> with_users(const Variables& raw, std::set<std::string> names);

  void read_header(const toml::table& root);
  void read_vars(const toml::table& root);
  void read_steps(const toml::table& root);
  // A `when` condition into STEP.when (null, with a diagnostic, when bad).
  void read_when(const toml::node& node, ManifestStep& step);
  bool step_applies(const ManifestStep& step, const Variables& scope) const;
  // Throws the Refusal of [guards] supported when this system is not one
  // (and --unsupported-distro is not given).
  void refuse_an_unsupported_system() const;

  // manifest_guards.cpp
  void read_guards(const toml::table& root);
  void read_refuse_if(const toml::table& guards, const std::string& key, std::vector<ConditionalRefusal>& out);
  void read_supported(const toml::table& guards);

  const ManifestSource& source_;
  const Variables& overrides_;
  const HostFacts& host_;
  const LoadOptions options_;
  std::size_t base_steps_ = 0;          // the first steps of a layer's manifest are its base's
  std::size_t empty_fact_errors_ = 0;  // diagnostics about facts this machine lacks
  std::string unresolved_choice_;      // a refusal: "auto" found no [matrix] row and there is no fallback
  std::set<std::string> waiting_on_choice_;  // the variables of that refusal and those built from them
  Manifest manifest_;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace wslgpu::manifest_loading
