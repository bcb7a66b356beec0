#include "installer/formats/apt_status.hpp"
#include "installer/system/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace wslgpu {

namespace {

// The next FIELD up to ':' from TEXT, which loses it and the colon; false
// when there is no colon.
bool take_field(std::string_view& text, std::string_view& field) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  field = text.substr(0, colon);
  text.remove_prefix(colon + 1);
  return true;
}

// A percentage as apt prints it ("19.4851"): digits, at most one point.
std::optional<double> percent_of(std::string_view s) {
  if (s.empty() || s.size() > 12 || s.find_first_not_of("0123456789.") != std::string_view::npos) return std::nullopt;
  if (std::count(s.begin(), s.end(), '.') > 1 || s.front() == '.') return std::nullopt;
  double v = 0;
  double scale = 0;
  for (char c : s) {
    if (c == '.') {
      scale = 1;
      continue;
    }
    if (scale > 0)
      v += (c - '0') * (scale /= 10);
    else
      v = v * 10 + (c - '0');
  }
  if (!std::isfinite(v) || v > 100.0001) return std::nullopt;
  return std::min(v, 100.0);
}

std::optional<std::size_t> count_of(std::string_view s) {
  std::size_t v = 0;
  if (s.empty() || s.size() > 9) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// "Retrieving file 2 of 5 (3min 2s remaining)" -> 5; 0 when it says no count.
std::size_t files_in(std::string_view message) {
  auto of = message.find(" of ");
  if (of == std::string_view::npos) return 0;
  std::string_view rest = message.substr(of + 4);
  std::size_t n = 0;
  while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
  return count_of(rest.substr(0, n)).value_or(0);
}

}  // namespace

std::optional<AptStatusLine> parse_apt_status_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string_view rest = line, kind, first, percent;
  if (!take_field(rest, kind)) return std::nullopt;
  AptStatusLine out;
  if (kind == "dlstatus")
    out.kind = AptStatusLine::Kind::download;
  else if (kind == "pmstatus")
    out.kind = AptStatusLine::Kind::package;
  else if (kind == "pmerror")
    out.kind = AptStatusLine::Kind::error;
  else if (kind == "pmconffile")
    out.kind = AptStatusLine::Kind::conffile;
  else if (kind == "media-change")
    out.kind = AptStatusLine::Kind::media_change;
  else
    return std::nullopt;
  if (out.kind == AptStatusLine::Kind::conffile || out.kind == AptStatusLine::Kind::media_change) {
    out.message = std::string(rest);
    return out;
  }
  if (!take_field(rest, first) || !take_field(rest, percent)) return std::nullopt;
  auto p = percent_of(percent);
  if (!p) return std::nullopt;
  out.percent = *p;
  out.message = std::string(rest);
  if (out.kind == AptStatusLine::Kind::download) {
    auto file = count_of(first);
    if (!file) return std::nullopt;
    out.file = *file;
  } else {
    if (first.empty() || first.find(' ') != std::string_view::npos) return std::nullopt;
    out.package = std::string(first);
  }
  return out;
}

std::optional<DpkgStatusLine> parse_dpkg_status_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string_view rest = line, kind;
  if (!take_field(rest, kind)) return std::nullopt;
  DpkgStatusLine out;
  if (kind == "processing") {
    // processing: STAGE: PACKAGE
    std::string_view stage;
    if (!take_field(rest, stage)) return std::nullopt;
    out.kind = DpkgStatusLine::Kind::processing;
    out.word = std::string(text::trim_field(stage));
    out.package = std::string(text::trim_field(rest));
  } else if (kind == "status") {
    // status: PACKAGE: STATE, where PACKAGE may be PACKAGE:ARCH, so the
    // state is what follows the last colon.
    auto last = rest.rfind(':');
    if (last == std::string_view::npos) return std::nullopt;
    out.kind = DpkgStatusLine::Kind::status;
    out.package = std::string(text::trim_field(rest.substr(0, last)));
    out.word = std::string(text::trim_field(rest.substr(last + 1)));
  } else {
    return std::nullopt;
  }
  if (out.package.empty() || out.word.empty() || out.word.find(' ') != std::string::npos ||
      out.package.find(' ') != std::string::npos)
    return std::nullopt;
  return out;
}

AptProgress::AptProgress(std::uint64_t download_bytes, std::size_t packages)
    : download_bytes_(download_bytes), packages_(packages) {}

