#include "installer/cli/progress_display.hpp"

#include <cmath>

#include "installer/system/units.hpp"

namespace wslgpu {

namespace {

using std::chrono::steady_clock;

// A terminal line is redrawn at most this often: apt reports far more often
// than anyone can read, and every redraw is a write to the terminal.
constexpr auto kRedraw = std::chrono::milliseconds(100);
// The download rate is the average over about this long.
constexpr auto kRateWindow = std::chrono::seconds(5);

const char* verb(ProgressEvent::Phase phase) {
  switch (phase) {
    case ProgressEvent::Phase::download:
      return "downloading";
    case ProgressEvent::Phase::unpack:
      return "unpacking";
    case ProgressEvent::Phase::configure:
      return "configuring";
    case ProgressEvent::Phase::remove:
      return "removing";
    case ProgressEvent::Phase::work:
      return "working on";
  }
  return "";
}

}  // namespace

ProgressDisplay::ProgressDisplay(std::ostream& out, Mode mode, std::size_t width, Clock clock)
    : out_(out), mode_(mode), width_(width), clock_(std::move(clock)) {}

std::string ProgressDisplay::describe(const ProgressEvent& ev, double rate) {
  const bool download = ev.phase == ProgressEvent::Phase::download;
  std::string s = verb(ev.phase);
  if (!ev.subject.empty())
    s += " " + ev.subject;
  else if (ev.phase == ProgressEvent::Phase::work)
    s = "working";
  if (download && ev.bytes_total > 0)
    s += " " + human_size(ev.bytes_done) + " of " + human_size(ev.bytes_total);
  else if (download && ev.bytes_done > 0)
    s += " " + human_size(ev.bytes_done) + " so far";
  if (download && ev.resumed_from > 0) s += " (resumed after " + human_size(ev.resumed_from) + ")";
  if (ev.items > 0 && ev.item > 0)
    s += std::string(", ") + (download ? "file " : "package ") + std::to_string(ev.item) + " of " +
         std::to_string(ev.items);
  if (ev.percent >= 0) s += ", " + std::to_string(static_cast<int>(std::floor(ev.percent))) + " %";
  if (download && rate > 0) {
    s += ", " + human_size(static_cast<std::uint64_t>(rate)) + "/s";
    if (ev.bytes_total > ev.bytes_done)
      s += ", " +
           human_duration(static_cast<std::uint64_t>(static_cast<double>(ev.bytes_total - ev.bytes_done) / rate)) +
           " left";
  }
  return s;
}

double ProgressDisplay::rate(const ProgressEvent& ev, steady_clock::time_point now) {
  if (ev.phase != ProgressEvent::Phase::download || (ev.bytes_done == 0 && ev.bytes_total == 0)) {
    samples_.clear();
    return 0;
  }
  if (!samples_.empty() && ev.bytes_done < samples_.back().second) samples_.clear();  // a new file, or a restart
  samples_.emplace_back(now, ev.bytes_done);
  while (samples_.size() > 2 && now - samples_[1].first >= kRateWindow) samples_.pop_front();
  auto span = std::chrono::duration<double>(now - samples_.front().first).count();
  if (span < 0.5) return 0;
  return static_cast<double>(ev.bytes_done - samples_.front().second) / span;
}

void ProgressDisplay::step_started(std::size_t index, std::size_t total, const std::string& id,
                                   const std::string& activity) {
  clear();
  step_ = id;
  last_decile_ = -1;
  samples_.clear();
  last_phase_ = ProgressEvent::Phase::work;
  downloading_ = false;
  out_ << "[" << index << "/" << total << "] " << id << ": " << activity << "\n" << std::flush;
}

void ProgressDisplay::undo_started(const std::string& id) {
  clear();
  step_ = "undo " + id;
  last_decile_ = -1;
  samples_.clear();
  last_phase_ = ProgressEvent::Phase::work;
  downloading_ = false;
}

void ProgressDisplay::clear() {
  if (mode_ == Mode::terminal && shown_) out_ << "\r\x1b[K" << std::flush;
  shown_ = false;
}

void ProgressDisplay::update(const ProgressEvent& ev) {
  auto now = clock_();
  double r = rate(ev, now);
  const bool phase_changed = ev.phase != last_phase_;
  last_phase_ = ev.phase;
  std::string line = "  " + step_ + ": " + describe(ev, r);
  if (mode_ == Mode::terminal) {
    // The end of a phase is always shown, however soon it comes.
    const bool complete = ev.percent >= 100 || (ev.bytes_total > 0 && ev.bytes_done >= ev.bytes_total);
    if (shown_ && !phase_changed && !complete && now - last_draw_ < kRedraw) return;
    if (width_ > 1 && line.size() >= width_) line.resize(width_ - 1);
    out_ << "\r\x1b[K" << line << std::flush;
    shown_ = true;
    last_draw_ = now;
    return;
  }
  // Lines: one per 10 %, counted apart for the download and for the rest.
  const bool download = ev.phase == ProgressEvent::Phase::download;
  if (download != downloading_) {
    downloading_ = download;
    last_decile_ = -1;
  }
  if (ev.percent < 0) return;
  int decile = static_cast<int>(std::floor(ev.percent / 10));
  if (decile <= last_decile_ || decile < 1) return;
  last_decile_ = decile;
  out_ << line << "\n" << std::flush;
}

}  // namespace wslgpu
