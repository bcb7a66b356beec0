#include "installer/net/curl_api.hpp"

#include "installer/system/dynamic_library.hpp"

namespace wslgpu {

namespace {

CurlApi load_curl() {
  static const DynamicLibrary library(WSLGPU_LIBCURL_SONAME, "libcurl4", "Downloading");
  CurlApi api;
  library.bind(api.global_init, "curl_global_init");
  library.bind(api.easy_init, "curl_easy_init");
  library.bind(api.easy_cleanup, "curl_easy_cleanup");
  library.bind(api.easy_setopt, "curl_easy_setopt");
  library.bind(api.easy_perform, "curl_easy_perform");
  library.bind(api.easy_getinfo, "curl_easy_getinfo");
  library.bind(api.easy_strerror, "curl_easy_strerror");
  api.global_init(CURL_GLOBAL_DEFAULT);
  return api;
}

}  // namespace

const CurlApi& curl_api() {
  // A static's initialisation runs once even with threads; when it throws,
  // the next call tries again.
  static const CurlApi api = load_curl();
  return api;
}

}  // namespace wslgpu
