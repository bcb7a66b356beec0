#include "installer/formats/wheel_name.hpp"

#include <algorithm>

#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

bool is_alnum(char c) { return text::is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::vector<std::string> split_on(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = s.find(sep, start);
    parts.emplace_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// A wheel's distribution part: PEP 427 escapes every run of '-', '_', '.'
// to '_', so it is letters, digits, '_' and '.', starting and ending with a
// letter or digit (as a PEP 508 name must).
bool valid_wheel_distribution(const std::string& name) {
  if (name.empty() || !is_alnum(name.front()) || !is_alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_alnum(c) || c == '_' || c == '.'; });
}

// A PEP 440 version as a file name holds it: digits, letters and . + ! _
// (a local label "+rocm7.2.2.lw.git127a149a" included), starting with a digit
// or the 'v' PEP 440 allows.
bool valid_wheel_version(const std::string& v) {
  if (v.empty() || !(text::is_digit(v.front()) || v.front() == 'v' || v.front() == 'V')) return false;
  return std::all_of(v.begin(), v.end(),
                     [](char c) { return is_alnum(c) || c == '.' || c == '+' || c == '!' || c == '_'; });
}

bool valid_tag(const std::string& tag) {
  return !tag.empty() && std::all_of(tag.begin(), tag.end(), [](char c) { return is_alnum(c) || c == '_'; });
}

int hex_value(char c) {
  if (text::is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "cp312" -> 3.12 as {3, 12}; "py3" -> {3, -1}; nullopt for another
// interpreter (pp, ip, jy) or a malformed tag.
struct TagPython {
  bool cpython_only = false;  // cpXY rather than pyXY
  int major = -1;
  int minor = -1;  // -1: any minor ("py3")
};
std::optional<TagPython> read_python_tag(const std::string& tag) {
  TagPython t;
  if (tag.rfind("cp", 0) == 0)
    t.cpython_only = true;
  else if (tag.rfind("py", 0) != 0)
    return std::nullopt;
  std::string digits = tag.substr(2);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), text::is_digit)) return std::nullopt;
  t.major = digits[0] - '0';
  if (digits.size() > 1) {
    if (digits.size() > 4) return std::nullopt;
    t.minor = std::stoi(digits.substr(1));
  }
  return t;
}

std::string python_name(const TagPython& t) {
  std::string v = std::to_string(t.major) + (t.minor >= 0 ? "." + std::to_string(t.minor) : "");
  return (t.cpython_only ? "CPython " : "Python ") + v;
}

// Whether a platform tag runs on glibc Linux on ARCH, and when not, why.
bool platform_runs(const std::string& tag, const std::string& arch, std::string& why) {
  if (tag == "any") return true;
  auto arch_of = [&](std::size_t prefix) { return tag.substr(prefix); };
  if (tag.rfind("linux_", 0) == 0) {
    if (arch_of(6) == arch) return true;
    why = tag + ": built for " + arch_of(6) + ", and this machine is " + arch;
    return false;
  }
  if (tag.rfind("manylinux", 0) == 0) {
    // manylinux1_x86_64, manylinux2014_x86_64, manylinux_2_28_x86_64: the
    // architecture is what follows the glibc part.
    std::string rest = tag.substr(9);
    std::size_t at = 0;
    if (rest.rfind("_", 0) == 0) {  // _2_28_ARCH
      auto a = rest.find('_', 1);
      auto b = a == std::string::npos ? a : rest.find('_', a + 1);
      at = b == std::string::npos ? std::string::npos : b + 1;
    } else {  // 1_ARCH, 2010_ARCH, 2014_ARCH
      auto a = rest.find('_');
      at = a == std::string::npos ? a : a + 1;
    }
    if (at != std::string::npos && rest.substr(at) == arch) return true;
    why = tag + ": built for " + (at == std::string::npos ? std::string("another machine") : rest.substr(at)) +
          ", and this machine is " + arch;
    return false;
  }
  if (tag.rfind("musllinux", 0) == 0) {
    why = tag + ": built for musl libc, and the distribution's Python uses glibc";
    return false;
  }
  why = tag + ": built for another operating system, and this is Linux on " + arch;
  return false;
}

