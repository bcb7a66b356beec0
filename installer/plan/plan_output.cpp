#include "installer/plan/plan_output.hpp"

#include <algorithm>

#include "installer/system/units.hpp"

namespace wslgpu {

std::string paint(const TextStyle& style, const char* code, const std::string& text) {
  if (!style.color) return text;
  return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
}

namespace {

const char* verdict_color(Verdict v) {
  switch (v) {
    case Verdict::change: return "33";
    case Verdict::refused: return "1;31";
    case Verdict::verify: return "36";
    case Verdict::noop: return "32";
    case Verdict::skipped: return "2";
  }
  return "0";
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

std::string machine_line(const HostFacts& h) {
  std::string out = "Machine: ";
  if (h.wsl == "2") out += "WSL2";
  else if (h.wsl == "1") out += "WSL1";
  else out += "not WSL";
  out += " kernel " + (h.kernel_release.empty() ? std::string("unknown") : h.kernel_release);
  out += std::string(" · /dev/dxg ") + (h.dxg ? "ok" : "missing");
  if (!h.distro.empty()) {
    out += " · " + h.distro + (h.distro_version.empty() ? "" : " " + h.distro_version);
    if (!h.codename.empty()) out += " (" + h.codename + ")";
  }
  if (!h.gpu_vendor.empty()) out += " · GPU driver " + h.gpu_vendor;
  // The Windows driver as nvidia-smi reported it, when a manifest asked.
  if (const NvidiaDriverFacts* n = h.nvidia_driver ? h.nvidia_driver->if_probed() : nullptr)
    out += " · nvidia-smi: " + n->said;
  // The GPUs Windows listed, when a manifest asked.
  if (const WindowsGpuFacts* w = h.windows_gpus ? h.windows_gpus->if_probed() : nullptr)
    out += " · Windows GPU: " + w->said;
  out += " · Windows home " + (h.windows_home.empty() ? std::string("not found") : h.windows_home);
  return out;
}

// "rocm 7.2.2 and 6 more"
std::string first_and_more(const std::vector<UndoKeep>& keeps) {
  if (keeps.empty()) return "";
  std::string out = keeps.front().name + " " + keeps.front().version;
  if (keeps.size() > 1) out += " and " + std::to_string(keeps.size() - 1) + " more";
  return out;
}

}  // namespace

std::string undo_store_text(const Plan& plan) {
  std::vector<UndoKeep> kept, gaps = plan.undo_gaps();
  for (const auto& k : plan.undo_keeps())
    if (!k.from.empty()) kept.push_back(k);
  std::string out;
  if (!kept.empty()) {
    std::size_t rebuilt = 0;
    for (const auto& k : kept) rebuilt += k.from == "rebuilt";
    out += "Keeps " + human_size(plan.undo_store_bytes()) + " for undo (" + first_and_more(kept) +
           "), before the first change, so that a rollback needs no network";
    if (rebuilt) out += "; " + std::to_string(rebuilt) + " rebuilt from the installed files (no source or cache holds them)";
    out += ".\n";
  }
  if (!gaps.empty()) {
    out += "Undo could not put back " + first_and_more(gaps) + ": no copy can be kept";
    out += gaps.size() == 1 ? " (" + gaps.front().why + ").\n" : ":\n";
    if (gaps.size() > 1)
      for (const auto& g : gaps) out += "  " + g.name + " " + g.version + ": " + g.why + "\n";
    out += "Install refuses this unless --allow-partial-undo is given; a rollback would then leave " +
           std::string(gaps.size() == 1 ? "that package" : "those packages") + " as the install leaves them.\n";
  }
  return out;
}

nlohmann::json undo_store_json(const Plan& plan) {
  nlohmann::json keeps = nlohmann::json::array(), missing = nlohmann::json::array();
  for (const auto& k : plan.undo_keeps()) {
    if (k.from.empty())
      missing.push_back({{"name", k.name}, {"version", k.version}, {"architecture", k.architecture}, {"why", k.why}});
    else
      keeps.push_back({{"name", k.name}, {"version", k.version}, {"architecture", k.architecture}, {"from", k.from},
                       {"bytes", k.bytes}});
  }
  return {{"bytes", plan.undo_store_bytes()}, {"keeps", keeps}, {"missing", missing}};
}

namespace {

// What today's defaults change against the transaction that provisioned
// the machine: each variable, where its new value is written, and once per
// [matrix] row the source that row cites.
std::string since_text(const Plan& plan) {
  if (!plan.since || plan.since->changes.empty()) return "";
  const DefaultsChanged& d = *plan.since;
  std::string out = "Since transaction " + d.transaction + " (" +
                    (d.tool_version.empty() ? std::string("an earlier wslgpu-setup") : "wslgpu-setup " + d.tool_version) +
                    ", " + d.time + ") provisioned this machine with this profile, its defaults changed:\n";
  std::size_t width = 0;
  for (const auto& c : d.changes) width = std::max(width, c.variable.size());
  std::vector<std::string> rows;
  for (const auto& c : d.changes) {
    out += "  " + pad(c.variable, width + 1) + " " + (c.from.empty() ? std::string("(empty)") : c.from) + " -> " + (c.to.empty() ? std::string("(empty)") : c.to) +
           "  (" + (c.in_row ? c.row + " at " + c.where
                             : "the default at " + c.where + (c.row.empty() ? "" : ", its row " + c.row)) +
           ")\n";
    if (!c.row.empty() && !c.source.empty() && std::find(rows.begin(), rows.end(), c.row) == rows.end()) {
      rows.push_back(c.row);
      out += "      " + c.row + ": " + c.source + "\n";
    }
  }
  out += plan.changes_pending()
             ? "  The steps below make these changes only when install runs; --set NAME=VALUE keeps a value as it was.\n"
             : "  No step changes the machine for them: what is installed already matches.\n";
  return out;
}

nlohmann::json since_json(const Plan& plan) {
  if (!plan.since) return nullptr;
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : plan.since->changes)
    changes.push_back({{"variable", c.variable}, {"from", c.from}, {"to", c.to}, {"where", c.where}, {"row", c.row},
                       {"in_row", c.in_row}, {"source", c.source}});
  return {{"transaction", plan.since->transaction}, {"time", plan.since->time},
          {"tool_version", plan.since->tool_version}, {"changes", changes}};
}

}  // namespace

std::string render_plan_text(const Plan& plan, const TextStyle& style, const std::string& apply_command) {
  std::string out;
  out += "wslgpu-setup " WSLGPU_VERSION " · profile " + plan.manifest_name;
  if (!plan.manifest_description.empty()) out += " (" + plan.manifest_description + ")";
  out += " · root " + plan.host.root + " · user " + (plan.host.user.empty() ? std::string("none found") : plan.host.user);
  out += "\n" + machine_line(plan.host) + "\n";
  if (!plan.vars.empty()) {
    // The values in use, so that a mirror or version set with --set shows.
    std::string vars = "Variables: ";
    bool first = true;
    for (const auto& [k, v] : plan.vars) {
      vars += (first ? "" : " · ") + k + "=" + (v.empty() ? std::string("(empty)") : v);
      first = false;
    }
    out += vars + "\n";
  }
  // What a [matrix] auto chose, and why: the row behind a version the
  // user did not name is worth a line of its own.
  for (const auto& c : plan.choices) {
    if (c.how == "default" || c.how == "set") continue;  // the Variables line shows them
    out += "Chose " + c.variable + "=" + c.value + " (" + c.how + ")" + (c.why.empty() ? "" : ": " + c.why) + "\n";
  }
  out += since_text(plan);
  if (plan.offline)
    out += "Offline (--offline): no server was asked. The steps marked \"not asked\" say what a plan with the "
           "network would also check.\n";
  out += "\n";
  for (const auto& r : plan.refusals) {
    out += paint(style, "1;31", r.substr(0, r.find('\n'))) + (r.find('\n') == std::string::npos ? "" : r.substr(r.find('\n'))) + "\n";
  }
  if (!plan.refusals.empty()) out += "\n";
  for (const auto& w : plan.warnings) out += paint(style, "33", "warning: ") + w + "\n";
  if (!plan.warnings.empty()) out += "\n";

  std::size_t kind_w = 4, id_w = 2;
  for (const auto& s : plan.steps) {
    kind_w = std::max(kind_w, s.kind.size());
    id_w = std::max(id_w, s.id.size());
  }
  std::size_t num_w = std::to_string(plan.steps.size()).size();
  std::size_t indent = 2 + num_w + 2 + kind_w + 2 + id_w + 2 + 9;
  for (const auto& s : plan.steps) {
    std::string num = std::to_string(s.index);
    out += "  " + std::string(num_w - num.size(), ' ') + num + "  " + pad(s.kind, kind_w + 1) + " " + pad(s.id, id_w + 1) +
           " " + paint(style, verdict_color(s.plan.verdict), pad(verdict_name(s.plan.verdict), 8)) + " " + s.plan.summary +
           (s.plan.irreversible ? " (cannot be undone)" : "") + "\n";
    if (s.plan.verdict == Verdict::skipped) continue;
    const std::size_t limit = style.verbose ? s.plan.details.size() : 40;
    std::size_t shown = 0;
    for (const auto& line : s.plan.details) {
      if (shown == limit) {
        out += std::string(indent, ' ') + "… " + std::to_string(s.plan.details.size() - shown) +
               " more lines (-v shows all)\n";
        break;
      }
      const char* color = nullptr;
      if (line.rfind("+", 0) == 0 && line.rfind("+++", 0) != 0) color = "32";
      if (line.rfind("-", 0) == 0 && line.rfind("---", 0) != 0) color = "31";
      out += std::string(indent, ' ') + (color ? paint(style, color, line) : line) + "\n";
      ++shown;
    }
  }

  std::size_t changes = plan.count(Verdict::change), done = plan.count(Verdict::noop),
              checks = plan.count(Verdict::verify), refused = plan.count(Verdict::refused),
              skipped = plan.count(Verdict::skipped);
  out += "\nPlan: " + std::to_string(changes) + (changes == 1 ? " change, " : " changes, ") + std::to_string(done) +
         " already done, " + std::to_string(checks) + (checks == 1 ? " check" : " checks");
  if (skipped) out += ", " + std::to_string(skipped) + " skipped";
  if (refused) out += ", " + paint(style, "1;31", std::to_string(refused) + " refused");
  if (std::size_t not_asked = plan.count_not_asked()) out += ", " + std::to_string(not_asked) + " not asked offline";
  if (!plan.refusals.empty()) out += ", " + paint(style, "1;31", "the machine itself refused");
  out += apply_command.empty() ? ".\n" : ". Nothing has been changed.\n";
  if (plan.download_bytes() > 0 || plan.disk_bytes() != 0) {
    const std::int64_t disk = plan.disk_bytes();
    out += "apt would download " + human_size(plan.download_bytes()) + " and " +
           (disk >= 0 ? "use " + human_size(static_cast<std::uint64_t>(disk)) + " more"
                      : "free " + human_size(static_cast<std::uint64_t>(-disk))) +
           " of disk space.\n";
  }
  out += undo_store_text(plan);
  if (plan.refused()) {
    out += "Install would stop before changing anything: fix what is refused above first.\n";
  } else if (plan.offline && changes) {
    // An offline plan is never applied as it is: install asks what it did not.
    if (!apply_command.empty())
      out += "Run `" + apply_command + "` on the machine, with the network, to apply it: install plans again, "
             "asks what this plan did not, and shows the whole plan before it changes anything.\n";
  } else if (changes) {
    if (!apply_command.empty()) out += "Run `" + apply_command + "` to apply it.\n";
  } else {
    out += "The machine already matches this profile.\n";
  }
  return out;
}

nlohmann::json plan_to_json(const Plan& plan) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : plan.steps) {
    steps.push_back({{"index", s.index},
                     {"id", s.id},
                     {"kind", s.kind},
                     {"name", s.name},
                     {"action", verdict_name(s.plan.verdict)},
                     {"summary", s.plan.summary},
                     {"details", s.plan.details},
                     {"changes", s.plan.changes},
                     {"irreversible", s.plan.irreversible}});
    if (!s.plan.not_asked.empty()) steps.back()["not_asked"] = s.plan.not_asked;
    if (s.plan.download_bytes || s.plan.disk_bytes) {
      steps.back()["download_bytes"] = s.plan.download_bytes;
      steps.back()["disk_bytes"] = s.plan.disk_bytes;
    }
  }
  const HostFacts& h = plan.host;
  nlohmann::json choices = nlohmann::json::array();
  for (const auto& c : plan.choices)
    choices.push_back({{"variable", c.variable}, {"value", c.value}, {"how", c.how}, {"why", c.why}});
  nlohmann::json host = {{"kernel", h.kernel_release}, {"wsl", h.wsl}, {"dxg", h.dxg}, {"wsl_lib", h.wsl_lib},
                         {"gpu_vendor", h.gpu_vendor}, {"distro", h.distro}, {"distro_version", h.distro_version},
                         {"codename", h.codename}, {"arch", h.arch}, {"user", h.user}, {"user_source", h.user_source},
                         {"windows_home", h.windows_home}};
  if (const NvidiaDriverFacts* n = h.nvidia_driver ? h.nvidia_driver->if_probed() : nullptr)
    host["nvidia_smi"] = {{"driver", n->driver}, {"cuda", n->cuda}, {"said", n->said}};
  if (const WindowsGpuFacts* w = h.windows_gpus ? h.windows_gpus->if_probed() : nullptr)
    host["windows_gpus"] = {{"amd_gpu", w->amd_gpu},
                            {"amd_gfx", w->amd_gfx},
                            {"amd_windows_driver", w->amd_windows_driver},
                            {"amd_igpu", w->amd_igpu},
                            {"said", w->said}};
  return {{"format_version", kPlanFormatVersion},
          {"tool_version", WSLGPU_VERSION},
          {"manifest", {{"name", plan.manifest_name}, {"description", plan.manifest_description}, {"source", plan.source}}},
          {"root", h.root},
          {"offline", plan.offline},
          {"host", host},
          {"vars", plan.vars},
          {"choices", choices},
          {"since", since_json(plan)},
          {"changes_pending", plan.changes_pending()},
          {"space", {{"download_bytes", plan.download_bytes()}, {"disk_bytes", plan.disk_bytes()}}},
          {"undo_store", undo_store_json(plan)},
          {"refusals", plan.refusals},
          {"warnings", plan.warnings},
          {"counts",
           {{"change", plan.count(Verdict::change)}, {"no-op", plan.count(Verdict::noop)},
            {"verify", plan.count(Verdict::verify)}, {"refused", plan.count(Verdict::refused)},
            {"skipped", plan.count(Verdict::skipped)}, {"not_asked", plan.count_not_asked()}}},
          {"steps", steps}};
}

}  // namespace wslgpu
