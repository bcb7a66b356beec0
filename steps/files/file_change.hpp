// Shared by every step kind whose effect is a whole file (file, profile_env,
// wslconfig, wslconf, apt_repository): compares the wanted file with what is
// there and fills a StepPlan with the verdict, a unified diff, the change
// record, the fingerprint and the FileWrite that the runner will carry out.
#pragma once
#include <optional>
#include <string>

#include "installer/system/filesystem.hpp"
#include "installer/plan/plan.hpp"

namespace wslgpu {

// The current state of a file, as a plan sees it.
struct ExistingFile {
  std::optional<FileInfo> info;      // nullopt: absent
  std::optional<std::string> content;  // set for regular files
};

// Throws the guard no-writes-through-links' Refusal, naming the link's
// target, when PATH's last component is a symbolic link.
void refuse_link(const FileSystem& fs, const std::string& path);

// refuse_link, then what is at PATH.
ExistingFile probe_file(const FileSystem& fs, const std::string& path);

// Adds to PLAN what it takes to make PATH hold CONTENT with ATTRS (or, with
// CONTENT empty, to make PATH absent). Sets plan.verdict to change when
// anything differs; leaves it alone otherwise. Returns whether it differs.
bool plan_file(const FileSystem& fs, const std::string& path, const std::optional<std::string>& content,
               const FileAttrs& attrs, StepPlan& plan);

// "0644"
std::string mode_string(std::uint32_t mode);

}  // namespace wslgpu
