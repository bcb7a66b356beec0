#include "installer/net/download_set.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "installer/formats/wheel_name.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"

namespace wslgpu {

namespace {

// The last path component of URL as a person reads it ("torch-2.9.1+cu130-….whl"),
// for the progress line.
std::string file_name_of(const std::string& url) {
  std::string path = url.substr(0, url.find_first_of("?#"));
  auto slash = path.rfind('/');
  return percent_decode(slash == std::string::npos ? path : path.substr(slash + 1));
}

// What the threads share: where each file stands, the next one to take,
// the first failure.
class SetState {
 public:
  SetState(const std::vector<SetDownload>& set, const DownloadSetOptions& options)
      : options_(options), done_(set.size()), total_(set.size()), resumed_(set.size()), finished_(set.size()) {
    for (std::size_t i = 0; i < set.size(); ++i) {
      total_[i] = set[i].expected_bytes;
      names_.push_back(file_name_of(set[i].request.url));
    }
  }

  std::atomic<bool> stop{false};
  std::atomic<std::size_t> next{0};

  void progress(std::size_t i, std::uint64_t done, std::uint64_t total, bool first) {
    std::lock_guard<std::mutex> lock(mutex_);
    // The first count is where the file starts: what an earlier run left
    // (DownloadRequest::on_progress); a count below it, a new start.
    if (first) resumed_[i] = done;
    if (done < resumed_[i]) resumed_[i] = 0;
    done_[i] = done;
    if (total > 0) total_[i] = total;
    current_ = names_[i];
    report();
  }

  void finished(std::size_t i, const DownloadResult& r) {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_[i] = true;
    in_flight_.erase(i);
    done_[i] = r.bytes;
    total_[i] = r.bytes;
    report();
  }

  void started(std::size_t i) {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.insert(i);
  }

  void failed(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!first_failure_) {
      first_failure_ = e;
      stopped_in_flight_ = in_flight_;  // what the stop catches half way
    }
    stop = true;
  }

  // The downloads in flight when the first failure came, in the set's order.
  std::set<std::size_t> stopped_in_flight() const { return stopped_in_flight_; }

  std::exception_ptr first_failure() const { return first_failure_; }

 private:
  void report() {
    if (!options_.on_progress) return;
    DownloadSetProgress p;
    p.files = done_.size();
    bool all_known = true;
    for (std::size_t i = 0; i < done_.size(); ++i) {
      p.bytes_done += done_[i];
      p.resumed_from += resumed_[i];
      p.bytes_total += total_[i];
      all_known = all_known && total_[i] > 0;
      p.files_done += finished_[i] ? 1 : 0;
    }
    if (!all_known) p.bytes_total = 0;
    p.current = current_;
    options_.on_progress(p);
  }

  const DownloadSetOptions& options_;
  std::mutex mutex_;
  std::vector<std::uint64_t> done_, total_, resumed_;
  std::vector<char> finished_;
  std::vector<std::string> names_;
  std::string current_;
  std::exception_ptr first_failure_;
  std::set<std::size_t> in_flight_, stopped_in_flight_;
};

}  // namespace

std::vector<DownloadResult> download_set(std::vector<SetDownload> set, const DownloadSetOptions& options) {
  std::vector<DownloadResult> results(set.size());
  if (set.empty()) return results;
  SetState state(set, options);
  auto fetch = options.fetch ? options.fetch : [](const DownloadRequest& r) { return fetch_file(r); };
  auto work = [&] {
    for (;;) {
      if (state.stop) return;
      std::size_t i = state.next++;
      if (i >= set.size()) return;
      DownloadRequest req = set[i].request;
      req.cancel = &state.stop;
      auto first = std::make_shared<bool>(true);
      req.on_progress = [&state, i, first](std::uint64_t done, std::uint64_t total) {
        state.progress(i, done, total, *first);
        *first = false;
      };
      state.started(i);
      try {
        results[i] = fetch(req);
        state.finished(i, results[i]);
      } catch (...) {
        state.failed(std::current_exception());
        return;
      }
    }
  };
  const std::size_t jobs = std::clamp<std::size_t>(options.jobs, 1, set.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (auto e = state.first_failure()) {
    try {
      std::rethrow_exception(e);
    } catch (const Interrupted&) {
      // A signal stops every download in flight at once: which helper
      // answered first is chance, so the message names them all, in the
      // set's order.
      std::string urls;
      for (std::size_t i : state.stopped_in_flight()) urls += (urls.empty() ? "" : ", ") + set[i].request.url;
      throw_interrupted("while downloading " + urls + " (what was fetched is kept for the next run)");
    }
  }
  return results;
}

}  // namespace wslgpu
