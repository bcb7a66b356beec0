// What a libcurl transfer may connect to, first and after a redirect: HTTPS
// only (and plain HTTP when the manifest says insecure_http), whatever the
// libcurl it runs with.
//
// Why the two generations of options: CURLOPT_PROTOCOLS_STR and
// CURLOPT_REDIR_PROTOCOLS_STR arrived in libcurl 7.85.0; an older one
// (Ubuntu 22.04 ships 7.81.0) answers CURLE_UNKNOWN_OPTION and then keeps its
// default for redirects, HTTP, HTTPS, FTP and FTPS, so an https:// URL that
// redirects to http:// would be followed
// (https://curl.se/libcurl/c/CURLOPT_REDIR_PROTOCOLS_STR.html). There the
// bitmask options, CURLOPT_PROTOCOLS and CURLOPT_REDIR_PROTOCOLS (7.19.4 and
// later, deprecated but still honoured by 7.85.0 and later:
// https://curl.se/libcurl/c/CURLOPT_REDIR_PROTOCOLS.html), say the same.
#pragma once
#include <string>

#include "installer/net/curl_api.hpp"

namespace wslgpu {

// The bitmask options, named once: they are deprecated since 7.85.0, and
// curl.h marks them so; they are what a libcurl older than that understands.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
inline constexpr CURLoption kProtocolsMask = CURLOPT_PROTOCOLS;
inline constexpr CURLoption kRedirectProtocolsMask = CURLOPT_REDIR_PROTOCOLS;
#pragma GCC diagnostic pop

// Restricts CURL, through API.easy_setopt, to https (and http with
// ALLOW_HTTP), for the first request and every redirect: the _STR options
// first, the bitmask ones for each that fails. Returns "" when both
// restrictions are in place, or why they are not; then the download must not
// start. API.easy_strerror names libcurl's errors in that message.
std::string restrict_curl_protocols(const CurlApi& api, CURL* curl, bool allow_http);

}  // namespace wslgpu
