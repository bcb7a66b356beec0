#include "steps/apt/apt_repository.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "installer/formats/apt_sources.hpp"
#include "installer/formats/deb822.hpp"
#include "installer/formats/diff.hpp"
#include "installer/formats/dpkg_files.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/formats/sha256.hpp"
#include "installer/net/download.hpp"
#include "installer/net/fetch_helper.hpp"
#include "installer/system/error.hpp"
#include "steps/files/file_change.hpp"

namespace wslgpu {

namespace {

// A vendor's key file is a few KiB (AMD's armoured key, NVIDIA's .pub);
// a download without a hash stops well above that.
constexpr std::uint64_t kMaxKeyBytes = 1024 * 1024;

std::string join_repo(const std::vector<std::string>& items, const std::string& sep = " ") {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

bool is_armoured(const std::string& key) {
  std::size_t i = key.find_first_not_of(" \t\r\n");
  return i != std::string::npos && key.compare(i, 36, "-----BEGIN PGP PUBLIC KEY BLOCK-----") == 0;
}

std::string base_name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

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

std::string utc_date(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  ::gmtime_r(&tt, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
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

// Whether apt reads a file of this name in preferences.d: no extension or
// ".pref", and the same characters as sources.list.d (apt_preferences(5)).
bool apt_reads_preferences_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  std::size_t dot = name.rfind('.');
  if (dot != std::string::npos && name.substr(dot + 1) != "pref") return false;
  return name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:") ==
         std::string::npos;
}

std::string owner_text(const std::optional<DpkgOwner>& owner) {
  return owner ? owner->package : std::string("not from a package");
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

StepPlan refusal(const std::string& summary, const std::vector<std::string>& details) {
  StepPlan p;
  p.verdict = Verdict::refused;
  p.summary = summary;
  p.details = details;
  return p;
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

// What a key file holds, against the pinned fingerprint.
struct KeyCheck {
  std::optional<StepPlan> refusal;  // set when the key must not be used
  std::optional<OpenPgpKey> key;    // the pinned key, when it is the file's only one
};

class AptRepositoryStep : public Step {
 public:
  std::string name;
  std::vector<std::string> uris, suites, components, architectures;
  std::string key_url, key_file, key_sha256, key_fingerprint;
  std::string key_url_variable;  // "rocm_key_url" when key_url is "${rocm_key_url}"
  std::string pin_origin;
  std::int64_t pin_priority = 0;

  std::string sources_path() const { return "/etc/apt/sources.list.d/" + name + ".sources"; }
  std::string pref_path() const { return "/etc/apt/preferences.d/" + name + ".pref"; }
  std::string key_source() const { return key_url.empty() ? key_file : key_url; }

  // ------------------------------------------------------------ the key

  // Whether BYTES is the pinned key and nothing else. WHAT names the file
  // in messages ("the key at URL").
  KeyCheck check_fingerprint(const std::string& bytes, const std::string& what) const {
    KeyCheck c;
    std::vector<OpenPgpKey> keys;
    try {
      keys = read_openpgp_keys(bytes);
    } catch (const OpenPgpError& e) {
      c.refusal = refusal(what + " is not an OpenPGP public key: " + e.what(),
                          {"The key was not used. Check that " + std::string(key_url.empty() ? "key_file" : "key_url") +
                           " names the key itself (a proxy's or a server's error page is not a key)."});
      return c;
    }
    const std::string pinned = format_fingerprint(key_fingerprint);
    auto is_pinned = [&](const OpenPgpKey& k) { return k.fingerprint == key_fingerprint; };
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
                   std::string(key_url_variable.empty() ? "" : " (--set " + fingerprint_variable() + "=...)") + "."});
    } else if (!has_pinned) {
      c.refusal = refusal(what + " holds " + std::to_string(keys.size()) + " keys, and none is the pinned " + pinned,
                          {"It holds " + join_repo(others, ", ") + ". The keys were not used: point " +
                           std::string(key_url.empty() ? "key_file" : "key_url") + " at the vendor's key."});
    } else {
      c.refusal =
          refusal(what + " holds other keys besides the pinned " + pinned,
                  {"It also holds " + join_repo(others, ", ") +
                   ", and apt would accept a signature by any key in the file. The keys were not used: "
                   "point " +
                   std::string(key_url.empty() ? "key_file" : "key_url") + " at a file with the vendor's key alone."});
    }
    return c;
  }

  // rocm_key_url -> rocm_key_fingerprint: the profiles name both alike.
  std::string fingerprint_variable() const {
    std::string v = key_url_variable;
    if (v.size() > 4 && v.compare(v.size() - 4, 4, "_url") == 0) return v.substr(0, v.size() - 4) + "_fingerprint";
    return "the *_key_fingerprint variable";
  }

  // Why a fetch failed, said so that the fix is plain: the vendor's server
  // could not be reached, or answered with an error, or the file is not there.
  StepPlan fetch_refusal(const std::string& why) const {
    std::string instead = key_url_variable.empty() ? "point key_url at a copy of the key (file:///path/to/the/key)"
                                                   : "pass --set " + key_url_variable +
                                                         "=file:///path/to/the/key (a copy fetched elsewhere)";
    if (key_url.rfind("file://", 0) == 0)
      return refusal("could not read the signing key (" + why + ")", {"Check the path, or " + instead + "."});
    const std::string host = host_of_url(key_url);
    if (why.find("returned error") != std::string::npos)
      return refusal(host + " answered with an error when asked for the signing key (" + why + ")",
                     {"Check key_url (the vendor may have moved the key), or " + instead + "."});
    return refusal("could not reach " + host + " to fetch the signing key (" + why + ")",
                   {"Check the network or the proxy (https_proxy), or " + instead + "."});
  }

  // The key's bytes, checked against key_sha256 or key_fingerprint, or the
  // refusal that says why it cannot be used. A fetched key is kept in
  // STATE_DIR/cache/keys/ by its hash or fingerprint, so that a converged
  // plan reads it there instead of asking the network.
  std::optional<StepPlan> obtain_key(StepContext& ctx, std::string& bytes, std::optional<OpenPgpKey>& pgp) const {
    if (!key_file.empty()) {
      auto info = ctx.fs.stat(key_file);
      if (!info || info->type != FileType::regular)
        throw StepFailure("the key file " + key_file + " of apt repository \"" + name + "\" does not exist");
      bytes = ctx.fs.read(key_file);
      if (!key_fingerprint.empty()) {
        KeyCheck c = check_fingerprint(bytes, "the key file " + key_file);
        pgp = c.key;
        return c.refusal;
      }
      std::string actual = sha256_hex(bytes);
      if (actual != key_sha256)
        throw StepFailure("the key file " + key_file + " has SHA-256 " + actual + ", but key_sha256 says " + key_sha256 +
                          "; the key was not used. Check where the file came from, or correct key_sha256.");
      return std::nullopt;
    }
    const std::string what = "the key at " + key_url;
    const std::string cached =
        ctx.state_dir + "/cache/keys/" + (key_fingerprint.empty() ? key_sha256 : key_fingerprint) + ".key";
    if (key_fingerprint.empty()) {
      auto info = ctx.fs.stat(cached);
      if (!info || info->type != FileType::regular || sha256_hex(ctx.fs.read(cached)) != key_sha256) {
        if (auto no_root = refusal_without_root(ctx, cached)) return no_root;
        DownloadRequest req;
        req.url = key_url;
        req.sha256 = key_sha256;
        req.host_path = ctx.fs.host_path(cached);
        req.total_timeout = std::chrono::minutes(2);
        req.retries = 1;
        req.quiet = true;
        try {
          fetch_file(req);
        } catch (const StepFailure& e) {
          if (std::string(e.what()).rfind("could not download", 0) == 0) return fetch_refusal(e.what());
          throw StepFailure("the signing key of apt repository \"" + name + "\": " + e.what());
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
      KeyCheck c = check_fingerprint(held, what);
      if (!c.refusal && !(c.key->expires && *c.key->expires < now_seconds())) {
        bytes = held;
        pgp = c.key;
        return std::nullopt;
      }
      if (!c.refusal) {
        expired = c;
        bytes = held;
      }
    }
    // An expired key that cannot be fetched anew is still the pinned key:
    // the plan goes on with it and says that it has expired.
    auto give_up = [&](const StepPlan& why) -> std::optional<StepPlan> {
      if (!expired) return why;
      pgp = expired->key;
      return std::nullopt;
    };
    if (auto failed = failed_key_urls().find(key_url); failed != failed_key_urls().end())
      return give_up(fetch_refusal(failed->second));
    if (auto no_root = refusal_without_root(ctx, cached)) return give_up(*no_root);
    const std::string fetched = ctx.fs.host_path(cached) + ".fetched";
    DownloadRequest req;
    req.url = key_url;
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
        if (key_url.rfind("file://", 0) != 0) failed_key_urls()[key_url] = e.what();
        return give_up(fetch_refusal(e.what()));
      }
      return give_up(refusal("the signing key could not be used: " + std::string(e.what()),
                             {"Check that key_url names the vendor's key file."}));
    }
    std::string got = read_repo_host_file(fetched);
    KeyCheck c = check_fingerprint(got, what);
    std::error_code ec;
    if (c.refusal) {
      std::filesystem::remove(fetched, ec);
      return c.refusal;
    }
    std::filesystem::rename(fetched, ctx.fs.host_path(cached), ec);
    if (ec) throw StepFailure("cannot keep the fetched key in " + cached + ": " + ec.message());
    bytes = got;
    pgp = c.key;
    return std::nullopt;
  }

  // "CA8B B472 … 1A69 3C5C verified" or "sha256 73f5…e1".
  std::string key_note() const {
    if (!key_fingerprint.empty()) return short_fingerprint(key_fingerprint) + " verified";
    return "sha256 " + key_sha256.substr(0, 4) + "…" + key_sha256.substr(key_sha256.size() - 2);
  }

  // ------------------------------------------------------------ other sources

  // Whether E names one of this step's URIs with one of its suites, the
  // pair apt allows one Signed-By for. Disabled entries are not read by apt.
  bool same_source(const AptSourceEntry& e) const {
    if (!e.enabled) return false;
    for (const auto& u : uris)
      if (e.has_uri(u))
        for (const auto& s : suites)
          if (e.has_suite(s)) return true;
    return false;
  }

  std::set<std::string> arch_set(const AptSourceEntry& e, const std::string& native) const {
    std::set<std::string> s;
    if (e.architectures.empty())
      s.insert(native);
    else
      s.insert(e.architectures.begin(), e.architectures.end());
    s.insert(e.architectures_add.begin(), e.architectures_add.end());
    for (const auto& a : e.architectures_remove) s.erase(a);
    return s;
  }

  // "" when ENTRIES, all naming this repository, already say what this step
  // wants, signed by the pinned key alone; else why not. KEYRINGS receives
  // the keyring files they name, to fingerprint the plan with.
  std::string reuse_problem(StepContext& ctx, const std::vector<const AptSourceEntry*>& entries,
                            std::vector<std::string>& keyrings) const {
    const AptSourceEntry& first = *entries.front();
    for (const auto* e : entries) {
      if (e->trusted == "yes") return e->where() + " says trusted=yes, which turns apt's signature check off";
      if (e->signed_by.empty() && e->signed_by_key.empty())
        return e->where() + " names no Signed-By key, so any key apt trusts may sign it";
      if (e->signed_by != first.signed_by || e->signed_by_key != first.signed_by_key)
        return first.where() + " and " + e->where() + " name different Signed-By keys";
    }
    // The keys.
    std::set<std::string> found, restrict_to;
    std::optional<std::int64_t> pinned_expired;  // when a copy of the pinned key there has expired
    auto note = [&](const OpenPgpKey& k) {
      found.insert(k.fingerprint);
      if (k.fingerprint == key_fingerprint && k.expires && *k.expires < now_seconds()) pinned_expired = k.expires;
    };
    if (!first.signed_by_key.empty()) {
      if (key_fingerprint.empty()) return first.where() + " holds its key inline, and key_sha256 pins a key file";
      try {
        for (const auto& k : read_openpgp_keys(first.signed_by_key)) note(k);
      } catch (const OpenPgpError& e) {
        return "the key inside " + first.where() + " cannot be read: " + e.what();
      }
    }
    for (const auto& item : first.signed_by) {
      if (item.empty() || item.front() != '/') {
        std::string f = item;
        if (!f.empty() && f.back() == '!') f.pop_back();
        restrict_to.insert(normalize_fingerprint(f));
        continue;
      }
      auto info = ctx.fs.stat(item);
      if (!info || info->type != FileType::regular) return "its keyring " + item + " does not exist";
      keyrings.push_back(item);
      std::string bytes = ctx.fs.read(item);
      if (key_fingerprint.empty()) {
        if (sha256_hex(bytes) != key_sha256) return "its keyring " + item + " is not the file key_sha256 pins";
        continue;
      }
      try {
        for (const auto& k : read_openpgp_keys(bytes)) note(k);
      } catch (const OpenPgpError& e) {
        return "its keyring " + item + " cannot be read: " + e.what();
      }
    }
    if (key_fingerprint.empty()) {
      if (keyrings.size() != 1 || !restrict_to.empty()) return "key_sha256 pins one key file, and it names another set";
    } else if (!restrict_to.empty()) {
      if (restrict_to != std::set<std::string>{key_fingerprint} || !found.count(key_fingerprint))
        return "its Signed-By does not select the pinned key " + format_fingerprint(key_fingerprint);
    } else if (found != std::set<std::string>{key_fingerprint}) {
      std::vector<std::string> names;
      for (const auto& f : found)
        if (f != key_fingerprint) names.push_back(format_fingerprint(f));
      if (!found.count(key_fingerprint))
        return "its key is " + (names.empty() ? std::string("missing") : join_repo(names, ", ")) + ", not the pinned " +
               format_fingerprint(key_fingerprint);
      return "its keyring also holds " + join_repo(names, ", ") + ", which apt would accept as signers too";
    }
    // AMD's key expired twice (2019, 2021) and every copy of the old file
    // broke apt until it was replaced: an expired copy is replaced too.
    if (pinned_expired)
      return "its copy of the pinned key expired on " + utc_date(*pinned_expired) +
             " (the vendor's current file extends it)";
    // What it fetches.
    const std::string native = ctx.host.arch.empty() ? "(native)" : ctx.host.arch;
    std::set<std::string> wanted_arch;
    if (architectures.empty())
      wanted_arch.insert(native);
    else
      wanted_arch.insert(architectures.begin(), architectures.end());
    for (const auto& u : uris)
      for (const auto& s : suites) {
        std::set<std::string> comps;
        bool any = false;
        for (const auto* e : entries) {
          if (!e->has_type("deb") || !e->has_uri(u) || !e->has_suite(s)) continue;
          std::set<std::string> arches = arch_set(*e, native);
          if (!std::includes(arches.begin(), arches.end(), wanted_arch.begin(), wanted_arch.end())) continue;
          any = true;
          comps.insert(e->components.begin(), e->components.end());
        }
        if (!any)
          return "no deb entry there gives " + u + " " + s + " for " +
                 join_repo({wanted_arch.begin(), wanted_arch.end()});
        for (const auto& c : components)
          if (!comps.count(c)) return "it lacks the component " + c + " of " + u + " " + s;
      }
    return "";
  }

  // The preferences.d files holding only this step's pin, general pins of
  // the same origin (AMD's repo-radeon-pin-600, rocm-pin-600): apt takes
  // the highest priority of every general pin that matches, so a leftover
  // one overrides this step's priority.
  std::vector<std::pair<std::string, std::string>> same_origin_pins(StepContext& ctx) const {
    std::vector<std::pair<std::string, std::string>> out;  // path, content
    if (pin_origin.empty()) return out;
    for (const auto& n : ctx.fs.list("/etc/apt/preferences.d")) {
      const std::string path = "/etc/apt/preferences.d/" + n;
      if (path == pref_path() || !apt_reads_preferences_name(n)) continue;
      // Another apt_repository step's pin (NAME.pref beside its NAME.sources)
      // is that step's to keep: the rocm profile pins both AMD repositories.
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".pref") == 0 &&
          ctx.fs.stat("/etc/apt/sources.list.d/" + n.substr(0, n.size() - 5) + ".sources"))
        continue;
      auto info = ctx.fs.stat(path);
      if (!info || info->type != FileType::regular) continue;
      std::string text = ctx.fs.read(path);
      std::vector<Deb822Stanza> stanzas;
      try {
        stanzas = parse_deb822(text, path);
      } catch (const InputError&) {
        continue;  // apt would complain about it; not ours to judge
      }
      bool all = !stanzas.empty();
      for (const auto& s : stanzas) {
        std::vector<std::string> pin = split_words(s.get_or("Pin", ""));
        all = all && s.get_or("Package", "") == "*" && pin.size() == 2 && pin[0] == "release" &&
              pin[1] == "o=" + pin_origin;
      }
      if (all) out.emplace_back(path, text);
    }
    return out;
  }

