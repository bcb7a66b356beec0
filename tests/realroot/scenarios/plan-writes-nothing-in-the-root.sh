# plan changes nothing in a real root, not even what the other snapshots
# leave out: /var/log (apt's simulation writes its planner log,
# /var/log/apt/eipp.log.xz, unless told not to), apt's caches
# (/var/cache/apt/*.bin) and its lists. The bundled rocm profile on a fresh
# root (its apt_install resolves against the sources its earlier steps add,
# in a private configuration), a refused install of it, and a plan after a
# run killed between adding the repositories and refreshing (private lists
# then too). The tool's state folder holds nothing afterwards but the keys
# plan fetched into its cache.

scenario() {
  require_tool_command install
  with_root plan_and_refused_install
  with_root plan_after_a_crash
}

# Everything, the folders the tier's snapshots usually skip included.
snapshot_all() {
  snapshot "$ROOT" "$1" --exclude "$REALROOT_STATE_DIR" --keep /var/log --keep /var/cache/apt --keep /var/lib/apt/lists
}

state_holds_only_the_cache() {
  local left
  left=$(ls -A "$ROOT$REALROOT_STATE_DIR" 2>/dev/null | grep -vx -e cache -e tx -e lock || true)
  [[ -z $left ]] || fail "$1 left in $REALROOT_STATE_DIR: $left"
}

plan_and_refused_install() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  mapfile -t sets < <(rocm_profile_args)
  snapshot_all "$tmp/before"

  tool --root "$ROOT" "${sets[@]}" plan rocm
  assert_status 0 "plan rocm"
  assert_contains "$TOOL_OUT" 'rocm +change +install [0-9]+ packages: .*\([0-9.]+ k?B to download, [0-9.]+ k?B more on disk\)' "plan rocm (apt's sizes)"
  snapshot_all "$tmp/after-plan"
  assert_same_snapshot "$tmp/before" "$tmp/after-plan" "plan rocm wrote in the root"
  state_holds_only_the_cache "plan rocm"

  mapfile -t sets < <(rocm_profile_args --set rocm_package=rocm-extras)
  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 3 "install rocm with rocm_package=rocm-extras"
  snapshot_all "$tmp/after-refusal"
  assert_same_snapshot "$tmp/before" "$tmp/after-refusal" "a refused install wrote in the root"
  state_holds_only_the_cache "a refused install"
}

plan_after_a_crash() {
  local tmp=$REALROOT_SCENARIO_TMP sets
  mapfile -t sets < <(rocm_profile_args)
  WSLGPU_SETUP_CRASH_AT=rocm-repo:after tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 137 "install killed after adding the repositories"
  snapshot_all "$tmp/crashed"
  tool --root "$ROOT" "${sets[@]}" plan rocm
  assert_status 0 "plan rocm after the crash"
  assert_contains "$TOOL_OUT" 'lists +change +refresh package lists' "the plan after the crash"
  assert_contains "$TOOL_OUT" 'rocm +change +install [0-9]+ packages' "the plan after the crash (against private lists)"
  snapshot_all "$tmp/crashed-after-plan"
  assert_same_snapshot "$tmp/crashed" "$tmp/crashed-after-plan" "plan after a crash wrote in the root"
  [[ ! -e $ROOT$REALROOT_STATE_DIR/plan-apt ]] || fail "plan left its scratch folder: $(ls -R "$ROOT$REALROOT_STATE_DIR/plan-apt")"
}
