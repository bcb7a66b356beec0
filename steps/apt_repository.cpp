#include "steps/apt_repository.hpp"

#include <algorithm>

#include "installer/formats/deb822.hpp"
#include "installer/net/download.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/system/error.hpp"
#include "installer/formats/sha256.hpp"
#include "steps/file_change.hpp"

namespace wslgpu {

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : " ") + i;
  return out;
}

bool is_armoured(const std::string& key) {
  std::size_t i = key.find_first_not_of(" \t\r\n");
  return i != std::string::npos && key.compare(i, 36, "-----BEGIN PGP PUBLIC KEY BLOCK-----") == 0;
}

class AptRepositoryStep : public Step {
 public:
  std::string name;
  std::vector<std::string> uris, suites, components, architectures;
  std::string key_url, key_file, key_sha256;
  std::string pin_origin;
  std::int64_t pin_priority = 0;

  // The key's bytes, fetched into the plan's cache when it comes from a URL.
  std::string fetch_key(StepContext& ctx) const {
    if (!key_file.empty()) {
      auto info = ctx.fs.stat(key_file);
      if (!info || info->type != FileType::regular)
        throw StepFailure("the key file " + key_file + " of apt repository \"" + name + "\" does not exist");
      std::string key = ctx.fs.read(key_file);
      std::string actual = sha256_hex(key);
      if (actual != key_sha256)
        throw StepFailure("the key file " + key_file + " has SHA-256 " + actual + ", but key_sha256 says " + key_sha256 +
                          "; the key was not used. Check where the file came from, or correct key_sha256.");
      return key;
    }
    const std::string cached = ctx.state_dir + "/cache/keys/" + key_sha256 + ".key";
    auto info = ctx.fs.stat(cached);
    if (!info || info->type != FileType::regular || sha256_hex(ctx.fs.read(cached)) != key_sha256) {
      DownloadRequest req;
      req.url = key_url;
      req.sha256 = key_sha256;
      req.host_path = ctx.fs.host_path(cached);
      req.total_timeout = std::chrono::minutes(2);
      req.retries = 2;
      try {
        fetch_file(req);
      } catch (const StepFailure& e) {
        throw StepFailure("the signing key of apt repository \"" + name + "\": " + e.what());
      }
    }
    return ctx.fs.read(cached);
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    if (key_sha256.empty()) {
      // A profile may leave the hash to the user rather than ship one it
      // could not verify; nothing is fetched or trusted until it is given.
      p.verdict = Verdict::refused;
      p.summary = "the signing key's SHA-256 is not set (key_sha256 is empty)";
      p.details.push_back("Fetch " + (key_url.empty() ? key_file : key_url) +
                          ", compare its fingerprint with the one the vendor publishes, then pass its sha256sum "
                          "with --set (the profile's *_key_sha256 variable).");
      return p;
    }
    std::string key = fetch_key(ctx);
    const std::string key_path = "/etc/apt/keyrings/" + name + (is_armoured(key) ? ".asc" : ".gpg");
    const std::string sources_path = "/etc/apt/sources.list.d/" + name + ".sources";
    const std::string pref_path = "/etc/apt/preferences.d/" + name + ".pref";

    Deb822Stanza src;
    src.set("Types", "deb");
    src.set("URIs", join(uris));
    src.set("Suites", join(suites));
    if (!components.empty()) src.set("Components", join(components));
    if (!architectures.empty()) src.set("Architectures", join(architectures));
    src.set("Signed-By", key_path);
    std::string sources = format_deb822({src});

    FileAttrs attrs{0644, 0, 0};
    std::vector<std::string> parts;
    bool key_changes = plan_file(ctx.fs, key_path, key, attrs, p);
    bool sources_change = plan_file(ctx.fs, sources_path, sources, attrs, p);
    bool pin_changes = false;
    if (!pin_origin.empty()) {
      Deb822Stanza pin;
      pin.set("Package", "*");
      pin.set("Pin", "release o=" + pin_origin);
      pin.set("Pin-Priority", std::to_string(pin_priority));
      pin_changes = plan_file(ctx.fs, pref_path, format_deb822({pin}), attrs, p);
    }
    if (!key_changes && !sources_change && !pin_changes) {
      p.summary = "apt repository \"" + name + "\" is as wanted";
      return p;
    }
    std::string digest = key_sha256.substr(0, 4) + "…" + key_sha256.substr(key_sha256.size() - 2);
    std::string summary = (ctx.fs.stat(sources_path) ? "update " : "add ") + sources_path;
    summary += ", key " + base_name_of(key_path) + " (sha256 " + digest + ")";
    if (!pin_origin.empty()) summary += ", pin " + std::to_string(pin_priority);
    p.summary = summary;
    return p;
  }

