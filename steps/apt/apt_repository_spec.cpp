#include "steps/apt/apt_repository_spec.hpp"

#include <chrono>
#include <ctime>

namespace wslgpu::apt_repo {

StepPlan refusal(const std::string& summary, const std::vector<std::string>& details) {
  StepPlan p;
  p.verdict = Verdict::refused;
  p.summary = summary;
  p.details = details;
  return p;
}

std::string join_repo(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

std::string utc_date(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  ::gmtime_r(&tt, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace wslgpu::apt_repo
