#include "installer/net/curl_protocols.hpp"

namespace wslgpu {

namespace {

struct Restriction {
  CURLoption by_name;
  const char* by_name_option;
  CURLoption by_mask;
  const char* by_mask_option;
  const char* what;
};

constexpr Restriction kRestrictions[] = {
    {CURLOPT_PROTOCOLS_STR, "CURLOPT_PROTOCOLS_STR", kProtocolsMask, "CURLOPT_PROTOCOLS", "the download"},
    {CURLOPT_REDIR_PROTOCOLS_STR, "CURLOPT_REDIR_PROTOCOLS_STR", kRedirectProtocolsMask, "CURLOPT_REDIR_PROTOCOLS",
     "its redirects"},
};

}  // namespace

std::string restrict_curl_protocols(const CurlApi& api, CURL* curl, bool allow_http) {
  const char* names = allow_http ? "https,http" : "https";
  const long mask = allow_http ? (CURLPROTO_HTTPS | CURLPROTO_HTTP) : CURLPROTO_HTTPS;
  for (const Restriction& r : kRestrictions) {
    CURLcode by_name = api.easy_setopt(curl, r.by_name, names);
    if (by_name == CURLE_OK) continue;
    CURLcode by_mask = api.easy_setopt(curl, r.by_mask, mask);
    if (by_mask == CURLE_OK) continue;
    return std::string("this libcurl cannot be told to keep ") + r.what + " on " +
           (allow_http ? "HTTPS and HTTP" : "HTTPS") + " (" + r.by_name_option + ": " + api.easy_strerror(by_name) +
           "; " + r.by_mask_option + ": " + api.easy_strerror(by_mask) +
           "), so nothing was downloaded; install libcurl 7.19.4 or newer (the libcurl4 package)";
  }
  return "";
}

}  // namespace wslgpu
