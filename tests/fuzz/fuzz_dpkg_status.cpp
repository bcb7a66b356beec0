// dpkg's status file (/var/lib/dpkg/status of the target): parses or throws
// InputError, and what it says is consistent: every installed package is
// present, and find() reaches every package by name:arch.
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/dpkg_status.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  DpkgStatus db;
  try {
    db = DpkgStatus::parse(fuzz::text_of(data, size));
  } catch (const InputError&) {
    return 0;
  }
  auto present = db.present();
  for (const auto& [name, version] : db.installed()) {
    if (name.find(':') == std::string::npos) FUZZ_CHECK(present.count(name) == 1);
  }
  for (const auto& p : db.packages()) {
    FUZZ_CHECK(db.find(p.name) != nullptr);
    if (p.installed()) FUZZ_CHECK(p.present());
    if (!p.architecture.empty()) FUZZ_CHECK(db.find(p.name + ":" + p.architecture) != nullptr);
  }
  return 0;
}
