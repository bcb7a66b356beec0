// The few libcurl functions wslgpu-setup calls, loaded on first use (see
// installer/system/dynamic_library.hpp for why it is not linked). Only
// installer/net/download.cpp uses them.
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
};

// Loads libcurl and runs curl_global_init the first time; thread-safe.
// Throws StepFailure (with the package to install) when libcurl is missing.
const CurlApi& curl_api();

}  // namespace wslgpu
