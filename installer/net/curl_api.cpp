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
  library.bind(api.easy_reset, "curl_easy_reset");
  library.bind(api.slist_append, "curl_slist_append");
  library.bind(api.slist_free_all, "curl_slist_free_all");
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

bool curl_failure_is_transient(CURLcode code, long http_status) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    case CURLE_HTTP_RETURNED_ERROR:
      return http_status >= 500 || http_status == 408 || http_status == 429;
    default:
      return false;
  }
}

}  // namespace wslgpu