  std::string wanted_pin() const {
    Deb822Stanza pin;
    pin.set("Package", "*");
    pin.set("Pin", "release o=" + pin_origin);
    pin.set("Pin-Priority", std::to_string(pin_priority));
    return format_deb822({pin});
  }

  // ------------------------------------------------------------ plan

  StepPlan plan(StepContext& ctx) const override {
    // Every enabled entry apt reads that names this repository, outside
    // this step's own file.
    std::vector<AptSourcesFile> files = read_apt_sources(ctx.fs);
    std::vector<const AptSourceEntry*> matching;
    for (const auto& f : files)
      if (f.path != sources_path())
        for (const auto& e : f.entries)
          if (same_source(e)) matching.push_back(&e);

    std::vector<std::string> not_reused;
    if (!matching.empty()) {
      std::vector<std::string> keyrings;
      std::string problem = reuse_problem(ctx, matching, keyrings);
      if (problem.empty()) return plan_reuse(ctx, files, matching, keyrings);
      not_reused.push_back("not reused as it is: " + problem);
    }

    std::string key;
    std::optional<OpenPgpKey> pgp;
    if (auto refused = obtain_key(ctx, key, pgp)) return *refused;
    return plan_own_files(ctx, files, matching, key, pgp, not_reused);
  }

