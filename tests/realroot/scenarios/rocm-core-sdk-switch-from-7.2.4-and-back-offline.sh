# From ROCm 7.2.4, the last release in AMD's legacy packaging (librocdxg's
# .deb, HSA_ENABLE_DXG_DETECTION=1, AMD's three repo.radeon.com-shaped
# sources), to the ROCm Core SDK 10.1 in one transaction, then back by
# rollback with the old release gone and no network:
#   - 7.2.4 installed through apt's copy: method (rocm_copy_args), then
#     `apt-get clean`: apt's cache holds nothing of it;
#   - the switch (`--set rocm_version=10.1.0`) removes the legacy packages
#     BEFORE it changes a source or installs the Core SDK, as AMD asks
#     (AMD's transition guide: uninstall ROCm 7.2.4 or older first): the
#     order is read from the root's dpkg log (every removal of a 7.2.4
#     package before the first unpack of an amdrocm one) and from the
#     tool's report (the legacy-rocm step before core-repo and core);
#   - after it: no rocm-*/hsa-* package of 7.2.4 and nothing left of its
#     /opt/rocm-7.2.4 (the legacy packaging's folder, /opt/rocm an
#     alternatives link to it: testrepo.sh), /opt/rocm a folder, rocdxg-roct
#     removed (10.1 bundles librocdxg.so in /opt/rocm/core-10.1/lib), no amdgpu or
#     graphics source, key or pin, rocm.sources the Core SDK's (Suites:
#     stable) with the binary key only (AMD's armoured legacy key gone),
#     no HSA_ENABLE_DXG_DETECTION in /etc/profile.d, systemd's
#     system.conf.d or environment.d; rocminfo lists gfx1100 in a login
#     shell; converged;
#   - the 7.2.4 repositories are then taken off the test repository
#     (tmpfs over their folders) and apt's cache is cleaned again; with
#     the root's network namespace empty (loopback down, the HTTPS server
#     gone) the rollback ends byte-identical to the root before the switch.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds check apt_repository apt_update apt_install apt_remove download deb_install profile_env file
  with_root switch_from_724_to_core_then_back_offline
}

CORE_101=(amdrocm10.1-gfx1100 amdrocm-core10.1-gfx1100)

