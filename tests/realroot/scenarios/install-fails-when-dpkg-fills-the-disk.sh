# The root's filesystem fills up during a step (issue 19): zeros-package says
# it needs 1 KiB, so the disk-space guard lets it through, and dpkg runs out
# of space unpacking its 150 MB. The step fails, the transaction is rolled
# back (its journal records still written: the disk was full when the step
# failed), and the root is as before. The root's changes live on a 256 MB
# tmpfs, filled beforehand so that about 120 MB are free: more than the
# guard's 100 MB margin, less than the package.

scenario() {
  require_tool_command install
  with_root --fs-size 256M fill_up_while_dpkg_unpacks
}

fill_up_while_dpkg_unpacks() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/zeros.toml free
  { manifest_header realroot-zeros; manifest_testrepo_steps; manifest_apt_install zeros zeros-package; } >"$manifest"
  free=$(df -B1M --output=avail "$ROOT" | tail -n 1)
  fallocate -l "$((free - 120))M" "$ROOT/var/tmp/filler"
  say "the root's filesystem: $(df -h "$ROOT" | tail -n 1)"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 1 "an install whose package does not fit after all"
  assert_contains "$TOOL_ERR" 'No space left on device' "the failure names the full disk"
  assert_contains "$TOOL_OUT" 'rolled back 3 steps; the machine is as it was \(exit 1\)' "the rollback"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a step that filled the disk left the root changed"
  assert_not_installed "$ROOT" zeros-package
  tool --root "$ROOT" history --output json
  assert_eq "$(jq -r '.[0].status' <<<"$TOOL_OUT")" rolled_back "the transaction's status"
  # No reserve is left behind once the run has ended.
  [[ -z $(find "$ROOT$REALROOT_STATE_DIR/tx" -name reserve) ]] || fail "a finished run left its journal reserve"
}
