// The few libcurl functions wslgpu-setup calls, loaded on first use (see
// installer/system/dynamic_library.hpp for why it is not linked), and what
// their failures mean to a caller that retries. Only installer/net/
// download.cpp and url_query.cpp use them.
#pragma once
#include <curl/curl.h>

namespace wslgpu {

struct CurlApi {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_easy_reset) easy_reset = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
};

// Loads libcurl and runs curl_global_init the first time; thread-safe.
// Throws StepFailure (with the package to install) when libcurl is missing.
const CurlApi& curl_api();

// Whether a transfer that ended with CODE (and HTTP_STATUS, for
// CURLE_HTTP_RETURNED_ERROR) may work when tried again: a name or a
// connection that failed, a timeout, a dropped or garbled transfer, HTTP
// 5xx, 408 and 429. A 404, a refused protocol or a bad certificate will not.
bool curl_failure_is_transient(CURLcode code, long http_status);

}  // namespace wslgpu