std::optional<ProgressEvent> AptProgress::feed(std::string_view line) {
  if (line == last_line_) return std::nullopt;  // apt repeats itself while a file arrives
  last_line_ = std::string(line);
  auto st = parse_apt_status_line(line);
  if (!st) return std::nullopt;
  using Phase = ProgressEvent::Phase;
  ProgressEvent ev;
  ev.percent = st->percent;
  switch (st->kind) {
    case AptStatusLine::Kind::download: {
      ev.phase = Phase::download;
      ev.item = st->file;
      ev.items = files_in(st->message);
      ev.bytes_total = download_bytes_;
      ev.bytes_done = static_cast<std::uint64_t>(static_cast<double>(download_bytes_) * st->percent / 100.0);
      phase_ = Phase::download;
      return ev;
    }
    case AptStatusLine::Kind::error:
      errors_.push_back(st->package + ": " + st->message);
      return std::nullopt;
    case AptStatusLine::Kind::conffile:
    case AptStatusLine::Kind::media_change:
      return std::nullopt;
    case AptStatusLine::Kind::package:
      break;
  }
  if (st->package == "dpkg-exec") return std::nullopt;
  const std::string& m = st->message;
  Phase phase = Phase::work;
  if (starts_with(m, "Preparing to configure ") || starts_with(m, "Configuring ") || starts_with(m, "Installed "))
    phase = Phase::configure;
  else if (starts_with(m, "Preparing for removal of ") || starts_with(m, "Removing ") ||
           starts_with(m, "Completely removing ") || starts_with(m, "Completely removed ") ||
           starts_with(m, "Removed "))
    phase = Phase::remove;
  else if (starts_with(m, "Preparing ") || starts_with(m, "Unpacking ") || starts_with(m, "Installing "))
    phase = Phase::unpack;
  if (phase != phase_) {
    phase_ = phase;
    seen_.clear();
  }
  ev.phase = phase;
  ev.subject = st->package;
  if (phase != Phase::work) {
    auto it = std::find(seen_.begin(), seen_.end(), st->package);
    if (it == seen_.end()) {
      seen_.push_back(st->package);
      it = seen_.end() - 1;
    }
    ev.item = static_cast<std::size_t>(it - seen_.begin()) + 1;
    ev.items = std::max(packages_, seen_.size());
  }
  return ev;
}

std::optional<ProgressEvent> DpkgProgress::feed(std::string_view line) {
  auto st = parse_dpkg_status_line(line);
  if (!st) return std::nullopt;
  using Phase = ProgressEvent::Phase;
  ProgressEvent ev;
  ev.subject = st->package;
  ev.item = 1;
  ev.items = 1;
  if (st->kind == DpkgStatusLine::Kind::processing) {
    if (st->word == "install" || st->word == "upgrade")
      ev = {Phase::unpack, st->package, 0, 0, 1, 1, 0};
    else if (st->word == "configure")
      ev = {Phase::configure, st->package, 0, 0, 1, 1, 50};
    else if (st->word == "remove" || st->word == "purge")
      ev = {Phase::remove, st->package, 0, 0, 1, 1, 0};
    else
      ev = {Phase::work, st->package, 0, 0, 0, 0, -1};  // trigproc, disappear
    phase_ = ev.phase;
    return ev;
  }
  const std::string& s = st->word;
  if (phase_ == Phase::remove) {
    // A removal passes through the same states backwards.
    if (s == "half-configured")
      ev = {Phase::remove, st->package, 0, 0, 1, 1, 25};
    else if (s == "half-installed")
      ev = {Phase::remove, st->package, 0, 0, 1, 1, 50};
    else if (s == "config-files")
      ev = {Phase::remove, st->package, 0, 0, 1, 1, 75};
    else if (s == "not-installed")
      ev = {Phase::remove, st->package, 0, 0, 1, 1, 100};
    else
      return std::nullopt;
  } else if (s == "half-installed") {
    ev = {Phase::unpack, st->package, 0, 0, 1, 1, 25};
  } else if (s == "unpacked") {
    ev = {Phase::unpack, st->package, 0, 0, 1, 1, 50};
  } else if (s == "half-configured") {
    ev = {Phase::configure, st->package, 0, 0, 1, 1, 75};
  } else if (s == "installed" && phase_ != Phase::work) {
    ev = {Phase::configure, st->package, 0, 0, 1, 1, 100};
  } else {
    return std::nullopt;  // the state before anything began, triggers-pending, triggers-awaited
  }
  phase_ = ev.phase;
  return ev;
}

}  // namespace wslgpu
