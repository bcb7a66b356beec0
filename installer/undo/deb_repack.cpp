#include "installer/undo/deb_repack.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "installer/formats/deb822.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

constexpr const char* kStatusFile = "/var/lib/dpkg/status";
constexpr const char* kInfoDir = "/var/lib/dpkg/info";
constexpr const char* kDiversionsFile = "/var/lib/dpkg/diversions";

std::vector<std::string> text_lines(std::string_view text) {
  std::vector<std::string> lines;
  for (std::string_view line : text::split_lines(text, text::LineEnd::newline_dropped)) lines.emplace_back(line);
  return lines;
}

bool iequal(std::string_view a, std::string_view b) { return text::lower(a) == text::lower(b); }

// The field a stanza line starts ("Status" for "Status: install ok installed"),
// "" for a continuation line.
std::string_view field_name(std::string_view line) {
  if (line.empty() || line.front() == ' ' || line.front() == '\t') return {};
  std::size_t colon = line.find(':');
  return colon == std::string_view::npos ? std::string_view() : text::trim_field(line.substr(0, colon));
}

// The value on a field's first line ("install ok installed").
std::string_view field_value(std::string_view line) {
  std::size_t colon = line.find(':');
  return colon == std::string_view::npos ? std::string_view() : text::trim_field(line.substr(colon + 1));
}

// One package's stanza of dpkg's status file: its lines exactly as dpkg wrote
// them (the control file is made of them, so that nothing a parser would
// normalise, such as spaces at the end of a description line, changes), and
// its fields for reading.
struct StatusEntry {
  std::vector<std::string> lines;
  Deb822Stanza fields;
};

// The stanza of NAME for ARCH (any architecture when ARCH is empty), or nullopt.
std::optional<StatusEntry> find_status_entry(const FileSystem& fs, const std::string& name, const std::string& arch) {
  if (!fs.stat(kStatusFile)) return std::nullopt;
  const std::vector<std::string> lines = text_lines(fs.read(kStatusFile));
  std::size_t begin = 0;
  while (begin < lines.size()) {
    std::size_t end = begin;
    while (end < lines.size() && !text::trim_field(lines[end]).empty()) ++end;
    std::string package, architecture;
    for (std::size_t i = begin; i < end; ++i) {
      std::string_view field = field_name(lines[i]);
      if (iequal(field, "Package")) package = field_value(lines[i]);
      if (iequal(field, "Architecture")) architecture = field_value(lines[i]);
    }
    if (end > begin && package == name && (arch.empty() || architecture == arch)) {
      StatusEntry entry;
      entry.lines.assign(lines.begin() + static_cast<std::ptrdiff_t>(begin),
                         lines.begin() + static_cast<std::ptrdiff_t>(end));
      std::string stanza;
      for (const auto& l : entry.lines) stanza += l + "\n";
      auto parsed = parse_deb822(stanza, kStatusFile);
      if (!parsed.empty()) entry.fields = parsed.front();
      return entry;
    }
    begin = end + 1;
  }
  return std::nullopt;
}

// Fields that describe this installation rather than the package: dpkg
// writes them itself, and dpkg-deb would carry them into the new package.
// Triggers-Pending and Triggers-Awaited are never on an installed package's
// stanza, but would be wrong on any.
bool is_installation_field(std::string_view field) {
  for (const char* f : {"Status", "Config-Version", "Conffiles", "Triggers-Pending", "Triggers-Awaited"})
    if (iequal(field, f)) return true;
  return false;
}

std::string control_text(const StatusEntry& entry) {
  std::string out;
  bool skipping = false;
  for (const auto& line : entry.lines) {
    std::string_view field = field_name(line);
    if (!field.empty()) skipping = is_installation_field(field);
    if (!skipping) out += line + "\n";
  }
  return out;
}

// DEBIAN/conffiles from the stanza's Conffiles lines ("PATH HASH [FLAG]...",
// the flags "obsolete" and "remove-on-upgrade"), read from the right as
// dpkg does, so that a path with a space stays whole. An obsolete conffile
// is one an earlier version shipped: the package being rebuilt does not have it.
std::string conffiles_text(const StatusEntry& entry) {
  std::string out;
  for (const auto& raw : text_lines(entry.fields.get_or("Conffiles", ""))) {
    std::string_view line = text::trim_field(raw);
    bool obsolete = false, remove_on_upgrade = false;
    for (;;) {
      std::size_t space = line.rfind(' ');
      if (space == std::string_view::npos) break;
      std::string_view last = line.substr(space + 1);
      if (last == "obsolete")
        obsolete = true;
      else if (last == "remove-on-upgrade")
        remove_on_upgrade = true;
      else
        break;
      line = text::trim_field(line.substr(0, space));
    }
    std::size_t space = line.rfind(' ');  // before the hash
    if (obsolete || space == std::string_view::npos) continue;
    out +=
        (remove_on_upgrade ? "remove-on-upgrade " : "") + std::string(text::trim_field(line.substr(0, space))) + "\n";
  }
  return out;
}

