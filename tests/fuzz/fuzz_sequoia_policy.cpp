// apt's sqv policy file (installer/formats/sequoia_policy.hpp), which the
// plan reads from the target root: never throws; a parsed policy names its
// source, keeps a written value for every cutoff, and answers for the hash
// names the OpenPGP reader gives.
#include "fuzz/fuzz_support.hpp"
#include "installer/formats/openpgp.hpp"
#include "installer/formats/sequoia_policy.hpp"

using namespace wslgpu;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string error;
  auto policy = parse_sequoia_policy(fuzz::text_of(data, size), "/p.config", error);
  if (!policy) {
    FUZZ_CHECK(error.rfind("/p.config:", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(policy->source == "/p.config");
  for (const auto& [key, at] : policy->hash_cutoffs) FUZZ_CHECK(policy->written.count(key) == 1);
  for (int hash : {1, 2, 3, 8, 9, 10, 11, 12, 14})
    if (auto c = binding_hash_cutoff(*policy, openpgp_hash_name(hash))) FUZZ_CHECK(policy->hash_cutoffs.at(c->key) == c->at);
  return 0;
}
