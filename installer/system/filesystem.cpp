#include "installer/system/filesystem.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"

namespace wslgpu {

namespace {

std::string errno_text() { return std::strerror(errno); }

std::vector<std::string> split_components(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

FileType type_of(mode_t mode) {
  if (S_ISREG(mode)) return FileType::regular;
  if (S_ISDIR(mode)) return FileType::directory;
  if (S_ISLNK(mode)) return FileType::symlink;
  if (S_ISCHR(mode)) return FileType::char_device;
  if (S_ISBLK(mode)) return FileType::block_device;
  if (S_ISFIFO(mode)) return FileType::fifo;
  if (S_ISSOCK(mode)) return FileType::socket;
  return FileType::other;
}

// Closes a descriptor on every path out of a function.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

void fsync_dir(const std::string& dir) {
  Fd d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.fd >= 0) ::fsync(d.fd);
}

}  // namespace

std::string resolve_under_root(const std::string& root, const std::string& path, bool follow_last) {
  std::vector<std::string> pending = split_components(path);
  std::reverse(pending.begin(), pending.end());  // a stack: back() is next
  std::vector<std::string> resolved;
  int links = 0;
  auto host = [&](const std::vector<std::string>& parts) {
    std::string out = root == "/" ? "" : root;
    for (const auto& p : parts) out += "/" + p;
    return out.empty() ? std::string("/") : out;
  };
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == ".") continue;
    if (part == "..") {
      if (!resolved.empty()) resolved.pop_back();
      continue;
    }
    resolved.push_back(part);
    if (pending.empty() && !follow_last) break;
    std::string candidate = host(resolved);
    struct stat st {};
    if (::lstat(candidate.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) continue;
    if (++links > 40) throw StepFailure("too many levels of symbolic links in " + path);
    std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
    ssize_t n = ::readlink(candidate.c_str(), target.data(), target.size());
    if (n < 0) continue;
    target.resize(static_cast<std::size_t>(n));
    resolved.pop_back();
    if (!target.empty() && target.front() == '/') resolved.clear();
    auto more = split_components(target);
    for (auto it = more.rbegin(); it != more.rend(); ++it) pending.push_back(*it);
  }
  return host(resolved);
}

std::string entry_host_path(const FileSystem& fs, const std::string& path) {
  std::string normal = normalize_path(path);
  std::string parent_host = fs.host_path(parent_path(normal));
  return (parent_host == "/" ? "" : parent_host) + "/" + base_name(normal);
}

std::optional<std::string> FileSystem::read_link(const std::string& path) const { return link_at(*this, path); }

