# Switching ROCm releases on a provisioned root, with the bundled rocm
# profile: 6.4.2.1 (the legacy WSL runtime) installed, then
# --set rocm_version=7.2.2 is one transaction that ends converged on 7.2.2
# (librocdxg, the standard runtime, AMD's 7.x sources) with the old
# release's sources, packages (hsa-runtime-rocr4wsl-amdgpu) and environment
# gone; then back to 6.4.2.1, converged again with 7.2.2's gone (librocdxg,
# the graphics source, HSA_ENABLE_DXG_DETECTION in /etc/profile.d, systemd's
# system.conf.d and environment.d). Rolled back newest first,
# each switch returns the root to the state before it, and the first
# install's rollback to the root as it was.
#
# The sources use apt's copy: method (rocm_copy_args): apt keeps each
# installed package in /var/cache/apt/archives, as it does for AMD's https
# repositories, which is where undo finds a release whose source the switch
# took away. librocdxg, in no repository, comes back from the download
# step's copy in wslgpu-setup's cache.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds check apt_repository apt_update apt_install download deb_install profile_env file
  with_root switch_release_then_back
}

LEGACY_ONLY=(hsa-runtime-rocr4wsl-amdgpu)
ROCM7_ONLY=(hsa-rocr libdrm-amdgpu-amdgpu1 libdrm-amdgpu-common rocdxg-roct)
BOTH=(rocm rocm-dev rocm-core rocminfo)

