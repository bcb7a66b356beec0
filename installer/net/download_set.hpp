// Several downloads at once, seen and stopped as one: the wheels of a
// Python layer (NVIDIA's torch with its dozen nvidia-* wheels is 3-4 GB in
// some twenty files), where one file after the other leaves a fast link
// idle between files and a slow server's file holds up the rest.
//
// Each file is fetched by fetch_file() (installer/net/fetch_helper.hpp: its
// hash, retries and resumption, each in its own helper process), JOBS at a
// time. Progress is the set's: the bytes of all files so far against the
// sum of their sizes, the files done, and what earlier runs left that is
// not fetched again. When one file fails, the ones in flight are stopped
// (their partial files kept, as a signal keeps them) and no other starts;
// the first failure is what is thrown. A caught signal stops every helper
// within a second (each checks it at least once a second), and an
// Interrupted is thrown that names every download it caught in flight, in
// the set's order (which helper answered first is chance).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "installer/net/download.hpp"

namespace wslgpu {

struct SetDownload {
  DownloadRequest request;  // its on_progress and cancel are the set's own: leave them unset
  std::uint64_t expected_bytes = 0;  // the size known beforehand (an index's or a probe's), 0 when unknown
};

struct DownloadSetProgress {
  std::uint64_t bytes_done = 0;    // in all files, the bytes earlier runs left included
  std::uint64_t bytes_total = 0;   // the sum of the sizes; 0 while a file's size is unknown
  std::uint64_t resumed_from = 0;  // the bytes earlier runs left, which this one does not fetch again
  std::size_t files_done = 0;
  std::size_t files = 0;
  std::string current;  // the URL's file name of a download in flight
};

struct DownloadSetOptions {
  unsigned jobs = 4;  // at most this many at once (at least 1)
  std::function<void(const DownloadSetProgress&)> on_progress;  // called from the downloading threads, one at a time
  // What fetches one file; fetch_file() when empty. Tests give a fake.
  std::function<DownloadResult(const DownloadRequest&)> fetch;
};

// Downloads every item of SET; the results in SET's order. Throws what the
// first failure threw (StepFailure, Interrupted), after every download in
// flight has stopped.
std::vector<DownloadResult> download_set(std::vector<SetDownload> set, const DownloadSetOptions& options);

}  // namespace wslgpu
