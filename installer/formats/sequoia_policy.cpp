#include "installer/formats/sequoia_policy.hpp"

#include <cstdio>
#include <limits>

#include "installer/formats/toml_input.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

std::int64_t days_from_civil(int y, unsigned m, unsigned d) {
  // Howard Hinnant's algorithm: days since 1970-01-01 of a proleptic
  // Gregorian date, without the C library's time zone.
  y -= m <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? static_cast<unsigned>(-3) : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::string at_position(const std::string& source, const toml::source_region& where) {
  return source + ":" + std::to_string(where.begin.line) + ":" + std::to_string(where.begin.column);
}

// A TOML date as written ("2026-02-01") and as seconds since the epoch.
std::string date_text(const toml::date& d) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(d.year), static_cast<unsigned>(d.month),
                static_cast<unsigned>(d.day));
  return buf;
}

std::int64_t date_seconds(const toml::date& d) { return days_from_civil(d.year, d.month, d.day) * 86400; }

}  // namespace

std::optional<SequoiaPolicy> parse_sequoia_policy(std::string_view text, const std::string& source,
                                                  std::string& error) {
  toml::table doc;
  try {
    // parse_toml(): toml++ 3.3 without its undefined whitespace test
    // (installer/formats/toml_input.hpp), which the fuzz target met at once.
    doc = parse_toml(text, source);
  } catch (const toml::parse_error& e) {
    error = at_position(source, e.source()) + ": " + std::string(e.description());
    return std::nullopt;
  }
  SequoiaPolicy policy;
  policy.source = source;
  const toml::table* hashes = doc["hash_algorithms"].as_table();
  if (!hashes) return policy;
  // A value and where it came from: "sha1" or "sha1.second_preimage_resistance".
  auto take = [&](const std::string& key, const toml::node& value) -> bool {
    std::int64_t at = 0;
    std::string written;
    if (auto d = value.as_date()) {
      at = date_seconds(d->get());
      written = date_text(d->get());
    } else if (auto dt = value.as_date_time()) {
      const toml::date_time& v = dt->get();
      at = date_seconds(v.date) + v.time.hour * 3600 + v.time.minute * 60 + v.time.second -
           (v.offset ? v.offset->minutes * 60 : 0);
      written = date_text(v.date);
    } else if (auto s = value.as_string(); s && (s->get() == "never" || s->get() == "always")) {
      at = s->get() == "never" ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
      written = s->get();
    } else {
      error = at_position(source, value.source()) + ": the cutoff of " + key +
              " is neither a date nor \"never\" or \"always\"";
      return false;
    }
    policy.hash_cutoffs[key] = at;
    policy.written[key] = written;
    return true;
  };
  for (const auto& [name, value] : *hashes) {
    const std::string algo(name.str());
    if (const toml::table* props = value.as_table()) {
      for (const auto& [prop, v] : *props)
        if (!take(algo + "." + std::string(prop.str()), v)) return std::nullopt;
    } else if (!take(algo, value)) {
      return std::nullopt;
    }
  }
  return policy;
}

std::optional<HashCutoff> binding_hash_cutoff(const SequoiaPolicy& policy, const std::string& hash) {
  const std::string name = text::lower(hash);  // "sha1": the config's spelling of "SHA1"
  for (const std::string& key : {name + ".second_preimage_resistance", name}) {
    auto it = policy.hash_cutoffs.find(key);
    if (it != policy.hash_cutoffs.end()) return HashCutoff{it->second, key, policy.written.at(key)};
  }
  return std::nullopt;
}

}  // namespace wslgpu
