#include "installer/system/error.hpp"

namespace wslgpu {

std::string SourcePos::str() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

std::string Diagnostic::str() const { return pos.str() + ": " + message; }

namespace {
std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    if (!out.empty()) out += "\n";
    out += d.str();
  }
  return out;
}
}  // namespace

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : Error(ExitCode::bad_input, join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace wslgpu
