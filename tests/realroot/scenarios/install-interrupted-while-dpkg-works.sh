# Ctrl-C while dpkg is configuring a package (slow-postinst's postinst waits
# for a file): the tool does not die, and does not stop dpkg; it says it
# will finish safely, answers a second Ctrl-C, lets the step reach its end,
# then undoes the whole transaction and exits 130. The root is then as it
# was before the install, and no run is left to recover. SIGTERM (a job
# runner stopping the run) is the same, with exit 143.

scenario() {
  require_tool_command install
  with_root interrupt_during_postinst INT 130
  with_root interrupt_during_postinst TERM 143
}

interrupt_during_postinst() {
  local signal=$1 want=$2 tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/slow.toml
  local out=$REALROOT_SCENARIO_TMP/out err=$REALROOT_SCENARIO_TMP/err pid status=0 i
  {
    manifest_header realroot-slow
    manifest_testrepo_steps
    manifest_apt_install slow slow-postinst
  } >"$manifest"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  NO_COLOR=1 "$WSLGPU_BIN" --root "$ROOT" --not-wsl install "$manifest" --yes >"$out" 2>"$err" &
  pid=$!
  for ((i = 0; i < 300; i++)); do
    [[ -e $ROOT/run/slow-postinst.started ]] && break
    sleep 0.1
  done
  if [[ ! -e $ROOT/run/slow-postinst.started ]]; then
    kill -KILL "$pid" || true
    fail "slow-postinst's postinst never started:"$'\n'"$(cat "$out" "$err")"
  fi

  kill "-$signal" "$pid"
  sleep 1
  kill -0 "$pid" 2>/dev/null || fail "the tool exited on SIG$signal while dpkg was configuring:"$'\n'"$(cat "$out" "$err")"
  assert_contains "$(cat "$err")" 'interrupted: the step in progress is let reach a safe point' "the answer to the first SIG$signal"
  kill "-$signal" "$pid"
  sleep 0.5
  assert_contains "$(cat "$err")" 'still finishing safely' "the answer to a second SIG$signal"
  kill -0 "$pid" 2>/dev/null || fail "the tool exited on a second SIG$signal while dpkg was configuring"

  touch "$ROOT/run/slow-postinst.release"
  wait "$pid" || status=$?
  say "the interrupted install:"$'\n'"$(sed 's/^/  out| /' "$out")"$'\n'"$(sed 's/^/  err| /' "$err")"
  assert_eq "$status" "$want" "the exit status of an install stopped by SIG$signal"
  assert_contains "$(cat "$out")" "was interrupted \\(SIG$signal\\): the step in progress was let finish, then 3 steps were undone \\(slow, lists, testrepo\\); the machine is as it was \\(exit $want\\)" \
    "the interrupted install's last words"
  assert_contains "$(cat "$out")" '\[3/3\] slow: installing 1 package' "the step's start line"

  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "an install stopped by SIG$signal left the root changed"
  assert_not_installed "$ROOT" slow-postinst
  tool --root "$ROOT" history --output json
  assert_eq "$(jq -r '.[0].status' <<<"$TOOL_OUT")" rolled_back "the interrupted transaction's status"
  rm -f "$ROOT/run/slow-postinst.started" "$ROOT/run/slow-postinst.release"
}
