// steps/: one step kind per file pair, behind this interface; registry.cpp
// names them. Includes installer/manifest/ and below.
//
// The one interface every step kind implements. A step is built from its
// [[step]] table when the manifest loads (so every key is checked before
// anything runs), then:
//   plan(ctx)   probes the machine and says what apply would change. It never
//               changes anything; file effects are returned as FileWrites.
//   apply(ctx)  carries out what is not a plain file write (apt, usermod, a
//               command); the runner has already written plan.writes, with
//               backups. Returns the data undo needs, stored in the journal.
//   undo(ctx)   reverses apply from that data. File writes are restored by
//               the runner from its backups, after undo; after_restore(ctx)
//               then follows, for what must see the files back.
//   snapshot(ctx) runs before apply and its result is journalled first, so
//               that a run killed in the middle of apply can still be undone:
//               undo then receives {"partial": true, "pre": snapshot} instead
//               of apply's data.
// Kinds that only write files implement plan() alone.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/host/accounts.hpp"
#include "installer/host/host.hpp"
#include "installer/net/download.hpp"
#include "installer/net/url_query.hpp"
#include "installer/plan/plan.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/process.hpp"
#include "installer/system/progress.hpp"
#include "installer/undo/undo_store.hpp"

namespace wslgpu {

// What a step may use. During plan, FS is an overlay that already holds the
// files earlier steps of the same plan would write, so a plan is exact even
// when one step depends on another.
struct StepContext {
  FileSystem& fs;
  ProcessRunner& runner;
  const HostFacts& host;
  std::string manifest_name;
  std::string state_dir = kStateDir;  // target path of our own state
  // Where apply reports the progress of long programs (apt, dpkg, a
  // download); nullptr during plan and when nobody shows it.
  ProgressSink* progress = nullptr;
  // The transaction's undo store (installer/undo/undo_store.hpp): the .deb
  // files undo installs instead of asking apt's sources. Set by the runner
  // during apply and undo; nullptr during plan and for a transaction that
  // kept none (one made before the store existed).
  UndoStore* undo_store = nullptr;
  // How a plan asks servers about URLs without downloading (a size, an
  // index page: installer/net/url_query.hpp); empty for the real
  // ask_urls() of installer/net/fetch_helper.hpp. Tests answer from a table.
  std::function<std::vector<UrlAnswer>(const std::vector<UrlQuery>&, const QueryOptions&)> ask_urls = nullptr;
  // How python_packages fetches its wheels: fetch_file() of
  // installer/net/fetch_helper.hpp when empty. Tests serve from a table.
  std::function<DownloadResult(const DownloadRequest&)> fetch = nullptr;
  // The id of the step being applied or undone ("" during plan): what names
  // its part of the undo store.
  std::string step_id = "";
  // `plan --offline`: ask no server. A step whose plan needs one (a vendor's
  // key, a repository's package lists, a wheel's size) says what it would
  // do and what it did not ask, and keeps its verdict; such a plan is shown,
  // never installed (install always plans again, with the network).
  bool offline = false;
  // While a transaction is checked for drift or rolled back, its steps are
  // visited latest first, with this one context: a step may note here what
  // it made, for an earlier step of the same transaction to read. A
  // python_packages step notes the distributions it left in a venv this
  // transaction created, with the versions the latest of them left
  // ({"VENV": {"versions": {KEY: VERSION}, "whole": bool}}), so that
  // python_venv tells them from what the user added since, and an earlier
  // python_packages step leaves a later one's changes out of its drift.
  nlohmann::json made_by_later_steps = nlohmann::json::object();
  // The other way, during apply (one context for a run's steps): python_venv
  // notes the venvs it created ({"VENV": {"created": true}}), so that a
  // later python_packages step records that its venv is the run's own.
  nlohmann::json made_by_earlier_steps = nlohmann::json::object();
  // Under this key of made_by_earlier_steps, during plan: the packages an
  // earlier step's plan removes ({NAME: VERSION}), which dpkg's status still
  // lists, so that a later step does not take them as installed.
  static constexpr const char* kPackagesRemovedByEarlierSteps = "packages removed";
  // --allow-partial-undo: a rollback goes on without what undo_blocker()
  // said is gone, and the step's undo leaves that part as it is.
  bool allow_partial_undo = false;
  // Where undo tells the user what they must know (a venv moved aside
  // rather than deleted): printed after the rollback as "note: ...", and
  // the JSON's notices. nullptr when nobody collects them.
  std::vector<std::string>* notices = nullptr;

  // The target's users and groups, read once per plan rather than once per
  // step (a plan of a thousand file steps spent half its time re-reading
  // /etc/passwd). The planner forgets them when a planned write touches
  // /etc/passwd or /etc/group; apply and undo, which change them through
  // programs, read Accounts afresh instead.
  const Accounts& accounts() {
    if (!accounts_cache) accounts_cache = std::make_shared<const Accounts>(fs);
    return *accounts_cache;
  }
  void forget_accounts() { accounts_cache.reset(); }
  std::shared_ptr<const Accounts> accounts_cache = nullptr;
};

class Step {
 public:
  virtual ~Step() = default;

  virtual StepPlan plan(StepContext& ctx) const = 0;

  // What the step is for, in one line naming what it acts on ("would
  // install rocm 7.2.2.*"), "" for none. The planner shows it under a plan
  // that plan() could not make (it threw: no apt in the root, no root), so
  // that a refused step still says what it would have done.
  virtual std::string purpose() const { return ""; }

  virtual nlohmann::json apply(StepContext& /*ctx*/, const StepPlan& /*plan*/) { return nlohmann::json::object(); }

  // UNDO_DATA is what apply() returned or, when apply never finished,
  // {"partial": true, "pre": what snapshot() returned}. Must be idempotent:
  // a rollback killed halfway runs it again.
  virtual void undo(StepContext& /*ctx*/, const nlohmann::json& /*undo_data*/) {}

  // Runs in a rollback once the runner has restored the step's files (after
  // undo), with the same UNDO_DATA: for a service that reads those files only
  // when it starts (dockerd and daemon.json), so that it reads them as they
  // are again. Returns what it did for the user ("restarted docker"), "" for
  // nothing. Must be idempotent, as undo must.
  virtual std::string after_restore(StepContext& /*ctx*/, const nlohmann::json& /*undo_data*/) { return ""; }

  virtual nlohmann::json snapshot(StepContext& /*ctx*/) const { return nlohmann::json::object(); }

  // What undo of apply's UNDO_DATA needs that is gone (a kept venv whose
  // undo store was pruned or deleted), "" for nothing. A rollback asks every
  // step before it undoes anything, and stops with nothing changed (exit 3)
  // on an answer, unless --allow-partial-undo (StepContext::allow_partial_undo).
  virtual std::string undo_blocker(StepContext& /*ctx*/, const nlohmann::json& /*undo_data*/) const { return ""; }

  // What changed since apply left the machine, in state undo would act on
  // (UNDO_DATA is apply's data): one line each ("torch 2.14.1+cu130, now
  // 2.15.0"). A rollback says it, with the files that changed since, before
  // anything is undone, and goes on only with --force. Most kinds have
  // none beyond their files, which the runner checks itself.
  virtual std::vector<std::string> drift(StepContext& /*ctx*/, const nlohmann::json& /*undo_data*/) const { return {}; }
};

}  // namespace wslgpu
