#include "steps/apt/apt_repository_sources.hpp"

#include <algorithm>

#include "installer/formats/diff.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/system/error.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu::apt_repo {

namespace {

// The architectures entry E fetches, NATIVE when it names none.
std::set<std::string> arch_set(const AptSourceEntry& e, const std::string& native) {
  std::set<std::string> s;
  if (e.architectures.empty())
    s.insert(native);
  else
    s.insert(e.architectures.begin(), e.architectures.end());
  s.insert(e.architectures_add.begin(), e.architectures_add.end());
  for (const auto& a : e.architectures_remove) s.erase(a);
  return s;
}

}  // namespace

// Whether E names one of this step's URIs with one of its suites, the
// pair apt allows one Signed-By for. Disabled entries are not read by apt.
bool same_source(const AptRepositorySpec& repo, const AptSourceEntry& e) {
  if (!e.enabled) return false;
  for (const auto& u : repo.uris)
    if (e.has_uri(u))
      for (const auto& s : repo.suites)
        if (e.has_suite(s)) return true;
  return false;
}

// "" when ENTRIES, all naming this repository, already say what this step
// wants, signed by the pinned key alone; else why not. KEYRINGS receives
// the keyring files they name, to fingerprint the plan with.
std::string reuse_problem(const AptRepositorySpec& repo, StepContext& ctx,
                          const std::vector<const AptSourceEntry*>& entries, std::vector<std::string>& keyrings) {
  const AptSourceEntry& first = *entries.front();
  for (const auto* e : entries) {
    if (e->trusted == "yes") return e->where() + " says trusted=yes, which turns apt's signature check off";
    if (e->signed_by.empty() && e->signed_by_key.empty())
      return e->where() + " names no Signed-By key, so any key apt trusts may sign it";
    if (e->signed_by != first.signed_by || e->signed_by_key != first.signed_by_key)
      return first.where() + " and " + e->where() + " name different Signed-By keys";
  }
  // The keys.
  std::set<std::string> found, restrict_to;
  std::optional<std::int64_t> pinned_expired;  // when a copy of the pinned key there has expired
  auto note = [&](const OpenPgpKey& k) {
    found.insert(k.fingerprint);
    if (k.fingerprint == repo.key_fingerprint && k.expires && *k.expires < now_seconds()) pinned_expired = k.expires;
  };
  if (!first.signed_by_key.empty()) {
    if (repo.key_fingerprint.empty()) return first.where() + " holds its key inline, and key_sha256 pins a key file";
    try {
      for (const auto& k : read_openpgp_keys(first.signed_by_key)) note(k);
    } catch (const OpenPgpError& e) {
      return "the key inside " + first.where() + " cannot be read: " + e.what();
    }
  }
  for (const auto& item : first.signed_by) {
    if (item.empty() || item.front() != '/') {
      std::string f = item;
      if (!f.empty() && f.back() == '!') f.pop_back();
      restrict_to.insert(normalize_fingerprint(f));
      continue;
    }
    auto info = ctx.fs.stat(item);
    if (!info || info->type != FileType::regular) return "its keyring " + item + " does not exist";
    keyrings.push_back(item);
    std::string bytes = ctx.fs.read(item);
    if (repo.key_fingerprint.empty()) {
      if (sha256_hex(bytes) != repo.key_sha256) return "its keyring " + item + " is not the file key_sha256 pins";
      continue;
    }
    try {
      for (const auto& k : read_openpgp_keys(bytes)) note(k);
    } catch (const OpenPgpError& e) {
      return "its keyring " + item + " cannot be read: " + e.what();
    }
  }
  if (repo.key_fingerprint.empty()) {
    if (keyrings.size() != 1 || !restrict_to.empty()) return "key_sha256 pins one key file, and it names another set";
  } else if (!restrict_to.empty()) {
    if (restrict_to != std::set<std::string>{repo.key_fingerprint} || !found.count(repo.key_fingerprint))
      return "its Signed-By does not select the pinned key " + format_fingerprint(repo.key_fingerprint);
  } else if (found != std::set<std::string>{repo.key_fingerprint}) {
    std::vector<std::string> names;
    for (const auto& f : found)
      if (f != repo.key_fingerprint) names.push_back(format_fingerprint(f));
    if (!found.count(repo.key_fingerprint))
      return "its key is " + (names.empty() ? std::string("missing") : join_repo(names, ", ")) + ", not the pinned " +
             format_fingerprint(repo.key_fingerprint);
    return "its keyring also holds " + join_repo(names, ", ") + ", which apt would accept as signers too";
  }
  // AMD's key expired twice (2019, 2021) and every copy of the old file
  // broke apt until it was replaced: an expired copy is replaced too.
  if (pinned_expired)
    return "its copy of the pinned key expired on " + utc_date(*pinned_expired) +
           " (the vendor's current file extends it)";
  // What it fetches.
  const std::string native = ctx.host.arch.empty() ? "(native)" : ctx.host.arch;
  std::set<std::string> wanted_arch;
  if (repo.architectures.empty())
    wanted_arch.insert(native);
  else
    wanted_arch.insert(repo.architectures.begin(), repo.architectures.end());
  for (const auto& u : repo.uris)
    for (const auto& s : repo.suites) {
      std::set<std::string> comps;
      bool any = false;
      for (const auto* e : entries) {
        if (!e->has_type("deb") || !e->has_uri(u) || !e->has_suite(s)) continue;
        std::set<std::string> arches = arch_set(*e, native);
        if (!std::includes(arches.begin(), arches.end(), wanted_arch.begin(), wanted_arch.end())) continue;
        any = true;
        comps.insert(e->components.begin(), e->components.end());
      }
      if (!any)
        return "no deb entry there gives " + u + " " + s + " for " +
               join_repo({wanted_arch.begin(), wanted_arch.end()});
      for (const auto& c : repo.components)
        if (!comps.count(c)) return "it lacks the component " + c + " of " + u + " " + s;
    }
  return "";
}

