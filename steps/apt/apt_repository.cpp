// The apt_repository step: its plan, made from the parts named in
// steps/apt/apt_repository_spec.hpp (the key, the other sources, the pins),
// and the checks of its keys when a manifest is loaded.
#include "steps/apt/apt_repository.hpp"

#include <algorithm>
#include <set>

#include "installer/formats/apt_sources.hpp"
#include "installer/formats/deb822.hpp"
#include "installer/formats/dpkg_files.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/net/download.hpp"
#include "installer/system/error.hpp"
#include "steps/apt/apt_repository_key.hpp"
#include "steps/apt/apt_repository_pins.hpp"
#include "steps/apt/apt_repository_sources.hpp"
#include "steps/apt/apt_repository_spec.hpp"
#include "steps/apt/apt_signature_policy.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu {

namespace {

using namespace apt_repo;

std::string base_name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

class AptRepositoryStep : public Step, public AptRepositorySpec {
 public:
  StepPlan plan(StepContext& ctx) const override {
    // Every enabled entry apt reads that names this repository, outside
    // this step's own file.
    std::vector<AptSourcesFile> files = read_apt_sources(ctx.fs);
    std::vector<const AptSourceEntry*> matching;
    for (const auto& f : files)
      if (f.path != sources_path())
        for (const auto& e : f.entries)
          if (same_source(*this, e)) matching.push_back(&e);

    std::vector<std::string> not_reused;
    if (!matching.empty()) {
      std::vector<std::string> keyrings;
      std::string problem = reuse_problem(*this, ctx, matching, keyrings);
      if (problem.empty()) return plan_reuse(ctx, files, matching, keyrings);
      not_reused.push_back("not reused as it is: " + problem);
    }

    std::string key;
    std::optional<OpenPgpKey> pgp;
    bool armour_dropped = false;
    if (auto refused = obtain_key(*this, ctx, key, pgp, &armour_dropped)) {
      if (refused->not_asked.empty()) return *refused;
      return plan_own_files(ctx, files, matching, key, pgp, not_reused, refused->not_asked);
    }
    if (pgp)
      if (auto refused = refusal_by_apt_verifier(ctx, *pgp)) return *refused;
    StepPlan p = plan_own_files(ctx, files, matching, key, pgp, not_reused);
    if (armour_dropped && p.verdict != Verdict::noop)
      p.details.push_back("the key file is a binary key followed by the same key in ASCII armour (the shape of AMD's "
                          "packages.gpg), which apt cannot read as one keyring: only the binary key is written");
    return p;
  }

  // The key is the pinned one, but the target's apt would refuse it (its
  // sqv policy no longer trusts the key's binding signatures): the source,
  // key and pin would be written and then every `apt-get update` fail.
  std::optional<StepPlan> refusal_by_apt_verifier(StepContext& ctx, const OpenPgpKey& pgp) const {
    const AptVerifier verifier = apt_verifier(ctx.fs);
    const std::string why = apt_binding_rejection(verifier, pgp, now_seconds());
    if (why.empty()) return std::nullopt;
    std::vector<std::string> ways = {
        "Nothing was changed, and the tool does not change this machine's signature policy."};
    if (!advice.empty()) ways.push_back(advice);
    ways.push_back("Point key_url and key_fingerprint at a key the vendor binds with a stronger hash, where it publishes one" +
                   std::string(key_url_variable.empty() ? "" : " (--set " + key_url_variable + "=... and its fingerprint)") +
                   ", or wait for the vendor to sign this key again.");
    ways.push_back("A machine whose apt verifies with gpgv (Ubuntu 24.04 and 22.04) accepts this key.");
    StepPlan p = refusal("apt on this machine would refuse repository \"" + name + "\": " + why +
                             ". Every signature of the repository would fail (\"Signing key on " + pgp.fingerprint +
                             " is not bound\"), after its source and key were written",
                         ways);
    p.fingerprint["apt_verifier"] = verifier.policy ? verifier.policy->source : std::string("sqv");
    return p;
  }

