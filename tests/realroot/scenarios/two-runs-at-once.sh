# Two real runs against the same root at the same time (issue 19), not a
# lock file held by hand:
# - two `install`s started together, 20 times: exactly one runs; the other
#   exits 4 within its --lock-timeout, naming the holder's pid and command;
# - an `install` while a `rollback` is busy undoing (slow-postrm's postrm
#   waits): refused the same way, naming the rollback;
# - an `install` while a plain `apt-get install` holds dpkg's lock: apt's
#   lock timeout (the step's lock_timeout) is honoured and reported: plan
#   waits that long, then refuses naming apt-get, nothing changed, no hang.
# realroot-timeout: 420

scenario() {
  require_tool_command install
  with_root two_installs_started_together
  with_root install_during_a_rollback
  with_root install_while_apt_holds_dpkgs_lock
}

# wait_for FILE SECONDS PID...: until FILE exists or every PID has exited.
wait_for() {
  local file=$1 limit=$2 i pid alive
  shift 2
  for ((i = 0; i < limit * 10; i++)); do
    [[ -e $file ]] && return 0
    alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || return 1
    sleep 0.1
  done
  return 1
}

# The id of the newest committed transaction (ids sort by time).
last_committed() {
  "$WSLGPU_BIN" --root "$ROOT" history --output json | jq -r '[.[] | select(.status == "committed") | .id] | max'
}

two_installs_started_together() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/slow.toml round a b sa first loser winner t0 took
  { manifest_header realroot-race; manifest_testrepo_steps; manifest_apt_install slow slow-postinst; } >"$manifest"
  for ((round = 1; round <= 20; round++)); do
    rm -f "$ROOT/run/slow-postinst.started" "$ROOT/run/slow-postinst.release"
    t0=$EPOCHREALTIME
    NO_COLOR=1 "$WSLGPU_BIN" --root "$ROOT" --not-wsl install "$manifest" --yes --lock-timeout 1 >"$tmp/a.out" 2>"$tmp/a.err" &
    a=$!
    NO_COLOR=1 "$WSLGPU_BIN" --root "$ROOT" --not-wsl install "$manifest" --yes --lock-timeout 1 >"$tmp/b.out" 2>"$tmp/b.err" &
    b=$!
    # The winner waits in slow-postinst's postinst until released; the
    # loser must have given up by then.
    sa=0
    wait -n -p first "$a" "$b" || sa=$?
    took=$(elapsed_since "$t0")
    if [[ $first == "$a" ]]; then loser=a winner=$b; else loser=b winner=$a; fi
    assert_eq "$sa" 4 "round $round: the exit status of the run that did not get the lock ($(cat "$tmp/$loser.err"))"
    assert_contains "$(cat "$tmp/$loser.err")" "holds the lock .*pid $winner, .*install .*slow.toml" \
      "round $round: the refusal names the holder's pid and command"
    # Within its --lock-timeout of 1 s (and the tool's start): not after the winner.
    awk -v t="$took" 'BEGIN { exit !(t < 5) }' || fail "round $round: the loser took $took s to give up (--lock-timeout 1)"
    kill -0 "$winner" 2>/dev/null || fail "round $round: the winner ended before it was released:"$'\n'"$(cat "$tmp"/*.out "$tmp"/*.err)"
    touch "$ROOT/run/slow-postinst.release"
    local status=0
    wait "$winner" || status=$?
    assert_eq "$status" 0 "round $round: the run that holds the lock"
    assert_installed "$ROOT" slow-postinst
    tool --root "$ROOT" --not-wsl rollback "$(last_committed)" --yes
    assert_status 0 "round $round: rolling the winner back"
    assert_not_installed "$ROOT" slow-postinst
  done
  say "20 rounds: each time one install ran and the other exited 4 naming it"
}

install_during_a_rollback() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/postrm.toml rb status=0
  { manifest_header realroot-postrm; manifest_testrepo_steps; manifest_apt_install slow slow-postrm; } >"$manifest"
  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 0 "installing slow-postrm"
  rm -f "$ROOT/run/slow-postrm.started" "$ROOT/run/slow-postrm.release"
  NO_COLOR=1 "$WSLGPU_BIN" --root "$ROOT" --not-wsl rollback "$(last_committed)" --yes >"$tmp/rb.out" 2>"$tmp/rb.err" &
  rb=$!
  wait_for "$ROOT/run/slow-postrm.started" 60 "$rb" ||
    fail "the rollback never reached slow-postrm's postrm:"$'\n'"$(cat "$tmp/rb.out" "$tmp/rb.err")"
  tool --root "$ROOT" --not-wsl install "$manifest" --yes --lock-timeout 0.5
  assert_status 4 "an install while a rollback runs"
  assert_contains "$TOOL_ERR" "holds the lock .*pid $rb, .*rollback" "the refusal names the rollback"
  touch "$ROOT/run/slow-postrm.release"
  wait "$rb" || status=$?
  assert_eq "$status" 0 "the rollback, once released"
  assert_not_installed "$ROOT" slow-postrm
}

install_while_apt_holds_dpkgs_lock() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/other.toml apt status=0 t0 took
  root_use_testrepo trusted
  rm -f "$ROOT/run/slow-postinst.started" "$ROOT/run/slow-postinst.release"
  in_root apt-get install -y -q slow-postinst >"$tmp/apt.out" 2>&1 &
  apt=$!
  wait_for "$ROOT/run/slow-postinst.started" 60 "$apt" ||
    fail "apt-get never reached slow-postinst's postinst:"$'\n'"$(cat "$tmp/apt.out")"
  {
    manifest_header realroot-dpkg-lock
    manifest_apt_install other rocminfo
    printf 'lock_timeout = 3\n'
  } >"$manifest"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  t0=$EPOCHREALTIME
  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  took=$(elapsed_since "$t0")
  # The plan waits for dpkg's lock as apt would (the step's lock_timeout),
  # then refuses: a dpkg at work is not an interrupted one.
  assert_status 3 "an install while apt-get holds dpkg's lock"
  assert_contains "$TOOL_ERR" "dpkg's lock is held by process [0-9]+ \\(apt-get\\).*lock_timeout of 3 s" "the refusal names the holder and the wait"
  assert_contains "$TOOL_ERR" "Nothing was changed" "and says nothing changed"
  awk -v t="$took" 'BEGIN { exit !(t >= 3 && t < 60) }' || fail "the install took $took s with lock_timeout = 3"
  say "the install gave up after $took s (lock_timeout = 3)"
  kill -0 "$apt" 2>/dev/null || fail "apt-get ended while the tool waited"
  # apt-get is still held in slow-postinst's postinst: what differs now was
  # done by the tool.
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "the refused install changed the root"
  touch "$ROOT/run/slow-postinst.release"
  wait "$apt" || status=$?
  assert_eq "$status" 0 "the plain apt-get install, once released"
  assert_not_installed "$ROOT" rocminfo
}
