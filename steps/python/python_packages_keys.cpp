// The keys of kind = "python_packages" (python_packages.hpp), each checked
// where it is written, when the manifest loads.
#include <algorithm>

#include "installer/formats/python_requirement.hpp"
#include "installer/formats/wheel_name.hpp"
#include "installer/system/text.hpp"
#include "steps/files/download.hpp"
#include "steps/python/python_common.hpp"
#include "steps/python/python_packages.hpp"
#include "steps/python/python_packages_step.hpp"

namespace wslgpu {

namespace {

bool is_alnum_ascii(char c) { return text::is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool is_hex64(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return text::is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

// "" when URL may be given to pip, else why not.
std::string url_problem(const std::string& url) {
  if (url.rfind("https://", 0) != 0 && url.rfind("file://", 0) != 0)
    return "\"" + url + "\" is not an https:// or file:// URL: pip would fetch it without TLS or not at all";
  if (url.find_first_of(" \t\r\n#") != std::string::npos)
    return "\"" + url + "\" holds a space or a '#': give the hash in sha256, and encode spaces as %20";
  return "";
}

// The wheel's Python tags would do, its platform would not (an aarch64
// wheel on x86_64): the advice is then another platform, not another Python.
bool platform_is_the_problem(const WheelName& wheel, const PythonTarget& target) {
  WheelName any = wheel;
  any.platform_tags = {"any"};
  std::string why;
  return wheel_runs_on(any, target, why);
}

bool valid_local_label(const std::string& label) {
  return !label.empty() && std::all_of(label.begin(), label.end(), [](char c) { return is_alnum_ascii(c) || c == '.'; });
}

// An entry's `extras` (N, an array of PEP 508 extra names) into OUT, each
// checked where it is written; false after reporting why not.
bool read_extras(StepKeys& keys, const toml::node& n, std::vector<std::string>& out) {
  if (!n.is_array()) {
    keys.error_at(keys.pos_of(n), "\"extras\" of a package must be an array of strings such as [\"and-cuda\"], not " +
                                      toml_type_name(n));
    return false;
  }
  bool ok = true;
  std::vector<std::string> seen;  // normalized, in order: PEP 685 compares extras so
  for (const toml::node& item : *n.as_array()) {
    if (!item.is_string()) {
      keys.error_at(keys.pos_of(item), "\"extras\" must hold only strings, not " + toml_type_name(item));
      ok = false;
      continue;
    }
    std::string extra = keys.substitute_node(item);
    // PEP 685: an extra's name is written as a project's name (PEP 508),
    // so that none can be read as a pip option or break out of "[...]".
    if (!valid_pep508_name(extra)) {
      keys.error_at(keys.pos_of(item), "\"" + extra +
                                           "\" is not an extra's name (PEP 508 and PEP 685: letters, digits, '.', "
                                           "'_' and '-', starting and ending with a letter or digit, such as "
                                           "\"and-cuda\")");
      ok = false;
      continue;
    }
    std::string key = normalize_project_name(extra);
    auto before = std::find(seen.begin(), seen.end(), key);
    if (before != seen.end()) {
      const std::string& first = out[static_cast<std::size_t>(before - seen.begin())];
      keys.error_at(keys.pos_of(item), "the extra \"" + extra + "\" is listed twice" +
                                           (first == extra ? std::string()
                                                           : " (as \"" + first +
                                                                 "\" before: PEP 685 compares extras lowercased, "
                                                                 "with each run of '-', '_' and '.' as one '-')"));
      ok = false;
      continue;
    }
    seen.push_back(key);
    out.push_back(extra);
  }
  return ok;
}

// Reads one entry of `packages` (a table) into W; false after reporting why not.
bool read_package_entry(StepKeys& keys, const toml::node& item, const PythonTarget& target,
                        const std::string& python_text, WantedPackage& w) {
  if (!item.is_table()) {
    keys.error_at(keys.pos_of(item),
                  "each entry of \"packages\" must be an inline table such as { url = \"...\", "
                  "sha256 = \"...\" } or { name = \"numpy\", version = \"1.26.4\" }, not " +
                      toml_type_name(item));
    return false;
  }
  const toml::table& t = *item.as_table();
  bool ok = true;
  auto str = [&](const char* key) -> std::optional<std::string> {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) {
      keys.error_at(keys.pos_of(*n),
                    std::string("\"") + key + "\" of a package must be a string, not " + toml_type_name(*n));
      ok = false;
      return std::nullopt;
    }
    return keys.substitute_node(*n);
  };
  for (const auto& [k, v] : t) {
    std::string name(k.str());
    if (name != "url" && name != "sha256" && name != "name" && name != "version" && name != "extras") {
      keys.error_at(keys.pos_of(v), "unknown key \"" + name +
                                        "\" in a package entry: a package has url and sha256, "
                                        "or name, version and extras");
      ok = false;
    }
  }
  auto url = str("url"), sha = str("sha256"), name = str("name"), version = str("version");
  if (!ok) return false;
  if (url && name) {
    keys.error_at(keys.pos_of(*t.get("name")),
                  "a package has url (its name and version come from the wheel's file "
                  "name) or name, not both");
    return false;
  }
  if (!url && !name) {
    keys.error_at(keys.pos_of(item), "a package needs url (a wheel) or name (from index_url or find_links)");
    return false;
  }
  if (url) {
    if (const toml::node* extras = t.get("extras")) {
      keys.error_at(keys.pos_of(*extras),
                    "\"extras\" goes with name, not url: pip would not look up the requirements of a URL wheel's "
                    "extras on an index. Give the package as { name = \"...\", version = \"...\", extras = [...] } "
                    "with index_url, or list what the extras require as packages of their own");
      return false;
    }
    if (version) {
      keys.error_at(keys.pos_of(*t.get("version")), "a package given by url takes its version from the wheel's name");
      return false;
    }
    const toml::node& url_node = *t.get("url");
    if (auto why = url_problem(*url); !why.empty()) {
      keys.error_at(keys.pos_of(url_node), why);
      return false;
    }
    std::string error;
    auto wheel = parse_wheel_name(url_file_name(*url), error);
    if (!wheel) {
      keys.error_at(keys.pos_of(url_node), "the URL's file " + error);
      return false;
    }
    std::string why;
    if (!wheel_runs_on(*wheel, target, why)) {
      keys.error_at(keys.pos_of(url_node), "the wheel " + percent_decode(url_file_name(*url)) +
                                               " cannot run on this step's Python " + python_text + " (" + why + "): " +
                                               (platform_is_the_problem(*wheel, target)
                                                    ? "use the wheel built for linux_" + target.arch +
                                                          " (or manylinux_*_" + target.arch + ")"
                                                    : "use the wheel for " + target.tag() +
                                                          ", or set python to the venv's version"));
      return false;
    }
    w.url = *url;
    w.name = wheel->distribution;
    w.version = wheel->version;
    if (sha && !sha->empty()) {
      if (!is_hex64(*sha)) {
        keys.error_at(keys.pos_of(*t.get("sha256")), "\"" + *sha +
                                                         "\" is not a SHA-256: it must be 64 hex digits "
                                                         "(or \"\" for none, with unverified_note saying why)");
        return false;
      }
      w.sha256 = text::lower(*sha);
    }
  } else {
    if (sha) {
      keys.error_at(keys.pos_of(*t.get("sha256")),
                    "sha256 goes with url: pip checks an index package's hash from "
                    "the index itself");
      return false;
    }
    if (!valid_pep508_name(*name)) {
      keys.error_at(keys.pos_of(*t.get("name")), "\"" + *name +
                                                     "\" is not a package name (PEP 508: letters, digits, "
                                                     "'.', '_' and '-', starting and ending with a letter or digit)");
      return false;
    }
    w.name = *name;
    w.version = version.value_or("");
    if (!w.version.empty() && !valid_pip_version(w.version)) {
      keys.error_at(keys.pos_of(*t.get("version")), "\"" + w.version +
                                                        "\" is not a version (PEP 440, such as "
                                                        "\"1.26.4\"; \"\" for whatever the index has that fits)");
      return false;
    }
    if (const toml::node* extras = t.get("extras"); extras && !read_extras(keys, *extras, w.extras)) return false;
  }
  w.key = normalize_project_name(w.name);
  return true;
}

// A list of URLs for pip (find_links), each checked where it is written.
std::vector<std::string> read_url_list(StepKeys& keys, const std::string& key) {
  std::vector<std::string> out;
  const toml::node* n = keys.node(key);
  if (!n) return out;
  if (!n->is_array()) {
    keys.error(key, "\"" + key + "\" must be an array of strings, not " + toml_type_name(*n));
    return out;
  }
  for (const toml::node& item : *n->as_array()) {
    if (!item.is_string()) {
      keys.error_at(keys.pos_of(item), "\"" + key + "\" must hold only strings, not " + toml_type_name(item));
      continue;
    }
    std::string url = keys.substitute_node(item);
    if (auto why = url_problem(url); !why.empty())
      keys.error_at(keys.pos_of(item), why);
    else
      out.push_back(url);
  }
  return out;
}

}  // namespace

std::shared_ptr<Step> make_python_packages_step(StepKeys& keys) {
  auto s = std::make_shared<PythonPackagesStep>();
  s->venv = normalize_path(keys.required_path("venv"));
  s->owner = read_venv_owner(keys);
  s->python_text = keys.required_string("python");
  PythonTarget target;
  {
    const std::string& v = s->python_text;
    auto dot = v.find('.');
    bool ok = dot == 1 && v[0] == '3' && dot + 1 < v.size() && v.size() <= 4 &&
              std::all_of(v.begin() + 2, v.end(), text::is_digit);
    if (!ok) {
      if (keys.has("python") && keys.node("python")->is_string())
        keys.error("python", "\"" + v +
                                 "\" is not a Python version such as \"3.12\" (major.minor, the venv's "
                                 "Python the wheels are for)");
    } else {
      target.minor = std::stoi(v.substr(2));
      s->target = target;
    }
  }
  if (auto idx = keys.optional_string("index_url")) {
    if (auto why = url_problem(*idx); !why.empty()) keys.error("index_url", why);
    s->index_url = *idx;
  }
  s->find_links = read_url_list(keys, "find_links");
  const toml::node* list = keys.node("packages");
  if (!list) {
    keys.error("packages", "step kind \"python_packages\" needs the key \"packages\"");
  } else if (!list->is_array() || list->as_array()->empty()) {
    keys.error("packages", "\"packages\" must be a non-empty array of inline tables, not " +
                               (list->is_array() ? std::string("an empty array") : toml_type_name(*list)));
  } else if (s->target.minor > 0) {
    for (const toml::node& item : *list->as_array()) {
      WantedPackage w;
      if (!read_package_entry(keys, item, target, s->python_text, w)) continue;
      bool twice = std::any_of(s->packages.begin(), s->packages.end(), [&](const auto& o) { return o.key == w.key; });
      if (twice)
        keys.error_at(keys.pos_of(item), "the package " + w.name + " is listed twice");
      else
        s->packages.push_back(w);
    }
  }
  if (const toml::node* rf = keys.node("remove_files")) {
    if (!rf->is_array()) {
      keys.error("remove_files", "\"remove_files\" must be an array of strings, not " + toml_type_name(*rf));
    } else {
      for (const toml::node& item : *rf->as_array()) {
        if (!item.is_string()) {
          keys.error_at(keys.pos_of(item), "\"remove_files\" must hold only strings, not " + toml_type_name(item));
          continue;
        }
        std::string g = keys.substitute_node(item);
        auto slash = g.rfind('/');
        std::string dir = slash == std::string::npos ? "" : g.substr(0, slash);
        bool dotdot =
            ("/" + g + "/").find("/../") != std::string::npos || ("/" + g + "/").find("/./") != std::string::npos;
        if (g.empty() || g.front() == '/' || dotdot || dir.find_first_of("*?") != std::string::npos ||
            g.back() == '/') {
          keys.error_at(keys.pos_of(item),
                        "\"" + g +
                            "\" must be a path relative to site-packages, without '.' or "
                            "'..', with '*' and '?' only in its last part (\"torch/lib/libhsa-runtime64.so*\")");
          continue;
        }
        s->remove_files.push_back(g);
      }
    }
  }
  s->unverified_note = keys.string_or("unverified_note", "");
  s->build = keys.string_or("build", "");
  if (!s->build.empty() && !valid_local_label(s->build))
    keys.error("build", "\"" + s->build +
                            "\" is not a local version label (PEP 440: letters and digits, such as \"cu126\" of "
                            "torch 2.14.1+cu126)");
  s->target = target;
  return s;
}

}  // namespace wslgpu
