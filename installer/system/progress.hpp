// What a step says while a long program works for it (apt downloading
// gigabytes, dpkg unpacking them, a vendor's file arriving), and who
// listens. Steps turn what the programs report (apt's and dpkg's status
// lines, the download's byte counts) into ProgressEvents; installer/cli/
// shows them as one line on a terminal, a line per 10 % elsewhere, and
// nothing in JSON mode. A step without a sink (plan, the tests) reports
// nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace wslgpu {

struct ProgressEvent {
  // What the program is doing. The percentages of a step restart when it
  // moves from downloading to the rest (apt fetches everything first).
  enum class Phase { download, unpack, configure, remove, work };
  Phase phase = Phase::work;
  std::string subject;  // the package, the file or "package lists"; may be empty
  std::uint64_t bytes_done = 0;
  std::uint64_t bytes_total = 0;  // 0 when unknown
  std::size_t item = 0;           // package (or file) N of ITEMS; 0 when unknown
  std::size_t items = 0;
  double percent = -1;  // of the phase, 0 to 100; -1 when unknown
  // A download that goes on from an earlier run's partial file: the bytes
  // that run left, which this one does not fetch again; 0 when it started
  // from the first byte.
  std::uint64_t resumed_from = 0;
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void update(const ProgressEvent& event) = 0;
};

}  // namespace wslgpu
