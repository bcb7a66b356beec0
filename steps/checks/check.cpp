#include "steps/checks/check.hpp"

#include <algorithm>
#include <regex>

#include "installer/system/text.hpp"
#include "steps/files/file_change.hpp"
#include "steps/windows/windows_interop.hpp"

namespace wslgpu {

namespace {

const char* type_name(FileType t) {
  switch (t) {
    case FileType::regular: return "file";
    case FileType::directory: return "directory";
    case FileType::char_device: return "char_device";
    case FileType::block_device: return "block_device";
    case FileType::symlink: return "symlink";
    case FileType::fifo: return "fifo";
    case FileType::socket: return "socket";
    default: return "other";
  }
}

// A number of more than 9 digits where std::regex reads one as a count: a
// back-reference's (\12) or a repeat count's ({2,5}). libstdc++ 12's
// (Debian 12's) reads those digits into a long without an overflow check
// (std::__detail::_Compiler::_M_cur_int_value, bits/regex_compiler.tcc),
// so 19 digits or more can overflow it: undefined behaviour, reachable from
// a manifest's output_matches (found by fuzz_manifest; docs/testing.md). No
// pattern needs a count of a billion, so such a number is refused before
// the pattern reaches std::regex. Returns it, or "" when there is none.
std::string overlong_regex_count(const std::string& pattern) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  bool in_braces = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    std::size_t start = i;
    if (pattern[i] == '\\') {
      start = ++i;  // what follows a backslash is escaped: digits there are a back-reference
    } else if (pattern[i] == '{' || pattern[i] == '}') {
      in_braces = pattern[i] == '{';
      continue;
    } else if (!in_braces) {
      continue;
    }
    std::size_t end = start;
    while (end < pattern.size() && digit(pattern[end])) ++end;
    if (end - start > 9) return pattern.substr(start, end - start);
    if (end > start) i = end - 1;
  }
  return "";
}

class CheckStep : public Step {
 public:
  enum class Subject { path, kernel, command, windows } subject = Subject::path;
  std::string path;
  std::string type = "any";
  std::optional<std::uint32_t> mode;
  std::optional<std::string> contains_line;
  std::string kernel_min;
  std::int64_t windows_build_min = 0;
  std::vector<std::string> command;
  std::string output_pattern;
  std::optional<std::regex> output_regex;
  std::int64_t timeout_s = 30;
  // A command check that runs only when this program succeeds (a smoke test
  // that needs an image already on the machine); OTHERWISE says what to do
  // by hand instead, in the plan and when it did not run.
  std::optional<std::vector<std::string>> only_if;
  std::string otherwise;
  bool abort_on_fail = true;
  std::string advice;
  std::string name;  // the step's name ("ONNX Runtime runs a session on CUDAExecutionProvider"), if it has one

  std::string describe() const {
    switch (subject) {
      case Subject::path: {
        std::string d = path + (type == "any" ? " exists" : " is a " + type);
        if (mode) d += " with mode " + mode_string(*mode);
        if (contains_line) d += " and holds the line \"" + *contains_line + "\"";
        return d;
      }
      case Subject::kernel: return "kernel release is at least " + kernel_min;
      case Subject::windows: return "Windows build is at least " + std::to_string(windows_build_min);
      case Subject::command: {
        Command c;
        c.argv = command;
        return "`" + c.display() + "` succeeds" + (output_pattern.empty() ? "" : " and prints /" + output_pattern + "/");
      }
    }
    return "";
  }

  // The command as a failure names it. A smoke test in a venv's Python is
  // a whole program on one line (1 kB): the plan shows it in full, and a
  // failure names the check by its step name and the command's start, so
  // that the warning (said twice: at the step, and again at the end) stays
  // readable. Short commands are quoted whole, as before.
  std::string failed_command(const std::string& display) const {
    constexpr std::size_t kLongest = 160;
    if (display.size() <= kLongest || name.empty()) return "`" + display + "`";
    return name + " (`" + display.substr(0, 60) + " …`)";
  }

