# A run killed halfway, then a disk filled to the last byte (issue 19):
# `recover --rollback` must still record what it undoes. Every transaction
# keeps a reserve of space in its folder for that (installer/transaction/
# journal.cpp); the recovery gives it back to write its records, undoes the
# steps (removing the files they made frees space too), and the root is as
# before the run.

scenario() {
  require_tool_command recover
  with_root --fs-size 128M recover_with_no_space_left
}

recover_with_no_space_left() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/files.toml i
  {
    manifest_header realroot-full
    for i in 1 2 3 4; do
      printf '\n[[step]]\nid = "f%s"\nkind = "file"\npath = "/opt/wslgpu-full/f%s"\ncontent = "step %s\\n"\n' "$i" "$i" "$i"
    done
  } >"$manifest"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  WSLGPU_SETUP_CRASH_AT=f3:after tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 137 "the install killed after its third step"
  [[ -n $(find "$ROOT$REALROOT_STATE_DIR/tx" -name reserve) ]] || fail "the interrupted run has no journal reserve"

  # The journal's last page must be full too, or the rollback's records
  # would fit in what is left of it: pad it with empty lines, which the
  # journal skips.
  local journal size
  journal=$(find "$ROOT$REALROOT_STATE_DIR/tx" -name journal.jsonl)
  size=$(stat -c %s "$journal")
  head -c $((4096 - size % 4096)) /dev/zero | tr '\0' '\n' >>"$journal"
  # Fill every last byte: a big file, then small ones until nothing fits.
  fallocate -l "$(($(df -B1 --output=avail "$ROOT" | tail -n 1) - 4096))" "$ROOT/var/tmp/filler" || true
  for ((i = 0; i < 1000; i++)); do head -c 4096 /dev/zero >"$ROOT/var/tmp/filler.$i" 2>/dev/null || break; done
  : >"$ROOT/var/tmp/probe" 2>/dev/null && head -c 1 /dev/zero >>"$ROOT/var/tmp/probe" 2>/dev/null &&
    fail "the disk is not full: $(df -h "$ROOT" | tail -n 1)"
  say "the root's filesystem: $(df -B1 "$ROOT" | tail -n 1)"

  tool --root "$ROOT" --not-wsl recover --rollback --yes
  assert_status 0 "recover --rollback on a full disk"
  assert_contains "$TOOL_ERR$TOOL_OUT" 'using the space reserved for the rollback' "recover says it used the reserve"
  rm -f "$ROOT"/var/tmp/filler* "$ROOT/var/tmp/probe"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "recover on a full disk left the root changed"
  tool --root "$ROOT" history --output json
  assert_eq "$(jq -r '.[0].status' <<<"$TOOL_OUT")" rolled_back "the transaction's status"
}
