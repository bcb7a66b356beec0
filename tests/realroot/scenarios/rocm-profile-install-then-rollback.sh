# The bundled rocm profile, end to end, against the local signed repository
# published in AMD's layout (tests/realroot/testrepo.sh): install on the
# fake WSL2 machine (no --not-wsl: the WSL2 kernel and /dev/dxg are there),
# rocminfo finds the gfx agent, a second install changes nothing, and a
# rollback leaves the root as it was.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_tool_command history
  require_step_kinds check apt_remove apt_repository apt_update apt_install profile_env user_groups
  with_root install_profile_then_roll_back
}

install_profile_then_roll_back() {
  local sets tmp=$REALROOT_SCENARIO_TMP
  mapfile -t sets < <(rocm_profile_args)
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan rocm
  assert_status 0 "plan rocm"
  assert_contains "$TOOL_OUT" 'amdgpu-repo +change +add /etc/apt/sources.list.d/amdgpu.sources, key amdgpu.asc' "plan rocm"
  assert_contains "$TOOL_OUT" 'distro-hsa +skipped +skipped: host.distro == .ubuntu.' "plan rocm on Debian"
  assert_contains "$TOOL_OUT" 'rocm +change +install [0-9]+ packages: .*hsa-runtime-rocr4wsl-amdgpu' "plan rocm"

  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "install rocm"
  assert_contains "$TOOL_OUT" 'committed' "install rocm"
  assert_contains "$TOOL_OUT" "rocminfo-gfx +ok: \`/bin/bash -lc 'exec /opt/rocm/bin/rocminfo'\` succeeds" "install rocm (the rocminfo check)"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'rocminfo sees no GPU|check failed' "install rocm (the rocminfo check)"
  assert_installed "$ROOT" rocm rocm-dev rocm-core rocminfo hsa-runtime-rocr4wsl-amdgpu
  assert_not_installed "$ROOT" amdgpu-dkms rocm-dkms rocm-extras
  [[ -f $ROOT/etc/profile.d/wslgpu-rocm.sh ]] || fail "/etc/profile.d/wslgpu-rocm.sh was not written"
  assert_contains "$(cat "$ROOT/etc/profile.d/wslgpu-rocm.sh")" '/opt/rocm/bin' "/etc/profile.d/wslgpu-rocm.sh"
  # AMD's two sources, in AMD's layout, with the pin.
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/amdgpu.sources")" \
    "^URIs: $TESTREPO_AMDGPU_REPO/$TESTREPO_ROCM_VERSION/ubuntu\$" "amdgpu.sources"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm.sources")" \
    "^URIs: $TESTREPO_ROCM_REPO/$TESTREPO_ROCM_VERSION\$" "rocm.sources"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm.sources")" '^Suites: bookworm$' "rocm.sources"
  assert_contains "$(cat "$ROOT/etc/apt/preferences.d/rocm.pref")" "^Pin: release o=$TESTREPO_ORIGIN\$" "rocm.pref"
  assert_contains "$(cat "$ROOT/etc/apt/preferences.d/rocm.pref")" '^Pin-Priority: 600$' "rocm.pref"
  # The check ran the root's rocminfo, which sees /dev/dxg and prints the agent.
  expect_status 0 in_root /opt/rocm/bin/rocminfo
  assert_contains "$LAST_OUTPUT" 'gfx1100' "rocminfo"

  # Converged: the second install writes nothing and records no transaction.
  snapshot "$ROOT" "$tmp/installed"
  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "the second install rocm"
  assert_contains "$TOOL_OUT" 'Nothing to do: the machine already matches rocm\.' "the second install"
  assert_contains "$TOOL_OUT" 'rocminfo-gfx: ok' "the second install's rocminfo check"
  snapshot "$ROOT" "$tmp/again"
  assert_same_snapshot "$tmp/installed" "$tmp/again" "a second install changed the root"

  tool --root "$ROOT" history --output json
  assert_status 0 "history"
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 1 "the number of transactions in history"
  local id
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  [[ -n $id && $id != null ]] || fail "history lists no transaction id"

  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root different from before the install"
  assert_not_installed "$ROOT" rocm rocm-dev rocm-core rocminfo hsa-runtime-rocr4wsl-amdgpu
}
