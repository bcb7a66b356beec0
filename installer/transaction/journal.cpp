#include "installer/transaction/journal.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>

#include <optional>

#include <spdlog/spdlog.h>

#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/transaction/state_format.hpp"

namespace wslgpu {

namespace {

std::string unreadable_reason(const std::string& tx_root) {
  return "the transactions in " + tx_root +
         " are readable by root only, because their backups may hold secrets (the files the runs replaced)";
}

void make_dirs_host(const std::string& path) {
  std::string so_far;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    so_far += "/" + part;
    if (::mkdir(so_far.c_str(), 0700) != 0 && errno != EEXIST)
      throw StepFailure("cannot create " + so_far + ": " + std::strerror(errno));
  }
}

void fsync_path(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

std::string read_host_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw StepFailure("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

void write_file_durably(const std::string& path, const std::string& content, std::uint32_t mode) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) throw StepFailure("cannot write " + tmp + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      throw StepFailure("cannot write " + tmp + ": " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  // fchmod: the umask may have taken bits off MODE.
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0 ||
      ::rename(tmp.c_str(), path.c_str()) != 0)
    throw StepFailure("cannot write " + path + ": " + std::strerror(errno));
  fsync_path(path.substr(0, path.rfind('/')), O_RDONLY | O_DIRECTORY);
}

namespace {

// Space kept for the records a rollback must write (one "undone" per step,
// then "end"), on a disk the failed step may have filled: a file of this
// size in the transaction folder, given back when an append finds the disk
// full, and removed when the run ends.
constexpr off_t kReserveBytes = 256 * 1024;

void make_reserve(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return;  // best effort: the journal works without it
  int rc = ::posix_fallocate(fd, 0, kReserveBytes);
  if (rc == EOPNOTSUPP || rc == ENOSYS || rc == EINVAL) {
    // A file system without fallocate: real blocks of zeros instead.
    static const char zeros[65536] = {};
    for (off_t done = 0; done < kReserveBytes; done += static_cast<off_t>(sizeof zeros))
      if (::write(fd, zeros, sizeof zeros) != static_cast<ssize_t>(sizeof zeros)) break;
  }
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

TransactionsNeedRoot::TransactionsNeedRoot(const std::string& tx_root)
    : Refusal("needs root: " + unreadable_reason(tx_root) + ".\n  Run it again with sudo."),
      reason_(unreadable_reason(tx_root)) {}

Journal Journal::create(const std::string& tx_root, const std::string& id) {
  Journal j;
  j.id_ = id;
  j.dir_ = tx_root + "/" + id;
  make_dirs_host(j.dir_ + "/backups");
  make_reserve(j.dir_ + "/reserve");
  fsync_path(tx_root, O_RDONLY | O_DIRECTORY);
  return j;
}

Journal Journal::open(const std::string& tx_root, const std::string& id) {
  Journal j;
  j.id_ = id;
  j.dir_ = tx_root + "/" + id;
  struct stat st {};
  if (::stat((j.dir_ + "/journal.jsonl").c_str(), &st) != 0) {
    if (errno == EACCES) throw TransactionsNeedRoot(tx_root);
    throw Error(ExitCode::bad_input, "there is no transaction " + id + " (see `sudo wslgpu-setup history`)");
  }
  // The begin record alone says the format: a newer one is not read further.
  {
    std::ifstream in(j.dir_ + "/journal.jsonl");
    std::string first;
    if (in && std::getline(in, first)) {
      auto begin = nlohmann::json::parse(first, nullptr, false);
      // Any first record with a format is read for it: a newer format may
      // have renamed the begin record itself.
      if (!begin.is_discarded() && begin.is_object()) {
        refuse_newer_state("transaction " + id, begin);
        j.state_format_ = state_format_of(begin);
      }
    }
  }
  // Continue numbering blobs after the ones already stored.
  if (DIR* d = ::opendir((j.dir_ + "/backups").c_str())) {
    while (auto* e = ::readdir(d)) j.blob_counter_ = std::max(j.blob_counter_, std::atoi(e->d_name));
    ::closedir(d);
  }
  return j;
}

void Journal::append(const nlohmann::json& record) {
  std::string line = record.dump() + "\n";
  std::string path = dir_ + "/journal.jsonl";
  const std::string reserve = dir_ + "/reserve";
  for (int attempt = 0;; ++attempt) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) throw StepFailure("cannot write the journal " + path + ": " + std::strerror(errno));
    struct stat before {};
    ::fstat(fd, &before);
    bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
    int err = errno;
    if (!ok) (void)!::ftruncate(fd, before.st_size);  // no half record left behind
    ::close(fd);
    if (ok) break;
    // The disk is full (a step filled it): give back the reserve and try
    // once more, so that the rollback can still be recorded.
    if ((err == ENOSPC || err == EDQUOT) && attempt == 0 && ::unlink(reserve.c_str()) == 0) {
      spdlog::warn("the disk holding the journal is full; using the space reserved for the rollback's records");
      fsync_path(dir_, O_RDONLY | O_DIRECTORY);
      continue;
    }
    throw StepFailure("cannot write the journal " + path + ": " + std::strerror(err));
  }
  if (record.value("type", "") == "end") ::unlink(reserve.c_str());
}

std::string Journal::store_blob(const std::string& content) {
  std::string name = "backups/" + std::to_string(++blob_counter_);
  write_file_durably(dir_ + "/" + name, content);
  return name;
}

std::string Journal::read_blob(const std::string& name) const { return read_host_file(dir_ + "/" + name); }

std::string Journal::store_file_blob(const std::string& host_path) {
  std::string name = "backups/" + std::to_string(++blob_counter_);
  link_or_copy_host_file(host_path, dir_ + "/" + name);
  fsync_path(dir_ + "/backups", O_RDONLY | O_DIRECTORY);
  return name;
}

void Journal::restore_file_blob(const std::string& name, const std::string& host_path, std::uint32_t mode,
                                std::uint32_t uid, std::uint32_t gid) const {
  std::string dir = host_path.substr(0, host_path.rfind('/'));
  std::string tmp = (dir.empty() ? "" : dir) + "/." + host_path.substr(host_path.rfind('/') + 1) + ".wslgpu-restore";
  link_or_copy_host_file(dir_ + "/" + name, tmp);
  // Owner first: chown clears setuid/setgid bits, so the mode goes after it.
  if (::chown(tmp.c_str(), uid, gid) != 0 || ::chmod(tmp.c_str(), static_cast<mode_t>(mode)) != 0 ||
      ::rename(tmp.c_str(), host_path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw StepFailure("cannot restore " + host_path + " from " + dir_ + "/" + name + ": " + std::strerror(e));
  }
  fsync_path(dir.empty() ? "/" : dir, O_RDONLY | O_DIRECTORY);
}

void Journal::write_plan(const nlohmann::json& plan) { write_file_durably(dir_ + "/plan.json", plan.dump(2) + "\n"); }

nlohmann::json Journal::read_plan() const { return nlohmann::json::parse(read_host_file(dir_ + "/plan.json")); }

std::vector<nlohmann::json> Journal::records() const {
  std::vector<nlohmann::json> out;
  std::ifstream in(dir_ + "/journal.jsonl");
  std::string line;
  std::size_t number = 0;
  std::size_t unreadable = 0;  // the line number of an unreadable line, 0 for none
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object()) {
      unreadable = number;  // torn, if nothing follows
      continue;
    }
    if (unreadable != 0) {
      spdlog::warn("the journal of transaction {}: line {} is unreadable and was skipped; the records after it "
                   "are read", id_, unreadable);
      unreadable = 0;
    }
    out.push_back(std::move(record));
  }
  return out;
}

std::string Journal::cut_torn_tail() {
  std::string path = dir_ + "/journal.jsonl";
  std::string text = read_host_file(path);
  if (text.empty() || text.back() == '\n') return {};
  std::size_t keep = text.rfind('\n');
  keep = keep == std::string::npos ? 0 : keep + 1;
  std::string torn = text.substr(keep);
  auto record = nlohmann::json::parse(torn, nullptr, false);
  if (!record.is_discarded() && record.is_object()) {
    // Whole, but for its line break (killed between the two): keep it.
    int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    bool ok = fd >= 0 && ::write(fd, "\n", 1) == 1 && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!ok) throw StepFailure("cannot repair the journal " + path + ": " + std::strerror(errno));
    return {};
  }
  if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0)
    throw StepFailure("cannot repair the journal " + path + ": " + std::strerror(errno));
  fsync_path(path, O_WRONLY);
  std::string shown = torn.size() > 60 ? torn.substr(0, 60) + "…" : torn;
  spdlog::warn("the journal of transaction {} ended in an incomplete record ({} bytes: {}), cut off when the run "
               "was killed; it was ignored, and recovery went by the complete records before it",
               id_, torn.size(), shown);
  return torn;
}

