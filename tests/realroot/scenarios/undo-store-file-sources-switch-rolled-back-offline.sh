# The ROCm release switch of undo-store-rocm-switch-rolled-back-offline, with
# AMD's layout read through file: sources (issue 25): apt reads such packages
# where they are and keeps no copy in /var/cache/apt/archives, so before the
# undo store a rollback of the switch needed the old release's source still
# there. The switch keeps the 6.4.2.1 packages by fetching them from the
# file: sources (apt-get download copies them) before its first change; the
# old release then leaves the test repository, and the rollback, with the
# root's network namespace empty, ends byte-identical to the root before the
# switch.

scenario() {
  require_tool_command install
  require_tool_command rollback
  with_root switch_then_roll_back_offline
}

snap() { snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR"; }

switch_then_roll_back_offline() {
  local legacy rocm7 switch d
  serve_https "$TESTREPO_ROCDXG_DIR"
  mapfile -t legacy < <(rocm_profile_args)
  mapfile -t rocm7 < <(rocm7_profile_args)

  tool --root "$ROOT" "${legacy[@]}" install rocm --yes
  assert_status 0 "install rocm 6.4.2.1 from file: sources"
  [[ -z $(find "$ROOT/var/cache/apt/archives" -name '*.deb') ]] || fail "apt kept copies of file: packages"
  snap on-legacy

  tool --root "$ROOT" "${rocm7[@]}" install rocm --yes --output json
  assert_status 0 "the switch to 7.2.2"
  switch=$(jq -r .transaction_id <<<"$TOOL_OUT")
  assert_eq "$(jq -r '[.undo_store.keeps[].from] | unique | join(",")' <<<"$TOOL_OUT")" fetched \
    "how the switch kept the 6.4.2.1 packages"
  assert_contains "$(jq -r '[.undo_store.keeps[].name] | join(" ")' <<<"$TOOL_OUT")" 'rocm-core' "what the switch kept"
  tool --root "$ROOT" history "$switch"
  assert_contains "$TOOL_OUT" 'kept for undo: rocm-core 6\.4\.2\.1-1 \(fetched, ' "history of the switch"

  for d in "rocm/apt/$TESTREPO_ROCM_VERSION" "amdgpu/$TESTREPO_ROCM_VERSION"; do
    mount -t tmpfs -o size=1M,mode=0755 gone "$ROOT/srv/testrepo/$d" || fail "cannot hide $d"
  done
  expect_status 0 in_root apt-get clean
  network_off
  tool --root "$ROOT" rollback "$switch" --yes
  assert_status 0 "rollback of the switch with the old release gone, offline"
  snap undone
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/on-legacy" "$REALROOT_SCENARIO_TMP/undone" \
    "rolling back the switch offline (file: sources)"
}
