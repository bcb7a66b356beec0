// Users and groups of the target, read from ROOT/etc/passwd and
// ROOT/etc/group (never from the running machine's NSS), so that a plan for
// a root folder speaks of that root's accounts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

struct GroupEntry {
  std::string name;
  std::uint32_t gid = 0;
  std::vector<std::string> members;
};

struct UserEntry {
  std::string name;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::string home;
};

std::vector<GroupEntry> parse_group_file(const std::string& text);
std::vector<UserEntry> parse_passwd_file(const std::string& text);

class Accounts {
 public:
  explicit Accounts(const FileSystem& fs);
  std::optional<UserEntry> user(const std::string& name) const;
  std::optional<GroupEntry> group(const std::string& name) const;
  // A numeric string ("1000") or a name; nullopt when unknown.
  std::optional<std::uint32_t> uid_of(const std::string& name_or_id) const;
  std::optional<std::uint32_t> gid_of(const std::string& name_or_id) const;
  const std::vector<GroupEntry>& groups() const { return groups_; }

 private:
  std::vector<UserEntry> users_;
  std::vector<GroupEntry> groups_;
};

}  // namespace wslgpu