std::optional<std::string> link_at(const FileSystem& fs, const std::string& path) {
  std::string normal = normalize_path(path);
  std::string own = entry_host_path(fs, normal);
  if (fs.host_path(normal) == own) return std::nullopt;
  struct stat st {};
  if (::lstat(own.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return std::nullopt;
  std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
  ssize_t n = ::readlink(own.c_str(), target.data(), target.size());
  target.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return target;
}

RootedFileSystem::RootedFileSystem(std::string root) : root_(normalize_path(root)) {
  if (root_.empty()) root_ = "/";
}

std::string RootedFileSystem::host_path(const std::string& path) const {
  return resolve_under_root(root_, path, true);
}

namespace {

FileInfo info_of(const struct stat& st) {
  FileInfo info;
  info.type = type_of(st.st_mode);
  info.mode = st.st_mode & 07777;
  info.uid = st.st_uid;
  info.gid = st.st_gid;
  info.size = static_cast<std::uint64_t>(st.st_size);
  info.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return info;
}

}  // namespace

std::optional<FileInfo> RootedFileSystem::stat(const std::string& path) const {
  struct stat st {};
  if (::stat(host_path(path).c_str(), &st) != 0) return std::nullopt;
  return info_of(st);
}

std::optional<FileInfo> RootedFileSystem::lstat(const std::string& path) const {
  struct stat st {};
  if (::lstat(resolve_under_root(root_, path, false).c_str(), &st) != 0) return std::nullopt;
  return info_of(st);
}

std::string RootedFileSystem::read(const std::string& path) const {
  std::string host = host_path(path);
  Fd f(::open(host.c_str(), O_RDONLY | O_CLOEXEC));
  if (f.fd < 0) {
    if (errno == EACCES && ::geteuid() != 0) throw NeedsRoot("cannot read " + path + ": " + errno_text());
    throw StepFailure("cannot read " + path + ": " + errno_text());
  }
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw StepFailure("cannot read " + path + ": " + errno_text());
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::vector<std::string> RootedFileSystem::list(const std::string& dir) const {
  std::vector<std::string> names;
  DIR* d = ::opendir(host_path(dir).c_str());
  if (!d) return names;
  while (auto* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

void RootedFileSystem::make_dirs(const std::string& path, std::uint32_t mode) {
  std::string so_far;
  for (const auto& part : split_components(path)) {
    so_far += "/" + part;
    std::string host = host_path(so_far);
    if (::mkdir(host.c_str(), static_cast<mode_t>(mode)) != 0 && errno != EEXIST)
      throw StepFailure("cannot create directory " + so_far + ": " + errno_text());
  }
}

void RootedFileSystem::write_atomic(const std::string& path, std::string_view content, const FileAttrs& attrs) {
  make_dirs(parent_path(path), 0755);
  // The plan refuses a write through a link (guard no-writes-through-links);
  // this is the same rule at the moment of writing, for a link made since.
  std::string host = resolve_under_root(root_, path, false);
  struct stat link {};
  if (::lstat(host.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
    throw StepFailure("refusing to write " + path + ": it is a symbolic link, and wslgpu-setup does not write "
                      "through links. Replace it with the file it points to, then run again.");
  std::string dir = parent_path(host);
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string tmp = dir + "/." + base_name(host) + ".wslgpu-" + std::to_string(rng() % 1000000000);
  Fd f(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (f.fd < 0) throw StepFailure("cannot write " + path + ": " + errno_text());
  bool ok = true;
  std::size_t done = 0;
  while (ok && done < content.size()) {
    ssize_t n = ::write(f.fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    else done += static_cast<std::size_t>(n);
  }
  // Owner first: chown clears setuid/setgid bits, so the mode goes after it.
  ok = ok && ::fchown(f.fd, attrs.uid, attrs.gid) == 0;
  ok = ok && ::fchmod(f.fd, static_cast<mode_t>(attrs.mode)) == 0;
  ok = ok && ::fsync(f.fd) == 0;
  if (!ok || ::rename(tmp.c_str(), host.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw StepFailure("cannot write " + path + ": " + why);
  }
  fsync_dir(dir);
}

void RootedFileSystem::rename(const std::string& from, const std::string& to) {
  std::string from_host = resolve_under_root(root_, from, false);
  std::string to_host = resolve_under_root(root_, to, false);
  if (::rename(from_host.c_str(), to_host.c_str()) != 0)
    throw StepFailure("cannot move " + from + " to " + to + ": " + errno_text());
  fsync_dir(parent_path(to_host));
  if (parent_path(from_host) != parent_path(to_host)) fsync_dir(parent_path(from_host));
}

void remove_tree(FileSystem& fs, const std::string& path) {
  auto info = fs.lstat(path);
  if (!info) return;
  if (info->type == FileType::directory)
    for (const auto& name : fs.list(path)) remove_tree(fs, normalize_path(path) + "/" + name);
  fs.remove(path);
}

void RootedFileSystem::remove(const std::string& path) {
  std::string host = resolve_under_root(root_, path, false);
  struct stat st {};
  if (::lstat(host.c_str(), &st) != 0) return;
  int rc = S_ISDIR(st.st_mode) ? ::rmdir(host.c_str()) : ::unlink(host.c_str());
  if (rc != 0 && errno != ENOENT) throw StepFailure("cannot remove " + path + ": " + errno_text());
  fsync_dir(parent_path(host));
}

namespace {

void copy_host_file(const std::string& from, const std::string& to) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw StepFailure("cannot read " + from + ": " + std::strerror(errno));
  int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) {
    int e = errno;
    ::close(in);
    throw StepFailure("cannot write " + to + ": " + std::strerror(e));
  }
  char buf[65536];
  int err = 0;  // the first errno that stopped the copy
  for (;;) {
    ssize_t got = ::read(in, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got < 0) err = errno;
      break;
    }
    for (ssize_t done = 0; !err && done < got;) {
      ssize_t n = ::write(out, buf + done, static_cast<std::size_t>(got - done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        err = n < 0 ? errno : EIO;
      else
        done += n;
    }
    if (err) break;
  }
  if (!err && ::fsync(out) != 0) err = errno;
  ::close(in);
  if (::close(out) != 0 && !err) err = errno;
  if (err) {
    ::unlink(to.c_str());
    throw StepFailure("cannot copy " + from + " to " + to + ": " + std::strerror(err));
  }
}

}  // namespace

bool FileSystem::link_or_copy(const std::string& from, const std::string& to) {
  auto info = stat(from);
  if (!info || info->type != FileType::regular) throw StepFailure("cannot keep " + from + ": not a regular file");
  write_atomic(to, read(from), FileAttrs{info->mode, info->uid, info->gid});
  return false;
}

bool RootedFileSystem::link_or_copy(const std::string& from, const std::string& to) {
  std::string from_host = resolve_under_root(root_, from, false);
  std::string to_host = resolve_under_root(root_, to, false);
  struct stat st {};
  if (::lstat(from_host.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    throw StepFailure("cannot keep " + from + ": not a regular file");
  // Beside TO, then renamed over it: a run killed here leaves TO as it was.
  std::string tmp = to_host + ".wslgpu-link";
  ::unlink(tmp.c_str());
  bool linked = ::link(from_host.c_str(), tmp.c_str()) == 0;
  if (!linked) {
    if (errno != EXDEV && errno != EPERM && errno != EMLINK)
      throw StepFailure("cannot link " + from + " to " + to + ": " + errno_text());
    copy_host_file(from_host, tmp);
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    if (::chown(tmp.c_str(), st.st_uid, st.st_gid) != 0 || ::chmod(tmp.c_str(), st.st_mode & 07777) != 0 ||
        ::utimensat(AT_FDCWD, tmp.c_str(), times, 0) != 0) {
      std::string why = errno_text();
      ::unlink(tmp.c_str());
      throw StepFailure("cannot give the copy of " + from + " its owner, mode and time: " + why);
    }
  }
  if (::rename(tmp.c_str(), to_host.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw StepFailure("cannot put " + to + " in place: " + why);
  }
  return linked;
}

void link_or_copy_host_file(const std::string& from, const std::string& to) {
  ::unlink(to.c_str());  // a leftover of a run killed here
  if (::link(from.c_str(), to.c_str()) == 0) return;
  copy_host_file(from, to);
}


}  // namespace wslgpu
