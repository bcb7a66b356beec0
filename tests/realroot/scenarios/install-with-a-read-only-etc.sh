# /etc is read-only (a bind mount made so inside the root's namespace), which
# plan cannot see: the first write to /etc fails at apply time. The step
# fails with the system's own reason, the step before it (a file under /opt)
# is undone, and the root is as before.

scenario() {
  require_tool_command install
  with_root read_only_etc
}

read_only_etc() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/etc.toml
  {
    manifest_header realroot-ro-etc
    printf '\n[[step]]\nid = "opt"\nkind = "file"\npath = "/opt/wslgpu-ro/marker"\ncontent = "x\\n"\n'
    printf '\n[[step]]\nid = "env"\nkind = "profile_env"\ntarget = "system"\nenv = { WSLGPU_TEST = "1" }\n'
  } >"$manifest"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"
  mount --bind "$ROOT/etc" "$ROOT/etc"
  mount -o remount,bind,ro "$ROOT/etc"
  tool --root "$ROOT" --not-wsl plan "$manifest" --detailed-exitcode
  assert_status 10 "plan cannot see that /etc is read-only"

  tool --root "$ROOT" --not-wsl install "$manifest" --yes
  assert_status 1 "install with a read-only /etc"
  assert_contains "$TOOL_ERR" '/etc/profile.d/wslgpu-realroot-ro-etc.sh.*Read-only file system' "the failure's reason"
  assert_contains "$TOOL_OUT" 'undo opt: removed /opt/wslgpu-ro/marker' "the file under /opt undone"
  assert_contains "$TOOL_OUT" 'rolled back 2 steps; the machine is as it was \(exit 1\)' "the rollback"
  umount "$ROOT/etc"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a failed install with a read-only /etc left the root changed"
}