// Paths of other packages' (or the administrator's, ":") diversions of
// PACKAGE's files: where dpkg put PACKAGE's copy instead.
std::map<std::string, std::string> diverted_away(const FileSystem& fs, const std::string& package) {
  std::map<std::string, std::string> out;
  if (!fs.stat(kDiversionsFile)) return out;
  auto lines = text_lines(fs.read(kDiversionsFile));
  for (std::size_t i = 0; i + 2 < lines.size(); i += 3)
    if (lines[i + 2] != package) out[lines[i]] = lines[i + 1];
  return out;
}

// What is known about an installed package once can_repack has looked.
struct Installed {
  RepackCheck check;
  std::string who;     // "rocm-core", or "libfoo:amd64" for a Multi-Arch: same package
  std::string prefix;  // of its files in /var/lib/dpkg/info: "rocm-core", "libfoo:amd64"
  StatusEntry entry;
  std::vector<std::string> paths;               // the .list's, "/." left out
  std::map<std::string, std::string> diverted;  // listed path -> where the file is
  std::set<std::string> shipped_dirs;           // listed paths other listed paths are under
};

std::uint64_t installed_size_bytes(const StatusEntry& entry) {
  auto value = entry.fields.get("Installed-Size");
  if (!value || value->empty() || value->find_first_not_of("0123456789") != std::string::npos || value->size() > 15)
    return 0;
  return std::stoull(*value) * 1024;
}

Installed inspect(const FileSystem& fs, const std::string& name, const std::string& arch) {
  Installed in;
  in.who = name;
  auto entry = find_status_entry(fs, name, arch);
  if (!entry) {
    in.check.why = "dpkg has no record of " + name + (arch.empty() ? "" : " (" + arch + ")");
    return in;
  }
  in.entry = std::move(*entry);
  const std::string architecture = in.entry.fields.get_or("Architecture", arch);
  if (in.entry.fields.get_or("Multi-Arch", "") == "same") in.who = name + ":" + architecture;
  in.prefix = in.who;

  const std::string status = in.entry.fields.get_or("Status", "");
  auto words = split_words(status);
  bool installed =
      words.size() == 3 && (words[0] == "install" || words[0] == "hold") && words[1] == "ok" && words[2] == "installed";
  if (!installed) {
    in.check.why = in.who + " is not installed (dpkg's status says \"" + status +
                   "\"), so there are no installed files to rebuild it from";
    return in;
  }

  const std::string list = std::string(kInfoDir) + "/" + in.prefix + ".list";
  if (!fs.lstat(list)) {
    in.check.why = list + ", dpkg's list of " + in.who + "'s files, is missing";
    return in;
  }
  for (auto& line : text_lines(fs.read(list)))
    if (!line.empty() && line != "/.") in.paths.push_back(line);
  in.diverted = diverted_away(fs, name);
  for (const auto& p : in.paths)
    for (std::size_t slash = p.rfind('/'); slash != std::string::npos && slash > 0; slash = p.rfind('/', slash - 1))
      in.shipped_dirs.insert(p.substr(0, slash));

  std::uint64_t listed_bytes = 0;
  for (const auto& p : in.paths) {
    auto div = in.diverted.find(p);
    const std::string& where = div == in.diverted.end() ? p : div->second;
    auto info = fs.lstat(where);
    if (!info) {
      in.check.why = p + ", listed by dpkg as " + in.who + "'s, is missing" +
                     (where == p ? "" : " (where a diversion put it, " + where + ")");
      return in;
    }
    if (info->type == FileType::regular) listed_bytes += info->size;
  }
  std::uint64_t declared = installed_size_bytes(in.entry);
  in.check.estimated_bytes = declared != 0 ? declared : listed_bytes;
  in.check.possible = true;
  return in;
}

std::string errno_message() { return std::strerror(errno); }

// Removes the scratch folder when the rebuild returns or throws, and the
// half-written .deb when it throws.
class Cleanup {
 public:
  Cleanup(std::string scratch_host, FileSystem& fs, std::string out_target)
      : scratch_host_(std::move(scratch_host)), fs_(fs), out_target_(std::move(out_target)) {}
  ~Cleanup() {
    std::error_code ec;
    std::filesystem::remove_all(scratch_host_, ec);
    if (!done_) {
      try {
        fs_.remove(out_target_);
      } catch (...) {
        // The error being thrown says what went wrong; a leftover file in the store folder is harmless.
      }
    }
  }
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;
  void done() { done_ = true; }