  // The repository is already configured as wanted by another file (NVIDIA's
  // cuda-keyring list): this step adds nothing that would conflict with it.
  StepPlan plan_reuse(StepContext& ctx, const std::vector<AptSourcesFile>& files,
                      const std::vector<const AptSourceEntry*>& matching,
                      const std::vector<std::string>& keyrings) const {
    StepPlan p;
    std::set<std::string> seen;
    for (const auto* e : matching) {
      if (!seen.insert(e->file).second) continue;
      p.fingerprint["file:" + e->file] = "sha256:" + sha256_hex(ctx.fs.read(e->file));
    }
    for (const auto& k : keyrings) p.fingerprint["file:" + k] = "sha256:" + sha256_hex(ctx.fs.read(k));
    // Only the conffile lists, which are few: this is the converged path.
    auto owner = find_conffile_owner(ctx.fs, matching.front()->file);
    std::string by = owner ? owner->package + " (" + matching.front()->file + ")" : matching.front()->file;
    if (seen.size() > 1) by += " and " + std::to_string(seen.size() - 1) + " more";
    p.details.push_back("reuses " + matching.front()->where() +
                        (key_fingerprint.empty()
                             ? ", whose keyring is the file key_sha256 pins"
                             : ", signed by the pinned key " + format_fingerprint(key_fingerprint)) +
                        "; writes no source or key of its own");

    // A source of our own from an earlier run would now name the same
    // repository with another key, which apt refuses: it goes.
    const std::string ours = sources_path();
    bool removes_ours = false;
    if (ctx.fs.stat(ours)) {
      removes_ours = plan_file(ctx.fs, ours, std::nullopt, FileAttrs{}, p);
      for (const char* ext : {".asc", ".gpg"}) {
        std::string k = "/etc/apt/keyrings/" + name + ext;
        if (ctx.fs.stat(k) && !used_by_any(files, k, ours)) plan_file(ctx.fs, k, std::nullopt, FileAttrs{}, p);
      }
    }
    bool pin_changes = false;
    if (!pin_origin.empty()) {
      bool have = false;
      for (const auto& [path, text] : same_origin_pins(ctx))
        have = have || text.find("Pin-Priority: " + std::to_string(pin_priority)) != std::string::npos;
      if (!have) pin_changes = plan_file(ctx.fs, pref_path(), wanted_pin(), FileAttrs{0644, 0, 0}, p);
    }
    p.summary = "configured by " + by + ", key " + key_note();
    if (removes_ours) p.summary += "; remove the duplicate " + ours;
    if (pin_changes) p.summary += ", pin " + std::to_string(pin_priority);
    return p;
  }

