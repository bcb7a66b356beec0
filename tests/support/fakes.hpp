// Fakes for unit tests: an in-memory FileSystem and a scripted
// ProcessRunner. The real-root tier (tests/realroot) proves that the real
// implementations behave as these pretend.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "installer/system/filesystem.hpp"
#include "installer/host/host.hpp"
#include "installer/system/process.hpp"

namespace wslgpu::testing {

class MemoryFileSystem : public FileSystem {
 public:
  struct Node {
    FileInfo info;
    std::string content;
  };

  // Test set-up helpers.
  void add_file(const std::string& path, const std::string& content, std::uint32_t mode = 0644, std::uint32_t uid = 0,
                std::uint32_t gid = 0);
  void add_dir(const std::string& path, std::uint32_t mode = 0755);
  void add_char_device(const std::string& path, std::uint32_t mode = 0666);
  // A symbolic link to TARGET (an absolute path, or names under PATH's
  // folder, without ".."). stat and read follow it, lstat does not. Only a
  // link at a path's last component is followed: the fake resolves no links
  // in the middle.
  void add_symlink(const std::string& path, const std::string& target);
  // Gives PATH (which must exist) another owner, as chown would.
  void set_owner(const std::string& path, std::uint32_t uid, std::uint32_t gid);
  const std::map<std::string, Node>& nodes() const { return nodes_; }
  int writes = 0;  // how many write_atomic and remove calls changed something

  std::optional<FileInfo> stat(const std::string& path) const override;
  std::optional<FileInfo> lstat(const std::string& path) const override;
  std::optional<std::string> read_link(const std::string& path) const override;
  std::string read(const std::string& path) const override;
  std::vector<std::string> list(const std::string& dir) const override;
  void write_atomic(const std::string& path, std::string_view content, const FileAttrs& attrs) override;
  void remove(const std::string& path) override;
  void make_dirs(const std::string& path, std::uint32_t mode) override;
  void rename(const std::string& from, const std::string& to) override;
  std::string host_path(const std::string& path) const override { return "/fake" + path; }

 private:
  // PATH with the links at its last component followed (unchanged when none).
  std::string follow(const std::string& path) const;

  std::map<std::string, Node> nodes_;
};

// Answers commands from a script: the first rule whose argv prefix matches
// gives the result. Every command run is recorded in `calls`.
// What a program the fake runner answers for did: its exit status, and what
// it wrote to standard error and standard output.
inline ProcessResult exited(int code, const std::string& err = "", const std::string& out = "") {
  ProcessResult r;
  r.exit_code = code;
  r.err = err;
  r.out = out;
  return r;
}

class FakeProcessRunner : public ProcessRunner {
 public:
  void on(std::vector<std::string> argv_prefix, ProcessResult result);
  void on(std::vector<std::string> argv_prefix, std::function<ProcessResult(const Command&)> handler);
  ProcessResult run(const Command& cmd) override;
  std::vector<Command> calls;

 private:
  std::vector<std::pair<std::vector<std::string>, std::function<ProcessResult(const Command&)>>> rules_;
};

// The facts of a WSL2 Ubuntu 24.04 (noble) machine with an AMD driver mount,
// user alice (1000) and Windows home /mnt/c/Users/alice, for tests that need
// host facts without a machine.
HostFacts fake_wsl_host();

// A temporary folder, removed (recursively) when the object goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes a file under the folder (PATH relative, parents created).
  void write(const std::string& relative, const std::string& content) const;

 private:
  std::string path_;
};

}  // namespace wslgpu::testing