std::optional<StepPlan> plan_take_over(const AptRepositorySpec& repo, StepContext& ctx,
                                       const std::vector<AptSourcesFile>& files,
                                       const std::set<const AptSourceEntry*>& taken, StepPlan& p,
                                       std::vector<std::string>& replaced) {
  for (const auto& f : files) {
    std::vector<std::size_t> indexes;
    for (const auto& e : f.entries) {
      if (!taken.count(&e)) continue;
      // A stanza that also lists other repositories cannot go whole.
      if (e.format == AptSourcesFormat::deb822) {
        for (const auto& u : e.uris)
          for (const auto& s : e.suites) {
            bool ours =
                std::any_of(repo.uris.begin(), repo.uris.end(),
                            [&](const std::string& w) { return normalize_apt_uri(w) == normalize_apt_uri(u); }) &&
                std::find(repo.suites.begin(), repo.suites.end(), s) != repo.suites.end();
            if (!ours)
              return refusal(
                  "the stanza at " + e.where() + " also lists " + u + " " + s + ", which this step does not replace",
                  {"Move " + join_repo(repo.uris) +
                   " into a stanza of its own (or remove it from that one), "
                   "then plan again."});
          }
      }
      indexes.push_back(e.index);
      std::vector<std::string> dropped;
      for (const auto& c : e.components)
        if (std::find(repo.components.begin(), repo.components.end(), c) == repo.components.end()) dropped.push_back(c);
      if (!dropped.empty())
        p.details.push_back(e.where() + " also fetches " + join_repo(dropped) + ", which the new source does not");
      if (e.has_type("deb-src"))
        p.details.push_back(e.where() + " is a deb-src entry; the new source fetches binary packages only");
    }
    if (indexes.empty()) continue;
    // A file this step edits must read whole: a line apt rejects would be
    // kept as it is, and apt refuses every source while it is there. Bad
    // input, as a malformed manifest is (exit 2).
    if (!f.problems.empty()) {
      std::vector<Diagnostic> all = f.problems;
      all.back().message +=
          "\napt rejects this line, and the file holds an entry this step replaces: fix the line by hand (or "
          "remove it), then run again. Nothing was changed.";
      throw InputError(std::move(all));
    }
    auto owner = find_dpkg_owner(ctx.fs, f.path);
    replaced.push_back(f.path + " (" + owner_text(owner) + ")");
    p.details.push_back("replaces " + f.path + " (" + owner_text(owner) + "):");
    // sources.list itself stays, with its comments, when nothing else is
    // left in it: other tools expect the file; a .list of its own goes.
    std::optional<std::string> kept = remove_apt_source_entries(f, indexes);
    if (!kept && f.path == "/etc/apt/sources.list") kept = apt_sources_without(f, indexes);
    auto info = ctx.fs.stat(f.path);
    FileAttrs same{info ? info->mode : 0644u, info ? info->uid : 0u, info ? info->gid : 0u};
    plan_file(ctx.fs, f.path, kept, same, p);
    if (!kept) {
      auto diff = unified_diff(f.path, &f.text, "");
      p.details.insert(p.details.end(), diff.begin(), diff.end());
      std::string d;
      for (const auto& l : diff) d += l + "\n";
      p.changes.back()["diff"] = d;
    }
    if (owner) note_package_file(*owner, f.path, !kept, p);
  }
  return std::nullopt;
}

