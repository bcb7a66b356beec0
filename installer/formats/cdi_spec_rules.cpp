// What the CDI specification asks of a spec beyond its YAML, and where
// specs live: the host paths a spec names, the versions and the smallest one
// a spec's fields need, the kind and device-name rules, the spec folders and
// the scan of them. The reader and writer are cdi_spec.cpp.
// The rules are SPEC.md's (cdi_spec.hpp says which repository).
#include <algorithm>
#include <set>

#include "installer/formats/cdi_spec.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

std::vector<std::string> cdi_host_paths(const CdiSpec& spec) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& p) {
    if (!p.empty() && seen.insert(p).second) out.push_back(p);
  };
  auto from = [&](const CdiContainerEdits& e) {
    for (const auto& d : e.device_nodes) add(d.host_path);
    for (const auto& m : e.mounts) add(m.host_path);
    for (const auto& h : e.hooks) add(h.path);
  };
  from(spec.edits);
  for (const auto& d : spec.devices) from(d.edits);
  return out;
}

const std::vector<std::string>& cdi_known_versions() {
  static const std::vector<std::string> versions = {"0.3.0", "0.4.0", "0.5.0", "0.6.0",
                                                    "0.7.0", "0.8.0", "1.0.0", "1.1.0"};
  return versions;
}

std::string cdi_minimum_version(const nlohmann::json& spec) {
  int need = 0;  // index in cdi_known_versions()
  auto at_least = [&](const std::string& v) {
    const auto& all = cdi_known_versions();
    int i = static_cast<int>(std::find(all.begin(), all.end(), v) - all.begin());
    need = std::max(need, i);
  };
  if (!spec.is_object()) return cdi_known_versions().front();
  std::vector<const nlohmann::json*> edits;
  if (spec.contains("containerEdits")) edits.push_back(&spec["containerEdits"]);
  if (spec.contains("annotations") && spec["annotations"].is_object() && !spec["annotations"].empty())
    at_least("0.6.0");
  if (spec.contains("kind") && spec["kind"].is_string()) {
    std::string kind = spec["kind"].get<std::string>();
    auto slash = kind.find('/');
    if (slash != std::string::npos && kind.find('.', slash) != std::string::npos) at_least("0.6.0");
  }
  if (spec.contains("devices") && spec["devices"].is_array())
    for (const auto& d : spec["devices"]) {
      if (!d.is_object()) continue;
      if (d.contains("name") && d["name"].is_string()) {
        std::string name = d["name"].get<std::string>();
        if (!name.empty() && text::is_digit(name[0])) at_least("0.5.0");
      }
      if (d.contains("annotations") && d["annotations"].is_object() && !d["annotations"].empty()) at_least("0.6.0");
      if (d.contains("containerEdits")) edits.push_back(&d["containerEdits"]);
    }
  for (const nlohmann::json* e : edits) {
    if (!e->is_object()) continue;
    auto list = [&](const char* key) -> const nlohmann::json& {
      static const nlohmann::json empty = nlohmann::json::array();
      return e->contains(key) && (*e)[key].is_array() ? (*e)[key] : empty;
    };
    for (const auto& m : list("mounts"))
      if (m.is_object() && m.contains("type") && m["type"] != "") at_least("0.4.0");
    for (const auto& n : list("deviceNodes"))
      if (n.is_object() && n.contains("hostPath") && n["hostPath"] != "") at_least("0.5.0");
    if (e->contains("intelRdt")) {
      at_least("0.7.0");
      const auto& rdt = (*e)["intelRdt"];
      // Compared, not value(..., false): that throws when it is not a boolean.
      if (rdt.is_object() &&
          (rdt.contains("schemata") || (rdt.contains("enableMonitoring") && rdt["enableMonitoring"] == true)))
        at_least("1.1.0");
    }
    if (!list("additionalGids").empty()) at_least("0.7.0");
    if (!list("netDevices").empty()) at_least("1.1.0");
  }
  return cdi_known_versions()[static_cast<std::size_t>(need)];
}

namespace {

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool alnum(char c) { return letter(c) || text::is_digit(c); }

// Vendor and class: a letter first, a letter or digit last, and letters,
// digits, '-', '_' and '.' between (CDI's pkg/parser).
std::string segment_problem(const std::string& s, const std::string& what) {
  if (s.empty()) return "its " + what + " is empty";
  if (!letter(s.front())) return "its " + what + " \"" + s + "\" does not start with a letter";
  if (!alnum(s.back())) return "its " + what + " \"" + s + "\" does not end with a letter or digit";
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '_' && c != '.')
      return "its " + what + " \"" + s + "\" has '" + std::string(1, c) + "' (only letters, digits, '-', '_' and '.')";
  return "";
}

}  // namespace

std::string cdi_kind_problem(const std::string& kind) {
  auto slash = kind.find('/');
  if (slash == std::string::npos || kind.find('/', slash + 1) != std::string::npos)
    return "the kind \"" + kind + "\" is not VENDOR/CLASS with one '/' (for example \"amd.com/gpu\")";
  std::string why = segment_problem(kind.substr(0, slash), "vendor");
  if (why.empty()) why = segment_problem(kind.substr(slash + 1), "class");
  return why.empty() ? "" : "the kind \"" + kind + "\" is not valid: " + why;
}

std::string cdi_device_name_problem(const std::string& name) {
  if (name.empty()) return "the device name is empty";
  if (!alnum(name.front()) || !alnum(name.back()))
    return "the device name \"" + name + "\" does not start and end with a letter or digit";
  for (char c : name)
    if (!alnum(c) && c != '-' && c != '_' && c != '.' && c != ':')
      return "the device name \"" + name + "\" has '" + std::string(1, c) +
             "' (only letters, digits, '-', '_', '.' and ':')";
  return "";
}

const std::vector<std::string>& cdi_spec_dirs() {
  static const std::vector<std::string> dirs = {"/etc/cdi", "/var/run/cdi"};
  return dirs;
}

bool is_cdi_spec_name(std::string_view name) { return name.ends_with(".json") || name.ends_with(".yaml"); }

std::string CdiSpecFile::problem() const {
  if (!error) return path + ": reads as a CDI spec";
  if (error->line() == 0) return path + ": " + error->message();
  return path + ":" + error->what();
}

std::vector<CdiSpecFile> scan_cdi_specs(const FileSystem& fs) {
  std::vector<CdiSpecFile> out;
  for (const auto& dir : cdi_spec_dirs()) {
    std::vector<std::string> names = fs.list(dir);
    for (const auto& name : names) {
      if (!is_cdi_spec_name(name)) continue;
      CdiSpecFile f{dir + "/" + name, std::nullopt, std::nullopt};
      auto info = fs.stat(f.path);
      if (!info || info->type != FileType::regular) continue;
      try {
        f.spec = read_cdi_spec(fs.read(f.path));
      } catch (const CdiSpecError& e) {
        f.error = e;
      } catch (const std::exception& e) {
        f.error = CdiSpecError(0, 0, e.what());  // unreadable: the FileSystem says why
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace wslgpu
