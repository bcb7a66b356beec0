// bench/wheel_set_download.cpp: the wheel download of a Python layer, alone,
// for bench/wheel_downloads.sh (issue 54, docs/performance.md "Wheel set
// downloads").
//
//   WSLGPU_FETCH=build/wslgpu-setup-fetch wheel_set_download LIST_FILE DEST_DIR [JOBS]
//
// LIST_FILE has one wheel a line: `URL SHA256 SIZE`. Each is fetched to
// DEST_DIR/<its file name> and the last line says how many bytes came in,
// in how long.
//
// Why a program of its own: the figure to compare with `pip download` is
// that of the download alone, and an install of a profile would add a
// venv, pip and a root around it. So this does what fetch_wheels()
// (steps/python/wheel_fetch.cpp) does and nothing else: the same
// download_set() with the same number of jobs and the same timeouts, each
// file in the wslgpu-setup-fetch helper, a file already whole (by its hash)
// left alone, and a signal handled as the tool handles it (the helpers stop
// within a second and their partial files stay as DEST_DIR/<name>.part for
// the next run to resume). Only plain HTTP is new: the benchmark's loopback
// server has no certificate.
//
// Exit status: 0 when every file is there, 130 after Ctrl-C (128 + the
// signal), 1 on any other error, with its message.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "installer/formats/wheel_name.hpp"
#include "installer/net/download.hpp"
#include "installer/net/download_set.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/system/error.hpp"
#include "installer/system/interrupt.hpp"
#include "steps/files/download.hpp"
#include "steps/python/wheel_fetch.hpp"

namespace {

using namespace wslgpu;

constexpr const char* kUsage = "usage: WSLGPU_FETCH=PATH wheel_set_download LIST_FILE DEST_DIR [JOBS]\n";
constexpr const char* kStopping = "stopping: the partial files are kept for the next run\n";
constexpr const char* kAgain = "already stopping\n";

// The wheels of LIST_FILE, each destined to DEST_DIR. Throws StepFailure on
// a line that is not `URL SHA256 SIZE`.
std::vector<SetDownload> read_list(const std::string& list_file, const std::string& dest_dir,
                                   std::uint64_t& total_bytes) {
  std::ifstream in(list_file);
  if (!in) throw StepFailure("cannot read " + list_file);
  std::vector<SetDownload> set;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    SetDownload d;
    if (!(fields >> d.request.url >> d.request.sha256 >> d.expected_bytes) || !is_sha256_hex(d.request.sha256))
      throw StepFailure(list_file + ":" + std::to_string(number) + ": not `URL SHA256 SIZE`");
    d.request.host_path = dest_dir + "/" + percent_decode(url_file_name(d.request.url));
    d.request.insecure_http = true;  // the loopback server speaks plain HTTP
    // As fetch_wheels() sets them: no total limit, a stalled transfer resumed.
    d.request.total_timeout = std::chrono::milliseconds(0);
    d.request.stall_timeout = kWheelStallTimeout;
    total_bytes += d.expected_bytes;
    set.push_back(std::move(d));
  }
  return set;
}

int run(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const char* helper = std::getenv("WSLGPU_FETCH");
  if (helper == nullptr || *helper == '\0') {
    std::fputs("WSLGPU_FETCH must name the wslgpu-setup-fetch helper (built next to wslgpu-setup)\n", stderr);
    std::fputs(kUsage, stderr);
    return 2;
  }
  unsigned jobs = kWheelDownloadJobs;
  if (argc == 4) jobs = static_cast<unsigned>(std::max(1L, std::strtol(argv[3], nullptr, 10)));
  const std::string dest_dir = argv[2];
  std::filesystem::create_directories(dest_dir);

  std::uint64_t set_bytes = 0;
  std::vector<SetDownload> wanted = read_list(argv[1], dest_dir, set_bytes);
  // The helper's 10 % lines, per file and per job, would bury the one line
  // this prints; retries and errors still show.
  spdlog::set_level(spdlog::level::warn);
  InterruptScope interrupts(kStopping, kAgain);

  const auto start = std::chrono::steady_clock::now();
  // A file an earlier run finished is kept when its hash matches, as the
  // tool keeps a cached wheel: hashing it is part of what a resume costs.
  std::vector<SetDownload> set;
  for (auto& d : wanted) {
    throw_if_interrupted("while checking the files already downloaded");
    std::error_code ec;
    if (std::filesystem::is_regular_file(d.request.host_path, ec) &&
        sha256_of_host_file(d.request.host_path) == d.request.sha256)
      continue;
    set.push_back(std::move(d));
  }
  const std::size_t whole = wanted.size() - set.size();
  DownloadSetOptions options;
  options.jobs = jobs;
  const std::string helper_path = helper;
  options.fetch = [helper_path](const DownloadRequest& request) { return fetch_file_with(helper_path, request); };
  download_set(std::move(set), options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // The set's bytes over this run's time, whatever an earlier run left: for
  // a resumed run, the MB/s is what the resumption made it look like.
  std::printf("%llu bytes in %.2f s: %.1f MB/s (%zu files, %zu already whole)\n",
              static_cast<unsigned long long>(set_bytes), seconds,
              seconds > 0 ? static_cast<double>(set_bytes) / 1e6 / seconds : 0.0, wanted.size(), whole);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const wslgpu::Interrupted& e) {
    // 130 for SIGINT, as wslgpu-setup exits (128 + the signal).
    std::fprintf(stderr, "wheel_set_download: %s\n", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wheel_set_download: %s\n", e.what());
    return 1;
  }
}
