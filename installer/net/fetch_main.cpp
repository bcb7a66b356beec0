// wslgpu-setup-fetch: the program wslgpu-setup runs for each network
// download (installer/net/fetch_helper.hpp says why). Not meant to be run by
// hand: it reads a JSON request on standard input
// (installer/net/fetch_protocol.hpp). Plain read and write, no iostreams and no
// logging library, to keep it small.
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "installer/net/fetch_protocol.hpp"

namespace {

void write_all(int fd, std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

int main() {
  std::string request;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    request.append(buf, static_cast<std::size_t>(n));
  }
  bool failed = false;
  std::string answer = wslgpu::answer_fetch_request(
      request,
      [](bool warning, const std::string& message) { write_all(2, wslgpu::fetch_log_line(warning, message) + "\n"); },
      failed,
      [](std::uint64_t done, std::uint64_t total) { write_all(2, wslgpu::fetch_progress_line(done, total) + "\n"); },
      [](std::string_view body) { write_all(1, body); });
  write_all(1, answer + "\n");
  return failed ? 1 : 0;
}
