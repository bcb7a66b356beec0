#include "steps/accounts/user_groups.hpp"

#include <algorithm>
#include <cctype>

#include "installer/host/accounts.hpp"
#include "steps/commands/command.hpp"

namespace wslgpu {

namespace {

// A user or group name that the shadow tools accept and that cannot be read
// as an option: letters, digits, '_', '.', '-', not starting with '-', an
// optional trailing '$', at most 32 characters.
bool valid_account_name(const std::string& name) {
  if (name.empty() || name.size() > 32 || name[0] == '-' || name[0] == '.') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '$' && i + 1 == name.size() && i > 0) continue;
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  }
  return true;
}

std::string join_groups(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

void run_or_throw(StepContext& ctx, std::vector<std::string> argv) {
  Command c;
  c.argv = std::move(argv);
  c.timeout = std::chrono::seconds(60);
  ProcessResult r = ctx.runner.run(c);
  if (!r.ok()) throw StepFailure(process_failure_message(c, r));
}

class UserGroupsStep : public Step {
 public:
  std::vector<std::string> groups;
  std::string user;  // "" for the provisioned user
  bool create_missing = true;

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    std::string who = user_name(ctx);
    if (who.empty()) {
      p.verdict = Verdict::refused;
      p.summary = "no user to add to groups: pass --user NAME or set \"user\" in the step";
      return p;
    }
    if (!valid_account_name(who)) {
      p.verdict = Verdict::refused;
      p.summary = "\"" + who + "\" is not a valid user name";
      return p;
    }
    const Accounts& accounts = ctx.accounts();
    auto entry = accounts.user(who);
    p.fingerprint["user:" + who] = entry ? "uid:" + std::to_string(entry->uid) : std::string("absent");
    if (!entry) {
      p.verdict = Verdict::refused;
      p.summary = "user " + who + " does not exist in /etc/passwd; create the user first, or pass --user NAME";
      return p;
    }
    std::vector<std::string> already, to_add, to_create, missing;
    for (const auto& g : groups) {
      auto group = accounts.group(g);
      if (!group) {
        p.fingerprint["group:" + g] = "absent";
        if (create_missing) {
          to_create.push_back(g);
          to_add.push_back(g);
        } else {
          missing.push_back(g);
        }
        continue;
      }
      p.fingerprint["group:" + g] =
          "gid:" + std::to_string(group->gid) + " members:" + join_groups(group->members, ",");
      bool member = group->gid == entry->gid ||
                    std::find(group->members.begin(), group->members.end(), who) != group->members.end();
      (member ? already : to_add).push_back(g);
    }
    if (!missing.empty()) {
      p.verdict = Verdict::refused;
      p.summary = "group" + std::string(missing.size() > 1 ? "s " : " ") + join_groups(missing, ", ") +
                  (missing.size() > 1 ? " do" : " does") + " not exist in /etc/group and create_missing is false";
      return p;
    }
    if (to_add.empty()) {
      p.summary = who + " is already in " + join_groups(already, ", ");
      return p;
    }
    p.verdict = Verdict::change;
    p.summary = "add " + who + " to " + join_groups(to_add, ", ");
    if (!to_create.empty())
      p.summary +=
          " (creating " + join_groups(to_create, ", ") + " as system group" + (to_create.size() > 1 ? "s)" : ")");
    if (!already.empty()) p.details.push_back(who + " is already in " + join_groups(already, ", "));
    for (const auto& g : to_create) {
      p.details.push_back("groupadd --system " + g);
      p.changes.push_back({{"type", "group"}, {"action", "create"}, {"name", g}, {"system", true}});
    }
    p.details.push_back("usermod -aG " + join_groups(to_add, ",") + " " + who);
    for (const auto& g : to_add)
      p.changes.push_back({{"type", "group"}, {"action", "add_member"}, {"name", g}, {"user", who}});
    p.notices.push_back(who + "'s new groups (" + join_groups(to_add, ", ") +
                        ") take effect at the next login: in WSL, run "
                        "`wsl --terminate <distro>` from Windows, or open a new login shell.");
    return p;
  }

  std::string user_name(const StepContext& ctx) const { return user.empty() ? ctx.host.user : user; }

  // Whether each group exists and lists USER as a member, from /etc/group.
  nlohmann::json state(const StepContext& ctx, const std::string& u) const {
    Accounts accounts(ctx.fs);
    nlohmann::json out = nlohmann::json::object();
    for (const auto& g : groups) {
      auto group = accounts.group(g);
      bool member = group && std::find(group->members.begin(), group->members.end(), u) != group->members.end();
      out[g] = {{"exists", group.has_value()}, {"member", member}};
    }
    return out;
  }

  nlohmann::json snapshot(StepContext& ctx) const override {
    std::string u = user_name(ctx);
    return {{"user", u}, {"groups", state(ctx, u)}};
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan& plan) override {
    ctx.forget_accounts();  // the shadow tools change /etc/group under the plan's cached copy
    std::vector<std::string> create, add;
    std::string u;
    for (const auto& c : plan.changes) {
      if (c.value("type", "") != "group") continue;
      if (c.value("action", "") == "create") create.push_back(c.at("name").get<std::string>());
      if (c.value("action", "") == "add_member") {
        add.push_back(c.at("name").get<std::string>());
        u = c.at("user").get<std::string>();
      }
    }
    nlohmann::json data = {{"user", u}, {"created", nlohmann::json::array()}, {"added", nlohmann::json::array()}};
    if (add.empty()) return data;
    // A failure half-way leaves the runner to call undo with the snapshot,
    // which finds out from /etc/group what was done.
    for (const auto& g : create) {
      run_or_throw(ctx, {"groupadd", "--system", g});
      data["created"].push_back(g);
    }
    run_or_throw(ctx, {"usermod", "-aG", join_groups(add, ","), u});
    data["added"] = add;
    return data;
  }

  // Idempotent: each command runs only while /etc/group still shows what it
  // reverses, so a rollback that was itself interrupted can run again.
  void undo(StepContext& ctx, const nlohmann::json& data) override {
    ctx.forget_accounts();
    std::string u;
    std::vector<std::string> added, created;
    if (data.value("partial", false)) {
      // Apply never finished: compare the snapshot with /etc/group now.
      const nlohmann::json& pre = data.contains("pre") ? data["pre"] : nlohmann::json::object();
      u = pre.value("user", "");
      if (u.empty() || !pre.contains("groups")) return;
      Accounts accounts(ctx.fs);
      // In the manifest's order, as apply ran them (JSON objects sort their keys).
      std::vector<std::string> names = groups;
      for (const auto& [g, ignored] : pre["groups"].items())
        if (std::find(names.begin(), names.end(), g) == names.end()) names.push_back(g);
      for (const auto& g : names) {
        if (!pre["groups"].contains(g)) continue;
        const nlohmann::json& before = pre["groups"][g];
        auto group = accounts.group(g);
        bool member = group && std::find(group->members.begin(), group->members.end(), u) != group->members.end();
        if (!before.value("exists", true) && group) created.push_back(g);
        if (!before.value("member", true) && member) added.push_back(g);
      }
    } else {
      u = data.value("user", "");
      if (data.contains("added")) added = data["added"].get<std::vector<std::string>>();
      if (data.contains("created")) created = data["created"].get<std::vector<std::string>>();
    }
    std::vector<std::string> problems;
    auto attempt = [&](std::vector<std::string> argv) {
      try {
        run_or_throw(ctx, std::move(argv));
      } catch (const StepFailure& e) {
        problems.push_back(e.what());
      }
    };
    for (const auto& g : added) {
      auto group = Accounts(ctx.fs).group(g);
      if (group && std::find(group->members.begin(), group->members.end(), u) != group->members.end())
        attempt({"gpasswd", "-d", u, g});
    }
    for (auto it = created.rbegin(); it != created.rend(); ++it)
      if (Accounts(ctx.fs).group(*it)) attempt({"groupdel", *it});
    if (!problems.empty()) throw StepFailure(join_groups(problems, "\n"));
  }
};

}  // namespace

std::shared_ptr<Step> make_user_groups_step(StepKeys& keys) {
  auto s = std::make_shared<UserGroupsStep>();
  for (auto& g : keys.required_string_list("groups")) {
    if (!valid_account_name(g)) {
      keys.error("groups", "\"" + g +
                               "\" is not a valid group name (letters, digits, '_', '.' and '-', "
                               "not starting with '-' or '.', at most 32 characters)");
    } else if (std::find(s->groups.begin(), s->groups.end(), g) == s->groups.end()) {
      s->groups.push_back(g);
    }
  }
  s->user = keys.string_or("user", "");
  if (!s->user.empty() && !valid_account_name(s->user))
    keys.error("user", "\"" + s->user + "\" is not a valid user name");
  s->create_missing = keys.boolean("create_missing", true);
  return s;
}

}  // namespace wslgpu
