#include "support/fakes.hpp"

#include <filesystem>
#include <fstream>

#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"

namespace wslgpu::testing {

void MemoryFileSystem::add_file(const std::string& path, const std::string& content, std::uint32_t mode,
                                std::uint32_t uid, std::uint32_t gid) {
  add_dir(parent_path(path));
  Node n;
  n.info = FileInfo{FileType::regular, mode, uid, gid, content.size(), 0};
  n.content = content;
  nodes_[normalize_path(path)] = n;
}

void MemoryFileSystem::add_dir(const std::string& path, std::uint32_t mode) {
  std::string p = normalize_path(path);
  while (!p.empty() && !nodes_.count(p)) {
    nodes_[p] = Node{FileInfo{FileType::directory, mode, 0, 0, 0, 0}, ""};
    if (p == "/") break;
    p = parent_path(p);
  }
}

void MemoryFileSystem::add_char_device(const std::string& path, std::uint32_t mode) {
  add_dir(parent_path(path));
  nodes_[normalize_path(path)] = Node{FileInfo{FileType::char_device, mode, 0, 0, 0, 0}, ""};
}

void MemoryFileSystem::add_symlink(const std::string& path, const std::string& target) {
  add_dir(parent_path(path));
  nodes_[normalize_path(path)] = Node{FileInfo{FileType::symlink, 0777, 0, 0, target.size(), 0}, target};
}

void MemoryFileSystem::set_owner(const std::string& path, std::uint32_t uid, std::uint32_t gid) {
  auto it = nodes_.find(normalize_path(path));
  if (it == nodes_.end()) throw StepFailure("set_owner: " + path + " does not exist");
  it->second.info.uid = uid;
  it->second.info.gid = gid;
}

std::string MemoryFileSystem::follow(const std::string& path) const {
  std::string p = normalize_path(path);
  for (int hops = 0; hops < 40; ++hops) {
    auto it = nodes_.find(p);
    if (it == nodes_.end() || it->second.info.type != FileType::symlink) return p;
    const std::string& target = it->second.content;
    p = normalize_path(!target.empty() && target.front() == '/' ? target : parent_path(p) + "/" + target);
  }
  throw StepFailure("too many levels of symbolic links in " + path);
}

std::optional<FileInfo> MemoryFileSystem::stat(const std::string& path) const {
  auto it = nodes_.find(follow(path));
  if (it == nodes_.end()) return std::nullopt;
  return it->second.info;
}

std::optional<FileInfo> MemoryFileSystem::lstat(const std::string& path) const {
  auto it = nodes_.find(normalize_path(path));
  if (it == nodes_.end()) return std::nullopt;
  return it->second.info;
}

std::optional<std::string> MemoryFileSystem::read_link(const std::string& path) const {
  auto it = nodes_.find(normalize_path(path));
  if (it == nodes_.end() || it->second.info.type != FileType::symlink) return std::nullopt;
  return it->second.content;
}

std::string MemoryFileSystem::read(const std::string& path) const {
  auto it = nodes_.find(follow(path));
  if (it == nodes_.end() || it->second.info.type != FileType::regular)
    throw StepFailure("cannot read " + path + ": No such file or directory");
  return it->second.content;
}

std::vector<std::string> MemoryFileSystem::list(const std::string& dir) const {
  std::vector<std::string> out;
  std::string prefix = normalize_path(dir);
  if (prefix != "/") prefix += "/";
  for (const auto& [p, n] : nodes_) {
    if (p.size() <= prefix.size() || p.rfind(prefix, 0) != 0) continue;
    std::string rest = p.substr(prefix.size());
    if (rest.find('/') == std::string::npos) out.push_back(rest);
  }
  return out;
}

void MemoryFileSystem::write_atomic(const std::string& path, std::string_view content, const FileAttrs& attrs) {
  ++writes;
  add_dir(parent_path(path));
  nodes_[normalize_path(path)] =
      Node{FileInfo{FileType::regular, attrs.mode, attrs.uid, attrs.gid, content.size(), 0}, std::string(content)};
}

void MemoryFileSystem::remove(const std::string& path) {
  // As rmdir(2): a folder goes only when empty.
  if (!list(path).empty() && lstat(path) && lstat(path)->type == FileType::directory)
    throw StepFailure("cannot remove " + path + ": Directory not empty");
  if (nodes_.erase(normalize_path(path))) ++writes;
}

void MemoryFileSystem::rename(const std::string& from, const std::string& to) {
  // As rename(2): FROM's entry with everything below it, into TO's existing folder.
  std::string f = normalize_path(from), t = normalize_path(to);
  if (!nodes_.count(f)) throw StepFailure("cannot move " + from + " to " + to + ": No such file or directory");
  auto parent = nodes_.find(parent_path(t));
  if (parent == nodes_.end() || parent->second.info.type != FileType::directory)
    throw StepFailure("cannot move " + from + " to " + to + ": No such file or directory");
  if (t.rfind(f + "/", 0) == 0) throw StepFailure("cannot move " + from + " into itself");
  std::map<std::string, Node> moved;
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    if (it->first == f || it->first.rfind(f + "/", 0) == 0) {
      moved[t + it->first.substr(f.size())] = std::move(it->second);
      it = nodes_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [p, n] : moved) nodes_[p] = std::move(n);
  ++writes;
}

void MemoryFileSystem::make_dirs(const std::string& path, std::uint32_t mode) { add_dir(path, mode); }

void FakeProcessRunner::on(std::vector<std::string> argv_prefix, ProcessResult result) {
  rules_.emplace_back(std::move(argv_prefix), [result](const Command&) { return result; });
}

void FakeProcessRunner::on(std::vector<std::string> argv_prefix, std::function<ProcessResult(const Command&)> handler) {
  rules_.emplace_back(std::move(argv_prefix), std::move(handler));
}

ProcessResult FakeProcessRunner::run(const Command& cmd) {
  calls.push_back(cmd);
  for (const auto& [prefix, handler] : rules_) {
    if (prefix.size() > cmd.argv.size()) continue;
    if (std::equal(prefix.begin(), prefix.end(), cmd.argv.begin())) return handler(cmd);
  }
  ProcessResult r;
  r.exit_code = 127;
  r.not_found = true;
  return r;
}

HostFacts fake_wsl_host() {
  HostFacts h;
  h.kernel_release = "5.15.153.1-microsoft-standard-WSL2";
  h.wsl = "2";
  h.dxg = true;
  h.wsl_lib = true;
  h.gpu_vendor = "amd";
  h.distro = "ubuntu";
  h.distro_version = "24.04";
  h.codename = "noble";
  h.arch = "amd64";
  h.user = "alice";
  h.user_home = "/home/alice";
  h.user_uid = 1000;
  h.user_gid = 1000;
  h.windows_home = "/mnt/c/Users/alice";
  return h;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "wslgpu-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void TempDir::write(const std::string& relative, const std::string& content) const {
  std::filesystem::path p = std::filesystem::path(path_) / relative;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

}  // namespace wslgpu::testing
