// apt's Status-Fd lines and dpkg's --status-fd lines, fed line by line to
// the progress parsers as a run would: never throws, and every event is in
// range (percent -1 or 0..100, package N of at least N, bytes done <= total).
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/apt_status.hpp"

using namespace wslgpu;

namespace {

void check_event(const ProgressEvent& ev) {
  FUZZ_CHECK(ev.percent == -1 || (ev.percent >= 0 && ev.percent <= 100));
  // (apt's own "file N of M" is passed on as it says it.)
  if (ev.phase != ProgressEvent::Phase::download) FUZZ_CHECK(ev.items == 0 || ev.item <= ev.items);
  FUZZ_CHECK(ev.bytes_total == 0 || ev.bytes_done <= ev.bytes_total);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text = fuzz::text_of(data, size);
  // The first byte sizes the plan, as the step that starts apt knows it.
  std::size_t packages = size > 0 ? data[0] % 8 : 0;
  AptProgress apt(1u << 20, packages);
  DpkgProgress dpkg;
  for (std::string_view line : fuzz::lines_with_ends(text)) {
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (auto st = parse_apt_status_line(line)) {
      FUZZ_CHECK(st->percent >= 0 && st->percent <= 100);
      FUZZ_CHECK(st->package.find(' ') == std::string::npos);
    }
    if (auto st = parse_dpkg_status_line(line)) {
      FUZZ_CHECK(!st->package.empty() && !st->word.empty());
      FUZZ_CHECK(st->word.find(' ') == std::string::npos && st->package.find(' ') == std::string::npos);
    }
    if (auto ev = apt.feed(line)) check_event(*ev);
    if (auto ev = dpkg.feed(line)) check_event(*ev);
  }
  return 0;
}
