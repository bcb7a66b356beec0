#include "installer/cli/terminal.hpp"

#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "installer/cli/progress_display.hpp"
#include "installer/plan/plan_output.hpp"
#include "installer/system/interrupt.hpp"

namespace wslgpu {

// Reads the answer with poll and read rather than std::getline, so that a
// Ctrl-C at the question is noticed at once (the signal handler restarts
// reads, and getline would wait for Enter).
bool confirm(const std::string& question) {
  std::cout << question << " [y/N] " << std::flush;
  std::string answer;
  for (;;) {
    if (interrupt_signal()) {
      std::cout << "\n";
      return false;
    }
    pollfd in{STDIN_FILENO, POLLIN, 0};
    int n = ::poll(&in, 1, 1000);
    if (n <= 0) continue;  // EINTR from the signal, or nothing yet
    char c = 0;
    ssize_t got = ::read(STDIN_FILENO, &c, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0 || c == '\n') break;
    answer += c;
  }
  return answer == "y" || answer == "Y" || answer == "yes";
}

bool interactive(const ChangeOptions& o) { return !o.yes && o.output == OutputFormat::text && ::isatty(STDIN_FILENO); }

namespace {

// The terminal's width for the progress line, 0 when unknown.
std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 0;
}

}  // namespace

RunCallbacks text_callbacks(const GlobalOptions& g, bool enabled) {
  RunCallbacks cb;
  if (!enabled || g.verbosity < 0) return cb;
  const char* term = std::getenv("TERM");
  bool terminal = ::isatty(STDOUT_FILENO) && !(term && std::string(term) == "dumb");
  auto display = std::make_shared<ProgressDisplay>(
      std::cout, terminal ? ProgressDisplay::Mode::terminal : ProgressDisplay::Mode::lines, terminal ? terminal_width() : 0);
  cb.progress = display.get();  // the lambdas below keep it alive as long as CB
  cb.step_started = [display](std::size_t index, std::size_t total, const std::string& id, const std::string& activity) {
    display->step_started(index, total, id, activity);
  };
  cb.step_finished = [g, display](const StepReport& r) {
    display->clear();
    if (!r.changed && !r.failed && r.msg.rfind("ok: ", 0) != 0 && r.msg.find("check failed") == std::string::npos)
      return;
    std::string status = r.failed ? paint({g.color, false}, "1;31", "failed: " + r.msg)
                         : r.changed ? paint({g.color, false}, "33", "changed")
                                     : r.msg;
    std::cout << "  " << r.id << std::string(r.id.size() < 20 ? 20 - r.id.size() : 1, ' ') << status << "\n"
              << std::flush;
  };
  cb.undo_started = [display](const std::string& id) { display->undo_started(id); };
  cb.step_undone = [display](const std::string& id, const std::string& what) {
    display->clear();
    std::cout << "  undo " << id << ": " << what << "\n" << std::flush;
  };
  return cb;
}

}  // namespace wslgpu