  // Whether any entry outside SKIP_FILE names KEYRING in its Signed-By.
  static bool used_by_any(const std::vector<AptSourcesFile>& files, const std::string& keyring,
                          const std::string& skip_file, const std::set<const AptSourceEntry*>& skip = {}) {
    for (const auto& f : files) {
      if (f.path == skip_file) continue;
      for (const auto& e : f.entries)
        if (!skip.count(&e) && std::find(e.signed_by.begin(), e.signed_by.end(), keyring) != e.signed_by.end())
          return true;
    }
    return false;
  }

  StepPlan plan_own_files(StepContext& ctx, const std::vector<AptSourcesFile>& files,
                          const std::vector<const AptSourceEntry*>& matching, const std::string& key,
                          const std::optional<OpenPgpKey>& pgp, const std::vector<std::string>& not_reused) const {
    StepPlan p;
    p.details = not_reused;
    const std::string key_path = "/etc/apt/keyrings/" + name + (is_armoured(key) ? ".asc" : ".gpg");
    const FileAttrs attrs{0644, 0, 0};
    const std::set<const AptSourceEntry*> taken(matching.begin(), matching.end());

    // 1. The entries taken over, first: apt must never see them and the new
    // source at once (the runner writes in this order and undoes in reverse).
    std::vector<std::string> replaced;
    for (const auto& f : files) {
      std::vector<std::size_t> indexes;
      for (const auto& e : f.entries) {
        if (!taken.count(&e)) continue;
        // A stanza that also lists other repositories cannot go whole.
        if (e.format == AptSourcesFormat::deb822) {
          for (const auto& u : e.uris)
            for (const auto& s : e.suites) {
              bool ours =
                  std::any_of(uris.begin(), uris.end(),
                              [&](const std::string& w) { return normalize_apt_uri(w) == normalize_apt_uri(u); }) &&
                  std::find(suites.begin(), suites.end(), s) != suites.end();
              if (!ours)
                return refusal(
                    "the stanza at " + e.where() + " also lists " + u + " " + s + ", which this step does not replace",
                    {"Move " + join_repo(uris) +
                     " into a stanza of its own (or remove it from that one), "
                     "then plan again."});
            }
        }
        indexes.push_back(e.index);
        std::vector<std::string> dropped;
        for (const auto& c : e.components)
          if (std::find(components.begin(), components.end(), c) == components.end()) dropped.push_back(c);
        if (!dropped.empty())
          p.details.push_back(e.where() + " also fetches " + join_repo(dropped) + ", which the new source does not");
        if (e.has_type("deb-src"))
          p.details.push_back(e.where() + " is a deb-src entry; the new source fetches binary packages only");
      }
      if (indexes.empty()) continue;
      // A file this step edits must read whole: a line apt rejects would be
      // kept as it is, and apt refuses every source while it is there. Bad
      // input, as a malformed manifest is (exit 2).
      if (!f.problems.empty()) {
        std::vector<Diagnostic> all = f.problems;
        all.back().message +=
            "\napt rejects this line, and the file holds an entry this step replaces: fix the line by hand (or "
            "remove it), then run again. Nothing was changed.";
        throw InputError(std::move(all));
      }
      auto owner = find_dpkg_owner(ctx.fs, f.path);
      replaced.push_back(f.path + " (" + owner_text(owner) + ")");
      p.details.push_back("replaces " + f.path + " (" + owner_text(owner) + "):");
      // sources.list itself stays, with its comments, when nothing else is
      // left in it: other tools expect the file; a .list of its own goes.
      std::optional<std::string> kept = remove_apt_source_entries(f, indexes);
      if (!kept && f.path == "/etc/apt/sources.list") kept = apt_sources_without(f, indexes);
      auto info = ctx.fs.stat(f.path);
      FileAttrs same{info ? info->mode : 0644u, info ? info->uid : 0u, info ? info->gid : 0u};
      plan_file(ctx.fs, f.path, kept, same, p);
      if (!kept) {
        auto diff = unified_diff(f.path, &f.text, "");
        p.details.insert(p.details.end(), diff.begin(), diff.end());
        std::string d;
        for (const auto& l : diff) d += l + "\n";
        p.changes.back()["diff"] = d;
      }
      if (owner) note_package_file(*owner, f.path, !kept, p);
    }

    // 2. Their keyrings, once nothing else names them.
    std::set<std::string> keyrings;
    for (const auto* e : matching)
      for (const auto& k : e->signed_by)
        if (!k.empty() && k.front() == '/') keyrings.insert(k);
    for (const auto& k : keyrings) {
      if (k == key_path) continue;  // written below
      auto info = ctx.fs.stat(k);
      if (!info || info->type != FileType::regular) continue;
      if (used_by_any(files, k, "", taken)) {
        p.details.push_back("keeps " + k + ": other sources still name it");
        continue;
      }
      auto owner = find_dpkg_owner(ctx.fs, k);
      if (owner && !owner->conffile) {
        p.details.push_back("keeps " + k + ": a file of " + owner->package + ", which dpkg would put back");
        continue;
      }
      p.details.push_back("removes " + k + ", the key of the replaced entries (" + owner_text(owner) + ")");
      plan_file(ctx.fs, k, std::nullopt, attrs, p);
    }

    // 3. This step's own key and source.
    Deb822Stanza src;
    src.set("Types", "deb");
    src.set("URIs", join_repo(uris));
    src.set("Suites", join_repo(suites));
    if (!components.empty()) src.set("Components", join_repo(components));
    if (!architectures.empty()) src.set("Architectures", join_repo(architectures));
    src.set("Signed-By", key_path);
    bool key_changes = plan_file(ctx.fs, key_path, key, attrs, p);
    bool sources_change = plan_file(ctx.fs, sources_path(), format_deb822({src}), attrs, p);

    // 4. Leftover pins of the same origin, then this step's pin.
    bool pin_changes = false;
    if (!pin_origin.empty()) {
      if (!replaced.empty()) {
        for (const auto& [path, text] : same_origin_pins(ctx)) {
          auto owner = find_dpkg_owner(ctx.fs, path);
          if (owner && !owner->conffile) {
            p.details.push_back("keeps " + path + ": a file of " + owner->package + ", which dpkg would put back");
            continue;
          }
          p.details.push_back("replaces " + path + " (" + owner_text(owner) + ") with " + pref_path() +
                              ", which pins the same origin:");
          plan_file(ctx.fs, path, std::nullopt, attrs, p);
          auto diff = unified_diff(path, &text, "");
          p.details.insert(p.details.end(), diff.begin(), diff.end());
          std::string d;
          for (const auto& l : diff) d += l + "\n";
          p.changes.back()["diff"] = d;
        }
      }
      pin_changes = plan_file(ctx.fs, pref_path(), wanted_pin(), attrs, p);
    }
    if (p.verdict == Verdict::noop) {
      p.summary = "apt repository \"" + name + "\" is as wanted";
      return p;
    }
    std::string summary;
    if (key_changes || sources_change || pin_changes) {
      summary = (ctx.fs.stat(sources_path()) ? "update " : "add ") + sources_path();
      summary += ", key " + base_name_of(key_path) + " (" + key_note() + ")";
      if (!pin_origin.empty()) summary += ", pin " + std::to_string(pin_priority);
    }
    if (!replaced.empty())
      summary += (summary.empty() ? "" : "; ") + std::string("replaces ") + join_repo(replaced, ", ");
    p.summary = summary;
    if (pgp && key_changes) {
      std::string line = "key " + format_fingerprint(pgp->fingerprint) + " (" + pgp->algorithm;
      if (!pgp->user_ids.empty()) line += ", " + pgp->user_ids.front();
      line += pgp->expires ? ", expires " + utc_date(*pgp->expires) : std::string(", does not expire");
      p.details.push_back(line + ") from " + key_source());
      if (pgp->expires && *pgp->expires < now_seconds())
        p.details.push_back("this key expired on " + utc_date(*pgp->expires) +
                            ": apt will reject the repository's signatures until the vendor publishes it with a "
                            "later expiry date");
      else
        for (std::string& note : expired_subkey_lines(*pgp, now_seconds())) p.details.push_back(std::move(note));
    }
    return p;
  }

