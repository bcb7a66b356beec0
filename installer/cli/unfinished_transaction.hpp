// An interrupted or half-undone transaction blocks every new install until
// `recover` finishes it (exit 5); plan warns of it. What it is called here
// and the commands that finish it.
#pragma once
#include <string>

#include "installer/transaction/journal.hpp"
#include "installer/transaction/transaction.hpp"

namespace wslgpu {

// What is unfinished about transaction T, and the commands that finish it.
std::string unfinished_text(const TransactionSummary& t);

// Throws Error(needs_recovery) with unfinished_text when TX has an
// unfinished transaction.
void refuse_if_interrupted(const Transactions& tx);

}  // namespace wslgpu
