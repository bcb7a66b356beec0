#include "steps/apt/apt_repository_key.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "installer/formats/openpgp_armour.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/net/download.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/system/error.hpp"
#include "installer/system/paths.hpp"

namespace wslgpu::apt_repo {

namespace {

// A vendor's key file is a few KiB (AMD's armoured key, NVIDIA's .pub);
// a download without a hash stops well above that.
constexpr std::uint64_t kMaxKeyBytes = 1024 * 1024;

// "https://user@repo.radeon.com:443/rocm/rocm.gpg.key" -> "repo.radeon.com".
std::string host_of_url(const std::string& url) {
  std::size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  std::string host = url.substr(start, url.find('/', start) - start);
  if (std::size_t at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (std::size_t colon = host.rfind(':'); colon != std::string::npos && host.find(']') == std::string::npos)
    host = host.substr(0, colon);
  return host;
}

// Enough of a fingerprint for a summary line; the details carry all of it.
std::string short_fingerprint(const std::string& fpr) {
  if (fpr.size() != 40) return fpr;
  return fpr.substr(0, 4) + " " + fpr.substr(4, 4) + " … " + fpr.substr(32, 4) + " " + fpr.substr(36, 4);
}

// Whether a signature by KEY can still be verified at NOW: by its primary
// key when that may sign, else by a signing subkey that has not expired.
// (apt's gpgv takes a signature by any valid signing key of the keyring.)
bool has_signing_key(const OpenPgpKey& key, std::int64_t now) {
  if (primary_can_sign(key)) return true;
  for (const OpenPgpSubkey& sub : key.subkeys)
    if (subkey_can_sign(sub) && !(sub.expires && *sub.expires < now)) return true;
  return false;
}

// The plan's lines about KEY's signing subkeys that expired before NOW,
// when KEY itself has not: harmless when the primary key signs (NVIDIA's
// container-toolkit key, github.com/NVIDIA/libnvidia-container issue 171),
// or when another signing subkey is valid; a warning when no key is left
// that can sign, since apt then rejects every signature of the repository.
std::vector<std::string> expired_subkey_lines(const OpenPgpKey& key, std::int64_t now) {
  std::vector<std::string> expired;
  for (const OpenPgpSubkey& sub : key.subkeys)
    if (subkey_can_sign(sub) && sub.expires && *sub.expires < now)
      expired.push_back("subkey " + format_key_id(sub.fingerprint) + " expired on " + utc_date(*sub.expires));
  std::vector<std::string> lines;
  if (primary_can_sign(key)) {
    for (const auto& e : expired) lines.push_back(e + "; apt verifies with the primary key, which can sign");
    return lines;
  }
  if (has_signing_key(key, now)) {
    for (const auto& e : expired) lines.push_back(e + "; apt verifies with a signing subkey that has not expired");
    return lines;
  }
  std::string why = expired.empty() ? std::string("and the file holds no signing subkey")
                                    : "and every signing subkey has expired (" + join_repo(expired, ", ") + ")";
  lines.push_back("no key in this file can sign: the primary key " + format_key_id(key.fingerprint) +
                  " is not a signing key (its self-signature's key flags have no S) " + why +
                  ": apt will reject the repository's signatures until the vendor publishes the key with a "
                  "signing subkey that has not expired");
  return lines;
}

std::string read_repo_host_file(const std::string& host_path) {
  std::ifstream in(host_path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Network key URLs that could not be fetched during this run, and why: the
// rocm profile's two repositories share AMD's key, and asking a server that
// cannot be reached a second time would only double the wait.
std::map<std::string, std::string>& failed_key_urls() {
  static std::map<std::string, std::string> failed;
  return failed;
}

// The vendor's key is kept in the state folder's cache, which only root may
// write. Without root, a plan that must fetch it says so, rather than that
// the key "could not be used" with advice about key_url.
std::optional<StepPlan> refusal_without_root(const StepContext& ctx, const std::string& cached) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(ctx.fs.host_path(cached)).parent_path();
  while (!dir.empty() && dir != dir.root_path() && !std::filesystem::exists(dir, ec)) dir = dir.parent_path();
  if (::access(dir.c_str(), W_OK) == 0) return std::nullopt;
  return refusal("planning this step needs root: it keeps the vendor's signing key in " + parent_path(cached) +
                     ", which only root may write",
                 {"Run it again with sudo."});
}

// rocm_key_url -> rocm_key_fingerprint: the profiles name both alike.
std::string fingerprint_variable(const AptRepositorySpec& repo) {
  std::string v = repo.key_url_variable;
  if (v.size() > 4 && v.compare(v.size() - 4, 4, "_url") == 0) return v.substr(0, v.size() - 4) + "_fingerprint";
  return "the *_key_fingerprint variable";
}

// Why a fetch failed, said so that the fix is plain: the vendor's server
// could not be reached, or answered with an error, or the file is not there.
StepPlan fetch_refusal(const AptRepositorySpec& repo, const std::string& why) {
  std::string instead = repo.key_url_variable.empty() ? "point key_url at a copy of the key (file:///path/to/the/key)"
                                                 : "pass --set " + repo.key_url_variable +
                                                       "=file:///path/to/the/key (a copy fetched elsewhere)";
  if (repo.key_url.rfind("file://", 0) == 0)
    return refusal("could not read the signing key (" + why + ")", {"Check the path, or " + instead + "."});
  const std::string host = host_of_url(repo.key_url);
  if (why.find("returned error") != std::string::npos)
    return refusal(host + " answered with an error when asked for the signing key (" + why + ")",
                   {"Check key_url (the vendor may have moved the key), or " + instead + "."});
  return refusal("could not reach " + host + " to fetch the signing key (" + why + ")",
                 {"Check the network or the proxy (https_proxy), or " + instead + "."});
}

}  // namespace

bool is_armoured(const std::string& key) {
  std::size_t i = key.find_first_not_of(" \t\r\n");
  return i != std::string::npos && key.compare(i, 36, "-----BEGIN PGP PUBLIC KEY BLOCK-----") == 0;
}

// Whether BYTES is the pinned key and nothing else. WHAT names the file
// in messages ("the key at URL").
KeyCheck check_fingerprint(const AptRepositorySpec& repo, const std::string& bytes, const std::string& what) {
  KeyCheck c;
  std::vector<OpenPgpKey> keys;
  try {
    c.binary_only = binary_key_before_its_armour(bytes);
    keys = read_openpgp_keys(c.binary_only ? *c.binary_only : bytes);
  } catch (const OpenPgpError& e) {
    c.refusal = refusal(what + " is not an OpenPGP public key: " + e.what(),
                        {"The key was not used. Check that " + std::string(repo.key_url.empty() ? "key_file" : "key_url") +
                         " names the key itself (a proxy's or a server's error page is not a key)."});
    return c;
  }
  const std::string pinned = format_fingerprint(repo.key_fingerprint);
  auto is_pinned = [&](const OpenPgpKey& k) { return k.fingerprint == repo.key_fingerprint; };
  bool has_pinned = std::any_of(keys.begin(), keys.end(), is_pinned);
  if (keys.size() == 1 && has_pinned) {
    c.key = keys.front();
    return c;
  }
  std::vector<std::string> others;
  for (const auto& k : keys)
    if (!is_pinned(k)) others.push_back(format_fingerprint(k.fingerprint));
  if (!has_pinned && keys.size() == 1) {
    c.refusal =
        refusal(what + " is " + others.front() + ", not the pinned " + pinned,
                {"The key was not used. Either the server sent another key (a proxy or a mirror may serve "
                 "its own), or the vendor has moved to a new key: compare with the fingerprint the vendor "
                 "publishes, then correct key_fingerprint" +
                 std::string(repo.key_url_variable.empty() ? "" : " (--set " + fingerprint_variable(repo) + "=...)") + "."});
  } else if (!has_pinned) {
    c.refusal = refusal(what + " holds " + std::to_string(keys.size()) + " keys, and none is the pinned " + pinned,
                        {"It holds " + join_repo(others, ", ") + ". The keys were not used: point " +
                         std::string(repo.key_url.empty() ? "key_file" : "key_url") + " at the vendor's key."});
  } else {
    c.refusal =
        refusal(what + " holds other keys besides the pinned " + pinned,
                {"It also holds " + join_repo(others, ", ") +
                 ", and apt would accept a signature by any key in the file. The keys were not used: "
                 "point " +
                 std::string(repo.key_url.empty() ? "key_file" : "key_url") + " at a file with the vendor's key alone."});
  }
  return c;
}

// The key's bytes, checked against key_sha256 or key_fingerprint, or the
// refusal that says why it cannot be used. A fetched key is kept in
// STATE_DIR/cache/keys/ by its hash or fingerprint, so that a converged
// plan reads it there instead of asking the network.
std::optional<StepPlan> obtain_key(const AptRepositorySpec& repo, StepContext& ctx, std::string& bytes,
                                   std::optional<OpenPgpKey>& pgp, bool* armour_dropped) {
  auto use = [&](const std::string& held, const KeyCheck& c) {
    bytes = c.binary_only ? *c.binary_only : held;
    if (armour_dropped) *armour_dropped = c.binary_only.has_value();
  };
  if (!repo.key_file.empty()) {
    auto info = ctx.fs.stat(repo.key_file);
    if (!info || info->type != FileType::regular)
      throw StepFailure("the key file " + repo.key_file + " of apt repository \"" + repo.name + "\" does not exist");
    bytes = ctx.fs.read(repo.key_file);
    if (!repo.key_fingerprint.empty()) {
      const std::string held = bytes;
      KeyCheck c = check_fingerprint(repo, held, "the key file " + repo.key_file);
      use(held, c);
      pgp = c.key;
      return c.refusal;
    }
    std::string actual = sha256_hex(bytes);
    if (actual != repo.key_sha256)
      throw StepFailure("the key file " + repo.key_file + " has SHA-256 " + actual + ", but key_sha256 says " + repo.key_sha256 +
                        "; the key was not used. Check where the file came from, or correct key_sha256.");
    return std::nullopt;
  }
  const std::string what = "the key at " + repo.key_url;
  // Offline, a key that is not at hand is not fetched: the plan goes on
  // without it and says so (StepPlan::not_asked).
  const bool may_fetch = !ctx.offline || repo.key_url.rfind("file://", 0) == 0;
  auto not_asked = [&] {
    StepPlan p;
    p.verdict = Verdict::change;
    p.not_asked = what;
    return p;
  };
  const std::string cached =
      ctx.state_dir + "/cache/keys/" + (repo.key_fingerprint.empty() ? repo.key_sha256 : repo.key_fingerprint) + ".key";
  if (repo.key_fingerprint.empty()) {
    auto info = ctx.fs.stat(cached);
    if (!info || info->type != FileType::regular || sha256_hex(ctx.fs.read(cached)) != repo.key_sha256) {
      if (!may_fetch) return not_asked();
      if (auto no_root = refusal_without_root(ctx, cached)) return no_root;
      DownloadRequest req;
      req.url = repo.key_url;
      req.sha256 = repo.key_sha256;
      req.host_path = ctx.fs.host_path(cached);
      req.total_timeout = std::chrono::minutes(2);
      req.retries = 1;
      req.quiet = true;
      try {
        fetch_file(req);
      } catch (const StepFailure& e) {
        if (std::string(e.what()).rfind("could not download", 0) == 0) return fetch_refusal(repo, e.what());
        throw StepFailure("the signing key of apt repository \"" + repo.name + "\": " + e.what());
      }
    }
    bytes = ctx.fs.read(cached);
    return std::nullopt;
  }
  // By fingerprint: the cached copy is checked again on every plan (it is
  // a file on disk like any other), and fetched anew when it is not the
  // pinned key or has expired (the vendor may have extended it since).
  std::optional<KeyCheck> expired;  // the cached key, when only its expiry is wrong with it
  if (auto info = ctx.fs.stat(cached); info && info->type == FileType::regular) {
    std::string held = ctx.fs.read(cached);
    KeyCheck c = check_fingerprint(repo, held, what);
    if (!c.refusal && !(c.key->expires && *c.key->expires < now_seconds())) {
      use(held, c);
      pgp = c.key;
      return std::nullopt;
    }
    if (!c.refusal) {
      expired = c;
      use(held, c);
    }
  }
  // An expired key that cannot be fetched anew is still the pinned key:
  // the plan goes on with it and says that it has expired.
  auto give_up = [&](const StepPlan& why) -> std::optional<StepPlan> {
    if (!expired) return why;
    pgp = expired->key;
    return std::nullopt;
  };
  if (!may_fetch) {
    if (!expired) return not_asked();
    pgp = expired->key;  // the cached key, whose expiry the plan shows
    return std::nullopt;
  }
  if (auto failed = failed_key_urls().find(repo.key_url); failed != failed_key_urls().end())
    return give_up(fetch_refusal(repo, failed->second));
  if (auto no_root = refusal_without_root(ctx, cached)) return give_up(*no_root);
  const std::string fetched = ctx.fs.host_path(cached) + ".fetched";
  DownloadRequest req;
  req.url = repo.key_url;
  req.checked_by_caller = true;
  req.max_bytes = kMaxKeyBytes;
  req.host_path = fetched;
  req.total_timeout = std::chrono::minutes(2);
  req.retries = 1;
  req.backoff = std::chrono::milliseconds(500);
  req.quiet = true;
  try {
    fetch_file(req);
  } catch (const StepFailure& e) {
    if (std::string(e.what()).rfind("could not download", 0) == 0) {
      if (repo.key_url.rfind("file://", 0) != 0) failed_key_urls()[repo.key_url] = e.what();
      return give_up(fetch_refusal(repo, e.what()));
    }
    return give_up(refusal("the signing key could not be used: " + std::string(e.what()),
                           {"Check that key_url names the vendor's key file."}));
  }
  std::string got = read_repo_host_file(fetched);
  KeyCheck c = check_fingerprint(repo, got, what);
  std::error_code ec;
  if (c.refusal) {
    std::filesystem::remove(fetched, ec);
    return c.refusal;
  }
  std::filesystem::rename(fetched, ctx.fs.host_path(cached), ec);
  if (ec) throw StepFailure("cannot keep the fetched key in " + cached + ": " + ec.message());
  use(got, c);
  pgp = c.key;
  return std::nullopt;
}

// "CA8B B472 … 1A69 3C5C verified" or "sha256 73f5…e1".
std::string key_note(const AptRepositorySpec& repo) {
  if (!repo.key_fingerprint.empty()) return short_fingerprint(repo.key_fingerprint) + " verified";
  return "sha256 " + repo.key_sha256.substr(0, 4) + "…" + repo.key_sha256.substr(repo.key_sha256.size() - 2);
}

std::vector<std::string> key_details(const AptRepositorySpec& repo, const OpenPgpKey& pgp) {
  std::vector<std::string> lines;
  std::string line = "key " + format_fingerprint(pgp.fingerprint) + " (" + pgp.algorithm;
  if (!pgp.user_ids.empty()) line += ", " + pgp.user_ids.front();
  line += pgp.expires ? ", expires " + utc_date(*pgp.expires) : std::string(", does not expire");
  lines.push_back(line + ") from " + repo.key_source());
  if (pgp.expires && *pgp.expires < now_seconds())
    lines.push_back("this key expired on " + utc_date(*pgp.expires) +
                    ": apt will reject the repository's signatures until the vendor publishes it with a "
                    "later expiry date");
  else
    for (std::string& note : expired_subkey_lines(pgp, now_seconds())) lines.push_back(std::move(note));
  return lines;
}

}  // namespace wslgpu::apt_repo