bool Journal::ended() const {
  int fd = ::open((dir_ + "/journal.jsonl").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  std::string tail;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    // An "end" record is under 100 bytes; 4 KiB holds it and the line break before it.
    off_t from = std::max<off_t>(0, st.st_size - 4096);
    tail.resize(static_cast<std::size_t>(st.st_size - from));
    ssize_t got = ::pread(fd, tail.data(), tail.size(), from);
    tail.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    if (from > 0) {  // the first line may be cut: drop it
      auto nl = tail.find('\n');
      tail.erase(0, nl == std::string::npos ? tail.size() : nl + 1);
    }
  }
  ::close(fd);
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  if (tail.empty()) return false;
  auto start = tail.rfind('\n');
  std::string_view last = std::string_view(tail).substr(start == std::string::npos ? 0 : start + 1);
  nlohmann::json record = nlohmann::json::parse(last, nullptr, false);  // no exceptions: a torn line is "not ended"
  if (record.is_discarded() || !record.is_object()) return false;
  // The last record alone, read by the one rule of what "ended" means.
  return is_finished(summarize(id_, {record}).status);
}

bool is_finished(const std::string& status) { return status == "committed" || status == "rolled_back"; }

TransactionSummary summarize(const std::string& id, const std::vector<nlohmann::json>& records) {
  TransactionSummary s;
  s.id = id;
  s.status = "interrupted";
  std::vector<std::string> open_intents;
  for (const auto& r : records) {
    std::string type = r.value("type", "");
    if (type == "begin") {
      s.time = r.value("time", "");
      s.manifest = r.value("manifest", "");
      s.source = r.value("source", "");
    } else if (type == "intent") {
      open_intents.push_back(r.value("step", ""));
    } else if (type == "outcome") {
      std::erase(open_intents, r.value("step", ""));
      if (r.value("status", "") == "applied") {
        ++s.changed_steps;
        s.last_applied_step = r.value("step", "");
      }
    } else if (type == "rollback") {
      // A rollback began: until its end record, the machine is half undone
      // (killed, or an undo failed), whatever the run's end said before.
      s.status = "half_undone";
      s.undo_failure.clear();
    } else if (type == "undo_failed") {
      s.undo_failure = "step \"" + r.value("step", "") + "\": " + r.value("msg", "");
    } else if (type == "end") {
      s.status = r.value("status", "interrupted");
      s.undo_failure.clear();
    }
  }
  if (s.status == "interrupted" && !open_intents.empty()) s.interrupted_step = open_intents.back();
  return s;
}

std::vector<std::string> list_transactions(const std::string& tx_root) {
  std::vector<std::string> ids;
  DIR* d = ::opendir(tx_root.c_str());
  if (!d && errno == EACCES) throw TransactionsNeedRoot(tx_root);  // never "no transactions" for "cannot see them"
  if (d) {
    while (auto* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != ".." && name.find('.') == std::string::npos) ids.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string new_transaction_id() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  // Milliseconds then one random hex digit: ids sort by time even within a second.
  static std::mt19937 rng{std::random_device{}()};
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%03d%x", static_cast<int>(ms), static_cast<unsigned>(rng() & 0xf));
  return std::string(buf) + "-" + suffix;
}

}  // namespace wslgpu