void plan_replaced_keyrings(StepContext& ctx, const std::vector<AptSourcesFile>& files,
                            const std::vector<const AptSourceEntry*>& matching, const std::string& key_path,
                            StepPlan& p) {
  const FileAttrs attrs{0644, 0, 0};
  const std::set<const AptSourceEntry*> taken(matching.begin(), matching.end());
  std::set<std::string> keyrings;
  for (const auto* e : matching)
    for (const auto& k : e->signed_by)
      if (!k.empty() && k.front() == '/') keyrings.insert(k);
  for (const auto& k : keyrings) {
    if (k == key_path) continue;  // the step's own key, written after
    auto info = ctx.fs.stat(k);
    if (!info || info->type != FileType::regular) continue;
    if (used_by_any(files, k, "", taken)) {
      p.details.push_back("keeps " + k + ": other sources still name it");
      continue;
    }
    auto owner = find_dpkg_owner(ctx.fs, k);
    if (owner && !owner->conffile) {
      p.details.push_back("keeps " + k + ": a file of " + owner->package + ", which dpkg would put back");
      continue;
    }
    p.details.push_back("removes " + k + ", the key of the replaced entries (" + owner_text(owner) + ")");
    plan_file(ctx.fs, k, std::nullopt, attrs, p);
  }
}

// Whether any entry outside SKIP_FILE names KEYRING in its Signed-By.
bool used_by_any(const std::vector<AptSourcesFile>& files, const std::string& keyring, const std::string& skip_file,
                 const std::set<const AptSourceEntry*>& skip) {
  for (const auto& f : files) {
    if (f.path == skip_file) continue;
    for (const auto& e : f.entries)
      if (!skip.count(&e) && std::find(e.signed_by.begin(), e.signed_by.end(), keyring) != e.signed_by.end())
        return true;
  }
  return false;
}

// What dpkg will do with a file of OWNER that the plan removes (REMOVED)
// or edits: a conffile stays as the administrator left it (dpkg(1),
// --force-confmiss and --force-confold), a plain file is put back.
void note_package_file(const DpkgOwner& owner, const std::string& path, bool removed, StepPlan& p) {
  if (owner.conffile) {
    p.details.push_back(owner.package + (removed ? " stays installed; its list is removed, and dpkg keeps a deleted "
                                                   "conffile deleted on upgrade"
                                                 : " stays installed; its list is edited, and dpkg keeps an edited "
                                                   "conffile as it is on upgrade"));
    return;
  }
  std::string note = path + " is a file of " + owner.package + ", not a conffile: dpkg " +
                     (removed ? "puts it back" : "overwrites the edit") + " when " + owner.package +
                     " is upgraded or reinstalled, and apt then refuses its sources again "
                     "(\"Conflicting values set for option Signed-By\"). Remove the package (sudo apt remove " +
                     owner.package + ") if it is not needed.";
  p.details.push_back(note);
  p.notices.push_back(note);
}

std::string owner_text(const std::optional<DpkgOwner>& owner) {
  return owner ? owner->package : std::string("not from a package");
}

}  // namespace wslgpu::apt_repo
