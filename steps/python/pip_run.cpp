#include "steps/python/pip_run.hpp"

#include <algorithm>
#include <memory>

#include "installer/net/fetch_helper.hpp"
#include "installer/system/text.hpp"
#include "steps/commands/command.hpp"
#include "steps/python/python_common.hpp"

namespace wslgpu {

Command pip_command(const UserEntry& user, const std::string& venv, std::vector<std::string> args,
                    std::chrono::seconds timeout) {
  std::vector<std::string> argv = {venv + "/bin/python", "-m", "pip"};
  argv.insert(argv.end(), args.begin(), args.end());
  Command c = as_user(user, argv, timeout);
  // No configuration file steers pip past the plan: --isolated leaves out
  // only the user's file and PIP_* variables, not /etc/pip.conf,
  // /etc/xdg/pip/pip.conf or VENV/pip.conf; os.devnull here loads none
  // (pip's documentation, "Configuration", PIP_CONFIG_FILE).
  c.env["PIP_CONFIG_FILE"] = "/dev/null";
  for (const auto& [name, value] : fetch_environment())
    if (name.find("proxy") != std::string::npos || name.find("PROXY") != std::string::npos) c.env[name] = value;
  return c;
}

void show_pip_progress(StepContext& ctx, Command& c, std::size_t items) {
  if (!ctx.progress) return;
  ProgressSink* sink = ctx.progress;
  auto item = std::make_shared<std::size_t>(0);
  c.on_stdout_line = [sink, item, items](const std::string& line) {
    std::string_view t = text::trim(line);
    if (t.empty()) return;
    ProgressEvent ev;
    ev.phase = t.rfind("Downloading", 0) == 0 ? ProgressEvent::Phase::download : ProgressEvent::Phase::work;
    if (t.rfind("Collecting", 0) == 0 || t.rfind("Processing", 0) == 0) ++*item;
    ev.subject = std::string(t);
    ev.item = std::min(*item, items);
    ev.items = items;
    sink->update(ev);
  };
}

std::string pip_failure(const std::string& venv, const Command& c, const ProcessResult& r) {
  // pip's own words, the hash mismatch's expected and got lines included:
  // the last dozen lines of what it wrote.
  std::string out_text = r.err.find_first_not_of(" \t\r\n") == std::string::npos ? r.out : r.err;
  std::vector<std::string> lines = text::output_lines(out_text);
  if (r.not_found || r.timed_out || lines.empty()) return process_failure_message(c, r);
  std::string out =
      "pip could not install into " + venv + " (`" + c.display() + "` exited " + std::to_string(r.exit_code) + "):";
  constexpr std::size_t keep = 12;
  for (std::size_t i = lines.size() > keep ? lines.size() - keep : 0; i < lines.size(); ++i) out += "\n  " + lines[i];
  if (out_text.find("DO NOT MATCH THE HASHES") != std::string::npos)
    out +=
        "\nThe file at the URL is not the one the manifest pins: nothing was installed. Check the sha256 "
        "against the vendor's, or the URL.";
  return out;
}

}  // namespace wslgpu
