#include "installer/net/background_sha256.hpp"

#include <cstring>

namespace wslgpu {

BackgroundSha256::~BackgroundSha256() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void BackgroundSha256::update(std::string_view data) {
  while (!data.empty()) {
    if (current_.capacity() < kBlockSize) current_.reserve(kBlockSize);
    std::size_t take = std::min(data.size(), kBlockSize - current_.size());
    current_.insert(current_.end(), data.data(), data.data() + take);
    data.remove_prefix(take);
    if (current_.size() == kBlockSize) hand_off_current();
  }
}

void BackgroundSha256::hand_off_current() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
  changed_.wait(lock, [this] { return queue_.size() < kBlocksInFlight; });
  queue_.push_back(std::move(current_));
  if (!spare_.empty()) {
    current_ = std::move(spare_.back());
    spare_.pop_back();
  } else {
    current_ = {};
  }
  current_.clear();
  changed_.notify_all();
}

void BackgroundSha256::wait_until_idle(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void BackgroundSha256::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, with nothing left
    std::vector<char> block = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    // state_ is only touched here while busy_, and by the caller's thread
    // only when idle (wait_until_idle), so it needs no lock while hashing.
    state_.update(std::string_view(block.data(), block.size()));
    lock.lock();
    busy_ = false;
    spare_.push_back(std::move(block));
    changed_.notify_all();
  }
}

std::string BackgroundSha256::hex_digest_so_far() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_until_idle(lock);
  Sha256 copy = state_;
  copy.update(std::string_view(current_.data(), current_.size()));
  return copy.hex_digest();
}

void BackgroundSha256::reset() {
  std::unique_lock<std::mutex> lock(mutex_);
  wait_until_idle(lock);
  state_ = Sha256();
  current_.clear();
}

}  // namespace wslgpu