  // What a failed command said, for its one-line failure: its first line;
  // for a Python traceback the exception on its last line, with the first
  // line too when that is the library's own message (ONNX Runtime's "Failed
  // to load library … libcudnn.so.9" comes before the AssertionError it
  // causes), so that both the symptom and its cause are in the warning.
  static std::string what_it_said(const std::string& text) {
    std::vector<std::string_view> lines;
    for (std::string_view line : text::split_lines(text, text::LineEnd::dropped))
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) lines.push_back(line);
    if (lines.empty()) return "";
    auto cut = [](std::string_view line) {
      constexpr std::size_t kWidest = 400;
      return line.size() <= kWidest ? std::string(line) : std::string(line.substr(0, kWidest)) + " …";
    };
    const bool traceback = std::find(lines.begin(), lines.end(), "Traceback (most recent call last):") != lines.end();
    if (!traceback || lines.size() == 1) return ": " + cut(lines.front());
    std::string said = ": " + cut(lines.back());
    if (lines.front() != "Traceback (most recent call last):") said += " (it said first: " + cut(lines.front()) + ")";
    return said;
  }

  // Empty when the assertion holds, else what was seen instead.
  std::string evaluate(StepContext& ctx) const {
    switch (subject) {
      case Subject::path: {
        if (type == "symlink") {
          // The one type stat cannot see: it follows the link to its file.
          auto own = ctx.fs.lstat(path);
          if (!own) return path + " does not exist";
          if (own->type != FileType::symlink)
            return path + " is a " + std::string(type_name(own->type)) + ", not a symlink";
          if (!mode && !contains_line) return "";  // a dangling link is a link too
        }
        auto info = ctx.fs.stat(path);
        if (!info) return path + (type == "symlink" ? " is a symlink to nothing that exists" : " does not exist");
        if (type != "any" && type != "symlink" && type != type_name(info->type))
          return path + " is a " + std::string(type_name(info->type)) + ", not a " + type;
        if (mode && info->mode != *mode) return path + " has mode " + mode_string(info->mode) + ", not " + mode_string(*mode);
        if (contains_line) {
          if (info->type != FileType::regular) return path + " is not a regular file";
          const std::string content = ctx.fs.read(path);
          for (std::string_view line : text::split_lines(content, text::LineEnd::dropped))
            if (line == *contains_line) return "";
          return path + " has no line \"" + *contains_line + "\"";
        }
        return "";
      }
      case Subject::kernel: {
        if (ctx.host.kernel_release.empty()) return "the kernel release is unknown (no /proc/sys/kernel/osrelease)";
        if (compare_versions(ctx.host.kernel_release, kernel_min) < 0)
          return "the kernel is " + ctx.host.kernel_release + ", older than " + kernel_min;
        return "";
      }
      case Subject::windows: return "";  // windows_problem(): it needs interop, and tells unknown apart
      case Subject::command: {
        Command c;
        c.argv = command;
        c.timeout = std::chrono::seconds(timeout_s);
        ProcessResult r = ctx.runner.run(c);
        if (r.not_found) return command.front() + " was not found";
        if (r.timed_out) return "`" + c.display() + "` did not finish within " + std::to_string(timeout_s) + " s";
        if (r.exit_code != 0)
          return failed_command(c.display()) + " exited " + std::to_string(r.exit_code) +
                 what_it_said(r.err.empty() ? r.out : r.err);
        if (output_regex && !std::regex_search(r.out, *output_regex))
          return failed_command(c.display()) + " printed nothing matching /" + output_pattern + "/";
        return "";
      }
    }
    return "";
  }

  // The Windows build, asked through interop: known too old, refused; not
  // known (no interop), a warning, since the check cannot tell.
  std::string windows_problem(StepContext& ctx, std::string& unknown) const {
    int build = windows_build(ctx, unknown);
    if (!build) return "";
    if (build < windows_build_min)
      return "Windows build " + std::to_string(build) + " is older than " + std::to_string(windows_build_min);
    return "";
  }

  StepPlan plan(StepContext& ctx) const override {
    StepPlan p;
    p.verdict = Verdict::verify;
    p.summary = describe();
    if (subject == Subject::windows) {
      std::string unknown;
      std::string problem = windows_problem(ctx, unknown);
      if (!problem.empty() && abort_on_fail) {
        p.verdict = Verdict::refused;
        p.summary = problem + (advice.empty() ? "" : ". " + advice);
      } else if (!problem.empty()) {
        p.details.push_back("would fail: " + problem);
      } else if (!unknown.empty()) {
        p.details.push_back("warning: the Windows build is unknown (" + unknown + "); " +
                            (advice.empty() ? "check it with `winver` on Windows" : advice));
      } else {
        p.details.push_back("holds");
      }
      return p;
    }
    if (subject == Subject::command) {
      p.details.push_back("runs during install, after the steps before it");
      if (only_if) {
        Command c;
        c.argv = *only_if;
        p.details.push_back("only when `" + c.display() + "` succeeds then" +
                            (otherwise.empty() ? std::string() : "; otherwise: " + otherwise));
      }
    } else {
      std::string problem = evaluate(ctx);
      // The plan's file view already holds what earlier steps would write.
      p.details.push_back(problem.empty() ? "holds (with the changes above)" : "would fail: " + problem);
      p.fingerprint["check:" + p.summary] = problem.empty() ? "holds" : problem;
    }
    if (!abort_on_fail) p.details.push_back("on failure: warn and go on");
    return p;
  }

  nlohmann::json apply(StepContext& ctx, const StepPlan&) override {
    if (subject == Subject::windows) {
      std::string unknown;
      std::string problem = windows_problem(ctx, unknown);
      if (problem.empty() && !unknown.empty())
        return {{"warning", "the Windows build is unknown (" + unknown + ")" + (advice.empty() ? "" : "\n" + advice)}};
      if (problem.empty()) return nlohmann::json::object();
      std::string message = "check failed: " + problem + (advice.empty() ? "" : "\n" + advice);
      if (abort_on_fail) throw StepFailure(message);
      return {{"warning", message}};
    }
    if (only_if) {
      Command c;
      c.argv = *only_if;
      c.timeout = std::chrono::seconds(timeout_s);
      ProcessResult r = ctx.runner.run(c);
      if (r.not_found || r.timed_out || r.exit_code != 0)
        return {{"warning", "not run: `" + c.display() + "` " +
                                (r.not_found ? "was not found" : r.timed_out ? "did not finish" : "failed") +
                                (otherwise.empty() ? std::string() : ". " + otherwise)}};
    }
    std::string problem = evaluate(ctx);
    if (problem.empty()) return nlohmann::json::object();
    std::string message = "check failed: " + problem + (advice.empty() ? "" : "\n" + advice);
    if (abort_on_fail) throw StepFailure(message);
    return {{"warning", message}};
  }
};

}  // namespace