# snap NAME: the root's snapshot, without the tool's state (the journal and
# the download cache, which keeps librocdxg's .deb for a rollback).
snap() { snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR"; }
snap_without_dxg_dirs() {
  snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR" --exclude /etc/environment.d \
    --exclude /etc/systemd/system.conf.d
}

version_of() { dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' "$1"; }

# install_id ARGS...: install rocm with ARGS, and print the transaction's id.
install_id() {
  tool --root "$ROOT" "$@" install rocm --yes --output json
  assert_status 0 "install rocm $*"
  jq -r .transaction_id <<<"$TOOL_OUT"
}

converged() {
  tool --root "$ROOT" "$@" plan rocm --detailed-exitcode
  assert_status 0 "plan rocm --detailed-exitcode ($*)"
}

# on_legacy: 6.4.2.1 and nothing of 7.2.2.
on_legacy() {
  assert_installed "$ROOT" "${BOTH[@]}" "${LEGACY_ONLY[@]}"
  assert_not_installed "$ROOT" "${ROCM7_ONLY[@]}"
  assert_eq "$(version_of rocm)" 6.4.2.1-1 "rocm's version"
  assert_eq "$(version_of rocm-core)" 6.4.2.1-1 "rocm-core's version"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/amdgpu.sources")" \
    "^URIs: copy:/srv/testrepo/amdgpu/$TESTREPO_ROCM_VERSION/ubuntu\$" "amdgpu.sources"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm.sources")" \
    "^URIs: copy:/srv/testrepo/rocm/apt/$TESTREPO_ROCM_VERSION\$" "rocm.sources"
  [[ ! -e $ROOT/etc/apt/sources.list.d/rocm-graphics.sources ]] || fail "rocm-graphics.sources is there on 6.4.2.1"
  [[ ! -e $ROOT/etc/apt/keyrings/rocm-graphics.asc ]] || fail "rocm-graphics.asc is there on 6.4.2.1"
  [[ ! -e $ROOT/etc/apt/preferences.d/rocm-graphics.pref ]] || fail "rocm-graphics.pref is there on 6.4.2.1"
  [[ ! -e $ROOT/opt/rocm/lib/librocdxg.so ]] || fail "librocdxg.so is there on 6.4.2.1"
  assert_not_contains "$(cat "$ROOT/etc/profile.d/wslgpu-rocm.sh")" 'HSA_ENABLE_DXG_DETECTION' "/etc/profile.d/wslgpu-rocm.sh"
  expect_status 0 in_root bash -lc 'echo "dxg=${HSA_ENABLE_DXG_DETECTION:-unset}"'
  assert_eq "$LAST_OUTPUT" dxg=unset "HSA_ENABLE_DXG_DETECTION in a login shell on 6.4.2.1"
  [[ ! -e $ROOT/etc/systemd/system.conf.d/wslgpu-rocm.conf ]] || fail "systemd's DefaultEnvironment for dxg detection is there on 6.4.2.1"
  [[ ! -e $ROOT/etc/environment.d/90-wslgpu-rocm.conf ]] || fail "environment.d's dxg detection is there on 6.4.2.1"
  expect_status 0 in_root bash -lc rocminfo
  assert_contains "$LAST_OUTPUT" 'gfx1100' "rocminfo on 6.4.2.1"
}

# on_rocm7: 7.2.2 and nothing of 6.4.2.1.
on_rocm7() {
  assert_installed "$ROOT" "${BOTH[@]}" "${ROCM7_ONLY[@]}"
  assert_not_installed "$ROOT" "${LEGACY_ONLY[@]}"
  assert_eq "$(version_of rocm)" 7.2.2.70202-1 "rocm's version"
  assert_eq "$(version_of rocm-core)" 7.2.2.70202-1 "rocm-core's version"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/amdgpu.sources")" \
    "^URIs: copy:/srv/testrepo/amdgpu/$TESTREPO_ROCM7_AMDGPU_DIR/ubuntu\$" "amdgpu.sources"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm.sources")" \
    "^URIs: copy:/srv/testrepo/rocm/apt/$TESTREPO_ROCM7_VERSION\$" "rocm.sources"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm-graphics.sources")" \
    "^URIs: copy:/srv/testrepo/graphics/$TESTREPO_ROCM7_GRAPHICS_DIR/ubuntu\$" "rocm-graphics.sources"
  # No source of the old release is left anywhere apt reads.
  assert_not_contains "$(cat "$ROOT"/etc/apt/sources.list.d/*)" "/$TESTREPO_ROCM_VERSION" "the sources after the switch"
  [[ -f $ROOT/opt/rocm/lib/librocdxg.so ]] || fail "librocdxg.so is not there on 7.2.2"
  [[ ! -e $ROOT/opt/rocm/lib/libhsa-runtime64.so.1 ]] || fail "the legacy WSL runtime's library is still there"
  expect_status 0 in_root bash -lc 'echo "dxg=${HSA_ENABLE_DXG_DETECTION:-unset}"'
  assert_eq "$LAST_OUTPUT" dxg=1 "HSA_ENABLE_DXG_DETECTION in a login shell on 7.2.2"
  # And beyond login shells: systemd's services, its user services and sessions.
  assert_contains "$(cat "$ROOT/etc/systemd/system.conf.d/wslgpu-rocm.conf")" '^DefaultEnvironment=HSA_ENABLE_DXG_DETECTION=1$' "system.conf.d on 7.2.2"
  assert_contains "$(cat "$ROOT/etc/environment.d/90-wslgpu-rocm.conf")" '^HSA_ENABLE_DXG_DETECTION=1$' "environment.d on 7.2.2"
  expect_status 0 in_root bash -lc rocminfo
  assert_contains "$LAST_OUTPUT" 'gfx1100' "rocminfo on 7.2.2"
}

# defaults_since_the_install ID ARGS...: the rocm profile as a newer
# wslgpu-setup might bundle it, its 6.4.2.1 row corrected (the packages'
# version pattern), planned with ARGS on the root that transaction ID
# provisioned with 6.4.2.1: the plan names the value the new row changes,
# where it is written and the source the row cites (docs/profiles.md,
# "After an upgrade of wslgpu-setup"), and changes nothing.
defaults_since_the_install() {
  local id=$1 next=$REALROOT_SCENARIO_TMP/rocm-next.toml
  shift
  sed 's/^rocm_package_version = "6\.4\.2\*"$/rocm_package_version = "6.4.2.1*"/' \
    "$REALROOT_LIB_DIR/../../manifests/rocm.toml" >"$next"
  ! cmp -s "$next" "$REALROOT_LIB_DIR/../../manifests/rocm.toml" || fail "manifests/rocm.toml has no 6.4.2.1 row to correct"
  snap since-before
  tool --root "$ROOT" "$@" plan "$next"
  assert_status 0 "plan of the corrected profile"
  assert_contains "$TOOL_OUT" "^Since transaction $id \(wslgpu-setup [^ ]+, [^)]+\) provisioned this machine with this profile, its defaults changed:" "plan of the corrected profile"
  assert_contains "$TOOL_OUT" "^  rocm_package_version +6\.4\.2\* -> 6\.4\.2\.1\*  \(\[matrix\.rocm_version\.\"6\.4\.2\.1\"\] at ${next//./\\.}:[0-9]+:[0-9]+\)" "plan of the corrected profile"
  assert_contains "$TOOL_OUT" "^      \[matrix\.rocm_version\.\"6\.4\.2\.1\"\]: Source: WSL support matrix: 6\.4\.2\.1 has the WSL runtime\." "plan of the corrected profile (the row's source)"
  assert_contains "$TOOL_OUT" "No step changes the machine for them: what is installed already matches\\." "plan of the corrected profile (6.4.2.1-1 matches both patterns)"
  assert_contains "$TOOL_OUT" "The machine already matches this profile" "plan of the corrected profile (6.4.2.1-1 matches both patterns)"
  snap since-after
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/since-before" "$REALROOT_SCENARIO_TMP/since-after" "plan changed the root"
}

switch_release_then_back() {
  local copy legacy rocm7 first second third
  serve_https "$TESTREPO_ROCDXG_DIR"
  mapfile -t copy < <(rocm_copy_args)
  mapfile -t legacy < <(rocm_profile_args "${copy[@]}")
  mapfile -t rocm7 < <(rocm7_profile_args "${copy[@]}")
  snap before

  first=$(install_id "${legacy[@]}")
  on_legacy
  converged "${legacy[@]}"
  snap on-legacy
  snap_without_dxg_dirs on-legacy-cmp
  defaults_since_the_install "$first" "${legacy[@]}"

  # 6.4.2.1 -> 7.2.2: one transaction, shown whole in the plan.
  tool --root "$ROOT" "${rocm7[@]}" plan rocm
  assert_status 0 "plan rocm 7.2.2 on 6.4.2.1"
  assert_contains "$TOOL_OUT" 'rocm7 +change +.*upgrade rocm 6\.4\.2\.1-1 → 7\.2\.2\.70202-1' "the switch's plan"
  assert_contains "$TOOL_OUT" 'rocm7 +change +.*REMOVE hsa-runtime-rocr4wsl-amdgpu' "the switch's plan"
  assert_contains "$TOOL_OUT" 'hsa-runtime-rocr4wsl-amdgpu is replaced by this step.s packages' "the switch's plan"
  assert_not_contains "$TOOL_OUT" 'undo cannot put back' "the switch's plan: undo can put 6.4.2.1 back"
  second=$(install_id "${rocm7[@]}")
  on_rocm7
  converged "${rocm7[@]}"
  tool --root "$ROOT" history --output json
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 2 "transactions after the switch (the switch is one)"
  snap on-rocm7

  # And back: 7.2.2 -> 6.4.2.1, librocdxg and the graphics source gone.
  tool --root "$ROOT" "${legacy[@]}" plan rocm
  assert_status 0 "plan rocm 6.4.2.1 on 7.2.2"
  assert_contains "$TOOL_OUT" 'rocm +change +.*downgrade rocm 7\.2\.2\.70202-1 → 6\.4\.2\.1-1' "the switch back's plan"
  assert_contains "$TOOL_OUT" 'rocm +change +.*REMOVE .*rocdxg-roct' "the switch back's plan"
  assert_contains "$TOOL_OUT" 'no-graphics-src +change' "the switch back's plan"
  assert_not_contains "$TOOL_OUT" 'undo cannot put back' "the switch back's plan: undo can put 7.2.2 back"
  third=$(install_id "${legacy[@]}")
  on_legacy
  converged "${legacy[@]}"
  # The switch to 7.2.2 made /etc/environment.d and /etc/systemd/system.conf.d
  # for its dxg files; the switch back removes the files (on_legacy checks
  # them) and leaves the two folders empty, as apt leaves a folder a removed
  # package's file was in: only a rollback removes what a run made.
  snap_without_dxg_dirs back-on-legacy
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/on-legacy-cmp" "$REALROOT_SCENARIO_TMP/back-on-legacy" \
    "switching back did not reach the first install's state"
  assert_eq "$(ls -A "$ROOT/etc/environment.d" "$ROOT/etc/systemd/system.conf.d")" "$(printf '%s:\n\n%s:' "$ROOT/etc/environment.d" "$ROOT/etc/systemd/system.conf.d")" "the dxg folders after the switch back"

  # Rolled back newest first, each switch returns the root to the state before it.
  tool --root "$ROOT" rollback "$third" --yes
  assert_status 0 "rollback of the switch back"
  snap undone-3
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/on-rocm7" "$REALROOT_SCENARIO_TMP/undone-3" "rolling back the switch back to 6.4.2.1"
  on_rocm7
  tool --root "$ROOT" rollback "$second" --yes
  assert_status 0 "rollback of the switch to 7.2.2"
  snap undone-2
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/on-legacy" "$REALROOT_SCENARIO_TMP/undone-2" "rolling back the switch to 7.2.2"
  on_legacy
  tool --root "$ROOT" rollback "$first" --yes
  assert_status 0 "rollback of the first install"
  snap undone-1
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/undone-1" "rolling back the first install"
}
