# realroot-timeout: 900
# A venv's undo store pruned or deleted never leaves the machine half undone
# with no way out (issue 54, findings 2 and 6):
#   - A venv the transaction created needs no store: install pytorch on
#     ROCm 7.2 (T1, creates the venv), switch to 7.2.2 (T2), `history
#     --prune` lets T1's store go and gives up no venv; rollback T2, then
#     T1, in the documented order: both exit 0, and the root is as before
#     (before the fix the second exited 5 and every later install too).
#   - A venv that was there before: the user's own venv, then T3 (7.2) and
#     T4 (7.2.2); `--prune` lets T3's store go and says that rollback T3
#     can no longer put the venv back; rollback T4, then rollback T3 stops
#     before it undoes anything (exit 3, not half undone), naming the
#     distributions to reinstall by hand and --allow-partial-undo; with that
#     option it rolls back the rest and says what it left.
#   - A store deleted by hand (`rm -rf .../undo/venv-*`, as a user whose disk
#     is full does): rollback stops before anything is undone, exit 3, where
#     it said "rolled back" and restored nothing before the fix.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds python_venv python_packages
  with_root pruned_or_missing_store
}

# install_switch_prune NAME1 NAME2 WHAT: install pytorch on ROCm 7.2 (NAME1,
# WHAT), then on 7.2.2 (NAME2), then `history --prune`; their ids in FIRST
# and SECOND, prune's output in TOOL_OUT. Uses the caller's sets72/sets722.
install_switch_prune() {
  tool --root "$ROOT" "${sets72[@]}" install pytorch --yes
  assert_status 0 "install pytorch on ROCm 7.2 $3"
  FIRST=$(newest_transaction)
  tool --root "$ROOT" "${sets722[@]}" install pytorch --yes
  assert_status 0 "install pytorch on ROCm 7.2.2 ($2)"
  SECOND=$(newest_transaction)
  tool --root "$ROOT" history --prune
  assert_status 0 "history --prune after $2"
}

# undo_store_of T: the host path of transaction T's undo store.
undo_store_of() { printf '%s\n' "$ROOT$REALROOT_STATE_DIR/tx/$1/undo"; }

pruned_or_missing_store() {
  local tmp=$REALROOT_SCENARIO_TMP t1 t2 t3 t4 t5
  root_as_amd_machine
  pytorch_www --legacy-bundled-hsa=yes
  local sets72 sets722
  mapfile -t sets72 < <(pytorch_rocm_args 7.2)
  mapfile -t sets722 < <(pytorch_rocm_args 7.2.2)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  # A. The venv is T1's own.
  install_switch_prune T1 T2 "(T1, creates the venv)"
  t1=$FIRST t2=$SECOND
  assert_contains "$TOOL_OUT" "Removed the undo store of $t1 .*: superseded by $t2" "prune: T1's store goes"
  assert_not_contains "$TOOL_OUT" "rollback $t1 can no longer put back" "prune: T1 created its venv, nothing given up"
  tool --root "$ROOT" rollback "$t2" --yes
  assert_status 0 "rollback of T2"
  tool --root "$ROOT" rollback "$t1" --yes
  assert_status 0 "rollback of T1, whose store was pruned"
  snapshot "$ROOT" "$tmp/after-a" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after-a" "T2 and T1 rolled back after --prune left the root different"

  # B. The user's own venv, there before T3.
  as_user_login "python3 -m venv $PYTORCH_VENV" || fail "the user could not make a venv"
  snapshot "$ROOT" "$tmp/own-venv" --exclude "$REALROOT_STATE_DIR"
  install_switch_prune T3 T4 "into the user's venv (T3)"
  t3=$FIRST t4=$SECOND
  assert_contains "$TOOL_OUT" "rollback $t3 can no longer put back the venv $PYTORCH_VENV as it was" \
    "prune: the rollback it gives up, named"
  tool --root "$ROOT" rollback "$t4" --yes
  assert_status 0 "rollback of T4"
  snapshot "$ROOT" "$tmp/t3-state" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" rollback "$t3" --yes
  assert_status 3 "rollback of T3, whose store held the user's venv"
  assert_contains "$TOOL_ERR" "history --prune. let the undo store of step \"torch-legacy\" go: the venv $PYTORCH_VENV cannot be put back as it was. Its distributions before the transaction: pip==" \
    "rollback of T3: why, and what to reinstall"
  assert_contains "$TOOL_ERR" "Nothing was changed. --allow-partial-undo rolls back the rest" "rollback of T3: the way past"
  snapshot "$ROOT" "$tmp/t3-refused" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/t3-state" "$tmp/t3-refused" "a refused rollback of T3 changed the root"
  tool --root "$ROOT" history
  assert_not_contains "$TOOL_OUT" "half_undone" "history after the refused rollback"
  tool --root "$ROOT" rollback "$t3" --yes --allow-partial-undo --output json
  assert_status 0 "rollback of T3 with --allow-partial-undo"
  assert_contains "$(jq -r '.notices[]' <<<"$TOOL_OUT")" "not put back \\(--allow-partial-undo\\): .history --prune. let the undo store" \
    "rollback of T3: what it left, in the notices"
  [[ -d $ROOT$PYTORCH_VENV/lib ]] || fail "the user's venv is gone after rollback --allow-partial-undo"
  tool --root "$ROOT" "${sets722[@]}" install pytorch --yes
  assert_status 0 "an install after it runs, 7.2.2 over the 7.2 venv (T5): no dead end"
  t5=$(newest_transaction)

  # C. T5's store deleted by hand.
  rm -rf "$(undo_store_of "$t5")"/venv-*
  snapshot "$ROOT" "$tmp/t5-state" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" rollback "$t5" --yes
  assert_status 3 "rollback of T5 with its venv store deleted"
  assert_contains "$TOOL_ERR" "the undo store of step \"torch\" is missing \\(.*/tree.json\\)" "rollback of T5: why"
  snapshot "$ROOT" "$tmp/t5-refused" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/t5-state" "$tmp/t5-refused" "a refused rollback of T5 changed the root"
}