std::shared_ptr<Step> make_check_step(StepKeys& keys) {
  auto s = std::make_shared<CheckStep>();
  std::vector<std::string> subjects;
  for (const char* key : {"path", "kernel_min", "command", "windows_build_min"})
    if (keys.has(key)) subjects.emplace_back(key);
  if (subjects.empty()) {
    keys.error_at(keys.pos("kind"), "a check needs one subject: \"path\", \"kernel_min\", \"command\" or \"windows_build_min\"");
  }
  for (std::size_t i = 1; i < subjects.size(); ++i) {
    // Only the first subject is read; the others are reported here, not as unknown keys.
    keys.mark_common(subjects[i]);
    keys.error(subjects[i], "a check has one subject, and this one already has \"" + subjects[0] + "\": put \"" +
                                subjects[i] + "\" in a check step of its own");
  }
  if (keys.has("path")) {
    s->subject = CheckStep::Subject::path;
    s->path = keys.required_path("path");
    s->type = keys.choice("type", {"any", "file", "directory", "char_device", "block_device", "symlink"}, "any");
    s->mode = keys.mode("mode");
    s->contains_line = keys.optional_string("contains_line");
  } else if (keys.has("kernel_min")) {
    s->subject = CheckStep::Subject::kernel;
    s->kernel_min = keys.required_string("kernel_min");
    if (s->kernel_min.empty() || !std::isdigit(static_cast<unsigned char>(s->kernel_min[0])))
      keys.error("kernel_min", "\"kernel_min\" must be a version such as \"5.10.60.1\", not \"" + s->kernel_min + "\"");
  } else if (keys.has("windows_build_min")) {
    s->subject = CheckStep::Subject::windows;
    s->windows_build_min = keys.integer("windows_build_min", 0, 1, 999999);
  } else if (keys.has("command")) {
    s->subject = CheckStep::Subject::command;
    s->command = keys.argv("command").value_or(std::vector<std::string>{});
    s->output_pattern = keys.string_or("output_matches", "");
    if (std::string count = overlong_regex_count(s->output_pattern); !count.empty()) {
      keys.error("output_matches", "\"output_matches\" is not a valid regular expression: " + count +
                                       " is too large a back-reference or repeat count (more than 9 digits)");
    } else if (!s->output_pattern.empty()) {
      try {
        s->output_regex.emplace(s->output_pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        keys.error("output_matches", "\"output_matches\" is not a valid regular expression: " + std::string(e.what()));
      }
    }
    s->timeout_s = keys.integer("timeout", 30, 1, 3600);
    s->only_if = keys.argv("only_if");
    s->otherwise = keys.string_or("otherwise", "");
    if (!s->only_if && keys.has("otherwise"))
      keys.error("otherwise", "\"otherwise\" says what to do when \"only_if\" fails: give \"only_if\" too");
  }
  s->abort_on_fail = keys.choice("on_fail", {"abort", "warn"}, "abort") == "abort";
  s->advice = keys.string_or("advice", "");
  s->name = keys.string_or("name", "");
  return s;
}

}  // namespace wslgpu
