// .deb inspection (installer/formats/deb_archive.hpp): libarchive reading
// an ar archive and the tar members in it, then the control file. A .deb
// may come from anywhere a manifest points; any bytes must give a DebInfo
// or the StepFailure read_deb() promises, nothing else. read_deb() reads a
// path, so each input is written to one temporary file (on /dev/shm when
// there is one: the test never writes outside a temporary folder).
#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>

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
  // The input as a Depends field too, unless it is an ar archive: those
  // bytes are no field, and reading all of them (most of the corpus is
  // .debs of 20 KB) took half of each execution. An archive's own Depends
  // is read above, by dependency_names().
  const std::string_view ar_magic = "!<arch>\n";
  const bool is_archive = std::string_view(reinterpret_cast<const char*>(data), size).substr(0, ar_magic.size()) == ar_magic;
  if (is_archive) return 0;
  for (const auto& name : parse_dependency_names(fuzz::text_of(data, size))) {
    FUZZ_CHECK(!name.empty());
    (void)is_kernel_module_package(name);
  }
  return 0;
}
