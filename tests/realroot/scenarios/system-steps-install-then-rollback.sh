# The step kinds that edit files people also edit by hand, on a real root:
# wslconf edits /etc/wsl.conf in place, wslconfig edits the Windows side's
# .wslconfig (found under /mnt/c/Users/alice: CRLF line endings, a comment
# and another section kept, and a memory above the step's minimum kept with
# its own comment), and command runs a real program in the root,
# with its undo. A second install changes nothing; a rollback leaves every
# byte, mode and owner as it was.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_tool_command history
  require_step_kinds wslconf wslconfig command
  with_root edit_then_roll_back
}

edit_then_roll_back() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/system.toml
  local wslconfig=$ROOT/mnt/c/Users/$REALROOT_USER/.wslconfig
  printf '# written by hand on Windows\r\n[wsl2]\r\nprocessors=4\r\nmemory=32GB   # mine\r\n\r\n[experimental]\r\nautoMemoryReclaim=gradual\r\n' >"$wslconfig"
  chown 1000:1000 "$wslconfig"
  {
    manifest_header system-steps
    cat <<'TOML'

[[step]]
id = "systemd"
kind = "wslconf"
settings.boot = { systemd = true }
settings.gpu = { enabled = true }

[[step]]
id = "memory"
kind = "wslconfig"
settings.wsl2 = { memory = { at_least = "16GB" }, processors = 8 }

[[step]]
id = "marker"
kind = "command"
argv = ["mkdir", "-p", "/opt/wslgpu-marker/sub"]
creates = "/opt/wslgpu-marker"
undo = ["rm", "-r", "/opt/wslgpu-marker"]
TOML
  } >"$manifest"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" install "$manifest" --yes
  assert_status 0 "install"
  assert_contains "$TOOL_OUT$TOOL_ERR" 'wsl --shutdown' "install (the advice after a .wslconfig change)"
  # /etc/wsl.conf: the value changed in place, the new section added, the rest kept.
  assert_eq "$(cat "$ROOT/etc/wsl.conf")" "$(printf '[boot]\nsystemd=true\n\n[user]\ndefault=%s\n\n[gpu]\nenabled=true' "$REALROOT_USER")" \
    "/etc/wsl.conf after install"
  # .wslconfig: every line still ends in CRLF; the comment and [experimental] are kept.
  local text
  text=$(cat "$wslconfig")
  assert_contains "$text" $'^# written by hand on Windows\r$' ".wslconfig after install"
  assert_contains "$text" $'^processors=8\r$' ".wslconfig after install"
  assert_contains "$text" $'^memory=32GB   # mine\r$' ".wslconfig after install (above the minimum: kept)"
  assert_contains "$text" $'^autoMemoryReclaim=gradual\r$' ".wslconfig after install"
  [[ $(grep -c $'[^\r]$' "$wslconfig") == 0 ]] || fail ".wslconfig has a line without CRLF after install: $(cat -A "$wslconfig")"
  [[ $(stat -c %u:%g "$wslconfig") == 1000:1000 ]] || fail ".wslconfig changed owner: $(stat -c %u:%g "$wslconfig")"
  [[ -d $ROOT/opt/wslgpu-marker/sub ]] || fail "the command step did not run in the root"

  tool --root "$ROOT" plan "$manifest" --detailed-exitcode
  assert_status 0 "plan after install (converged)"

  tool --root "$ROOT" history --output json
  assert_status 0 "history"
  local id
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root different from before the install"
}
