# The bundled rocm profile with a DKMS package in the dependency chain
# (rocm-extras depends on amdgpu-dkms, from the amdgpu repository): install
# refuses it with the chain, exit 3, and nothing is changed, not even the
# repositories its earlier steps would add. ROCm 7.0 is refused the same way,
# for the manifest's own reason.

scenario() {
  require_tool_command install
  require_step_kinds check apt_remove apt_repository apt_update apt_install profile_env user_groups
  with_root refuse_dkms_in_chain
  with_root refuse_rocm_7_0
}

refuse_dkms_in_chain() {
  local sets tmp=$REALROOT_SCENARIO_TMP
  mapfile -t sets < <(rocm_profile_args --set rocm_package=rocm-extras)
  trace_commands apt-get dpkg
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 3 "install rocm with rocm_package=rocm-extras"
  assert_contains "$TOOL_ERR" '^error: step [0-9]+ "rocm": would install amdgpu-dkms .*, which is a kernel-module package$' \
    "the refusal"
  assert_contains "$TOOL_ERR" 'amdgpu-dkms .* is pulled in by rocm-extras → amdgpu-dkms' "the refusal's chain"
  assert_contains "$TOOL_ERR" '^Nothing was changed \(exit 3\)\.$' "the refusal"

  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a refused install changed the root"
  assert_not_installed "$ROOT" amdgpu-dkms rocm-extras rocm-core
  [[ ! -e $ROOT/etc/apt/sources.list.d/amdgpu.sources ]] || fail "the refused install added the amdgpu source"
  # apt only simulated (and refreshed the plan's private lists); dpkg was
  # only asked about architectures (by apt), never to unpack or configure.
  # rocm-extras at the release's version (rocm_package_version, 6.4.2*).
  assert_contains "$(traced_calls apt-get)" '^apt-get -s install .*hsa-runtime-rocr4wsl-amdgpu rocm-extras=6\.4\.2\.1-1$' "apt-get calls"
  assert_not_contains "$(traced_calls apt-get)" '^apt-get install' "apt-get calls"
  assert_eq "$(traced_calls dpkg | grep -v '^dpkg --print-foreign-architectures$' || true)" "" "dpkg calls other than --print-foreign-architectures"
}

refuse_rocm_7_0() {
  local sets tmp=$REALROOT_SCENARIO_TMP
  mapfile -t sets < <(rocm_profile_args --set rocm_version=7.0.2)
  snapshot "$ROOT" "$tmp/before7" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 3 "install rocm with rocm_version=7.0.2"
  assert_contains "$TOOL_ERR" "^error: refused by the manifest \(rocm_wsl == 'none'\): ROCm 7.0.x shipped no WSL runtime" \
    "the 7.0 refusal"
  snapshot "$ROOT" "$tmp/after7" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before7" "$tmp/after7" "a refused install changed the root"
}
