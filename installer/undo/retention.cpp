#include "installer/undo/retention.hpp"

#include <algorithm>

namespace wslgpu {

std::vector<Prunable> prunable_stores(std::vector<StoreUse> transactions) {
  std::sort(transactions.begin(), transactions.end(), [](const StoreUse& a, const StoreUse& b) { return a.id < b.id; });
  std::vector<Prunable> out;
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    const StoreUse& t = transactions[i];
    if (t.store_bytes == 0) continue;
    if (t.status == "rolled_back") {
      out.push_back({t.id, "rolled back", t.store_bytes});
      continue;
    }
    // Only a finished transaction's store may go: recover needs the others'.
    if (t.status != "committed") continue;
    for (std::size_t j = i + 1; j < transactions.size(); ++j) {
      const StoreUse& later = transactions[j];
      if (later.status != "committed") continue;
      std::vector<std::string> shared;
      for (const auto& p : t.packages)
        if (later.packages.count(p)) shared.push_back(p);
      if (shared.empty()) continue;
      std::string names;
      for (std::size_t k = 0; k < shared.size() && k < 3; ++k) names += (k ? ", " : "") + shared[k];
      if (shared.size() > 3) names += " and " + std::to_string(shared.size() - 3) + " more";
      out.push_back({t.id, "superseded by " + later.id + " (" + names + ")", t.store_bytes});
      break;
    }
  }
  return out;
}

}  // namespace wslgpu