snap() { snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR"; }
version_of() { dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' "$1"; }

on_724() {
  assert_rocm724_layout "${CORE_101[@]}"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/amdgpu.sources")" \
    "^URIs: copy:/srv/testrepo/amdgpu/$TESTREPO_ROCM724_AMDGPU_DIR/ubuntu\$" "amdgpu.sources on 7.2.4"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm-graphics.sources")" \
    "^URIs: copy:/srv/testrepo/graphics/$TESTREPO_ROCM724_GRAPHICS_DIR/ubuntu\$" "rocm-graphics.sources on 7.2.4"
  expect_status 0 in_root bash -lc 'echo "dxg=${HSA_ENABLE_DXG_DETECTION:-unset}"; rocminfo'
  assert_contains "$LAST_OUTPUT" '^dxg=1$' "HSA_ENABLE_DXG_DETECTION in a login shell on 7.2.4"
  assert_contains "$LAST_OUTPUT" 'gfx1100' "rocminfo on 7.2.4"
}

on_core_101() {
  local p left
  assert_installed "$ROOT" "${CORE_101[@]}"
  assert_eq "$(version_of amdrocm10.1-gfx1100)" 10.1.0-2 "amdrocm10.1-gfx1100's version"
  assert_not_installed "$ROOT" rocdxg-roct hsa-runtime-rocr4wsl-amdgpu amdgpu-install
  # No package of the legacy packaging named rocm-* or hsa-* is left.
  left=$(legacy_rocm_packages_left)
  [[ -z $left ]] || fail "legacy packages left after the switch to 10.1:"$'\n'"$left"
  for p in "${ROCM724_PACKAGES[@]}"; do assert_not_installed "$ROOT" "$p"; done
  # AMD's legacy sources, their keys and pins: gone.
  local f
  for f in sources.list.d/amdgpu.sources sources.list.d/rocm-graphics.sources keyrings/amdgpu.asc keyrings/amdgpu.gpg \
    keyrings/rocm-graphics.asc keyrings/rocm-graphics.gpg keyrings/rocm.asc preferences.d/amdgpu.pref \
    preferences.d/rocm-graphics.pref; do
    [[ ! -e $ROOT/etc/apt/$f ]] || fail "/etc/apt/$f is still there after the switch to 10.1"
  done
  assert_not_contains "$(cat "$ROOT"/etc/apt/sources.list.d/*)" "amdgpu/|graphics/|rocm/apt/" "the sources after the switch"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm.sources")" "^URIs: $TESTREPO_CORE_REPO_BASE/debian12/?\$" "rocm.sources on 10.1"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm.sources")" '^Suites: stable$' "rocm.sources on 10.1"
  cmp -s "$ROOT/etc/apt/keyrings/rocm.gpg" "$TESTREPO_CORE_KEY_BINARY" || fail "/etc/apt/keyrings/rocm.gpg is not the binary key"
  assert_contains "$(cat "$ROOT/etc/apt/preferences.d/rocm.pref")" '^Pin: release o=AMD ROCm$' "rocm.pref on 10.1"
  # librocdxg inside ROCm, the .deb's copy gone.
  [[ -f $ROOT/opt/rocm/core-10.1/lib/librocdxg.so ]] || fail "10.1's own librocdxg.so is not there"
  [[ ! -e $ROOT/opt/rocm/lib/librocdxg.so ]] || fail "the rocdxg-roct .deb's /opt/rocm/lib/librocdxg.so is still there"
  [[ -d $ROOT/opt/rocm && ! -L $ROOT/opt/rocm ]] || fail "/opt/rocm is not a folder"
  [[ ! -e $ROOT/opt/rocm-$TESTREPO_ROCM724_VERSION ]] ||
    fail "7.2.4's folder is left after the switch:"$'\n'"$(find "$ROOT/opt/rocm-$TESTREPO_ROCM724_VERSION" | sed "s|^$ROOT||")"
  expect_status 0 in_root readlink -f /opt/rocm/bin
  assert_eq "$LAST_OUTPUT" /opt/rocm/core-10.1/bin "/opt/rocm/bin on 10.1"
  # No dxg detection setting anywhere.
  assert_not_contains "$(cat "$ROOT/etc/profile.d/wslgpu-rocm.sh")" 'HSA_ENABLE_DXG_DETECTION' "/etc/profile.d/wslgpu-rocm.sh on 10.1"
  [[ ! -e $ROOT/etc/systemd/system.conf.d/wslgpu-rocm.conf ]] || fail "systemd's dxg setting is there on 10.1"
  [[ ! -e $ROOT/etc/environment.d/90-wslgpu-rocm.conf ]] || fail "environment.d's dxg setting is there on 10.1"
  expect_status 0 in_root bash -lc 'echo "dxg=${HSA_ENABLE_DXG_DETECTION:-unset}"; rocminfo'
  assert_contains "$LAST_OUTPUT" '^dxg=unset$' "HSA_ENABLE_DXG_DETECTION in a login shell on 10.1"
  assert_contains "$LAST_OUTPUT" '^ROCm Core SDK 10\.1 \(dxg bridge: /opt/rocm/core-10\.1/lib/librocdxg\.so\)' "rocminfo on 10.1"
  assert_contains "$LAST_OUTPUT" 'Name: +gfx1100' "rocminfo on 10.1"
}

# removed_before_installed: the root's dpkg log since the switch began
# (from line FIRST) removes every 7.2.4 package before it unpacks the
# first amdrocm package.
removed_before_installed() {
  local first=$1 log=$ROOT/var/log/dpkg.log p line first_core
  first_core=$(awk -v from="$first" 'NR >= from && $3 == "install" && $4 ~ /^amdrocm/ { print NR; exit }' "$log")
  [[ -n $first_core ]] || fail "the dpkg log shows no amdrocm package installed by the switch"
  for p in "${ROCM724_PACKAGES[@]}" rocdxg-roct; do
    line=$(awk -v from="$first" -v p="$p" 'NR >= from && ($3 == "remove" || $3 == "purge") && $4 ~ "^" p ":" { print NR; exit }' "$log")
    [[ -n $line ]] || fail "the dpkg log shows no removal of $p by the switch"
    ((line < first_core)) ||
      fail "$p was removed (dpkg.log line $line) after the Core SDK's first install (line $first_core):"$'\n'"$(sed -n "${first},\$p" "$log" | grep -E ' (install|remove|purge) ')"
  done
  say "dpkg log of the switch: $(sed -n "${first},\$p" "$log" | awk '$3 == "install" || $3 == "remove" || $3 == "purge" { printf "%s %s; ", $3, $4 }')"
}

switch_from_724_to_core_then_back_offline() {
  local copy legacy core switch first
  serve_https "$TESTREPO_ROCDXG_DIR"
  mapfile -t copy < <(rocm_copy_args)
  mapfile -t legacy < <(rocm724_profile_args "${copy[@]}")
  mapfile -t core < <(core_profile_args "${copy[@]}" --set rocm_version=10.1.0)

  tool --root "$ROOT" "${legacy[@]}" install rocm --yes
  assert_status 0 "install rocm 7.2.4"
  expect_status 0 in_root apt-get clean
  on_724
  snap on-724

  tool --root "$ROOT" "${core[@]}" plan rocm
  assert_status 0 "plan of the switch to 10.1"
  assert_contains "$TOOL_OUT" 'legacy-rocm +change +remove rocm 7\.2\.4\.70204-1, ' "the switch's plan"
  assert_contains "$TOOL_OUT" '^ +remove rocm-core 7\.2\.4\.70204-1$' "the switch's plan"
  assert_contains "$TOOL_OUT" 'no-rocdxg-deb +change +.*remove .*rocdxg-roct' "the switch's plan (10.1 bundles librocdxg)"
  assert_contains "$TOOL_OUT" 'core +change +install [0-9]+ packages: .*amdrocm10\.1-gfx1100' "the switch's plan"
  assert_not_contains "$TOOL_OUT" 'undo cannot put back' "the switch's plan: undo can put 7.2.4 back"
  assert_not_contains "$TOOL_OUT" 'rocdxg-download +change' "the switch's plan: 10.1 downloads no librocdxg"

  first=$(($(wc -l <"$ROOT/var/log/dpkg.log") + 1))
  tool --root "$ROOT" "${core[@]}" install rocm --yes --output json
  assert_status 0 "the switch from 7.2.4 to 10.1"
  switch=$(jq -r .transaction_id <<<"$TOOL_OUT")
  # The tool's order (its report lists the steps as they ran): the legacy
  # packages go first, then the sources change and the Core SDK arrives.
  assert_eq "$(jq -r '[.steps[] | select(.changed) | .id | select(. == "legacy-rocm" or . == "core-repo" or . == "core")] | join(" ")' <<<"$TOOL_OUT")" \
    "legacy-rocm core-repo core" "the order of the switch's changed steps"
  removed_before_installed "$first"
  on_core_101
  tool --root "$ROOT" "${core[@]}" plan rocm --detailed-exitcode
  assert_status 0 "plan --detailed-exitcode on 10.1 (converged)"

  tool --root "$ROOT" history --output json
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 2 "transactions after the switch (the switch is one)"
  tool --root "$ROOT" history "$switch"
  assert_contains "$TOOL_OUT" 'kept for undo: .*rocm-core 7\.2\.4\.70204-1' "history of the switch"

  hide_rocm724
  expect_status 0 in_root apt-get clean
  network_off
  tool --root "$ROOT" rollback "$switch" --yes
  assert_status 0 "rollback of the switch, offline, 7.2.4 gone"
  snap undone
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/on-724" "$REALROOT_SCENARIO_TMP/undone" \
    "rolling back the switch to 10.1 offline"
  assert_installed "$ROOT" "${ROCM724_PACKAGES[@]}" rocdxg-roct
  assert_not_installed "$ROOT" "${CORE_101[@]}"
}
