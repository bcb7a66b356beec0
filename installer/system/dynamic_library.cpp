#include "installer/system/dynamic_library.hpp"

#include <dlfcn.h>

#include "installer/system/error.hpp"

namespace wslgpu {

DynamicLibrary::DynamicLibrary(std::string soname, std::string package, std::string needed_for)
    : soname_(std::move(soname)), package_(std::move(package)) {
  // RTLD_NOW: a missing symbol shows here, once, not in the middle of a
  // download. RTLD_LOCAL: its symbols stay out of the global namespace.
  handle_ = ::dlopen(soname_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = ::dlerror();
    throw StepFailure(needed_for + " needs " + soname_ + ", which cannot be loaded (" + (why ? why : "unknown reason") +
                      "); install it with: apt-get install " + package_);
  }
}

void* DynamicLibrary::symbol(const char* name) const {
  ::dlerror();
  void* address = ::dlsym(handle_, name);
  if (!address) {
    throw StepFailure(soname_ + " has no " + name +
                      "; it is older than this build of wslgpu-setup expects. "
                      "Update it with: apt-get install " +
                      package_);
  }
  return address;
}

}  // namespace wslgpu