 private:
  std::string scratch_host_;
  FileSystem& fs_;
  std::string out_target_;
  bool done_ = false;
};

// Copies the files of one package into a scratch tree on the machine
// running the tool, keeping what dpkg-deb records of each: type, mode,
// owner, modification time, link target, and hard links between them.
class TreeCopier {
 public:
  TreeCopier(std::string who, std::string scratch_host) : who_(std::move(who)), scratch_(std::move(scratch_host)) {}

  // A folder the package ships, with SOURCE's (followed) mode, owner and time.
  void add_dir(const std::string& path, const std::string& source_host) {
    struct stat st {};
    if (::stat(source_host.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      fail(path, "it is listed as a folder but is not one any more");
    const std::string dest = dest_of(path);
    make_parents(dest);
    if (::mkdir(dest.c_str(), 0700) != 0 && errno != EEXIST)
      fail(path, "cannot create " + dest + ": " + errno_message());
    set_owner_and_mode(path, dest, st);
    dir_times_.emplace_back(dest, st.st_mtim);
  }

  // Any other entry, taken as it is at SOURCE_HOST (a link is not followed).
  void add_entry(const std::string& path, const std::string& source_host) {
    struct stat st {};
    if (::lstat(source_host.c_str(), &st) != 0) fail(path, "cannot read it: " + errno_message());
    if (S_ISDIR(st.st_mode)) return add_dir(path, source_host);
    const std::string dest = dest_of(path);
    make_parents(dest);
    if (S_ISLNK(st.st_mode)) {
      std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
      ssize_t n = ::readlink(source_host.c_str(), target.data(), target.size());
      if (n < 0) fail(path, "cannot read the link: " + errno_message());
      target.resize(static_cast<std::size_t>(n));
      if (::symlink(target.c_str(), dest.c_str()) != 0) fail(path, "cannot create " + dest + ": " + errno_message());
      if (::lchown(dest.c_str(), st.st_uid, st.st_gid) != 0) fail(path, "cannot set its owner: " + errno_message());
      set_time(path, dest, st.st_mtim);
      return;
    }
    // A file the package ships twice under two names (hard links) is one
    // file in the new package too; any file is linked rather than copied
    // when the scratch folder is on its file system (the same inode: its
    // mode, owner and time need nothing).
    auto inode = std::make_pair(st.st_dev, st.st_ino);
    if (auto seen = first_name_.find(inode);
        seen != first_name_.end() && ::link(seen->second.c_str(), dest.c_str()) == 0)
      return;
    if (::link(source_host.c_str(), dest.c_str()) != 0) copy(path, source_host, dest, st);
    first_name_.emplace(inode, dest);
  }

  // Folder times last: creating entries in a folder changes its time.
  void finish() {
    for (auto it = dir_times_.rbegin(); it != dir_times_.rend(); ++it) {
      struct timespec times[2] = {it->second, it->second};
      ::utimensat(AT_FDCWD, it->first.c_str(), times, AT_SYMLINK_NOFOLLOW);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw StepFailure("cannot rebuild the .deb of " + who_ + ": " + path + ": " + what);
  }

  std::string dest_of(const std::string& path) const { return scratch_ + path; }

  // Folders the .list does not name (it normally names every one) are made as dpkg-deb's usual 0755.
  void make_parents(const std::string& dest) const {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(dest).parent_path(), ec);
  }

  void set_owner_and_mode(const std::string& path, const std::string& dest, const struct stat& st) const {
    // Owner first: chown clears setuid and setgid bits.
    if (::lchown(dest.c_str(), st.st_uid, st.st_gid) != 0) fail(path, "cannot set its owner: " + errno_message());
    if (::chmod(dest.c_str(), st.st_mode & 07777) != 0) fail(path, "cannot set its mode: " + errno_message());
  }

  void set_time(const std::string& path, const std::string& dest, const struct timespec& mtime) const {
    struct timespec times[2] = {mtime, mtime};
    if (::utimensat(AT_FDCWD, dest.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
      fail(path, "cannot set its time: " + errno_message());
  }

  void copy(const std::string& path, const std::string& source_host, const std::string& dest, const struct stat& st) {
    if (S_ISREG(st.st_mode)) {
      std::error_code ec;
      if (!std::filesystem::copy_file(source_host, dest, ec))
        fail(path, "cannot copy it to " + dest + ": " + ec.message());
    } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) {
      if (::mknod(dest.c_str(), st.st_mode & S_IFMT, st.st_rdev) != 0)
        fail(path, "cannot create " + dest + ": " + errno_message());
    } else {
      fail(path, "it is a socket, which a package cannot hold");
    }
    set_owner_and_mode(path, dest, st);
    set_time(path, dest, st.st_mtim);
  }

  std::string who_;
  std::string scratch_;
  std::map<std::pair<dev_t, ino_t>, std::string> first_name_;
  std::vector<std::pair<std::string, struct timespec>> dir_times_;
};

// The last lines of a program's error output, for a message.
std::string error_tail(const ProcessResult& result) {
  auto lines = text::output_lines(result.err.empty() ? result.out : result.err);
  std::string out;
  for (std::size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

}  // namespace

RepackCheck can_repack(const FileSystem& fs, const std::string& name, const std::string& arch) {
  return inspect(fs, name, arch).check;
}

void repack_installed(FileSystem& fs, ProcessRunner& runner, const std::string& name, const std::string& arch,
                      const std::string& scratch_target, const std::string& out_target) {
  Installed in = inspect(fs, name, arch);
  const std::string version = in.entry.fields.get_or("Version", "");
  const std::string what = in.who + (version.empty() ? "" : " " + version);
  if (!in.check.possible)
    throw StepFailure("cannot rebuild the .deb of " + what + " from what dpkg has installed: " + in.check.why +
                      ". Undo needs that .deb to put " + what + " back; make it available to apt (or put back what " +
                      "is missing), then run wslgpu-setup again.");

  // The scratch folder's own entry: a link there is replaced, never followed.
  const std::string scratch_host = entry_host_path(fs, scratch_target);
  {
    std::error_code ec;
    std::filesystem::remove_all(scratch_host, ec);
    if (ec)
      throw StepFailure("cannot rebuild the .deb of " + what + ": cannot remove the leftover scratch folder " +
                        scratch_target + ": " + ec.message());
  }
  Cleanup cleanup(scratch_host, fs, out_target);
  fs.make_dirs(scratch_target + "/DEBIAN", 0755);
  // The package's "./", and the folder dpkg-deb refuses unless it is 0755 to 0775, whatever the umask.
  for (const std::string& dir : {scratch_host, scratch_host + "/DEBIAN"})
    if (::chmod(dir.c_str(), 0755) != 0)
      throw StepFailure("cannot rebuild the .deb of " + what + ": cannot set the mode of " + dir + ": " +
                        errno_message());

  fs.write_atomic(scratch_target + "/DEBIAN/control", control_text(in.entry), FileAttrs{0644, 0, 0});
  if (std::string conffiles = conffiles_text(in.entry); !conffiles.empty())
    fs.write_atomic(scratch_target + "/DEBIAN/conffiles", conffiles, FileAttrs{0644, 0, 0});
  // Every control file dpkg kept (PREFIX.MEMBER; a MEMBER has no dot, which
  // tells PREFIX's files from those of a package whose name goes on with
  // one), but the two it writes itself: the .list, and the conffiles,
  // written above without the obsolete ones.
  const std::string info_prefix = in.prefix + ".";
  for (const auto& file : fs.list(kInfoDir)) {
    if (file.rfind(info_prefix, 0) != 0) continue;
    const std::string member = file.substr(info_prefix.size());
    if (member.empty() || member.find('.') != std::string::npos || member == "list" || member == "conffiles") continue;
    const std::string source = std::string(kInfoDir) + "/" + file;
    auto info = fs.lstat(source);
    if (!info || info->type != FileType::regular) continue;
    fs.write_atomic(scratch_target + "/DEBIAN/" + member, fs.read(source), FileAttrs{info->mode, info->uid, info->gid});
  }

  TreeCopier copier(what, scratch_host);
  for (const auto& path : in.paths) {
    auto div = in.diverted.find(path);
    const std::string& where = div == in.diverted.end() ? path : div->second;
    // A listed link with listed paths under it (/lib -> usr/lib on a
    // merged-/usr system) was a folder in the package: dpkg kept the link
    // and put the folder's files through it.
    if (in.shipped_dirs.count(path))
      copier.add_dir(path, fs.host_path(where));
    else
      copier.add_entry(path, entry_host_path(fs, where));
  }
  copier.finish();

  Command cmd;
  cmd.argv = {"dpkg-deb", "--build", "-Zgzip", scratch_target, out_target};
  cmd.in_root = true;
  ProcessResult result = runner.run(cmd);
  if (!result.ok()) {
    std::string why = result.not_found   ? "the target has no dpkg-deb (package dpkg)"
                      : result.timed_out ? "it did not finish in time"
                                         : "it exited with status " + std::to_string(result.exit_code);
    std::string tail = error_tail(result);
    throw StepFailure("cannot rebuild the .deb of " + what + ": `" + cmd.display() + "` failed: " + why +
                      (tail.empty() ? "" : ":\n" + tail) + "\nUndo needs that .deb to put " + what +
                      " back; make it available to apt, then run wslgpu-setup again.");
  }
  cleanup.done();
}

}  // namespace wslgpu