  static std::string base_name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }
};

bool valid_repository_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  if (!((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= '0' && n[0] <= '9'))) return false;
  return n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
}

bool valid_field_word(const std::string& w) {
  return !w.empty() && w.find_first_of(" \t\r\n") == std::string::npos;
}

}  // namespace

std::shared_ptr<Step> make_apt_repository_step(StepKeys& keys) {
  auto s = std::make_shared<AptRepositoryStep>();
  // Not "name": every step's "name" is its human title.
  s->name = keys.required_string("repo_name");
  if (keys.has("repo_name") && !valid_repository_name(s->name))
    keys.error("repo_name", "\"repo_name\" must be lowercase letters, digits, '.', '_' and '-' (it names files in /etc/apt), not \"" +
                           s->name + "\"");
  s->uris = keys.required_string_list("uris");
  for (const auto& u : s->uris)
    if (!valid_field_word(u) || u.find(':') == std::string::npos)
      keys.error("uris", "\"" + u + "\" is not a repository URI such as https://repo.radeon.com/rocm/apt/6.4.2");
  s->suites = keys.required_string_list("suites");
  s->components = keys.string_list("components");
  s->architectures = keys.string_list("architectures");
  bool flat = !s->suites.empty() && std::all_of(s->suites.begin(), s->suites.end(),
                                                [](const std::string& x) { return !x.empty() && x.back() == '/'; });
  if (!flat && s->components.empty() && keys.has("suites"))
    keys.error_at(keys.pos("suites"), "step kind \"apt_repository\" needs the key \"components\" (such as [\"main\"]) "
                                      "unless every suite is a flat repository path ending in \"/\"");
  if (flat && !s->components.empty())
    keys.error("components", "a flat repository (a suite ending in \"/\") takes no \"components\"");
  for (const auto* list : {&s->suites, &s->components, &s->architectures})
    for (const auto& w : *list)
      if (!valid_field_word(w)) keys.error("suites", "\"" + w + "\" must be one word without spaces");

  bool has_url = keys.has("key_url"), has_file = keys.has("key_file");
  if (has_url == has_file)
    keys.error_at(keys.pos(has_url ? "key_file" : "repo_name"),
                  has_url ? "give either \"key_url\" or \"key_file\", not both"
                          : "step kind \"apt_repository\" needs the key \"key_url\" or \"key_file\"");
  if (has_url) {
    s->key_url = keys.required_string("key_url");
    std::string problem = download_url_problem(s->key_url, false);
    if (!problem.empty()) keys.error("key_url", problem);
  }
  if (has_file) s->key_file = keys.required_path("key_file");
  s->key_sha256 = keys.required_string("key_sha256");
  std::transform(s->key_sha256.begin(), s->key_sha256.end(), s->key_sha256.begin(),
                 [](char c) { return static_cast<char>(std::tolower(c)); });
  // Empty is allowed here and refused by plan, with what to do.
  if (keys.has("key_sha256") && !s->key_sha256.empty() && !is_sha256_hex(s->key_sha256))
    keys.error("key_sha256", "\"key_sha256\" must be 64 hexadecimal digits (the output of `sha256sum`)");

  bool has_origin = keys.has("pin_origin"), has_priority = keys.has("pin_priority");
  s->pin_origin = keys.string_or("pin_origin", "");
  s->pin_priority = keys.integer("pin_priority", 0, -32768, 32767);
  if (has_origin != has_priority)
    keys.error(has_origin ? "pin_origin" : "pin_priority", "\"pin_origin\" and \"pin_priority\" go together: give both or neither");
  if (has_origin && !valid_field_word(s->pin_origin))
    keys.error("pin_origin", "\"pin_origin\" must be one word, the repository's Origin (such as repo.radeon.com)");
  return s;
}

}  // namespace wslgpu
