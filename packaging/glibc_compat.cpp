// The portable build's two stand-ins for glibc functions newer than 2.34
// (cmake/portable.cmake). GCC 12's static libstdc++ and libgcc, built on
// Debian 12 against glibc 2.36, call them; the link sends those calls here
// with -Wl,--wrap, so the programs load on glibc 2.34 and later (Ubuntu
// 22.04 has 2.35). Each does what the glibc function does, with calls that
// glibc has had for years.
#include <fcntl.h>
#include <link.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>

namespace {

struct FindObject {
  std::uintptr_t pc;
  dl_find_object* result;
};

// dl_iterate_phdr's callback: the object whose loaded segments hold PC.
int find_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* find = static_cast<FindObject*>(data);
  std::uintptr_t low = UINTPTR_MAX, high = 0;
  bool holds = false;
  void* eh_frame = nullptr;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const std::uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD) {
      const std::uintptr_t end = start + segment.p_memsz;
      if (find->pc >= start && find->pc < end) holds = true;
      if (start < low) low = start;
      if (end > high) high = end;
    } else if (segment.p_type == PT_GNU_EH_FRAME) {
      eh_frame = reinterpret_cast<void*>(start);
    }
  }
  if (!holds) return 0;
  std::memset(find->result, 0, sizeof *find->result);
  find->result->dlfo_map_start = reinterpret_cast<void*>(low);
  find->result->dlfo_map_end = reinterpret_cast<void*>(high);
  find->result->dlfo_eh_frame = eh_frame;
  return 1;
}

}  // namespace

extern "C" {

// _dl_find_object (glibc 2.35): the loaded object holding PC, and its
// PT_GNU_EH_FRAME, which is all the unwinder reads (on x86-64 there is no
// dlfo_eh_dbase). Found with dl_iterate_phdr, the way libgcc did before 2.35.
// dlfo_link_map stays null: libgcc does not read it.
int __wrap__dl_find_object(void* pc, dl_find_object* result) {
  FindObject find{reinterpret_cast<std::uintptr_t>(pc), result};
  return dl_iterate_phdr(find_object, &find) == 1 ? 0 : -1;
}

// arc4random (glibc 2.36): 32 random bits from the kernel, as glibc's does
// (it too aborts when no randomness can be had).
std::uint32_t __wrap_arc4random(void) {
  std::uint32_t value = 0;
  for (;;) {
    ssize_t n = getrandom(&value, sizeof value, 0);
    if (n == static_cast<ssize_t>(sizeof value)) return value;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == ENOSYS) break;
    if (n < 0) std::abort();
  }
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::read(fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) std::abort();
  ::close(fd);
  return value;
}

}  // extern "C"
