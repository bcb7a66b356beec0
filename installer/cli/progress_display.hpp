// How a run shows a person what it is doing: each step's start
// ("[4/9] rocm: installing 43 packages, 2.9 GB to download"), then, while a
// long program works for it, its progress: one line rewritten in place on a
// terminal (what it is doing, bytes done of the total, rate and time left
// while downloading, package N of M while unpacking and configuring), or a
// line per 10 % when the output is a file or a pipe, so that a log shows
// the run moving without a line per package. JSON mode and -q show none
// of it (installer/cli/terminal.cpp does not make one).
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <ostream>
#include <string>

#include "installer/system/progress.hpp"

namespace wslgpu {

class ProgressDisplay : public ProgressSink {
 public:
  enum class Mode { terminal, lines };
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // WIDTH: the terminal's columns (the line is cut to fit, since a wrapped
  // line cannot be rewritten); 0 for no limit.
  ProgressDisplay(std::ostream& out, Mode mode, std::size_t width = 0, Clock clock = std::chrono::steady_clock::now);

  // "[INDEX/TOTAL] ID: ACTIVITY" on a line of its own.
  void step_started(std::size_t index, std::size_t total, const std::string& id, const std::string& activity);
  // An undo begins: its progress lines say "undo ID" (no line of its own:
  // the undo's result follows).
  void undo_started(const std::string& id);
  // Takes the progress line away (on a terminal), before a step's result is printed.
  void clear();
  void update(const ProgressEvent& event) override;

  // The text of a progress line: "downloading 1.2 GB of 2.9 GB (41 %), 12 MB/s, 2 min 18 s left",
  // "unpacking rocm-core, package 12 of 43 (63 %)". RATE in bytes per second, 0 when unknown.
  static std::string describe(const ProgressEvent& event, double rate);

 private:
  double rate(const ProgressEvent& event, std::chrono::steady_clock::time_point now);

  std::ostream& out_;
  Mode mode_;
  std::size_t width_;
  Clock clock_;
  std::string step_;
  bool shown_ = false;  // a progress line is on the terminal
  std::chrono::steady_clock::time_point last_draw_{};
  ProgressEvent::Phase last_phase_ = ProgressEvent::Phase::work;
  int last_decile_ = -1;  // lines mode: the last 10 % step printed, per phase group
  bool downloading_ = false;
  // Recent (time, bytes) of the download, for a rate over the last seconds.
  std::deque<std::pair<std::chrono::steady_clock::time_point, std::uint64_t>> samples_;
};

}  // namespace wslgpu
