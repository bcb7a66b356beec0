// A shared library opened with dlopen on first use instead of being linked.
//
// Why: libcurl and libarchive bring 36 further libraries with them (OpenSSL,
// GnuTLS, Kerberos, LDAP, libxml2 with ICU, ...). Linked, the dynamic loader
// maps and relocates all of them before main() on every run, which was most
// of the time and memory of a converged `plan` (docs/performance.md). Only
// downloads, `.deb` inspection and doctor's support bundle need them, so
// those load them when they first run and every other command never does.
//
// The function pointers are typed with decltype of the library's own header
// declarations, so a call through them is checked like a direct call.
#pragma once
#include <string>

namespace wslgpu {

class DynamicLibrary {
 public:
  // Opens SONAME ("libcurl.so.4"). Throws StepFailure naming the library,
  // what needs it (NEEDED_FOR) and the Debian package that provides it.
  DynamicLibrary(std::string soname, std::string package, std::string needed_for);
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  // The library stays loaded for the life of the process: the pointers taken
  // from it may be used until exit.
  ~DynamicLibrary() = default;

  // Sets FN to the library's symbol NAME; throws StepFailure when it lacks it.
  template <class Function>
  void bind(Function*& fn, const char* name) const {
    fn = reinterpret_cast<Function*>(symbol(name));
  }

 private:
  void* symbol(const char* name) const;

  void* handle_ = nullptr;
  std::string soname_;
  std::string package_;
};

}  // namespace wslgpu
