// kind = "cdi_spec": a Container Device Interface spec, so that
// `podman run --device amd.com/gpu=all ...` gives the container the GPU.
// Exactly one of two sources:
//
//   [[step]]                              # written from the manifest's data
//   id = "cdi-amd"
//   kind = "cdi_spec"
//   path = "/etc/cdi/amd-wsl.yaml"        # under /etc/cdi or /var/run/cdi; .yaml or .json
//   cdi_kind = "amd.com/gpu"              # VENDOR/CLASS
//   device = "all"                        # optional, default "all"
//   device_nodes = ["/dev/dxg"]
//   mounts = [{ host = "/usr/lib/wsl/lib/libdxcore.so", container = "/usr/lib/libdxcore.so" }]
//                                         # options = [...] optional, default ["ro", "nosuid", "nodev", "bind"]
//   env = ["HSA_ENABLE_DXG_DETECTION=1"]  # optional
//   cdi_version = "0.3.0"                 # optional: default the oldest version with the features used
//
//   [[step]]                              # what a vendor's program prints
//   id = "cdi-nvidia"
//   kind = "cdi_spec"
//   path = "/etc/cdi/nvidia.yaml"
//   generate = ["nvidia-ctk", "cdi", "generate", "--mode=wsl"]
//
// Inline: plan builds the spec, and the file is a plain FileWrite (the
// runner writes it and backs up what was there); converged when the file
// holds the same spec as data, whatever its layout. Generated: plan runs the
// program (it only prints) when it is in the root and compares its spec, as
// data, with the file; when an earlier step of the same plan installs it,
// plan says it will run at install, and names the host paths of a spec
// already at PATH that no longer exist (NVIDIA's spec names the Windows
// driver store folder, renamed by every driver update). Apply runs it,
// checks its output is a CDI spec and renames it over PATH; the runner backs
// PATH up before apply (FileWrite::written_by_apply, its SHA-256 taken after
// apply), so undo restores the earlier file byte for byte, or removes it.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_cdi_spec_step(StepKeys& keys);

}  // namespace wslgpu
