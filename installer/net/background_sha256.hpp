// SHA-256 of a stream, computed on a second thread.
//
// Why: a download's own work is receiving the bytes and writing them; hashing
// them on the same thread (about 0.6 s per GiB even with the CPU's SHA
// instructions) made the download step half as fast as `curl -o` on a
// loopback server. Here the receiving thread only copies each chunk into a
// block (a memcpy of data still in cache) and a worker hashes full blocks
// meanwhile, so hashing costs wall time only when no core is free.
//
// Small streams never start the thread: it starts when the first block
// fills (kBlockSize bytes).
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "installer/formats/sha256.hpp"

namespace wslgpu {

class BackgroundSha256 {
 public:
  static constexpr std::size_t kBlockSize = 128 * 1024;
  // At most this many full blocks wait; with the one being filled and the
  // one being hashed, 768 KiB. Fewer or smaller blocks stalled the receiving
  // thread (2 x 128 KiB: 10 % slower on loopback); larger ones cost memory
  // that counts against the 16 MiB peak (docs/performance.md).
  static constexpr std::size_t kBlocksInFlight = 4;

  BackgroundSha256() = default;
  ~BackgroundSha256();
  BackgroundSha256(const BackgroundSha256&) = delete;
  BackgroundSha256& operator=(const BackgroundSha256&) = delete;

  // Adds DATA to the stream. Blocks only when kBlocksInFlight blocks wait
  // for the worker.
  void update(std::string_view data);
  // The digest of everything added so far (lowercase hex); more may be added
  // afterwards.
  std::string hex_digest_so_far();
  // Forgets everything added: the stream starts again, empty.
  void reset();

 private:
  void hand_off_current();
  void wait_until_idle(std::unique_lock<std::mutex>& lock);
  void work();

  Sha256 state_;  // the worker's, guarded by mutex_ between blocks
  std::vector<char> current_;  // the block being filled, on the caller's thread
  std::deque<std::vector<char>> queue_;  // full blocks waiting for the worker
  std::vector<std::vector<char>> spare_;  // hashed blocks, kept for reuse
  bool busy_ = false;  // the worker is hashing a block it took off the queue
  bool stopping_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread worker_;
};

}  // namespace wslgpu
