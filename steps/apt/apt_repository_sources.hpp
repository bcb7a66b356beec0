// The other sources of an apt_repository step's repository. apt refuses to
// read any source when two entries name the same URI and suite with
// different Signed-By (what installing over amdgpu-install or cuda-keyring
// used to cause), so the step's plan first reads every source apt reads:
// entries that already say what the step wants, signed by the pinned key
// alone, are reused; the others are taken over. Here: which entries those
// are, whether they can be reused, and what dpkg does with a taken-over
// file that a package owns.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "installer/formats/apt_sources.hpp"
#include "installer/formats/dpkg_files.hpp"
#include "steps/apt/apt_repository_spec.hpp"
#include "steps/step.hpp"

namespace wslgpu::apt_repo {

// Whether E names one of REPO's URIs with one of its suites, the pair apt
// allows one Signed-By for. Disabled entries are not read by apt.
bool same_source(const AptRepositorySpec& repo, const AptSourceEntry& e);

// "" when ENTRIES, all naming REPO's repository, already say what the step
// wants, signed by the pinned key alone; else why not. KEYRINGS receives
// the keyring files they name, to fingerprint the plan with.
std::string reuse_problem(const AptRepositorySpec& repo, StepContext& ctx,
                          const std::vector<const AptSourceEntry*>& entries, std::vector<std::string>& keyrings);

// Takes over the TAKEN entries (every one naming REPO's repository that is
// not reused): plans removing their lines or stanzas, or their file when
// nothing else is left in it (sources.list itself stays), with a diff and
// what dpkg will do with a file of a package. REPLACED receives each file
// as "PATH (PACKAGE)". A deb822 stanza that also lists another repository
// cannot go whole: then the refusal that says so.
std::optional<StepPlan> plan_take_over(const AptRepositorySpec& repo, StepContext& ctx,
                                       const std::vector<AptSourcesFile>& files,
                                       const std::set<const AptSourceEntry*>& taken, StepPlan& p,
                                       std::vector<std::string>& replaced);

// Plans removing the keyrings the taken-over MATCHING entries name, once no
// other source names them and dpkg would not put them back; KEY_PATH, the
// step's own key, is left to the step.
void plan_replaced_keyrings(StepContext& ctx, const std::vector<AptSourcesFile>& files,
                            const std::vector<const AptSourceEntry*>& matching, const std::string& key_path,
                            StepPlan& p);

// Whether any entry outside SKIP_FILE (and not in SKIP) names KEYRING in its Signed-By.
bool used_by_any(const std::vector<AptSourcesFile>& files, const std::string& keyring, const std::string& skip_file,
                 const std::set<const AptSourceEntry*>& skip = {});

// What dpkg will do with a file of OWNER that the plan removes (REMOVED)
// or edits: a conffile stays as the administrator left it (dpkg(1),
// --force-confmiss and --force-confold), a plain file is put back. Adds the
// plan's detail line, and a notice for a plain file.
void note_package_file(const DpkgOwner& owner, const std::string& path, bool removed, StepPlan& p);

// OWNER's package, or "not from a package".
std::string owner_text(const std::optional<DpkgOwner>& owner);

}  // namespace wslgpu::apt_repo
