#include "installer/formats/sequoia_policy.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <limits>

#include "installer/formats/toml_input.hpp"

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

// "sha1" from "SHA1", "sha3-256" from "SHA3-256": the config's spelling.
std::string config_name(const std::string& hash) {
  std::string out;
  for (char c : hash) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

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
      const toml::date& v = d->get();
      at = days_from_civil(v.year, v.month, v.day) * 86400;
      written = std::to_string(v.year) + "-" + (v.month < 10 ? "0" : "") + std::to_string(v.month) + "-" +
                (v.day < 10 ? "0" : "") + std::to_string(v.day);
    } else if (auto dt = value.as_date_time()) {
      const toml::date_time& v = dt->get();
      at = days_from_civil(v.date.year, v.date.month, v.date.day) * 86400 + v.time.hour * 3600 + v.time.minute * 60 +
           v.time.second - (v.offset ? v.offset->minutes * 60 : 0);
      written = std::to_string(v.date.year) + "-" +
                (v.date.month < 10 ? "0" : "") + std::to_string(v.date.month) + "-" + (v.date.day < 10 ? "0" : "") +
                std::to_string(v.date.day);
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
  const std::string name = config_name(hash);
  for (const std::string& key : {name + ".second_preimage_resistance", name}) {
    auto it = policy.hash_cutoffs.find(key);
    if (it != policy.hash_cutoffs.end()) return HashCutoff{it->second, key, policy.written.at(key)};
  }
  return std::nullopt;
}

}  // namespace wslgpu