  // The repository is already configured as wanted by another file (NVIDIA's
  // cuda-keyring list): this step adds nothing that would conflict with it.
  StepPlan plan_reuse(StepContext& ctx, const std::vector<AptSourcesFile>& files,
                      const std::vector<const AptSourceEntry*>& matching,
                      const std::vector<std::string>& keyrings) const {
    StepPlan p;
    std::set<std::string> seen;
    for (const auto* e : matching) {
      if (!seen.insert(e->file).second) continue;
      p.fingerprint["file:" + e->file] = "sha256:" + sha256_hex(ctx.fs.read(e->file));
    }
    for (const auto& k : keyrings) p.fingerprint["file:" + k] = "sha256:" + sha256_hex(ctx.fs.read(k));
    // Only the conffile lists, which are few: this is the converged path.
    auto owner = find_conffile_owner(ctx.fs, matching.front()->file);
    std::string by = owner ? owner->package + " (" + matching.front()->file + ")" : matching.front()->file;
    if (seen.size() > 1) by += " and " + std::to_string(seen.size() - 1) + " more";
    p.details.push_back("reuses " + matching.front()->where() +
                        (key_fingerprint.empty()
                             ? ", whose keyring is the file key_sha256 pins"
                             : ", signed by the pinned key " + format_fingerprint(key_fingerprint)) +
                        "; writes no source or key of its own");

    // A source of our own from an earlier run would now name the same
    // repository with another key, which apt refuses: it goes.
    const std::string ours = sources_path();
    bool removes_ours = false;
    if (ctx.fs.stat(ours)) {
      removes_ours = plan_file(ctx.fs, ours, std::nullopt, FileAttrs{}, p);
      for (const char* ext : {".asc", ".gpg"}) {
        std::string k = "/etc/apt/keyrings/" + name + ext;
        if (ctx.fs.stat(k) && !used_by_any(files, k, ours)) plan_file(ctx.fs, k, std::nullopt, FileAttrs{}, p);
      }
    }
    bool pin_changes = false;
    if (!pin_origin.empty()) {
      bool have = false;
      for (const auto& [path, text] : same_origin_pins(*this, ctx))
        have = have || text.find("Pin-Priority: " + std::to_string(pin_priority)) != std::string::npos;
      if (!have) pin_changes = plan_file(ctx.fs, pref_path(), wanted_pin(*this), FileAttrs{0644, 0, 0}, p);
    }
    p.summary = "configured by " + by + ", key " + key_note(*this);
    if (removes_ours) p.summary += "; remove the duplicate " + ours;
    if (pin_changes) p.summary += ", pin " + std::to_string(pin_priority);
    return p;
  }

  StepPlan plan_own_files(StepContext& ctx, const std::vector<AptSourcesFile>& files,
                          const std::vector<const AptSourceEntry*>& matching, const std::string& key,
                          const std::optional<OpenPgpKey>& pgp, const std::vector<std::string>& not_reused,
                          const std::string& key_not_asked = "") const {
    StepPlan p;
    p.details = not_reused;
    // A key not fetched (offline) is named as its URL suggests: ".gpg" for a
    // binary key, else armoured; the plan with the network reads the bytes.
    const bool armoured = key_not_asked.empty() ? is_armoured(key)
                                                : !(key_url.size() > 4 && key_url.compare(key_url.size() - 4, 4, ".gpg") == 0);
    const std::string key_path = "/etc/apt/keyrings/" + name + (armoured ? ".asc" : ".gpg");
    const FileAttrs attrs{0644, 0, 0};
    const std::set<const AptSourceEntry*> taken(matching.begin(), matching.end());

    // 1. The entries taken over, first: apt must never see them and the new
    // source at once (the runner writes in this order and undoes in reverse).
    std::vector<std::string> replaced;
    if (auto refused = plan_take_over(*this, ctx, files, taken, p, replaced)) return *refused;

    // 2. Their keyrings, once nothing else names them.
    plan_replaced_keyrings(ctx, files, matching, key_path, p);

    // 3. This step's own key and source.
    Deb822Stanza src;
    src.set("Types", "deb");
    src.set("URIs", join_repo(uris));
    src.set("Suites", join_repo(suites));
    if (!components.empty()) src.set("Components", join_repo(components));
    if (!architectures.empty()) src.set("Architectures", join_repo(architectures));
    src.set("Signed-By", key_path);
    bool key_changes = true;
    // The key in the other form, from an earlier run whose key was
    // armoured where this one is binary (AMD's legacy rocm.gpg.key and its
    // Core SDK packages.gpg both become NAME.*): it goes, unless another
    // source names it.
    const std::string other_form = "/etc/apt/keyrings/" + name + (armoured ? ".gpg" : ".asc");
    if (ctx.fs.stat(other_form) && !used_by_any(files, other_form, sources_path()))
      plan_file(ctx.fs, other_form, std::nullopt, attrs, p);
    if (key_not_asked.empty()) {
      key_changes = plan_file(ctx.fs, key_path, key, attrs, p);
    } else {
      p.not_asked = key_not_asked;
      p.verdict = Verdict::change;
      p.details.push_back("not asked offline: " + key_not_asked + " (the plan with the network fetches it and uses it "
                          "only if it is the pinned key" +
                          (key_fingerprint.empty() ? "" : " " + format_fingerprint(key_fingerprint)) + "; it becomes " +
                          key_path + ")");
      p.changes.push_back({{"type", "file"}, {"path", key_path}, {"action", "create"}, {"not_asked", key_not_asked}});
    }
    bool sources_change = plan_file(ctx.fs, sources_path(), format_deb822({src}), attrs, p);

    // 4. Leftover pins of the same origin, then this step's pin.
    bool pin_changes = false;
    if (!pin_origin.empty()) {
      if (!replaced.empty()) plan_replaced_pins(*this, ctx, p);
      pin_changes = plan_file(ctx.fs, pref_path(), wanted_pin(*this), attrs, p);
    }
    if (p.verdict == Verdict::noop) {
      p.summary = "apt repository \"" + name + "\" is as wanted";
      return p;
    }
    std::string summary;
    if (key_changes || sources_change || pin_changes) {
      summary = (ctx.fs.stat(sources_path()) ? "update " : "add ") + sources_path();
      summary += ", key " + base_name_of(key_path) + " (" +
                 (key_not_asked.empty() ? key_note(*this) : std::string("not asked offline")) + ")";
      if (!pin_origin.empty()) summary += ", pin " + std::to_string(pin_priority);
    }
    if (!replaced.empty())
      summary += (summary.empty() ? "" : "; ") + std::string("replaces ") + join_repo(replaced, ", ");
    p.summary = summary;
    if (pgp && key_changes)
      for (std::string& line : key_details(*this, *pgp)) p.details.push_back(std::move(line));
    return p;
  }
};

bool valid_repository_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  if (!((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= '0' && n[0] <= '9'))) return false;
  return n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
}

