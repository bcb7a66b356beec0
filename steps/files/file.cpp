#include "steps/files/file.hpp"

#include "installer/host/accounts.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu {

namespace {

class FileStep : public Step {
 public:
  std::string path;
  std::string content;
  bool present = true;
  std::uint32_t mode = 0644;
  std::string owner = "root";
  std::string group = "root";

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    FileAttrs attrs{mode, 0, 0};
    if (present) {
      const Accounts& accounts = ctx.accounts();
      auto uid = accounts.uid_of(owner);
      auto gid = accounts.gid_of(group);
      if (!uid || !gid) {
        p.verdict = Verdict::refused;
        p.summary = !uid ? "owner \"" + owner + "\" does not exist in /etc/passwd"
                         : "group \"" + group + "\" does not exist in /etc/group";
        return p;
      }
      attrs.uid = *uid;
      attrs.gid = *gid;
    }
    bool existed = ctx.fs.stat(path).has_value();
    if (!plan_file(ctx.fs, path, present ? std::optional<std::string>(content) : std::nullopt, attrs, p)) {
      p.summary = present ? path + " is as wanted" : path + " is already absent";
      return p;
    }
    p.summary = !present ? "remove " + path : existed ? "update " + path : "create " + path;
    return p;
  }
};

}  // namespace

std::shared_ptr<Step> make_file_step(StepKeys& keys) {
  auto s = std::make_shared<FileStep>();
  s->path = keys.required_path("path");
  s->present = keys.choice("state", {"present", "absent"}, "present") == "present";
  if (s->present) {
    if (!keys.has("content")) keys.error_at(keys.pos("content"), "step kind \"file\" needs the key \"content\" (or state = \"absent\")");
    s->content = keys.string_or("content", "");
  } else if (keys.has("content")) {
    keys.error("content", "\"content\" cannot go with state = \"absent\", which removes the file: drop one of them");
    keys.optional_string("content");
  }
  s->mode = keys.mode("mode").value_or(0644);
  s->owner = keys.string_or("owner", "root");
  s->group = keys.string_or("group", "root");
  return s;
}

}  // namespace wslgpu
