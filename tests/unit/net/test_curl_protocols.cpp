// restrict_curl_protocols() against fake libcurls: one that knows the _STR
// options (7.85.0 and later), one that does not (Ubuntu 22.04's 7.81.0) and
// one that takes neither, which download_file() must refuse before any
// transfer starts. The real libcurl's side, a redirect from https:// to
// http:// refused, is in test_download.cpp.
#include <doctest/doctest.h>

#include <cstdarg>
#include <filesystem>
#include <string>
#include <vector>

#include "installer/formats/sha256.hpp"
#include "installer/net/curl_api.hpp"
#include "installer/net/curl_protocols.hpp"
#include "installer/net/download.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

// What the fake libcurl was told, and which options it does not know.
struct FakeCurlState {
  std::vector<std::pair<CURLoption, std::string>> protocol_options;  // option, value ("https" or a mask's number)
  bool knows_names = true;                                           // CURLOPT_*PROTOCOLS_STR
  bool knows_masks = true;                                           // CURLOPT_*PROTOCOLS
  bool knows_redirects = true;                                       // CURLOPT_REDIR_PROTOCOLS*
  int performs = 0;
};
FakeCurlState fake_curl;

// curl_easy_setopt's own shape: the last named parameter is an enum, which
// clang's -Wvarargs flags for va_start. libcurl's C implementation does the
// same with the same type (an int-sized enum, passed as an int on every ABI
// we build for); the fake must match the function pointer it stands in for.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wvarargs"
CURLcode fake_curl_setopt(CURL*, CURLoption option, ...) {
  va_list ap;
  va_start(ap, option);
  CURLcode result = CURLE_OK;
  if (option == CURLOPT_PROTOCOLS_STR || option == CURLOPT_REDIR_PROTOCOLS_STR) {
    fake_curl.protocol_options.emplace_back(option, va_arg(ap, const char*));
    if (!fake_curl.knows_names) result = CURLE_UNKNOWN_OPTION;
  } else if (option == kProtocolsMask || option == kRedirectProtocolsMask) {
    fake_curl.protocol_options.emplace_back(option, std::to_string(va_arg(ap, long)));
    if (!fake_curl.knows_masks) result = CURLE_UNKNOWN_OPTION;
  }
  va_end(ap);
  if (!fake_curl.knows_redirects && (option == CURLOPT_REDIR_PROTOCOLS_STR || option == kRedirectProtocolsMask))
    result = CURLE_UNKNOWN_OPTION;
  return result;
}
#pragma GCC diagnostic pop

const char* fake_curl_strerror(CURLcode code) {
  return code == CURLE_UNKNOWN_OPTION ? "An unknown option was passed in to libcurl" : "another error";
}

int fake_curl_handle;
CURL* fake_curl_init() { return &fake_curl_handle; }
void fake_curl_cleanup(CURL*) {}
CURLcode fake_curl_perform(CURL*) {
  ++fake_curl.performs;
  return CURLE_COULDNT_CONNECT;
}
CURLcode fake_curl_getinfo(CURL*, CURLINFO, ...) { return CURLE_OK; }

CurlApi fake_curl_api(bool knows_names, bool knows_masks) {
  fake_curl = FakeCurlState{};
  fake_curl.knows_names = knows_names;
  fake_curl.knows_masks = knows_masks;
  CurlApi api;
  api.easy_init = fake_curl_init;
  api.easy_cleanup = fake_curl_cleanup;
  api.easy_setopt = fake_curl_setopt;
  api.easy_perform = fake_curl_perform;
  api.easy_getinfo = fake_curl_getinfo;
  api.easy_strerror = fake_curl_strerror;
  return api;
}

using Options = std::vector<std::pair<CURLoption, std::string>>;

}  // namespace

TEST_CASE("a libcurl that knows the _STR options keeps the download and its redirects on https by name") {
  CurlApi api = fake_curl_api(true, true);
  CHECK(restrict_curl_protocols(api, &fake_curl_handle, false) == "");
  CHECK(fake_curl.protocol_options ==
        Options{{CURLOPT_PROTOCOLS_STR, "https"}, {CURLOPT_REDIR_PROTOCOLS_STR, "https"}});

  api = fake_curl_api(true, true);
  CHECK(restrict_curl_protocols(api, &fake_curl_handle, true) == "");
  CHECK(fake_curl.protocol_options ==
        Options{{CURLOPT_PROTOCOLS_STR, "https,http"}, {CURLOPT_REDIR_PROTOCOLS_STR, "https,http"}});
}

TEST_CASE("a libcurl older than 7.85.0 is kept on https with the bitmask options instead") {
  CurlApi api = fake_curl_api(false, true);
  CHECK(restrict_curl_protocols(api, &fake_curl_handle, false) == "");
  const std::string https = std::to_string(CURLPROTO_HTTPS);
  CHECK(fake_curl.protocol_options == Options{{CURLOPT_PROTOCOLS_STR, "https"},
                                              {kProtocolsMask, https},
                                              {CURLOPT_REDIR_PROTOCOLS_STR, "https"},
                                              {kRedirectProtocolsMask, https}});

  // insecure_http: plain HTTP too, as with the _STR options.
  api = fake_curl_api(false, true);
  CHECK(restrict_curl_protocols(api, &fake_curl_handle, true) == "");
  const std::string both = std::to_string(CURLPROTO_HTTPS | CURLPROTO_HTTP);
  CHECK(fake_curl.protocol_options == Options{{CURLOPT_PROTOCOLS_STR, "https,http"},
                                              {kProtocolsMask, both},
                                              {CURLOPT_REDIR_PROTOCOLS_STR, "https,http"},
                                              {kRedirectProtocolsMask, both}});
}

TEST_CASE("a libcurl that takes neither kind of protocol option is refused, and no transfer starts") {
  CurlApi api = fake_curl_api(false, false);
  const std::string refusal =
      "this libcurl cannot be told to keep the download on HTTPS (CURLOPT_PROTOCOLS_STR: An unknown option was passed "
      "in to libcurl; CURLOPT_PROTOCOLS: An unknown option was passed in to libcurl), so nothing was downloaded; "
      "install libcurl 7.19.4 or newer (the libcurl4 package)";
  CHECK(restrict_curl_protocols(api, &fake_curl_handle, false) == refusal);

  wslgpu::testing::TempDir tmp;
  DownloadRequest req;
  req.url = "https://repo.example/pkg.deb";
  req.sha256 = sha256_hex("the package");
  req.host_path = tmp.path() + "/pkg.deb";
  api = fake_curl_api(false, false);
  CHECK_THROWS_WITH_AS(download_file(req, api),
                       ("refusing to download https://repo.example/pkg.deb: " + refusal).c_str(), StepFailure);
  CHECK(fake_curl.performs == 0);
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb"));
  CHECK_FALSE(std::filesystem::exists(tmp.path() + "/pkg.deb.part"));

  // Only the redirects' options refused is refused too: a redirect is what leaves HTTPS.
  api = fake_curl_api(true, true);
  fake_curl.knows_redirects = false;
  CHECK(restrict_curl_protocols(api, &fake_curl_handle, false) ==
        "this libcurl cannot be told to keep its redirects on HTTPS (CURLOPT_REDIR_PROTOCOLS_STR: An unknown option "
        "was passed in to libcurl; CURLOPT_REDIR_PROTOCOLS: An unknown option was passed in to libcurl), so nothing "
        "was downloaded; install libcurl 7.19.4 or newer (the libcurl4 package)");
}
