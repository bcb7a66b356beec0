#include "steps/apt/apt_update.hpp"

#include <chrono>

#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "steps/apt/apt_common.hpp"
#include "steps/apt/apt_freshness.hpp"

namespace wslgpu {

std::string describe_age(std::int64_t s) {
  auto unit = [](std::int64_t n, const char* name) { return std::to_string(n) + " " + name + (n == 1 ? "" : "s"); };
  if (s >= 2 * 86400) return unit(s / 86400, "day");
  if (s >= 2 * 3600) return unit(s / 3600, "hour");
  if (s >= 120) return unit(s / 60, "minute");
  return unit(s < 0 ? 0 : s, "second");
}

namespace {

class AptUpdateStep : public Step {
 public:
  std::int64_t max_age = 0;

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    // Judged by the tool's record of its own last refresh of exactly these
    // sources (steps/apt_freshness.hpp), never by file times. ctx.fs holds
    // the sources earlier steps of this plan add, so a repository added now
    // needs a refresh, and one that a rollback removed and this run adds
    // again does not.
    ListsFreshness f = lists_freshness(ctx.fs, ctx.state_dir, now_s());
    p.fingerprint["apt-lists"] = f.matches ? nlohmann::json(now_s() - f.age_s) : nlohmann::json(f.why);
    p.activity = "refreshing the package lists";
    // A clock set back by more than a minute since the refresh says nothing
    // about its age.
    if (f.matches && max_age > 0 && f.age_s >= -60 && f.age_s < max_age) {
      p.summary = "package lists are " + describe_age(f.age_s) + " old, fresher than max_age (" + describe_age(max_age) +
                  ")";
      return p;
    }
    p.verdict = Verdict::change;
    p.summary = f.matches ? "refresh package lists (last refresh " + describe_age(f.age_s) + " ago)"
                          : "refresh package lists (" + f.why + ")";
    p.details.push_back("apt-get update --error-on=any");
    return p;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan&) override {
    Command cmd;
    cmd.argv = {"apt-get", "update", "--error-on=any"};
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::minutes(30);
    // apt fetches new lists into partial/ and renames each complete one into
    // place: stopping it leaves the old lists or the new, never a torn one.
    cmd.stop_on_interrupt = true;
    report_apt_progress(cmd, ctx, 0, 0);
    ProcessResult r = ctx.runner.run(cmd);
    if (r.interrupted) throw_interrupted("while refreshing the package lists");
    if (!r.ok())
      throw StepFailure("could not refresh the package lists: " + command_failure(cmd, r) +
                        "\nCheck the network and the sources named above (`ls /etc/apt/sources.list.d`).");
    write_lists_record(ctx.fs, ctx.state_dir, now_s());
    return nlohmann::json::object();
  }
};

}  // namespace

std::shared_ptr<Step> make_apt_update_step(StepKeys& keys) {
  auto s = std::make_shared<AptUpdateStep>();
  s->max_age = keys.integer("max_age", 0, 0, 365LL * 86400);
  return s;
}

}  // namespace wslgpu
