#include "installer/system/paths.hpp"

#include <vector>

namespace wslgpu {

bool is_valid_package_name(std::string_view name) {
  if (name.size() < 2) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front())) return false;
  for (char c : name) {
    if (!alnum(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

std::string target_path_problem(std::string_view path) {
  if (path.empty()) return "is empty";
  if (path.front() != '/') return "is not absolute (it must start with /)";
  if (path.find('\0') != std::string_view::npos) return "holds a NUL byte";
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part == "..") return "leaves the target root (it holds a \"..\" component)";
    if (part == ".") return "holds a \".\" component";
    start = end + 1;
  }
  return "";
}

std::string normalize_path(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out += c;
  }
  if (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string parent_path(std::string_view path) {
  std::string p = normalize_path(path);
  auto slash = p.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

std::string base_name(std::string_view path) {
  std::string p = normalize_path(path);
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

}  // namespace wslgpu
