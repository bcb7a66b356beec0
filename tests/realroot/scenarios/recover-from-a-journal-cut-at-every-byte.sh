# A run killed while it wrote its journal's last record (issue 19): the
# journal is cut at every byte offset of that record, and `recover
# --rollback` must read what is complete, say what it ignored, and leave the
# root as it was before the run. The run is killed after the second of
# three file steps (WSLGPU_SETUP_CRASH_AT=motd:after, so the last record is
# that step's outcome) and, separately, just after its intent (motd:before).
# File steps keep each round to a few milliseconds, so every offset is
# tried; the apt steps' records are covered by the crash loops.
# realroot-timeout: 600

scenario() {
  require_tool_command recover
  with_root cut_every_byte motd:after
  with_root cut_every_byte motd:before
}

cut_every_byte() {
  local point=$1 tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/files.toml
  {
    manifest_header realroot-files
    printf '\n[[step]]\nid = "issue"\nkind = "file"\npath = "/etc/issue.d/wslgpu"\ncontent = "GPU ready\\n"\n'
    printf '\n[[step]]\nid = "motd"\nkind = "file"\npath = "/etc/motd"\ncontent = "provisioned by wslgpu-setup\\n"\n'
    printf '\n[[step]]\nid = "env"\nkind = "profile_env"\ntarget = "system"\nenv = { WSLGPU_TEST = "1" }\n'
  } >"$manifest"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  local state=$ROOT$REALROOT_STATE_DIR motd
  motd="$(stat -c '%a %u %g' "$ROOT/etc/motd") $(sha256sum <"$ROOT/etc/motd")"

  # One crash, kept: every round starts from a copy of its state folder and
  # of the files the run had changed.
  WSLGPU_SETUP_CRASH_AT=$point tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 137 "the install killed at $point"
  local journal id
  journal=$(ls "$state"/tx/*/journal.jsonl)
  id=$(basename "$(dirname "$journal")")
  rm -rf "$tmp/state.crashed"
  cp -a "$state" "$tmp/state.crashed"
  tar -C "$ROOT" -cf "$tmp/changed.tar" etc/motd etc/issue.d
  local size last cut rounds=0 warned=0
  size=$(stat -c %s "$journal")
  # Where the last record starts: after the line break before the final one.
  last=$(head -c $((size - 1)) "$journal" | tr -dc '\n' | wc -c)
  last=$(head -n "$last" "$journal" | wc -c)
  say "journal of $id: $size bytes, its last record from byte $last: $(tail -n 1 "$journal")"

  for ((cut = last; cut <= size; cut++)); do
    rm -rf "$state" "$ROOT/etc/issue.d"
    cp -a "$tmp/state.crashed" "$state"
    tar -C "$ROOT" -xf "$tmp/changed.tar"
    truncate -s "$cut" "$state/tx/$id/journal.jsonl"

    local out status=0
    out=$(NO_COLOR=1 "$WSLGPU_BIN" --root "$ROOT" --not-wsl recover --rollback --yes 2>&1) || status=$?
    ((status == 0)) || fail "recover --rollback with the journal cut at byte $cut of $size exited $status:"$'\n'"$out"
    # A cut right after a line break leaves whole records only: nothing to
    # say. Inside the last record, recover says how much it ignored.
    if ((cut > last && cut < size - 1)); then
      grep -q "ended in an incomplete record ($((cut - last)) bytes" <<<"$out" ||
        fail "recover did not say what it ignored (cut at byte $cut):"$'\n'"$out"
      warned=$((warned + 1))
    fi
    # Cheap checks every round; the whole snapshot on the first, the last
    # and every 16th.
    [[ ! -e $ROOT/etc/issue.d/wslgpu ]] || fail "cut at byte $cut: /etc/issue.d/wslgpu is still there"
    [[ ! -e $ROOT/etc/profile.d/wslgpu-realroot-files.sh ]] || fail "cut at byte $cut: the profile.d file is still there"
    if ((cut == last || cut == size || (cut - last) % 16 == 0)); then
      snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
      assert_same_snapshot "$tmp/before" "$tmp/after" "recover --rollback with the journal cut at byte $cut of $size"
    else
      [[ "$(stat -c '%a %u %g' "$ROOT/etc/motd") $(sha256sum <"$ROOT/etc/motd")" == "$motd" ]] ||
        fail "cut at byte $cut: /etc/motd differs from before the run"
    fi
    tool --root "$ROOT" --not-wsl history --output json
    assert_eq "$(jq -r '.[0].status' <<<"$TOOL_OUT")" rolled_back "the transaction's status after the cut at byte $cut"
    rounds=$((rounds + 1))
  done
  say "$point: $rounds cuts, each rolled back to the snapshot before the run; $warned said what they ignored"
}
