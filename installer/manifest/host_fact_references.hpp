// Where a manifest's strings name host facts (${host.NAME}, or a condition's
// host.NAME): the facts that cost a program run (lazy_host_fact_names(),
// installer/host/lazy_facts.hpp) are probed only for a manifest that
// names them, each group only when one of its own facts is named, and a fact empty on this machine is named where it is used,
// never turned into "" in a step; and which steps use a variable that
// [matrix]'s "auto" left without a value on this machine.
#pragma once
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "installer/manifest/substitute.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

// The lazily probed host facts (host.NAME) that some string of ROOT (keys
// are names, never references) or some --set value in OVERRIDES names.
std::set<std::string> lazy_facts_mentioned(const toml::table& root, const Variables& overrides);

// Every ${host.NAME} in the strings of NODE whose fact is empty in
// HOST_VARS, with where it is written (in FILE) into OUT.
void empty_host_facts(const toml::node& node, const Variables& host_vars, const std::string& file,
                      std::vector<std::pair<std::string, SourcePos>>& out);

// Whether a string of NODE refers with ${name} to one of NAMES.
bool references_any(const toml::node& node, const std::set<std::string>& names);

}  // namespace wslgpu
