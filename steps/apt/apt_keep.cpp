#include "steps/apt/apt_keep.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "installer/formats/apt_simulation.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "installer/system/units.hpp"
#include "installer/undo/deb_repack.hpp"
#include "steps/apt/apt_common.hpp"

namespace wslgpu {

namespace {

// What `apt-get download --print-uris` says of each offered NAME=VERSION:
// file name -> its URI line. The target's own sources (OPTIONS: no cache
// written). Empty when apt cannot answer.
std::map<std::string, AptUri> index_entries(StepContext& ctx, const std::vector<std::string>& request,
                                            const std::vector<std::string>& options) {
  if (request.empty()) return {};
  std::vector<std::string> args = {"download", "--print-uris"};
  args.insert(args.end(), request.begin(), request.end());
  Command cmd = apt_query({"apt-get"}, args, options);
  ProcessResult r = ctx.runner.run(cmd);
  if (r.interrupted) throw_interrupted("while asking apt where the old versions are; nothing was changed");
  if (!r.ok()) {
    spdlog::info("apt did not say where the old versions are: {}", command_failure(cmd, r));
    return {};
  }
  std::map<std::string, AptUri> out;
  for (auto& u : parse_apt_uris(r.out)) out[u.file] = u;
  return out;
}

std::string arch_of(const OldPackage& p, const StepContext& ctx) {
  if (!p.architecture.empty()) return p.architecture;
  return ctx.host.arch.empty() ? std::string("amd64") : ctx.host.arch;
}

}  // namespace

std::vector<UndoKeep> plan_undo_keeps(StepContext& ctx, const std::vector<OldPackage>& olds) {
  std::vector<UndoKeep> keeps;
  if (olds.empty()) return keeps;
  // The target's sources as they are now: the run keeps its copies before
  // its first step, so before any step of it adds or removes a source.
  auto config = PlanAptConfig::create(ctx, false);
  std::vector<std::string> names;
  for (const auto& p : olds) names.push_back(p.name);
  std::map<std::string, std::vector<std::string>> offered;
  std::string why_unasked;
  try {
    offered = fetchable_versions(ctx, names, *config);
  } catch (const StepFailure& e) {
    why_unasked = e.what();
    spdlog::info("plan: apt cannot say which old versions its sources offer: {}", why_unasked);
  }
  std::vector<std::string> request;
  for (const auto& p : olds) {
    const auto& have = offered[p.name];
    if (std::find(have.begin(), have.end(), p.version) != have.end()) request.push_back(p.name + "=" + p.version);
  }
  auto index = index_entries(ctx, request, config->options());

  for (const auto& p : olds) {
    UndoKeep k{p.name, p.version, arch_of(p, ctx), "", "", 0, "", ""};
    const std::string file = deb_file_name(k.name, k.version, k.architecture);
    const AptUri* entry = index.count(file) ? &index.at(file) : nullptr;
    if (entry) k.index_sha256 = entry->sha256;
    if (std::string cached = cached_deb(ctx, k.name, k.version, k.architecture); !cached.empty()) {
      auto info = ctx.fs.stat(cached);
      k.from = "apt cache";
      k.source = cached;
      k.bytes = info ? info->size : 0;
    } else if (entry) {
      k.from = "fetched";
      k.source = entry->uri;
      k.bytes = entry->size;
    } else if (RepackCheck c = can_repack(ctx.fs, k.name, k.architecture); c.possible) {
      k.from = "rebuilt";
      k.bytes = c.estimated_bytes;
    } else {
      k.why = "not in apt's cache, " +
              (why_unasked.empty() ? "no source of this machine offers " + k.version : "apt could not say which versions its sources offer") +
              ", and it cannot be rebuilt: " + c.why;
    }
    keeps.push_back(k);
  }
  return keeps;
}

void add_keep_details(StepPlan& plan) {
  std::vector<std::string> kept;
  std::uint64_t bytes = 0;
  std::map<std::string, int> by_way;
  for (const auto& k : plan.keeps) {
    if (k.from.empty()) {
      plan.details.push_back("undo cannot put back " + k.name + " " + k.version + ": " + k.why);
      continue;
    }
    kept.push_back(k.name + " " + k.version);
    bytes += k.bytes;
    ++by_way[k.from];
  }
  if (kept.empty()) return;
  std::string ways;
  for (const auto& [way, n] : by_way)
    ways += (ways.empty() ? "" : ", ") + std::to_string(n) + " " +
            (way == "apt cache" ? "from apt's cache" : way == "fetched" ? "fetched from the sources as they are now" : "rebuilt from the installed files");
  plan.details.push_back("undo keeps " + name_list(kept) + " (" + human_size(bytes) + ": " + ways + ")");
}

namespace {

KeptDeb from_cache(StepContext& ctx, UndoStore& store, KeptDeb kept, const std::string& cached_target) {
  link_or_copy_host_file(ctx.fs.host_path(cached_target), store.host_path(kept));
  kept.from = KeptFrom::apt_cache;
  return store.admit(kept);
}

KeptDeb fetch(StepContext& ctx, UndoStore& store, KeptDeb kept, std::uint64_t index_size) {
  auto config = PlanAptConfig::create(ctx, false);
  Command cmd;
  // The store is root's (0700): apt's _apt sandbox user could not write
  // there, so apt downloads as root, as it says it would anyway.
  cmd.argv = {"apt-get", "download", "-o", kStoreReader};
  cmd.argv.insert(cmd.argv.end(), config->options().begin(), config->options().end());
  cmd.argv.push_back(kept.name + "=" + kept.version);
  cmd.env = apt_environment();
  cmd.cwd = store.target_dir();
  cmd.timeout = std::chrono::hours(1);
  cmd.stop_on_interrupt = true;  // a download: nothing of the machine changes
  ProcessResult r = ctx.runner.run(cmd);
  if (r.interrupted) throw_interrupted("while keeping " + kept.name + " " + kept.version + " for undo; nothing was changed");
  if (!r.ok()) throw StepFailure(command_failure(cmd, r));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(store.host_path(kept), ec))
    throw StepFailure("`apt-get download " + kept.name + "=" + kept.version + "` left no " + kept.file);
  kept.from = KeptFrom::fetched;
  return store.admit(kept, index_size);
}

KeptDeb rebuild(StepContext& ctx, UndoStore& store, KeptDeb kept) {
  repack_installed(ctx.fs, ctx.runner, kept.name, kept.architecture, store.target_dir() + "/.rebuild-" + kept.name,
                   store.target_path(kept));
  kept.from = KeptFrom::rebuilt;
  kept.index_sha256.clear();  // not apt's file: its own hash is what undo checks
  return store.admit(kept);
}

}  // namespace