  // What dpkg will do with a file of OWNER that the plan removes (REMOVED)
  // or edits: a conffile stays as the administrator left it (dpkg(1),
  // --force-confmiss and --force-confold), a plain file is put back.
  static void note_package_file(const DpkgOwner& owner, const std::string& path, bool removed, StepPlan& p) {
    if (owner.conffile) {
      p.details.push_back(owner.package + (removed ? " stays installed; its list is removed, and dpkg keeps a deleted "
                                                     "conffile deleted on upgrade"
                                                   : " stays installed; its list is edited, and dpkg keeps an edited "
                                                     "conffile as it is on upgrade"));
      return;
    }
    std::string note = path + " is a file of " + owner.package + ", not a conffile: dpkg " +
                       (removed ? "puts it back" : "overwrites the edit") + " when " + owner.package +
                       " is upgraded or reinstalled, and apt then refuses its sources again "
                       "(\"Conflicting values set for option Signed-By\"). Remove the package (sudo apt remove " +
                       owner.package + ") if it is not needed.";
    p.details.push_back(note);
    p.notices.push_back(note);
  }
};

bool valid_repository_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  if (!((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= '0' && n[0] <= '9'))) return false;
  return n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos;
}

bool valid_field_word(const std::string& w) {
  return !w.empty() && w.find_first_of(" \t\r\n") == std::string::npos;
}

