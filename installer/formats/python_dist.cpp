#include "installer/formats/python_dist.hpp"

#include <algorithm>

#include "installer/formats/wheel_name.hpp"
#include "installer/system/error.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

// "3.12.3.final.0" -> "3.12.3": the leading numeric components.
std::string numeric_prefix(std::string_view v) {
  std::string out;
  std::size_t start = 0;
  while (start < v.size()) {
    std::size_t end = v.find('.', start);
    std::string_view part = v.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || !std::all_of(part.begin(), part.end(), text::is_digit)) break;
    out += (out.empty() ? "" : ".") + std::string(part);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

PyvenvCfg parse_pyvenv_cfg(std::string_view cfg) {
  PyvenvCfg out;
  std::string version, version_info;
  for (auto line : text::split_lines(cfg)) {
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = text::lower(text::trim(line.substr(0, eq), text::kBlanks));
    std::string value(text::trim(line.substr(eq + 1), text::kBlanks));
    if (key == "home")
      out.home = value;
    else if (key == "version")
      version = value;
    else if (key == "version_info")
      version_info = numeric_prefix(value);
    else if (key == "include-system-site-packages")
      out.include_system_site_packages = text::lower(value) == "true";
  }
  // The venv module writes "version"; virtualenv and uv write
  // "version_info" ("3.12.3.final.0").
  out.version = !version.empty() ? version : version_info;
  return out;
}

DistMetadata parse_metadata(std::string_view t) {
  DistMetadata out;
  bool have_name = false, have_version = false;
  bool in_requires_dist = false;  // the field above is a Requires-Dist
  for (auto line : text::split_lines(t)) {
    if (line.empty()) break;  // the body (the long description) starts here
    if (line.front() == ' ' || line.front() == '\t') {
      // A continuation of the field above; only a requirement's is kept.
      std::string_view more = text::trim(line, text::kBlanks);
      if (in_requires_dist && !more.empty()) out.requires_dist.back() += " " + std::string(more);
      continue;
    }
    in_requires_dist = false;
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key = text::lower(text::trim(line.substr(0, colon), text::kBlanks));
    std::string value(text::trim(line.substr(colon + 1), text::kBlanks));
    if (key == "requires-dist") {
      out.requires_dist.push_back(value);
      in_requires_dist = true;
      continue;
    }
    if (key == "provides-extra") {
      out.provides_extra.push_back(value);
      continue;
    }
    // The first of each counts, as email.parser's msg["Name"] gives it.
    if (key == "name" && !have_name) {
      out.name = value;
      have_name = true;
    } else if (key == "version" && !have_version) {
      out.version = value;
      have_version = true;
    }
  }
  return out;
}

std::vector<RecordEntry> parse_record(std::string_view t) {
  std::vector<RecordEntry> out;
  for (auto line : text::split_lines(t)) {
    if (line.empty()) continue;
    std::vector<std::string> fields(1);
    std::size_t i = 0;
    bool at_field_start = true;
    while (i < line.size()) {
      char c = line[i];
      if (at_field_start && c == '"') {
        // A quoted field: "" is a quote; it ends at the closing quote, or
        // at the end of the line when the quote is never closed.
        ++i;
        while (i < line.size()) {
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
              fields.back() += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          fields.back() += line[i++];
        }
        at_field_start = false;
        continue;
      }
      if (c == ',') {
        fields.emplace_back();
        at_field_start = true;
      } else {
        fields.back() += c;
        at_field_start = false;
      }
      ++i;
    }
    if (fields[0].empty()) continue;
    RecordEntry e;
    e.path = fields[0];
    if (fields.size() > 1) e.hash = fields[1];
    if (fields.size() > 2) e.size = fields[2];
    out.push_back(std::move(e));
  }
  return out;
}

std::string record_target(const std::string& site_packages, const std::string& path) {
  std::string joined = !path.empty() && path.front() == '/' ? path : site_packages + "/" + path;
  std::vector<std::string_view> parts;
  std::string_view rest(joined);
  while (!rest.empty()) {
    auto slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else {
      parts.push_back(part);
    }
  }
  std::string out;
  for (auto part : parts) out += "/" + std::string(part);
  return out.empty() ? "/" : out;
}

std::vector<std::string> venv_site_packages(const FileSystem& fs, const std::string& venv) {
  std::vector<std::string> out;
  std::string lib = venv + "/lib";
  for (const auto& name : fs.list(lib)) {
    if (name.rfind("python", 0) != 0) continue;
    std::string site = lib + "/" + name + "/site-packages";
    auto info = fs.stat(site);
    if (info && info->type == FileType::directory) out.push_back(site);
  }
  return out;  // list() is sorted, so this is too
}

std::vector<InstalledDist> installed_dists(const FileSystem& fs, const std::string& site_packages) {
  std::vector<InstalledDist> out;
  const std::string suffix = ".dist-info";
  for (const auto& name : fs.list(site_packages)) {
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    std::string folder = site_packages + "/" + name;
    auto meta_info = fs.stat(folder + "/METADATA");
    if (!meta_info || meta_info->type != FileType::regular) continue;
    DistMetadata meta;
    try {
      meta = parse_metadata(fs.read(folder + "/METADATA"));
    } catch (const StepFailure&) {
      continue;  // unreadable: as good as absent, and pip will say more
    }
    // A METADATA without Name or Version (never written by pip) falls back
    // on the folder's name, NAME-VERSION.dist-info.
    std::string stem = name.substr(0, name.size() - suffix.size());
    auto dash = stem.find('-');
    if (meta.name.empty()) meta.name = stem.substr(0, dash);
    if (meta.version.empty() && dash != std::string::npos) meta.version = stem.substr(dash + 1);
    InstalledDist d;
    d.name = meta.name;
    d.key = normalize_project_name(meta.name);
    d.version = meta.version;
    d.dist_info = folder;
    out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const InstalledDist& a, const InstalledDist& b) { return a.key < b.key; });
  return out;
}

}  // namespace wslgpu
