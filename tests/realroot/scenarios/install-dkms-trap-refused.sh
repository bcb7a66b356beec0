# A harmless-looking package that pulls amdgpu-dkms in: install refuses it
# before its first step (the repository is not even added), and the root is
# unchanged.

scenario() {
  require_tool_command install
  require_step_kinds apt_repository apt_update apt_install
  with_root refuse_dkms_dependency
}

refuse_dkms_dependency() {
  local manifest=$REALROOT_SCENARIO_TMP/extras.toml
  {
    manifest_header realroot-extras
    manifest_testrepo_steps
    manifest_apt_install extras rocm-extras
  } >"$manifest"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 3 "install of rocm-extras"
  assert_contains "$TOOL_ERR$TOOL_OUT" 'amdgpu-dkms' "install's refusal"
  assert_contains "$TOOL_ERR$TOOL_OUT" 'rocm-extras' "install's refusal (what pulls it in)"

  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" "a refused install changed the root"
  assert_not_installed "$ROOT" amdgpu-dkms rocm-extras
}
