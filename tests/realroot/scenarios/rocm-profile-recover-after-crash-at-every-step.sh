# The bundled rocm profile (as rocm-profile-install-then-rollback.sh points it
# at the test repository in AMD's layout), on the fake WSL2 machine without
# --not-wsl. A run SIGKILLed before and after each step that changes something
# (WSLGPU_SETUP_CRASH_AT, docs/testing.md): the next install refuses with
# exit 5; `recover --rollback` leaves the root as before the run, and
# `recover --resume` reaches the state of an uninterrupted run. Every step
# of the profile, each in a fresh root.

scenario() {
  require_tool_command install
  require_tool_command recover
  require_step_kinds apt_remove apt_repository apt_update apt_install user_groups profile_env check
  with_root uninterrupted_reference
  # Every point runs, so that one failure does not hide the others.
  local step when how failed=()
  # Every step of the profile that changes this machine (distro-hsa, rocm7,
  # rocm7-dxg and gpu-groups are skipped here by their conditions; the checks
  # change nothing).
  for step in amdgpu-repo rocm-repo lists rocm rocm-path; do
    for when in before after; do
      for how in --rollback --resume; do
        with_root crash_then_recover "$step:$when" "$how" || failed+=("crash at $step:$when, recover $how")
      done
    done
  done
  ((${#failed[@]} == 0)) || fail "${#failed[@]} of 20 crash points did not recover:$(printf '\n  %s' "${failed[@]}")"
}

rocm_sets() {
  printf '%s\n' --set "rocm_repo=$TESTREPO_ROCM_REPO" --set "amdgpu_repo=$TESTREPO_AMDGPU_REPO" \
    --set "rocm_key_url=file://$TESTREPO_KEY" --set "rocm_key_sha256=$TESTREPO_KEY_SHA256" \
    --set "rocm_pin_origin=$TESTREPO_ORIGIN"
}

# The state an uninterrupted install reaches, for the --resume comparisons.
uninterrupted_reference() {
  local sets
  mapfile -t sets < <(rocm_sets)
  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "the uninterrupted install"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/reference" --exclude "$REALROOT_STATE_DIR"
}

# crash_then_recover STEP:WHEN --rollback|--resume
crash_then_recover() {
  local point=$1 how=$2 sets
  mapfile -t sets < <(rocm_sets)
  say "=== crash at $point, then recover $how"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before" --exclude "$REALROOT_STATE_DIR"

  WSLGPU_SETUP_CRASH_AT=$point tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 137 "install killed at $point"

  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 5 "install after the interrupted run"

  tool --root "$ROOT" recover "$how" --yes
  assert_status 0 "recover $how after a crash at $point"

  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after" --exclude "$REALROOT_STATE_DIR"
  if [[ $how == --rollback ]]; then
    assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" \
      "recover --rollback after a crash at $point left the root different from before the run"
  else
    assert_same_snapshot "$REALROOT_SCENARIO_TMP/reference" "$REALROOT_SCENARIO_TMP/after" \
      "recover --resume after a crash at $point did not reach the state of an uninterrupted run"
  fi
}
