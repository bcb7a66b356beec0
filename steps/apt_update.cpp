#include "steps/apt_update.hpp"

#include <chrono>

#include "installer/system/error.hpp"
#include "steps/apt_common.hpp"

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
    std::int64_t newest_ns = lists_refreshed_ns(ctx.fs, ctx.state_dir);
    const bool any = newest_ns != 0;
    std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
    std::int64_t age_s = (now_ns - newest_ns) / 1000000000;
    p.fingerprint["apt-lists:newest"] = any ? newest_ns : 0;
    // Lists older than a sources file do not describe it, however fresh:
    // a repository added since (by an earlier step, or by a run that was
    // killed before its update) needs a refresh.
    std::string newer_source = source_newer_than_lists(ctx.fs, ctx.state_dir);
    if (any && !newer_source.empty()) {
      p.verdict = Verdict::change;
      p.summary = "refresh package lists (" + newer_source + " is newer than them)";
      p.details.push_back("apt-get update --error-on=any");
      return p;
    }
    if (any && max_age > 0 && age_s < max_age) {
      p.summary = "package lists are " + describe_age(age_s) + " old, fresher than max_age (" + describe_age(max_age) + ")";
      return p;
    }
    p.verdict = Verdict::change;
    p.summary = any ? "refresh package lists (last refresh " + describe_age(age_s) + " ago)"
                    : "refresh package lists (never refreshed)";
    p.details.push_back("apt-get update --error-on=any");
    return p;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan&) override {
    Command cmd;
    cmd.argv = {"apt-get", "update", "--error-on=any"};
    cmd.env = apt_environment();
    cmd.timeout = std::chrono::minutes(30);
    ProcessResult r = ctx.runner.run(cmd);
    if (!r.ok())
      throw StepFailure("could not refresh the package lists: " + command_failure(cmd, r) +
                        "\nCheck the network and the sources named above (`ls /etc/apt/sources.list.d`).");
    // In the tool's own state: apt may have found every list unchanged and
    // moved nothing that says it ran (see lists_refreshed_ns).
    ctx.fs.write_atomic(apt_update_stamp(ctx.state_dir), "", FileAttrs{0644, 0, 0});
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
