# PENDING: fails today because rollback purges the packages it installed and dpkg
# then removes /opt, which existed before but no package owned (diff: "- /opt").
# Move to scenarios/ (without the pending- prefix) once undo restores it.
#
# A package whose postinst fails, after a repository, ROCm, groups and PATH
# were applied: install fails, undoes every applied step, and the root is
# as it was.

scenario() {
  require_tool_command install
  require_step_kinds apt_repository apt_update apt_install user_groups profile_env
  with_root failing_step_rolls_back
}

failing_step_rolls_back() {
  local manifest=$REALROOT_SCENARIO_TMP/broken.toml
  {
    manifest_header realroot-broken
    manifest_testrepo_steps
    manifest_apt_install rocm rocm-dev
    manifest_user_groups gpu-groups video render
    manifest_rocm_path
    manifest_apt_install broken broken-postinst
  } >"$manifest"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 1 "install with a failing postinst"
  assert_contains "$TOOL_ERR$TOOL_OUT" 'broken' "install's failure (the failing step)"

  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" "the rolled-back install left the root different"
  assert_not_installed "$ROOT" broken-postinst rocm-dev rocm-core
}