KeptDeb keep_for_undo(StepContext& ctx, UndoStore& store, const std::string& step_id, const UndoKeep& keep) {
  std::filesystem::create_directories(store.host_dir());
  ::chmod(store.host_dir().c_str(), 0700);
  KeptDeb kept;
  kept.step = step_id;
  kept.name = keep.name;
  kept.version = keep.version;
  kept.architecture = keep.architecture;
  kept.file = deb_file_name(keep.name, keep.version, keep.architecture);
  kept.index_sha256 = keep.index_sha256;
  if (const KeptDeb* have = store.find(kept.name, kept.version, kept.architecture)) {
    // A resumed run, or two steps changing the same version: one copy.
    store.check(*have);
    KeptDeb again = *have;
    again.step = step_id;
    return again;
  }
  // The plan's way first; each later one when it fails now.
  std::vector<std::string> failures;
  const bool from_cache_first = keep.from == "apt cache";
  if (from_cache_first || keep.from.empty()) {
    std::string cached = cached_deb(ctx, keep.name, keep.version, keep.architecture);
    if (!cached.empty()) {
      try {
        return from_cache(ctx, store, kept, cached);
      } catch (const CorruptCopy& e) {
        failures.push_back(std::string("apt's cache: ") + e.what());
      } catch (const StepFailure& e) {
        failures.push_back(std::string("apt's cache: ") + e.what());
      }
    } else {
      failures.push_back("apt's cache no longer holds " + kept.file);
    }
  }
  if (keep.from != "rebuilt") {
    try {
      return fetch(ctx, store, kept, keep.from == "fetched" ? keep.bytes : 0);
    } catch (const CorruptCopy&) {
      throw;  // a source that serves something else than its index says: never fall back silently
    } catch (const StepFailure& e) {
      failures.push_back(std::string("fetching: ") + e.what());
    }
  }
  try {
    return rebuild(ctx, store, kept);
  } catch (const StepFailure& e) {
    failures.push_back(std::string("rebuilding from the installed files: ") + e.what());
  }
  std::string why;
  for (const auto& f : failures) why += "\n  " + f;
  throw StepFailure("could not keep " + keep.name + " " + keep.version + " for undo, so nothing was changed:" + why);
}

std::string kept_deb(const StepContext& ctx, const std::string& name, const std::string& version,
                     const std::string& arch) {
  if (!ctx.undo_store) return "";
  const KeptDeb* k = ctx.undo_store->find(name, version, arch);
  if (!k) return "";
  ctx.undo_store->check(*k);
  return ctx.undo_store->target_path(*k);
}

}  // namespace wslgpu
