# install, then `rollback` of that transaction: the root is as it was
# before, file for file, package for package, group for group.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_tool_command history
  require_step_kinds apt_repository apt_update apt_install user_groups profile_env check
  with_root install_and_roll_back
}

install_and_roll_back() {
  local manifest=$REALROOT_SCENARIO_TMP/rocm.toml
  manifest_rocm_from_testrepo >"$manifest"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 0 "install"
  assert_installed "$ROOT" rocm-dev

  tool --root "$ROOT" history --output json
  assert_status 0 "history"
  local count id
  count=$(jq 'length' <<<"$TOOL_OUT")
  assert_eq "$count" 1 "the number of transactions in history"
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  [[ -n $id && $id != null ]] || fail "history lists no transaction id"

  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"

  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" "rollback left the root different from before the install"
  assert_not_installed "$ROOT" rocm-dev rocm-core hsa-runtime-rocr4wsl-amdgpu rocminfo
  expect_status 0 in_root id alice
  assert_not_contains "$LAST_OUTPUT" '\((video|render)\)' "id alice after rollback"
}
