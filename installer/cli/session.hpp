// The machine a command acts on (its files under --root, its processes, its
// facts), and what every command that changes it does first: refuse without
// root, then take the state folder's lock.
#pragma once
#include <string>

#include "installer/cli/commands.hpp"
#include "installer/host/host.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/system/process.hpp"
#include "installer/transaction/lock.hpp"
#include "installer/transaction/transaction.hpp"

namespace wslgpu {

// Probes the host under G.root once (checking --root first, exit 2); the
// NVIDIA driver only when a manifest asks for host.nvidia_*.
struct Session {
  RootedFileSystem fs;
  RealProcessRunner runner;
  HostFacts host;

  explicit Session(const GlobalOptions& g);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

// install, rollback and recover change the machine. Without root they are
// refused here, by the root guard (exit 3), before they touch the state
// folder or the lock, whose files only root may write: otherwise the first
// thing the user saw was a permission error and the exit status of a failed
// step. COMMAND is the verb as the message names it ("history --prune").
void refuse_unless_root(const GlobalOptions& g, const std::string& command);

// What install, rollback and recover do before they read the state: refuse
// a newer format while nothing has been touched, then make the state folder
// and take the lock (waiting as O says).
RunLock lock_state(Session& s, const Transactions& tx, const ChangeOptions& o);

}  // namespace wslgpu
