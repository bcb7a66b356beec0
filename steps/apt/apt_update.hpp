// kind = "apt_update": fresh package lists.
//
//   [[step]]
//   id = "lists"
//   kind = "apt_update"
//   max_age = 3600     # optional, seconds: skip when the lists are fresher
//
// State touched: apt's package lists in ROOT/var/lib/apt/lists, a cache,
// and the tool's record of its refresh (STATE_DIR/apt-lists.json,
// steps/apt_freshness.hpp). How old the lists are is judged by that record,
// and only while it is of exactly the current sources and lists: a sources
// file added, changed or removed since means a refresh. Apply runs
// `apt-get update --error-on=any`, so that a source that cannot be read
// fails the step (without the flag apt exits 0 on a network failure), then
// writes the record.
// Undo: nothing. The lists are a cache of what the repositories publish;
// there is no earlier state worth restoring, and a later `apt-get update`
// would replace it anyway.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_apt_update_step(StepKeys& keys);

// "3 days", "2 hours", "5 minutes", "40 seconds"
std::string describe_age(std::int64_t seconds);

}  // namespace wslgpu