// "rocm_key_url" when NODE is the string "${rocm_key_url}" and nothing else.
std::string sole_variable(const toml::node* node) {
  if (!node) return "";
  auto text = node->value<std::string>();
  if (!text || text->size() < 4 || text->compare(0, 2, "${") != 0 || text->back() != '}') return "";
  std::string var = text->substr(2, text->size() - 3);
  if (var.empty() ||
      var.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
    return "";
  return var;
}

}  // namespace

std::shared_ptr<Step> make_apt_repository_step(StepKeys& keys) {
  auto s = std::make_shared<AptRepositoryStep>();
  // Not "name": every step's "name" is its human title.
  s->name = keys.required_string("repo_name");
  if (keys.has("repo_name") && !valid_repository_name(s->name))
    keys.error("repo_name", "\"repo_name\" must be lowercase letters, digits, '.', '_' and '-' (it names files in /etc/apt), not \"" +
                           s->name + "\"");
  s->uris = keys.required_string_list("uris");
  for (const auto& u : s->uris)
    if (!valid_field_word(u) || u.find(':') == std::string::npos)
      keys.error("uris", "\"" + u + "\" is not a repository URI such as https://repo.radeon.com/rocm/apt/6.4.2");
  s->suites = keys.required_string_list("suites");
  s->components = keys.string_list("components");
  s->architectures = keys.string_list("architectures");
  bool flat = !s->suites.empty() && std::all_of(s->suites.begin(), s->suites.end(),
                                                [](const std::string& x) { return !x.empty() && x.back() == '/'; });
  if (!flat && s->components.empty() && keys.has("suites"))
    keys.error_at(keys.pos("suites"), "step kind \"apt_repository\" needs the key \"components\" (such as [\"main\"]) "
                                      "unless every suite is a flat repository path ending in \"/\"");
  if (flat && !s->components.empty())
    keys.error("components", "a flat repository (a suite ending in \"/\") takes no \"components\"");
  for (const auto* list : {&s->suites, &s->components, &s->architectures})
    for (const auto& w : *list)
      if (!valid_field_word(w)) keys.error("suites", "\"" + w + "\" must be one word without spaces");

  bool has_url = keys.has("key_url"), has_file = keys.has("key_file");
  if (has_url == has_file)
    keys.error_at(keys.pos(has_url ? "key_file" : "repo_name"),
                  has_url ? "give either \"key_url\" or \"key_file\", not both"
                          : "step kind \"apt_repository\" needs the key \"key_url\" or \"key_file\"");
  if (has_url) {
    s->key_url_variable = sole_variable(keys.node("key_url"));
    s->key_url = keys.required_string("key_url");
    std::string problem = download_url_problem(s->key_url, false);
    if (!problem.empty()) keys.error("key_url", problem);
  }
  if (has_file) s->key_file = keys.required_path("key_file");

  // The key is pinned by its OpenPGP fingerprint (which stays when the
  // vendor re-issues the file with a later expiry) or by the file's SHA-256.
  bool has_fpr = keys.has("key_fingerprint"), has_sha = keys.has("key_sha256");
  if (has_fpr && has_sha)
    keys.error("key_sha256",
               "give either \"key_fingerprint\" or \"key_sha256\", not both (the fingerprint is the "
               "better pin: it survives the vendor re-issuing the key file)");
  if (!has_fpr && !has_sha)
    keys.error_at(keys.pos("key_fingerprint"),
                  "step kind \"apt_repository\" needs the key \"key_fingerprint\" (the 40 "
                  "hexadecimal digits the vendor publishes for its signing key) or \"key_sha256\"");
  if (has_fpr) {
    std::string given = keys.required_string("key_fingerprint");
    s->key_fingerprint = normalize_fingerprint(given);
    if (given.empty())
      keys.error("key_fingerprint",
                 "\"key_fingerprint\" is empty: give the signing key's fingerprint as the vendor "
                 "publishes it (40 hexadecimal digits; `gpg --show-keys KEYFILE` prints it)");
    else if (s->key_fingerprint.empty())
      keys.error("key_fingerprint",
                 "\"key_fingerprint\" must be 40 hexadecimal digits (spaces allowed), the "
                 "OpenPGP v4 fingerprint, not \"" +
                     given + "\"");
  }
  if (has_sha) {
    s->key_sha256 = keys.required_string("key_sha256");
    std::transform(s->key_sha256.begin(), s->key_sha256.end(), s->key_sha256.begin(),
                   [](char c) { return static_cast<char>(std::tolower(c)); });
    if (s->key_sha256.empty())
      keys.error("key_sha256",
                 "\"key_sha256\" is empty: give the key file's SHA-256 (64 hexadecimal digits, the "
                 "output of `sha256sum`), or pin the key by its fingerprint with \"key_fingerprint\"");
    else if (!is_sha256_hex(s->key_sha256))
      keys.error("key_sha256", "\"key_sha256\" must be 64 hexadecimal digits (the output of `sha256sum`)");
  }

  bool has_origin = keys.has("pin_origin"), has_priority = keys.has("pin_priority");
  s->pin_origin = keys.string_or("pin_origin", "");
  s->pin_priority = keys.integer("pin_priority", 0, -32768, 32767);
  if (has_origin != has_priority)
    keys.error(has_origin ? "pin_origin" : "pin_priority", "\"pin_origin\" and \"pin_priority\" go together: give both or neither");
  if (has_origin && !valid_field_word(s->pin_origin))
    keys.error("pin_origin", "\"pin_origin\" must be one word, the repository's Origin (such as repo.radeon.com)");
  return s;
}

}  // namespace wslgpu
