# A root on a 64 MB filesystem (its changes on a tmpfs of that size) and a
# package apt says needs 2 GB once installed: plan shows apt's figures and
# the refusal, and install refuses before its first change, naming what is
# needed and what is free. Nothing is changed, not even the repository.

scenario() {
  require_tool_command install
  with_root --fs-size 64M refuse_when_it_does_not_fit
}

refuse_when_it_does_not_fit() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/huge.toml
  {
    manifest_header realroot-huge
    manifest_testrepo_steps
    manifest_apt_install huge huge-package
  } >"$manifest"
  say "the root's filesystem: $(df -h "$ROOT" | tail -n 1)"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  local refusal='not enough disk space: apt needs 2\.0 GB more on disk once installed, [0-9.]+ GB with a margin of [0-9]+ MB, but the filesystem of / has [0-9.]+ [kM]B free'

  tool --root "$ROOT" --not-wsl plan "$manifest" --detailed-exitcode
  assert_status 3 "plan --detailed-exitcode of a package that does not fit"
  assert_contains "$TOOL_OUT" 'huge +change +install 1 package: huge-package \([0-9.]+ k?B to download, 2\.0 GB more on disk\)' "plan (apt's figures)"
  assert_contains "$TOOL_OUT" "$refusal" "plan (the refusal)"

  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 3 "install of a package that does not fit"
  assert_contains "$TOOL_ERR" "^error: $refusal" "install's refusal"
  assert_contains "$TOOL_ERR" 'Nothing was changed' "install's refusal"

  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a refused install changed the root"
  assert_not_installed "$ROOT" huge-package
  [[ ! -e $ROOT/etc/apt/sources.list.d/wslgpu-test.sources ]] || fail "the refused install added the repository"
}
