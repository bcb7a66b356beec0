// When a transaction's undo store may go (installer/undo/undo_store.hpp).
//
// A store exists so that its transaction can be rolled back without the
// network; it may go once that transaction can no longer be rolled back:
//   - it was rolled back (the rollback removes its store itself);
//   - a later transaction that changed any of the same packages was
//     committed: rolling the earlier one back would undo the later one's
//     packages under it, so the later one must be rolled back first, and its
//     own store holds what that needs.
// An interrupted or half-undone transaction keeps its store whatever
// follows: `recover --rollback` needs it. `history --prune` applies this
// policy (docs/transactions.md, "The undo store").
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace wslgpu {

struct StoreUse {
  std::string id;      // transaction ids sort by time (new_transaction_id)
  std::string status;  // "committed", "rolled_back", "interrupted", "half_undone"
  std::set<std::string> packages;  // every package it installed, upgraded, downgraded or removed
  std::uint64_t store_bytes = 0;   // 0: no store (nothing to prune)
};

struct Prunable {
  std::string id;
  std::string why;  // "rolled back", "superseded by 20261202-101500-42 (rocm-core, rocm-dev)"
  std::uint64_t store_bytes = 0;
};

// The stores TRANSACTIONS' policy lets go, oldest first. TRANSACTIONS in
// any order.
std::vector<Prunable> prunable_stores(std::vector<StoreUse> transactions);

}  // namespace wslgpu
