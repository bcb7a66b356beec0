#include "installer/plan/plan.hpp"

namespace wslgpu {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::noop: return "no-op";
    case Verdict::change: return "change";
    case Verdict::refused: return "refused";
    case Verdict::verify: return "verify";
    case Verdict::skipped: return "skipped";
  }
  return "?";
}

bool Plan::changes_pending() const {
  for (const auto& s : steps)
    if (s.plan.verdict == Verdict::change || s.plan.verdict == Verdict::refused) return true;
  return false;
}

std::uint64_t Plan::download_bytes() const {
  std::uint64_t n = 0;
  for (const auto& s : steps)
    if (s.plan.verdict == Verdict::change) n += s.plan.download_bytes;
  return n;
}

std::int64_t Plan::disk_bytes() const {
  std::int64_t n = 0;
  for (const auto& s : steps)
    if (s.plan.verdict == Verdict::change) n += s.plan.disk_bytes;
  return n;
}

std::vector<UndoKeep> Plan::undo_keeps() const {
  // One copy serves every step that changes the same version.
  std::vector<UndoKeep> out;
  for (const auto& s : steps) {
    if (s.plan.verdict != Verdict::change) continue;
    for (const auto& k : s.plan.keeps) {
      bool seen = false;
      for (const auto& o : out)
        seen = seen || (o.name == k.name && o.version == k.version && o.architecture == k.architecture);
      if (!seen) out.push_back(k);
    }
  }
  return out;
}

std::uint64_t Plan::undo_store_bytes() const {
  std::uint64_t n = 0;
  for (const auto& k : undo_keeps())
    if (!k.from.empty()) n += k.bytes;
  return n;
}

std::vector<UndoKeep> Plan::undo_gaps() const {
  std::vector<UndoKeep> out;
  for (const auto& k : undo_keeps())
    if (k.from.empty()) out.push_back(k);
  return out;
}

bool Plan::refused() const { return !refusals.empty() || count(Verdict::refused) > 0; }

std::size_t Plan::count(Verdict v) const {
  std::size_t n = 0;
  for (const auto& s : steps) n += s.plan.verdict == v;
  return n;
}

std::size_t Plan::count_not_asked() const {
  std::size_t n = 0;
  for (const auto& s : steps) n += !s.plan.not_asked.empty();
  return n;
}

}  // namespace wslgpu
