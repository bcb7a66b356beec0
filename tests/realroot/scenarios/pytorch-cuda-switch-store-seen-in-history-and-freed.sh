# realroot-timeout: 600
# Disk, seen and freed (issue 54, item 3; review findings 3 and 4): after a
# build switch of PyTorch (cu130 to cu126) the old build sits in the switch's
# undo store, the only copy of its files once pip replaced them:
#   - the plan of the switch says so: the files pip replaces, their size,
#     stay on disk in the undo store until rollback or prune;
#   - the install leaves the tool's wheel cache empty (pip installed the
#     wheels: the venv and the store hold what they were for);
#   - `history` lists the switch's store at the room it takes (a venv of N
#     files, more than 0 bytes), as it lists .deb copies;
#   - `history --prune` keeps it (the newest rollback needs it) and says so;
#   - `history ID --prune` frees it (the store's folder holds only the
#     `pruned` note) and says which rollback it gave up;
#   - the rollback of the switch then stops before it changes anything,
#     exit 3, naming the venv; `--allow-partial-undo` goes past it, leaving
#     the venv as it is.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_tool_command history
  require_step_kinds python_venv python_packages
  with_root switch_store_seen_and_freed
}

switch_store_seen_and_freed() {
  local tmp=$REALROOT_SCENARIO_TMP sets sets126 t2
  root_fake_nvidia_smi ok-table-gtx1660-smi590.57-driver591.86-xwayland.txt
  pytorch_www
  mapfile -t sets < <(pytorch_cuda_args)
  mapfile -t sets126 < <(pytorch_cuda_args --set torch_cuda=cu126)

  tool --root "$ROOT" "${sets[@]}" install pytorch --yes
  assert_status 0 "install pytorch with the driver's row (T1)"
  tool --root "$ROOT" "${sets126[@]}" plan pytorch
  assert_status 0 "plan of the switch to cu126"
  assert_contains "$TOOL_OUT" "the files pip replaces \\(torch 2\\.14\\.1\\+cu130, .*about [0-9.]+ [kMG]?B\\) stay on disk in the undo store until this transaction is rolled back or its store is let go" \
    "the plan of the switch: what stays on disk"
  tool --root "$ROOT" "${sets126[@]}" install pytorch --yes
  assert_status 0 "install pytorch with torch_cuda=cu126 (T2)"
  t2=$(newest_transaction)
  local cache=$ROOT$REALROOT_STATE_DIR/cache/wheels
  [[ -z $(ls -A "$cache" 2>/dev/null) ]] || fail "the wheels pip installed stayed in the cache: $(ls -la "$cache")"

  tool --root "$ROOT" history
  assert_status 0 "history after the switch"
  assert_contains "$TOOL_OUT" "^$t2 .* committed .* undo store [0-9.]+ [kMG]?B \\(a venv of [0-9]+ files\\)" \
    "history: the switch's store, with the old build in it"
  assert_not_contains "$TOOL_OUT" "undo store 0 B" "history: a store at no size"
  assert_not_contains "$TOOL_OUT" "^Wheel cache" "history: the wheel cache (empty)"

  tool --root "$ROOT" history --prune
  assert_status 0 "history --prune"
  [[ -d $ROOT$REALROOT_STATE_DIR/tx/$t2/undo ]] && ls "$ROOT$REALROOT_STATE_DIR/tx/$t2/undo/" | grep -q '^venv-' ||
    fail "history --prune removed the store the newest rollback needs"

  tool --root "$ROOT" history "$t2" --prune
  assert_status 0 "history $t2 --prune"
  assert_contains "$TOOL_OUT" "Removed the undo store of $t2 \\([0-9.]+ [kMG]?B\\): given up by \`history --prune $t2\`" \
    "history ID --prune: what it freed"
  assert_contains "$TOOL_OUT" "rollback $t2 can no longer put back the venv $PYTORCH_VENV as it was" \
    "history ID --prune: the rollback it gave up"
  assert_eq "$(ls "$ROOT$REALROOT_STATE_DIR/tx/$t2/undo/")" pruned "the pruned store's folder"

  tool --root "$ROOT" rollback "$t2" --yes
  assert_status 3 "rollback of the switch whose store was given up"
  assert_contains "$TOOL_OUT$TOOL_ERR" "let the undo store of step \"torch\" go" "the refused rollback: why"
  tool --root "$ROOT" rollback "$t2" --yes --allow-partial-undo
  assert_status 0 "rollback of the switch with --allow-partial-undo"
}
