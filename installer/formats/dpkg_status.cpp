#include "installer/formats/dpkg_status.hpp"

#include <thread>

#include <spdlog/spdlog.h>

#include "installer/formats/deb822.hpp"
#include "installer/system/error.hpp"
#include "installer/system/file_lock.hpp"

namespace wslgpu {

DpkgStatus DpkgStatus::parse(const std::string& text, const std::string& file) {
  DpkgStatus db;
  for (const auto& stanza : parse_deb822(text, file)) {
    auto name = stanza.get("Package");
    if (!name) continue;  // dpkg never writes such a stanza; skip rather than guess
    DpkgPackage p;
    p.name = *name;
    p.version = stanza.get_or("Version", "");
    p.architecture = stanza.get_or("Architecture", "");
    auto words = split_words(stanza.get_or("Status", ""));
    if (words.size() == 3) {
      p.want = words[0];
      p.flag = words[1];
      p.status = words[2];
    } else {
      p.status = "not-installed";
    }
    db.packages_.push_back(p);
    std::size_t i = db.packages_.size() - 1;
    // The first present entry of a name wins the plain name; every entry is
    // also reachable as name:arch.
    auto it = db.index_.find(p.name);
    if (it == db.index_.end() || (!db.packages_[it->second].present() && p.present())) db.index_[p.name] = i;
    if (!p.architecture.empty()) db.index_[p.name + ":" + p.architecture] = i;
  }
  return db;
}

DpkgStatus DpkgStatus::read(const FileSystem& fs) {
  const std::string path = "/var/lib/dpkg/status";
  auto info = fs.stat(path);
  if (!info) return DpkgStatus{};
  return parse(fs.read(path), path);
}

const DpkgPackage* DpkgStatus::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &packages_[it->second];
}

bool DpkgStatus::is_installed(const std::string& name) const {
  const DpkgPackage* p = find(name);
  return p && p->installed();
}

std::map<std::string, std::string> DpkgStatus::installed() const {
  std::map<std::string, std::string> out;
  std::map<std::string, int> count;
  for (const auto& p : packages_)
    if (p.installed()) ++count[p.name];
  for (const auto& p : packages_) {
    if (!p.installed()) continue;
    if (!out.count(p.name)) out[p.name] = p.version;
    if (count[p.name] > 1) out[p.name + ":" + p.architecture] = p.version;
  }
  return out;
}

std::map<std::string, std::string> DpkgStatus::present() const {
  std::map<std::string, std::string> out;
  for (const auto& p : packages_)
    if (p.present() && !out.count(p.name)) out[p.name] = p.version;
  return out;
}

std::vector<std::string> pending_dpkg_updates(const FileSystem& fs) {
  std::vector<std::string> out;
  for (const auto& name : fs.list("/var/lib/dpkg/updates")) {
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) out.push_back(name);
  }
  return out;
}

namespace {

// The holder of either of dpkg's locks: apt takes lock-frontend for its
// whole run, dpkg takes lock while it works (also when run by hand).
std::optional<LockHolder> dpkg_lock_holder(const FileSystem& fs) {
  for (const char* lock : {"/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock"})
    if (auto h = posix_lock_holder(fs.host_path(lock))) return h;
  return std::nullopt;
}

}  // namespace

void require_no_pending_dpkg_updates(const FileSystem& fs, std::chrono::seconds lock_wait) {
  auto holder = dpkg_lock_holder(fs);
  if (holder) {
    spdlog::info("dpkg's lock is held by {}; waiting up to {} s for it", holder->describe(), lock_wait.count());
    auto deadline = std::chrono::steady_clock::now() + lock_wait;
    while (holder && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      holder = dpkg_lock_holder(fs);
    }
    if (holder)
      throw StepFailure("dpkg's lock is held by " + holder->describe() + " (another package manager is running), " +
                        (lock_wait.count() > 0 ? "for longer than this step's lock_timeout of " +
                                                     std::to_string(lock_wait.count()) + " s"
                                               : std::string("and this step does not wait (lock_timeout = 0)")) +
                        ".\nLet it finish, or raise the step's lock_timeout, then run wslgpu-setup again.");
  }
  auto pending = pending_dpkg_updates(fs);
  if (pending.empty()) return;
  throw StepFailure("an earlier dpkg run was interrupted: /var/lib/dpkg/updates/ holds " +
                    std::to_string(pending.size()) + (pending.size() == 1 ? " unfinished entry" : " unfinished entries") +
                    ", and apt will not work until dpkg has finished it.\nRun `sudo dpkg --configure -a`, then run "
                    "wslgpu-setup again.");
}

}  // namespace wslgpu
