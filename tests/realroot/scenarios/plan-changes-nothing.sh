# `plan` run from outside against a fake WSL root: the verdicts of file and
# check steps come from the root's real state, and the root is unchanged.

scenario() {
  with_root plan_file_and_check_steps
}

write_manifest() {
  cat <<'TOML'
[manifest]
name = "realroot-plan"
description = "file and check steps against the fake WSL root"
schema_version = 1

[[step]]
id = "dxg"
kind = "check"
path = "/dev/dxg"
type = "char_device"
mode = "0666"

[[step]]
id = "kernel"
kind = "check"
kernel_min = "5.10.60.1"

[[step]]
id = "default-user"
kind = "check"
path = "/etc/wsl.conf"
contains_line = "default=alice"

[[step]]
id = "rocdxg"
kind = "check"
path = "/usr/lib/wsl/lib/librocdxg.so"
on_fail = "warn"

[[step]]
id = "wsl-conf"
kind = "file"
path = "/etc/wsl.conf"
content = "[boot]\nsystemd=false\n\n[user]\ndefault=alice\n"

[[step]]
id = "marker"
kind = "file"
path = "/etc/wslgpu-realroot.conf"
content = "hello\n"
mode = "0640"

[[step]]
id = "motd"
kind = "file"
path = "/etc/motd"
state = "absent"
TOML
}

plan_file_and_check_steps() {
  local manifest=$REALROOT_SCENARIO_TMP/plan.toml
  write_manifest >"$manifest"
  [[ -f $ROOT/etc/motd ]] || fail "the base root has no /etc/motd to plan its removal"
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/before"

  tool --root "$ROOT" plan "$manifest"
  assert_status 0 "plan"
  assert_contains "$TOOL_OUT" 'WSL2 kernel 5\.15\.153\.1-microsoft-standard-WSL2' "plan's machine line"
  assert_contains "$TOOL_OUT" '/dev/dxg ok' "plan's machine line"
  assert_contains "$TOOL_OUT" 'user alice' "plan's header"
  assert_contains "$TOOL_OUT" 'Windows home /mnt/c/Users/alice' "plan's machine line"
  assert_contains "$TOOL_OUT" '^ +1 +check +dxg +verify +/dev/dxg is a char_device with mode 0666' "plan"
  assert_contains "$TOOL_OUT" '^ +2 +check +kernel +verify +kernel release is at least 5\.10\.60\.1' "plan"
  assert_contains "$TOOL_OUT" '^ +3 +check +default-user +verify ' "plan"
  assert_contains "$TOOL_OUT" '^ +4 +check +rocdxg +verify ' "plan"
  assert_contains "$TOOL_OUT" 'librocdxg\.so does not exist' "plan: the failing check says why"
  assert_contains "$TOOL_OUT" '^ +5 +file +wsl-conf +no-op ' "plan"
  assert_contains "$TOOL_OUT" '^ +6 +file +marker +change +create /etc/wslgpu-realroot\.conf' "plan"
  assert_contains "$TOOL_OUT" '^ +7 +file +motd +change +remove /etc/motd' "plan"
  assert_contains "$TOOL_OUT" 'Plan: 2 changes, 1 already done, 4 checks\. Nothing has been changed\.' "plan's summary"

  tool --root "$ROOT" plan "$manifest" --output json
  assert_status 0 "plan --output json"
  assert_eq "$(jq -c '[.steps[] | [.id, .action]]' <<<"$TOOL_OUT")" \
    '[["dxg","verify"],["kernel","verify"],["default-user","verify"],["rocdxg","verify"],["wsl-conf","no-op"],["marker","change"],["motd","change"]]' \
    "the steps' actions in plan --output json"
  assert_eq "$(jq -r '.changes_pending' <<<"$TOOL_OUT")" true "changes_pending"

  tool --root "$ROOT" plan "$manifest" --detailed-exitcode
  assert_status 10 "plan --detailed-exitcode"

  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/after"
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" "plan changed the root"
  [[ ! -e $ROOT/var/lib/wslgpu-setup ]] || fail "plan created the state folder /var/lib/wslgpu-setup"
}
