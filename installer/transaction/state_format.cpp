#include "installer/transaction/state_format.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "installer/transaction/journal.hpp"

namespace wslgpu {

NewerStateFormat::NewerStateFormat(const std::string& what, int format, const std::string& writer)
    : Error(ExitCode::bad_input,
            what + " was written by wslgpu-setup " + (writer.empty() ? std::string("(unknown version)") : writer) +
                " (state format " + std::to_string(format) +
                "); this is wslgpu-setup " WSLGPU_VERSION ", which reads state formats " +
                std::to_string(kOldestStateFormat) + " to " + std::to_string(kStateFormat) +
                ", so it does not read it rather than misread it. Nothing was changed.\n"
                "  Upgrade wslgpu-setup (sudo apt install --only-upgrade wslgpu-setup), then run it again.") {}

int state_format_of(const nlohmann::json& record) {
  if (!record.is_object()) return 1;
  auto it = record.find("state_format");
  if (it == record.end()) return 1;
  // A format that is not a whole number was not written by any version we
  // know: a newer one, as far as this tool can tell.
  return it->is_number_integer() ? it->get<int>() : kStateFormat + 1;
}

void refuse_newer_state(const std::string& what, const nlohmann::json& record) {
  int format = state_format_of(record);
  if (format <= kStateFormat) return;
  throw NewerStateFormat(what, format, record.is_object() ? record.value("tool_version", "") : "");
}

namespace {

// The stamp as JSON: absent when there is no file. Text that is no stamp
// is refused, never read as "none": only wslgpu-setup writes the file.
std::optional<nlohmann::json> read_stamp(const std::string& host_path) {
  std::ifstream in(host_path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(ExitCode::bad_input, "cannot read " + host_path + ": " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto stamp = nlohmann::json::parse(text.str(), nullptr, false);
  if (stamp.is_discarded() || !stamp.is_object() || !stamp.contains("state_format")) {
    std::string shown = text.str().size() > 60 ? text.str().substr(0, 60) + "…" : text.str();
    throw Error(ExitCode::bad_input,
                host_path + " holds no state format this wslgpu-setup (" WSLGPU_VERSION ") can read (\"" + shown +
                    "\"); a newer version may have written it. Nothing was changed.\n"
                    "  Upgrade wslgpu-setup (sudo apt install --only-upgrade wslgpu-setup), then run it again.");
  }
  return stamp;
}

}  // namespace

void check_state_stamp(const std::string& host_path) {
  std::string dir = host_path.substr(0, host_path.rfind('/'));
  if (auto stamp = read_stamp(host_path)) refuse_newer_state("the state in " + dir, *stamp);
}

void write_state_stamp(const std::string& host_path) {
  auto stamp = read_stamp(host_path);
  if (stamp && state_format_of(*stamp) >= kStateFormat) return;
  // Readable by all: plan, which needs no root, reads it too, and it holds no secret.
  write_file_durably(
      host_path, nlohmann::json{{"state_format", kStateFormat}, {"tool_version", WSLGPU_VERSION}}.dump() + "\n", 0644);
}

}  // namespace wslgpu
