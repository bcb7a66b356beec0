// .deb inspection (installer/formats/deb_archive.hpp): libarchive reading
// an ar archive and the tar members in it, then the control file. A .deb
// may come from anywhere a manifest points; any bytes must give a DebInfo
// or the StepFailure read_deb() promises, nothing else. read_deb() reads a
// path, so each input is written to one temporary file (on /dev/shm when
// there is one: the test never writes outside a temporary folder).
#include <unistd.h>

#include <cstdio>
#include <string>

#include "fuzz/fuzz_support.hpp"
#include "installer/formats/deb_archive.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

namespace {

const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/wslgpu-fuzz-deb-" + std::to_string(::getpid()) + ".deb";
  }();
  return path;
}

struct RemoveAtExit {
  ~RemoveAtExit() { std::remove(scratch_path().c_str()); }
} remove_at_exit;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = scratch_path();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  try {
    DebInfo info = read_deb(path);
    FUZZ_CHECK(!info.name.empty());
    for (const auto& p : info.files) FUZZ_CHECK(!p.empty() && p.front() == '/');
    for (const auto& p : info.directories) FUZZ_CHECK(!p.empty() && p.front() == '/');
    for (const auto& name : info.dependency_names()) FUZZ_CHECK(!name.empty());
    (void)kernel_module_problem(info);
  } catch (const StepFailure&) {
  }
  for (const auto& name : parse_dependency_names(fuzz::text_of(data, size))) {
    FUZZ_CHECK(!name.empty());
    (void)is_kernel_module_package(name);
  }
  return 0;
}