bool valid_field_word(const std::string& w) {
  return !w.empty() && w.find_first_of(" \t\r\n") == std::string::npos;
}

// "rocm_key_url" when NODE is the string "${rocm_key_url}" and nothing else.
std::string sole_variable(const toml::node* node) {
  if (!node) return "";
  auto text = node->value<std::string>();
  if (!text || text->size() < 4 || text->compare(0, 2, "${") != 0 || text->back() != '}') return "";
  std::string var = text->substr(2, text->size() - 3);
  if (var.empty() ||
      var.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
    return "";
  return var;
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
    s->key_url_variable = sole_variable(keys.node("key_url"));
    s->key_url = keys.required_string("key_url");
    std::string problem = download_url_problem(s->key_url, false);
    if (!problem.empty()) keys.error("key_url", problem);
  }
  if (has_file) s->key_file = keys.required_path("key_file");

  // The key is pinned by its OpenPGP fingerprint (which stays when the
  // vendor re-issues the file with a later expiry) or by the file's SHA-256.
  bool has_fpr = keys.has("key_fingerprint"), has_sha = keys.has("key_sha256");
  if (has_fpr && has_sha)
    keys.error("key_sha256",
               "give either \"key_fingerprint\" or \"key_sha256\", not both (the fingerprint is the "
               "better pin: it survives the vendor re-issuing the key file)");
  if (!has_fpr && !has_sha)
    keys.error_at(keys.pos("key_fingerprint"),
                  "step kind \"apt_repository\" needs the key \"key_fingerprint\" (the 40 "
                  "hexadecimal digits the vendor publishes for its signing key) or \"key_sha256\"");
  if (has_fpr) {
    std::string given = keys.required_string("key_fingerprint");
    s->key_fingerprint = normalize_fingerprint(given);
    if (given.empty())
      keys.error("key_fingerprint",
                 "\"key_fingerprint\" is empty: give the signing key's fingerprint as the vendor "
                 "publishes it (40 hexadecimal digits; `gpg --show-keys KEYFILE` prints it)");
    else if (s->key_fingerprint.empty())
      keys.error("key_fingerprint",
                 "\"key_fingerprint\" must be 40 hexadecimal digits (spaces allowed), the "
                 "OpenPGP v4 fingerprint, not \"" +
                     given + "\"");
  }
  if (has_sha) {
    s->key_sha256 = keys.required_string("key_sha256");
    std::transform(s->key_sha256.begin(), s->key_sha256.end(), s->key_sha256.begin(),
                   [](char c) { return static_cast<char>(std::tolower(c)); });
    if (s->key_sha256.empty())
      keys.error("key_sha256",
                 "\"key_sha256\" is empty: give the key file's SHA-256 (64 hexadecimal digits, the "
                 "output of `sha256sum`), or pin the key by its fingerprint with \"key_fingerprint\"");
    else if (!is_sha256_hex(s->key_sha256))
      keys.error("key_sha256", "\"key_sha256\" must be 64 hexadecimal digits (the output of `sha256sum`)");
  }

  bool has_origin = keys.has("pin_origin"), has_priority = keys.has("pin_priority");
  s->pin_origin = keys.string_or("pin_origin", "");
  s->pin_priority = keys.integer("pin_priority", 0, -32768, 32767);
  s->advice = keys.string_or("advice", "");
  if (has_origin != has_priority)
    keys.error(has_origin ? "pin_origin" : "pin_priority", "\"pin_origin\" and \"pin_priority\" go together: give both or neither");
  // An Origin may hold spaces ("AMD ROCm", "Google LLC"): apt_preferences(5)
  // reads `Pin: release o=...` up to a comma, so a comma, a line break or
  // space at either end would pin something else.
  if (has_origin && (s->pin_origin.empty() || s->pin_origin.find_first_of(",\t\r\n") != std::string::npos ||
                     s->pin_origin.front() == ' ' || s->pin_origin.back() == ' '))
    keys.error("pin_origin", "\"pin_origin\" must be the repository's Origin as its Release file gives it (such as "
                             "repo.radeon.com or AMD ROCm), without commas, tabs, line breaks or spaces at either end");
  return s;
}

}  // namespace wslgpu
