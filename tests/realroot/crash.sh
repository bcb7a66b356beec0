# tests/realroot/crash.sh: runs killed at every step, then recovered
# (sourced by lib.sh): crash_every_step_then_recover and its parts, the
# proof that a crashed run leaves a journal the next one can roll back or
# resume from.

# crash_every_step_then_recover STEP...: for each STEP, a run SIGKILLed before
# and after it (WSLGPU_SETUP_CRASH_AT), then `recover --rollback` (the root
# must be as before the run) and `recover --resume` (it must match an
# uninterrupted run, and be converged: a plan then exits 0 and runs no
# apt). Each crash point runs once, in a fresh root; each recovery then
# runs in a root of its own that starts as the killed run left its root
# (with_root --save-changes and --from-changes), so the two recoveries do
# not repeat the same crash. In each, the next install must refuse (exit
# 5) before recover runs: the root is the interrupted one.
# Every point runs, so that one failure does not hide the others. The
# scenario defines:
#   crash_install_args   prints the arguments after --root, one per line,
#                        up to the manifest (e.g. --not-wsl, install, FILE)
#   crash_recover_args   prints the global options recover needs, one per line
#   crash_prepare        optional: run in each fresh root first (e.g. write the manifest)
crash_every_step_then_recover() {
  with_root crash_reference
  local step when how total=0 failed=() point crashed=$REALROOT_SCENARIO_TMP/crashed
  for step in "$@"; do
    for when in before after; do
      point=$step:$when
      if ! with_root --save-changes "$crashed" crash_at "$point"; then
        total=$((total + 2))
        failed+=("crash at $point, recover --rollback (not run: the crash failed)" "crash at $point, recover --resume (not run: the crash failed)")
        continue
      fi
      for how in --rollback --resume; do
        total=$((total + 1))
        with_root --from-changes "$crashed" recover_after_crash "$point" "$how" ||
          failed+=("crash at $point, recover $how")
      done
      rm -rf "$crashed"
    done
  done
  ((${#failed[@]} == 0)) || fail "${#failed[@]} of $total crash points did not recover:$(printf '\n  %s' "${failed[@]}")"
}

# The state of a fresh root, for the --rollback comparisons (every root of
# crash_at starts the same: an empty upper layer over the same lower ones,
# and crash_prepare writes only into the scenario's folder), and the state
# an uninterrupted install reaches, for the --resume comparisons.
crash_reference() {
  local args
  declare -F crash_prepare >/dev/null && crash_prepare
  mapfile -t args < <(crash_install_args)
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${args[@]}" --yes
  assert_status 0 "the uninterrupted install"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/reference" --exclude "$REALROOT_STATE_DIR"
}

# crash_at STEP:WHEN: in a fresh root, the run killed at STEP:WHEN.
crash_at() {
  local point=$1 args
  declare -F crash_prepare >/dev/null && crash_prepare
  mapfile -t args < <(crash_install_args)
  say "=== crash at $point"
  WSLGPU_SETUP_CRASH_AT=$point tool --root "$ROOT" "${args[@]}" --yes
  assert_status 137 "install killed at $point"
}

# recover_after_crash STEP:WHEN --rollback|--resume: in a root as crash_at
# left it, the next install refuses, then recover.
recover_after_crash() {
  local point=$1 how=$2 args globals
  mapfile -t args < <(crash_install_args)
  mapfile -t globals < <(crash_recover_args)
  say "=== crash at $point, then recover $how"
  tool --root "$ROOT" "${args[@]}" --yes
  assert_status 5 "install after the interrupted run"

  tool --root "$ROOT" "${globals[@]}" recover "$how" --yes
  assert_status 0 "recover $how after a crash at $point"

  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after" --exclude "$REALROOT_STATE_DIR"
  if [[ $how == --rollback ]]; then
    assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" \
      "recover --rollback after a crash at $point left the root different from before the run"
  else
    assert_same_snapshot "$REALROOT_SCENARIO_TMP/reference" "$REALROOT_SCENARIO_TMP/after" \
      "recover --resume after a crash at $point did not reach the state of an uninterrupted run"
    crash_then_converged "$point"
  fi
}

# After a resumed run: the root is converged, so a plan of the same install
# exits 0 with --detailed-exitcode and runs no apt at all (an unattended
# fleet's next run must not refresh the lists or report a change).
crash_then_converged() {
  local point=$1 args=() plan_args=() a replaced=0
  mapfile -t args < <(crash_install_args)
  for a in "${args[@]}"; do
    if ((replaced == 0)) && [[ $a == install ]]; then
      plan_args+=(plan)
      replaced=1
    else
      plan_args+=("$a")
    fi
  done
  trace_commands apt-get apt-cache apt
  tool --root "$ROOT" "${plan_args[@]}" --detailed-exitcode
  assert_status 0 "plan --detailed-exitcode after recover --resume from a crash at $point (converged)"
  local calls
  calls=$(traced_calls)
  [[ -z $calls ]] || fail "the plan after recover --resume from a crash at $point called apt:"$'\n'"$calls"
}