std::string join_tags(const std::vector<std::string>& items, char sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : std::string(1, sep)) + i;
  return out;
}

}  // namespace

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string file_url(std::string_view path) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string out = "file://";
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~' || c == '/' || c == '+') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string normalize_project_name(std::string_view name) {
  // re.sub(r"[-_.]+", "-", name).lower(), as PEP 503 writes it.
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (out.empty() || out.back() != '-') out += '-';
      continue;
    }
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::optional<WheelName> parse_wheel_name(std::string_view filename, std::string& error) {
  const std::string_view suffix = ".whl";
  if (filename.size() <= suffix.size() || filename.substr(filename.size() - suffix.size()) != suffix) {
    error = "\"" + std::string(filename) + "\" is not a wheel: its name does not end in .whl";
    return std::nullopt;
  }
  // Split before decoding, so that an encoded '-' cannot add a part.
  auto parts = split_on(filename.substr(0, filename.size() - suffix.size()), '-');
  if (parts.size() != 5 && parts.size() != 6) {
    error = "\"" + std::string(filename) +
            "\" is not a wheel's name: a wheel's name has five or six parts separated by '-' "
            "(NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl), and this one has " +
            std::to_string(parts.size());
    return std::nullopt;
  }
  for (auto& p : parts) p = percent_decode(p);
  WheelName w;
  w.distribution = parts[0];
  w.version = parts[1];
  if (parts.size() == 6) w.build = parts[2];
  std::size_t t = parts.size() - 3;
  w.python_tags = split_on(parts[t], '.');
  w.abi_tags = split_on(parts[t + 1], '.');
  w.platform_tags = split_on(parts[t + 2], '.');
  auto fail = [&](const std::string& why) {
    error = "\"" + std::string(filename) + "\" is not a wheel's name: " + why;
    return std::nullopt;
  };
  if (!valid_wheel_distribution(w.distribution))
    return fail("the distribution \"" + w.distribution +
                "\" must be letters, digits, '_' and '.', starting and ending with a letter or digit");
  if (!valid_wheel_version(w.version)) return fail("the version \"" + w.version + "\" is not a PEP 440 version");
  if (parts.size() == 6 &&
      (w.build.empty() || !text::is_digit(w.build.front()) ||
       !std::all_of(w.build.begin(), w.build.end(), [](char c) { return is_alnum(c) || c == '_'; })))
    return fail("the build tag \"" + w.build + "\" must start with a digit");
  for (const auto* tags : {&w.python_tags, &w.abi_tags, &w.platform_tags})
    for (const auto& tag : *tags)
      if (!valid_tag(tag)) return fail("the tag \"" + tag + "\" must be letters, digits and '_'");
  return w;
}

bool wheel_runs_on(const WheelName& wheel, const PythonTarget& target, std::string& why) {
  const std::string own = target.tag();
  const std::string version = std::to_string(target.major) + "." + std::to_string(target.minor);
  // The platform first: a wheel for another machine cannot run whatever its Python.
  std::string platform_why;
  bool platform_ok = false;
  for (const auto& p : wheel.platform_tags) {
    std::string w;
    if (platform_runs(p, target.arch, w))
      platform_ok = true;
    else if (platform_why.empty())
      platform_why = w;
  }
  if (!platform_ok) {
    why = platform_why;
    return false;
  }
  bool any_platform =
      std::find(wheel.platform_tags.begin(), wheel.platform_tags.end(), "any") != wheel.platform_tags.end();
  auto has_abi = [&](const std::string& a) {
    return std::find(wheel.abi_tags.begin(), wheel.abi_tags.end(), a) != wheel.abi_tags.end();
  };
  // The tag triples packaging.tags.sys_tags() gives CPython X.Y on Linux:
  //   cpXY-{cpXY,abi3,none}-PLAT, cp3W-abi3-PLAT for W < Y,
  //   py{XY,X,XW}-none-PLAT, cpXY-none-any and py{XY,X,XW}-none-any.
  // The platform was checked above, so "any" matters only for the cpXY-none-any row.
  for (const auto& py : wheel.python_tags) {
    auto t = read_python_tag(py);
    if (!t || t->major != target.major) continue;
    if (t->cpython_only) {
      if (t->minor == target.minor && (has_abi(own) || has_abi("abi3") || has_abi("none"))) return true;
      if (t->minor >= 0 && t->minor < target.minor && has_abi("abi3")) return true;
      if (t->minor == target.minor && any_platform && has_abi("none")) return true;
    } else if (has_abi("none") && (t->minor < 0 || t->minor <= target.minor)) {
      return true;
    }
  }
  // Why not, in the words of the first python tag.
  std::string py_tags = join_tags(wheel.python_tags, '.');
  std::string abi_tags = join_tags(wheel.abi_tags, '.');
  for (const auto& py : wheel.python_tags) {
    auto t = read_python_tag(py);
    if (!t) continue;
    if (t->cpython_only && t->minor >= 0 && t->minor > target.minor && has_abi("abi3")) {
      why = py_tags + "-abi3: CPython " + std::to_string(t->major) + "." + std::to_string(t->minor) +
            " or newer, and this Python is " + version;
      return false;
    }
    if (t->major != target.major || t->minor != target.minor || !t->cpython_only) {
      bool or_newer = !t->cpython_only && t->major == target.major;
      why = py_tags + ": " + python_name(*t) + (or_newer ? " or newer" : "") + ", and this Python is " + version;
      return false;
    }
  }
  bool known = std::any_of(wheel.python_tags.begin(), wheel.python_tags.end(),
                           [](const std::string& p) { return read_python_tag(p).has_value(); });
  if (!known)
    why = py_tags + ": another Python implementation, and this Python is CPython " + version;
  else
    why = py_tags + "-" + abi_tags + ": an ABI that CPython " + version + " does not have";
  return false;
}

}  // namespace wslgpu
