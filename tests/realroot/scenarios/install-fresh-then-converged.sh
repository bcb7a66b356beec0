# install from the signed local repository into a fresh WSL root: the
# repository, ROCm's packages, group membership and PATH arrive for real;
# then a second run finds everything done, changes nothing and never calls apt.

scenario() {
  require_tool_command install
  require_step_kinds apt_repository apt_update apt_install user_groups profile_env check
  with_root fresh_install_then_rerun
}

fresh_install_then_rerun() {
  local manifest=$REALROOT_SCENARIO_TMP/rocm.toml
  manifest_rocm_from_testrepo >"$manifest"

  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 0 "the first install"
  assert_installed "$ROOT" rocm-dev rocm-core hsa-runtime-rocr4wsl-amdgpu rocminfo
  assert_not_installed "$ROOT" amdgpu-dkms
  [[ -f $ROOT/etc/apt/sources.list.d/wslgpu-test.sources ]] || fail "no /etc/apt/sources.list.d/wslgpu-test.sources"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/wslgpu-test.sources")" '^Signed-By: /etc/apt/keyrings/' "the sources file"
  expect_status 0 in_root id alice
  assert_contains "$LAST_OUTPUT" '\(video\)' "id alice"
  assert_contains "$LAST_OUTPUT" '\(render\)' "id alice"
  expect_status 0 in_root env -i HOME=/home/alice bash -lc 'echo "$PATH"'
  assert_contains "$LAST_OUTPUT" '(^|:)/opt/rocm/bin(:|$)' "PATH in a login shell"
  expect_status 0 in_root bash -lc 'rocminfo'
  assert_contains "$LAST_OUTPUT" 'gfx1100' "rocminfo from PATH"

  # The rerun: apt is traced from here on; every other file must stay as it is.
  trace_commands apt-get apt apt-cache dpkg
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/converged" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" --not-wsl install "$manifest" --yes --output json
  assert_status 0 "the second install"
  assert_eq "$(jq -r '.changed' <<<"$TOOL_OUT")" false "the second install's \"changed\""
  assert_eq "$(jq -r '[.steps[] | select(.changed)] | length' <<<"$TOOL_OUT")" 0 "steps changed by the second install"
  local calls
  calls=$(traced_calls apt-get; traced_calls apt; traced_calls apt-cache)
  [[ -z $calls ]] || fail "the second install called apt:"$'\n'"$calls"
  say "dpkg calls during the second install: $(traced_calls dpkg | wc -l)"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/rerun" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/converged" "$REALROOT_SCENARIO_TMP/rerun" "the second install changed the root"
}
