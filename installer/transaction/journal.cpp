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

#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

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

void write_file_durably(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
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
  if (::fsync(fd) != 0 || ::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0)
    throw StepFailure("cannot write " + path + ": " + std::strerror(errno));
  fsync_path(path.substr(0, path.rfind('/')), O_RDONLY | O_DIRECTORY);
}

Journal Journal::create(const std::string& tx_root, const std::string& id) {
  Journal j;
  j.id_ = id;
  j.dir_ = tx_root + "/" + id;
  make_dirs_host(j.dir_ + "/backups");
  fsync_path(tx_root, O_RDONLY | O_DIRECTORY);
  return j;
}

Journal Journal::open(const std::string& tx_root, const std::string& id) {
  Journal j;
  j.id_ = id;
  j.dir_ = tx_root + "/" + id;
  struct stat st {};
  if (::stat((j.dir_ + "/journal.jsonl").c_str(), &st) != 0)
    throw Error(ExitCode::bad_input, "there is no transaction " + id + " (see `wslgpu-setup history`)");
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
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw StepFailure("cannot write the journal " + path + ": " + std::strerror(errno));
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw StepFailure("cannot write the journal " + path + ": " + std::strerror(errno));
}

std::string Journal::store_blob(const std::string& content) {
  std::string name = "backups/" + std::to_string(++blob_counter_);
  write_file_durably(dir_ + "/" + name, content);
  return name;
}

std::string Journal::read_blob(const std::string& name) const { return read_host_file(dir_ + "/" + name); }

void Journal::write_plan(const nlohmann::json& plan) { write_file_durably(dir_ + "/plan.json", plan.dump(2) + "\n"); }

nlohmann::json Journal::read_plan() const { return nlohmann::json::parse(read_host_file(dir_ + "/plan.json")); }

std::vector<nlohmann::json> Journal::records() const {
  std::vector<nlohmann::json> out;
  std::ifstream in(dir_ + "/journal.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      out.push_back(nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception&) {
      break;  // a torn write from a crash: nothing after it was acted on
    }
  }
  return out;
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
  return summarize(id_, {record}).status != "interrupted";
}

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
    } else if (type == "end") {
      s.status = r.value("status", "interrupted");
    }
  }
  if (s.status == "interrupted" && !open_intents.empty()) s.interrupted_step = open_intents.back();
  return s;
}

std::vector<std::string> list_transactions(const std::string& tx_root) {
  std::vector<std::string> ids;
  if (DIR* d = ::opendir(tx_root.c_str())) {
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
