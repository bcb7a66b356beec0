#include "steps/commands/command.hpp"

#include <algorithm>
#include <cctype>

#include "installer/system/text.hpp"

namespace wslgpu {

std::string process_failure_message(const Command& cmd, const ProcessResult& r) {
  std::string shown = "`" + cmd.display() + "`";
  if (r.not_found)
    return shown + " failed: " + (cmd.argv.empty() ? std::string("?") : cmd.argv.front()) +
           " was not found in the root";
  if (r.timed_out)
    return shown + " did not finish within " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(cmd.timeout).count()) + " s and was stopped";
  // The last few lines of standard error (else of standard output) say why.
  std::string text = r.err.find_first_not_of(" \t\r\n") == std::string::npos ? r.out : r.err;
  std::vector<std::string> lines = wslgpu::text::output_lines(text);
  constexpr std::size_t keep = 5;
  std::string out = shown + " exited " + std::to_string(r.exit_code);
  if (lines.empty()) return out + " (it printed nothing)";
  out += ":";
  for (std::size_t i = lines.size() > keep ? lines.size() - keep : 0; i < lines.size(); ++i) out += "\n  " + lines[i];
  return out;
}

namespace {

bool valid_env_name(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

class CommandStep : public Step {
 public:
  std::vector<std::string> argv;
  std::optional<std::string> creates;
  std::optional<std::vector<std::string>> unless;
  std::optional<std::vector<std::string>> undo_argv;
  std::int64_t timeout_s = 600;
  std::map<std::string, std::string> env;

  Command make(const std::vector<std::string>& a) const {
    Command c;
    c.argv = a;
    c.env = env;
    c.timeout = std::chrono::seconds(timeout_s);
    return c;
  }

  // Why the command need not run now, or "".
  std::string satisfied(StepContext& ctx, StepPlan* plan) const {
    if (creates) {
      bool exists = ctx.fs.stat(*creates).has_value();
      if (plan) plan->fingerprint["path:" + *creates] = exists ? "present" : "absent";
      if (exists) return *creates + " exists";
    }
    if (unless) {
      Command c = make(*unless);
      ProcessResult r = ctx.runner.run(c);
      if (plan)
        plan->fingerprint["unless:" + c.display()] = r.not_found   ? std::string("not found")
                                                     : r.timed_out ? std::string("timed out")
                                                                   : "exit " + std::to_string(r.exit_code);
      if (r.ok()) return "`" + c.display() + "` exits 0";
      if (plan) {
        plan->details.push_back(r.not_found ? "`" + c.display() + "`: " + unless->front() + " is not found now"
                                : r.timed_out
                                    ? "`" + c.display() + "` did not finish within " + std::to_string(timeout_s) + " s"
                                    : "`" + c.display() + "` exits " + std::to_string(r.exit_code) + " now");
      }
    }
    return "";
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    Command c = make(argv);
    std::string why = satisfied(ctx, &p);
    if (!why.empty()) {
      p.details.clear();
      p.summary = "skip `" + c.display() + "`: " + why;
      return p;
    }
    p.verdict = Verdict::change;
    p.summary = "run `" + c.display() + "`";
    if (!creates && !unless) {
      p.details.insert(p.details.begin(), "runs on every install: it has no \"creates\" or \"unless\"");
    } else {
      std::string cond;
      if (creates) cond = "until " + *creates + " exists";
      if (unless)
        cond += (cond.empty() ? "" : " and ") + std::string("unless `") + make(*unless).display() + "` exits 0";
      p.details.insert(p.details.begin(), "runs " + cond);
    }
    nlohmann::json change = {{"type", "command"}, {"argv", argv}};
    if (undo_argv) {
      change["undo"] = *undo_argv;
      p.details.push_back("undo: `" + make(*undo_argv).display() + "`");
    } else {
      p.irreversible = true;
      p.details.push_back("cannot be undone: the step has no \"undo\" command");
    }
    p.changes.push_back(change);
    return p;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan&) override {
    if (!satisfied(ctx, nullptr).empty()) return {{"ran", false}};
    Command c = make(argv);
    ProcessResult r = ctx.runner.run(c);
    if (!r.ok()) throw StepFailure(process_failure_message(c, r));
    nlohmann::json data = {{"ran", true}, {"timeout", timeout_s}, {"env", env}};
    if (undo_argv) data["undo"] = *undo_argv;
    return data;
  }

  // Taken just before apply: what undo runs should apply fail or be killed
  // while the command runs (it may have done part of its work).
  nlohmann::json snapshot(StepContext&) const override {
    nlohmann::json pre = {{"timeout", timeout_s}, {"env", env}};
    if (undo_argv) pre["undo"] = *undo_argv;
    return pre;
  }

  void undo(StepContext& ctx, const nlohmann::json& data) override {
    const nlohmann::json* source = &data;
    if (data.value("partial", false)) {
      if (!data.contains("pre")) return;
      source = &data["pre"];
    } else if (!data.value("ran", false)) {
      return;
    }
    if (!source->contains("undo")) return;
    Command c;
    c.argv = (*source)["undo"].get<std::vector<std::string>>();
    c.env = source->value("env", std::map<std::string, std::string>{});
    c.timeout = std::chrono::seconds(source->value("timeout", std::int64_t{600}));
    ProcessResult r = ctx.runner.run(c);
    if (!r.ok()) throw StepFailure(process_failure_message(c, r));
  }
};

// Where the key NAME of the table KEY is, for messages.
SourcePos entry_pos(StepKeys& keys, const std::string& key, const std::string& name) {
  const toml::node* t = keys.node(key);
  if (t && t->is_table())
    for (auto&& [k, v] : *t->as_table())
      if (k.str() == name) return toml_pos(k.source(), keys.pos_of(v).file);
  return keys.pos(key);
}

}  // namespace

std::shared_ptr<Step> make_command_step(StepKeys& keys) {
  auto s = std::make_shared<CommandStep>();
  auto argv = keys.argv("argv");
  if (!argv && !keys.has("argv"))
    keys.error_at(keys.pos("argv"),
                  "step kind \"command\" needs the key \"argv\", an argument list such as "
                  "[\"ldconfig\"]");
  s->argv = argv.value_or(std::vector<std::string>{});
  s->creates = keys.optional_path("creates");
  s->unless = keys.argv("unless");
  s->undo_argv = keys.argv("undo");
  s->timeout_s = keys.integer("timeout", 600, 1, 86400);
  for (auto& [name, value] : keys.string_table("env")) {
    if (!valid_env_name(name))
      keys.error_at(entry_pos(keys, "env", name),
                    "\"" + name +
                        "\" is not a valid environment variable name (letters, digits and '_', "
                        "not starting with a digit)");
    else
      s->env[name] = value;
  }
  return s;
}

}  // namespace wslgpu
