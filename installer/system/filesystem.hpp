// installer/system/: the interfaces to the machine (files under --root,
// processes, dynamic libraries, paths, errors). Includes nothing of ours above
// it.
//
// Every file the tool reads or writes on the target machine goes through a
// FileSystem. Paths are the target's own absolute paths ("/etc/wsl.conf");
// the real implementation maps them under --root, so a test can point the
// tool at a folder that looks like a WSL machine, and nothing can reach
// outside that folder (".." and symbolic links are resolved inside the root,
// the way chroot would). Tests use the in-memory fake in tests/support.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wslgpu {

enum class FileType { regular, directory, symlink, char_device, block_device, fifo, socket, other };

struct FileInfo {
  FileType type = FileType::regular;
  std::uint32_t mode = 0644;  // permission bits, setuid/setgid/sticky included
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
};

// Mode and owner of a file being written.
struct FileAttrs {
  std::uint32_t mode = 0644;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Metadata of PATH (symbolic links followed), or nullopt when it does not exist.
  virtual std::optional<FileInfo> stat(const std::string& path) const = 0;

  // The same without following a symbolic link at PATH's last component: a
  // link is reported as FileType::symlink (a dangling one too), with the
  // link's own metadata. Links in the middle of PATH are resolved under the
  // root as for every other call. For what must be told apart from the file
  // a link points to (a check of type "symlink").
  virtual std::optional<FileInfo> lstat(const std::string& path) const = 0;

  // The text of the symbolic link at PATH's last component ("/mnt/wsl/..."),
  // or nullopt when PATH is not a link. Links in the middle of PATH are
  // resolved under the root. By default link_at() below, which reads the
  // link where host_path() puts it.
  virtual std::optional<std::string> read_link(const std::string& path) const;

  // The whole content of a regular file. Throws StepFailure when unreadable.
  virtual std::string read(const std::string& path) const = 0;

  // Entry names in a directory, sorted; empty when it does not exist.
  virtual std::vector<std::string> list(const std::string& dir) const = 0;

  // Replaces PATH with CONTENT atomically: a temporary file in the same
  // directory is written, fsynced, given ATTRS and renamed over PATH, then the
  // directory is fsynced. Missing parent directories are created (0755).
  virtual void write_atomic(const std::string& path, std::string_view content, const FileAttrs& attrs) = 0;

  // Removes a file or an empty directory; no error when it does not exist.
  virtual void remove(const std::string& path) = 0;

  // Creates PATH and its missing parents.
  virtual void make_dirs(const std::string& path, std::uint32_t mode) = 0;

  // Renames the entry FROM (a link is renamed itself, never followed) to
  // TO, whose folder must exist, as rename(2) does: instant for a whole
  // tree on one file system, and an error (EXDEV) across two. Both paths
  // stay under the root. For moving files aside and back (python_packages'
  // undo) without copying gigabytes.
  virtual void rename(const std::string& from, const std::string& to) = 0;

  // Where PATH lives on the machine running the tool (for libraries that
  // want a real path, such as libarchive). Same rules as the other calls.
  virtual std::string host_path(const std::string& path) const = 0;

  // Makes TO (whose folder must exist) the same file as the regular file
  // FROM: a hard link where both are on one file system (instant, no
  // space: the inode, its mode, owner and mtime are FROM's), else a copy
  // with FROM's mode, owner and mtime. A file already at TO is replaced.
  // Returns true for a link, false for a copy. For keeping a venv's files
  // in the undo store and putting them back (steps/python/venv_snapshot.hpp):
  // gigabytes that pip only ever replaces by unlinking, never in place.
  // By default a copy through read() and write_atomic().
  virtual bool link_or_copy(const std::string& from, const std::string& to);
};

// The real file system under ROOT ("/" for the running machine).
class RootedFileSystem : public FileSystem {
 public:
  explicit RootedFileSystem(std::string root);
  const std::string& root() const { return root_; }

  std::optional<FileInfo> stat(const std::string& path) const override;
  std::optional<FileInfo> lstat(const std::string& path) const override;
  std::string read(const std::string& path) const override;
  std::vector<std::string> list(const std::string& dir) const override;
  void write_atomic(const std::string& path, std::string_view content, const FileAttrs& attrs) override;
  void remove(const std::string& path) override;
  void make_dirs(const std::string& path, std::uint32_t mode) override;
  void rename(const std::string& from, const std::string& to) override;
  bool link_or_copy(const std::string& from, const std::string& to) override;
  std::string host_path(const std::string& path) const override;

 private:
  std::string root_;  // absolute, no trailing slash except for "/"
};

// Where PATH's own entry is on the machine running the tool: its folder
// resolved under the root as host_path does, its last component not. A
// rename to it replaces a link there instead of the file the link points to.
std::string entry_host_path(const FileSystem& fs, const std::string& path);

// The text of the symbolic link PATH's last component is ("/etc/shadow"),
// or nullopt when it is not a link (or does not exist). Links in the middle
// of PATH do not count: they are resolved under the root as always.
std::optional<std::string> link_at(const FileSystem& fs, const std::string& path);

// Removes PATH and, when it is a folder, everything in it, through FS's own
// calls: a symbolic link inside is removed itself and never followed, so
// nothing outside PATH goes (and nothing outside the root, which FS
// confines). No error when PATH does not exist.
void remove_tree(FileSystem& fs, const std::string& path);

// Why a link where the tool writes is refused, and what to do instead.
inline constexpr const char* kNoLinksWhy =
    "wslgpu-setup runs as root and never reads or writes a file it manages through a symbolic link: whoever "
    "made the link would choose which file root overwrites. Replace the link with the file it points to (or "
    "remove it), then run wslgpu-setup again.";

// Resolves target PATH under ROOT the way the kernel would after chroot(ROOT):
// ".." never climbs above ROOT and absolute symbolic link targets restart at
// ROOT. The last component is resolved too when FOLLOW_LAST is true. Returns
// a host path. Throws StepFailure on a symbolic link loop.
std::string resolve_under_root(const std::string& root, const std::string& path, bool follow_last = true);

// TO (a host path) names FROM's bytes: a hard link where both are on one
// filesystem, else a new copy (mode 0600, fsynced; removed on failure). A
// file already at TO is replaced. For the journal's backups and the undo
// store, whose files are only ever replaced by renames, never in place.
void link_or_copy_host_file(const std::string& from, const std::string& to);

}  // namespace wslgpu
