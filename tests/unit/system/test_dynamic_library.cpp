// Libraries opened on first use: a missing one, or one that lacks a symbol,
// must stop with a message that says what to install, not crash later.
#include <doctest/doctest.h>

#include <string>

#include "installer/formats/archive_api.hpp"
#include "installer/net/curl_api.hpp"
#include "installer/system/dynamic_library.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

TEST_CASE("a library that is not installed names itself, what needs it and the package to install") {
  try {
    DynamicLibrary library("libwslgpu-no-such-library.so.7", "libwslgpu-nothing7", "Testing");
    FAIL("dlopen of a missing library succeeded");
  } catch (const StepFailure& e) {
    std::string message = e.what();
    CHECK(message.find("Testing needs libwslgpu-no-such-library.so.7, which cannot be loaded (") == 0);
    CHECK(message.find("install it with: apt-get install libwslgpu-nothing7") != std::string::npos);
  }
}

TEST_CASE("a symbol the library lacks is refused with the package to update") {
  DynamicLibrary libc("libc.so.6", "libc6", "Testing");
  int (*fn)(int) = nullptr;
  CHECK_THROWS_WITH_AS(libc.bind(fn, "wslgpu_no_such_function"),
                       "libc.so.6 has no wslgpu_no_such_function; it is older than this build of wslgpu-setup "
                       "expects. Update it with: apt-get install libc6",
                       StepFailure);
  CHECK((fn == nullptr));
  libc.bind(fn, "abs");
  REQUIRE((fn != nullptr));
  CHECK(fn(-3) == 3);
}

TEST_CASE("libcurl and libarchive are loaded with every function the code calls") {
  const CurlApi& curl = curl_api();
  CHECK((curl.easy_init != nullptr));
  CHECK((curl.easy_setopt != nullptr));
  CHECK(std::string(curl.easy_strerror(CURLE_OK)) == "No error");
  CHECK(&curl_api() == &curl);  // loaded once

  const ArchiveApi& la = archive_api();
  archive* a = la.read_new();
  REQUIRE(a != nullptr);
  CHECK(la.read_free(a) == ARCHIVE_OK);
  CHECK((la.entry_set_mtime != nullptr));
}
