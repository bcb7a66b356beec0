# apt_install's versions in a tier manifest: cuda-toolkit-12-6 at 12.6.3-*
# installs that build with its exactly pinned dependencies; asking for
# 12.6.2-* downgrades all three in one transaction (apt is asked for the
# pinned dependencies' versions too), and ">= 12.6.3~" upgrades them back.
# A converged run reads dpkg's status alone: no apt. Rolled back newest
# first, the root ends as it was.

scenario() {
  require_tool_command install
  require_tool_command rollback
  with_root versions_switch
}

CUDA_12_6=(cuda-toolkit-12-6 cuda-nvcc-12-6 cuda-toolkit-12-6-config-common)

# versions_manifest FILE SPEC
versions_manifest() {
  {
    manifest_header versions-switch
    manifest_testrepo_steps
    manifest_apt_install toolkit cuda-toolkit-12-6
    printf 'versions = { cuda-toolkit-12-6 = "%s" }\n' "$2"
  } >"$1"
}

# versions_are VERSION: every package of the set is installed at VERSION.
versions_are() {
  local p
  for p in "${CUDA_12_6[@]}"; do
    assert_eq "$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' "$p")" "$1" "$p's version"
  done
}

versions_switch() {
  local tmp=$REALROOT_SCENARIO_TMP m=$REALROOT_SCENARIO_TMP/versions.toml ids=()
  # Traced from the start, so that every snapshot has the same wrappers.
  trace_commands apt-get apt-cache
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  versions_manifest "$m" "12.6.3-*"
  tool --root "$ROOT" install "$m" --yes --output json
  assert_status 0 "install at 12.6.3-*"
  ids+=("$(jq -r .transaction_id <<<"$TOOL_OUT")")
  versions_are 12.6.3-1
  snapshot "$ROOT" "$tmp/at-3" --exclude "$REALROOT_STATE_DIR"

  versions_manifest "$m" "12.6.2-*"
  tool --root "$ROOT" plan "$m"
  assert_status 0 "plan at 12.6.2-*"
  assert_contains "$TOOL_OUT" 'toolkit +change +downgrade cuda-toolkit-12-6 12.6.3-1 → 12.6.2-1, cuda-nvcc-12-6, cuda-toolkit-12-6-config-common( \(|$)' "plan's downgrade"
  tool --root "$ROOT" install "$m" --yes --output json
  assert_status 0 "install at 12.6.2-*"
  ids+=("$(jq -r .transaction_id <<<"$TOOL_OUT")")
  versions_are 12.6.2-1

  # Converged: dpkg's status says so, and no apt runs.
  : >"$ROOT/run/wslgpu-trace/calls"
  tool --root "$ROOT" install "$m" --yes
  assert_status 0 "install at 12.6.2-*, converged"
  assert_contains "$TOOL_OUT" 'Nothing to do' "the converged install"
  assert_eq "$(traced_calls | wc -l)" 0 "apt runs of a converged install"

  versions_manifest "$m" ">= 12.6.3~"
  tool --root "$ROOT" install "$m" --yes --output json
  assert_status 0 "install at >= 12.6.3~"
  ids+=("$(jq -r .transaction_id <<<"$TOOL_OUT")")
  versions_are 12.6.3-1
  snapshot "$ROOT" "$tmp/back-at-3" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/at-3" "$tmp/back-at-3" "upgrading back did not reach the first install's state"

  tool --root "$ROOT" rollback "${ids[2]}" --yes
  assert_status 0 "rollback of the upgrade"
  versions_are 12.6.2-1
  tool --root "$ROOT" rollback "${ids[1]}" --yes
  assert_status 0 "rollback of the downgrade"
  versions_are 12.6.3-1
  snapshot "$ROOT" "$tmp/undone-2" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/at-3" "$tmp/undone-2" "rolling back the downgrade"
  tool --root "$ROOT" rollback "${ids[0]}" --yes
  assert_status 0 "rollback of the first install"
  snapshot "$ROOT" "$tmp/undone-1" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/undone-1" "rolling back the first install"
}
