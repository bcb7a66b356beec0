// kind = "json_file": keys merged into a JSON file, keeping the rest of it
// as the user wrote it. Made for Docker's /etc/docker/daemon.json, where it
// does the edit of `nvidia-ctk runtime configure --runtime=docker`
// (NVIDIA/nvidia-container-toolkit, pkg/config/engine/docker/docker.go) as
// a planned file write instead of an opaque command:
//
//   [[step]]
//   id = "docker-nvidia-runtime"
//   kind = "json_file"
//   path = "/etc/docker/daemon.json"     # target path, inside the root
//   merge.runtimes.nvidia = { path = "nvidia-container-runtime", args = [] }
//   mode = "0644"                        # optional: the mode of a file it creates
//   restart = "docker"                   # optional: a systemd service that reads it when it starts
//
// merge is a TOML table, read as a JSON object (strings ${var}-substituted;
// a date or time, NaN or infinity has no JSON form and is refused when the
// manifest loads). Tables merge into the file's objects recursively; any
// other value replaces the key's value. The editing rules, and what stops
// the plan (a file that is not strict JSON, a duplicate key, an object to
// merge into a key that holds something else), are merge_json_text()'s
// (installer/formats/json_text.hpp), the rule doctor reads the file by too;
// such a file stops plan and install as bad input (exit 2) with
// FILE:LINE:COLUMN, and is left untouched.
//
// With restart (and systemd running the distribution) apply runs
// `systemctl restart SERVICE` once the runner has written the file, and
// only then: a converged file restarts nothing. Without systemd the plan
// says to restart it by hand.
//
// State touched: that one file, as a plan write; an existing file keeps its
// mode and owner, a new one gets MODE and root:root; the service's process.
// Undo: the runner restores the file byte for byte, or removes it when it
// did not exist; then after_restore() runs `systemctl try-restart SERVICE`,
// so that the service reads the file as it is again.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_json_file_step(StepKeys& keys);

}  // namespace wslgpu
