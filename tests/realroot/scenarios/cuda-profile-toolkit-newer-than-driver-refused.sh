# A CUDA toolkit the Windows driver cannot run is refused before anything
# changes, naming the driver to install on Windows (exit 3): CUDA 13.0 asked
# for on driver 537.13 (CUDA 12.2), and a driver too old for any release of
# the table (511.65, CUDA 11.6) with cuda_version = auto. A toolkit the
# driver runs with limits (12.6 on CUDA 12.2) is a warning, and plans.

scenario() {
  require_tool_command install
  with_root newer_major_refused
  with_root old_driver_refused
}

newer_major_refused() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  root_fake_nvidia_smi ok-q-rtx4090-wddm-xwayland.txt
  mapfile -t sets < <(cuda_profile_args --set cuda_version=13.0)
  trace_commands apt-get
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${sets[@]}" install cuda --yes
  assert_status 3 "install cuda with cuda_version=13.0 on driver 537.13"
  assert_contains "$TOOL_ERR" "CUDA 13.0 needs NVIDIA's Windows driver 580 or later, and this one is 537.13 \\(nvidia-smi: driver 537.13, CUDA 12.2\\)\\." "the refusal"
  assert_contains "$TOOL_ERR" "On Windows, install NVIDIA's driver 580 or later, then run \`wsl --shutdown\`; or leave cuda_version at auto" "the refusal's advice"
  assert_contains "$TOOL_ERR" 'Nothing was changed \(exit 3\)' "the refusal"
  # Plan's private apt update, simulations and size queries ran; nothing that installs.
  assert_eq "$(traced_calls apt-get | grep -E '^apt-get (install|purge|remove)' | grep -cv -- '--print-uris' || true)" 0 \
    "apt-get runs that change packages"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a refused install changed the root"

  # 12.6 runs on this driver under minor-version compatibility: a warning.
  mapfile -t sets < <(cuda_profile_args --set cuda_version=12.6)
  tool --root "$ROOT" "${sets[@]}" plan cuda --detailed-exitcode
  assert_status 10 "plan cuda with cuda_version=12.6 on driver 537.13"
  assert_contains "$TOOL_OUT" '^warning: CUDA 12.6 is newer than the CUDA 12.2 NVIDIA.s Windows driver supports' "the warning"
}

old_driver_refused() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  root_fake_nvidia_smi ok-table-titanrtx-smi510.47.03-driver511.65-podman.txt
  mapfile -t sets < <(cuda_profile_args)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${sets[@]}" install cuda --yes
  assert_status 3 "install cuda on driver 511.65"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'Chose cuda_version=12.6 \(fallback\)' "the choice"
  assert_contains "$TOOL_ERR" "CUDA 12.6 needs NVIDIA's Windows driver 525 or later, and this one is 511.65" "the refusal"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a refused install changed the root"
}
