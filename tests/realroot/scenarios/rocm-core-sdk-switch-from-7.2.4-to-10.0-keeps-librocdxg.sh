# From ROCm 7.2.4 (AMD's legacy packaging: /opt/rocm an alternatives link to
# /opt/rocm-7.2.4, librocdxg's rocdxg-roct .deb installed through that link
# into /opt/rocm-7.2.4/lib) to the ROCm Core SDK 10.0, which takes the same
# librocdxg 1.2.2 .deb, in one transaction, then back by rollback with the
# old release gone and no network (issue 53, item 7):
#   - 7.2.4 installed through apt's copy: method (rocm_copy_args), then
#     `apt-get clean`: apt's cache holds nothing of it;
#   - the plan removes rocdxg-roct in the `legacy-rocdxg` step, alone,
#     before `legacy-rocm` removes the release it lies in, and installs it
#     again (`rocdxg`) after `core`; the tool's report lists the changed
#     steps in that order (legacy-rocdxg legacy-rocm core-repo core rocdxg);
#     dpkg's log removes rocdxg-roct before rocm-core and installs it again
#     after the first amdrocm package;
#   - after it: rocdxg-roct installed (1.2.2), /opt/rocm a folder, the
#     .deb's /opt/rocm/lib/librocdxg.so (the `rocdxg-lib` check's path) a
#     file there, owned by rocdxg-roct (dpkg -S), nothing of
#     /opt/rocm-7.2.4 and no rocm-*/hsa-* package left; rocminfo in a login
#     shell, without HSA_ENABLE_DXG_DETECTION, lists gfx1100 through
#     /opt/rocm/lib/librocdxg.so; converged;
#   - the 7.2.4 repositories are then taken off the test repository
#     (tmpfs over their folders) and apt's cache is cleaned again; with
#     the root's network namespace empty (loopback down, the HTTPS server
#     gone) the rollback ends byte-identical to the root before the switch,
#     librocdxg.so back in /opt/rocm-7.2.4/lib.
# Without the legacy-rocdxg step, rocdxg-roct stays installed while 7.2.4
# goes: its file lies in /opt/rocm-7.2.4/lib, which stays behind, and the
# Core SDK's /opt/rocm/lib has no librocdxg.so (the deb_install of the same
# version changes nothing): the rocdxg-lib check stops the install.
# The same happens WITH the step while deb_install plans against dpkg's
# status as it is before the run (steps/apt/deb_install.cpp: "rocdxg-roct
# 1.2.2 is already installed", a no-op the transaction skips, although
# legacy-rocdxg removes it first): this scenario fails at the plan's
# "rocdxg +change" until deb_install sees what earlier apt_remove steps of
# the plan remove.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds check apt_repository apt_update apt_install apt_remove download deb_install profile_env file
  with_root switch_from_724_to_core_100_keeps_librocdxg
}

CORE_100=(amdrocm10.0-gfx1100 amdrocm-core10.0-gfx1100)

snap() { snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR"; }
version_of() { dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' "$1"; }

on_724() {
  assert_rocm724_layout "${CORE_100[@]}"
  expect_status 0 in_root bash -lc rocminfo
  assert_contains "$LAST_OUTPUT" 'gfx1100' "rocminfo on 7.2.4"
}

on_core_100() {
  local p left
  assert_installed "$ROOT" "${CORE_100[@]}" rocdxg-roct
  assert_eq "$(version_of amdrocm10.0-gfx1100)" 10.0.0-4 "amdrocm10.0-gfx1100's version"
  assert_eq "$(version_of rocdxg-roct)" "$TESTREPO_ROCDXG_VERSION" "rocdxg-roct's version on 10.0"
  assert_not_installed "$ROOT" hsa-runtime-rocr4wsl-amdgpu amdgpu-install
  left=$(legacy_rocm_packages_left)
  [[ -z $left ]] || fail "legacy packages left after the switch to 10.0:"$'\n'"$left"
  for p in "${ROCM724_PACKAGES[@]}"; do assert_not_installed "$ROOT" "$p"; done
  # The Core SDK layout: /opt/rocm a folder, the .deb's librocdxg.so in its
  # lib/ (where 10.0's runtime and the rocdxg-lib check look), nothing of
  # the legacy release's folder.
  [[ -d $ROOT/opt/rocm && ! -L $ROOT/opt/rocm ]] || fail "/opt/rocm is not a folder on 10.0"
  [[ -d $ROOT/opt/rocm/lib && ! -L $ROOT/opt/rocm/lib ]] || fail "/opt/rocm/lib is not a folder on 10.0"
  [[ -f $ROOT/opt/rocm/lib/librocdxg.so ]] ||
    fail "/opt/rocm/lib/librocdxg.so is not there after the switch to 10.0: $(ls -la "$ROOT/opt/rocm/lib" 2>&1)"
  assert_eq "$(cat "$ROOT/opt/rocm/lib/librocdxg.so")" "fake librocdxg $TESTREPO_ROCDXG_VERSION" "/opt/rocm/lib/librocdxg.so"
  expect_status 0 in_root dpkg -S /opt/rocm/lib/librocdxg.so
  assert_contains "$LAST_OUTPUT" '^rocdxg-roct: /opt/rocm/lib/librocdxg\.so$' "dpkg -S /opt/rocm/lib/librocdxg.so"
  [[ ! -e $ROOT/opt/rocm-$TESTREPO_ROCM724_VERSION ]] ||
    fail "7.2.4's folder is left after the switch:"$'\n'"$(find "$ROOT/opt/rocm-$TESTREPO_ROCM724_VERSION" | sed "s|^$ROOT||")"
  for f in sources.list.d/amdgpu.sources sources.list.d/rocm-graphics.sources preferences.d/amdgpu.pref; do
    [[ ! -e $ROOT/etc/apt/$f ]] || fail "/etc/apt/$f is still there after the switch to 10.0"
  done
  expect_status 0 in_root readlink -f /opt/rocm/bin
  assert_eq "$LAST_OUTPUT" /opt/rocm/core-10.0/bin "/opt/rocm/bin on 10.0"
  [[ ! -e $ROOT/etc/systemd/system.conf.d/wslgpu-rocm.conf && ! -e $ROOT/etc/environment.d/90-wslgpu-rocm.conf ]] ||
    fail "a dxg detection setting for systemd on 10.0"
  expect_status 0 in_root bash -lc 'echo "dxg=${HSA_ENABLE_DXG_DETECTION:-unset}"; rocminfo'
  assert_contains "$LAST_OUTPUT" '^dxg=unset$' "HSA_ENABLE_DXG_DETECTION in a login shell on 10.0"
  assert_contains "$LAST_OUTPUT" '^ROCm Core SDK 10\.0 \(dxg bridge: /opt/rocm/lib/librocdxg\.so\)' "rocminfo on 10.0"
  assert_contains "$LAST_OUTPUT" 'Name: +gfx1100' "rocminfo on 10.0"
}

# dpkg_order FIRST: the root's dpkg log since the switch began (from line
# FIRST) removes rocdxg-roct before rocm-core, every 7.2.4 package before
# the first amdrocm package is unpacked, and installs rocdxg-roct again
# after that.
dpkg_order() {
  local first=$1 log=$ROOT/var/log/dpkg.log p line first_core rocdxg_out rocdxg_in core_out
  first_core=$(awk -v from="$first" 'NR >= from && $3 == "install" && $4 ~ /^amdrocm/ { print NR; exit }' "$log")
  [[ -n $first_core ]] || fail "the dpkg log shows no amdrocm package installed by the switch"
  for p in "${ROCM724_PACKAGES[@]}" rocdxg-roct; do
    line=$(awk -v from="$first" -v p="$p" 'NR >= from && ($3 == "remove" || $3 == "purge") && $4 ~ "^" p ":" { print NR; exit }' "$log")
    [[ -n $line ]] || fail "the dpkg log shows no removal of $p by the switch"
    ((line < first_core)) || fail "$p was removed (dpkg.log line $line) after the Core SDK's first install (line $first_core)"
  done
  rocdxg_out=$(awk -v from="$first" 'NR >= from && $3 == "remove" && $4 ~ /^rocdxg-roct:/ { print NR; exit }' "$log")
  core_out=$(awk -v from="$first" 'NR >= from && $3 == "remove" && $4 ~ /^rocm-core:/ { print NR; exit }' "$log")
  ((rocdxg_out < core_out)) || fail "rocdxg-roct was removed (line $rocdxg_out) after rocm-core (line $core_out)"
  rocdxg_in=$(awk -v from="$first" 'NR >= from && $3 == "install" && $4 ~ /^rocdxg-roct:/ { print NR; exit }' "$log")
  [[ -n $rocdxg_in ]] || fail "the dpkg log shows no install of rocdxg-roct by the switch"
  ((rocdxg_in > first_core)) || fail "rocdxg-roct was installed again (line $rocdxg_in) before the Core SDK (line $first_core)"
  say "dpkg log of the switch: $(sed -n "${first},\$p" "$log" | awk '$3 == "install" || $3 == "remove" || $3 == "purge" { printf "%s %s; ", $3, $4 }')"
}

switch_from_724_to_core_100_keeps_librocdxg() {
  local copy legacy core switch first
  serve_https "$TESTREPO_ROCDXG_DIR"
  mapfile -t copy < <(rocm_copy_args)
  mapfile -t legacy < <(rocm724_profile_args "${copy[@]}")
  mapfile -t core < <(core_profile_args "${copy[@]}")

  tool --root "$ROOT" "${legacy[@]}" install rocm --yes
  assert_status 0 "install rocm 7.2.4"
  expect_status 0 in_root apt-get clean
  on_724
  snap on-724

  tool --root "$ROOT" "${core[@]}" plan rocm
  assert_status 0 "plan of the switch to 10.0"
  assert_contains "$TOOL_OUT" 'legacy-rocm +change +remove rocm 7\.2\.4\.70204-1, ' "the switch's plan"
  assert_contains "$TOOL_OUT" 'core +change +install [0-9]+ packages: .*amdrocm10\.0-gfx1100' "the switch's plan"
  # rocdxg-roct 1.2.2 is installed now, and an earlier step removes it: the
  # deb_install of the same .deb is a change, not "already installed".
  assert_contains "$TOOL_OUT" "rocdxg +change +install rocdxg-roct $TESTREPO_ROCDXG_VERSION from " \
    "the switch's plan: librocdxg's .deb installed again after the Core SDK"
  assert_contains "$TOOL_OUT" "legacy-rocdxg +change +remove rocdxg-roct $TESTREPO_ROCDXG_VERSION" "the switch's plan"
  assert_not_contains "$TOOL_OUT" 'no-rocdxg-deb +change' "the switch's plan: 10.0 keeps the separate librocdxg"
  assert_not_contains "$TOOL_OUT" 'undo cannot put back' "the switch's plan: undo can put 7.2.4 back"

  first=$(($(wc -l <"$ROOT/var/log/dpkg.log") + 1))
  tool --root "$ROOT" "${core[@]}" install rocm --yes --output json
  assert_status 0 "the switch from 7.2.4 to 10.0"
  switch=$(jq -r .transaction_id <<<"$TOOL_OUT")
  assert_not_contains "$TOOL_OUT" 'check failed' "the switch from 7.2.4 to 10.0 (its checks: rocdxg-lib, rocm-links, rocminfo-gfx)"
  # The tool's order (its report lists the steps as they ran): librocdxg's
  # package first, alone, then the legacy release, then the Core SDK's
  # source and packages, then librocdxg's .deb again.
  assert_eq "$(jq -r '[.steps[] | select(.changed) | .id | select(. == "legacy-rocdxg" or . == "legacy-rocm" or . == "core-repo" or . == "core" or . == "rocdxg")] | join(" ")' <<<"$TOOL_OUT")" \
    "legacy-rocdxg legacy-rocm core-repo core rocdxg" "the order of the switch's changed steps"
  dpkg_order "$first"
  on_core_100
  tool --root "$ROOT" "${core[@]}" plan rocm --detailed-exitcode
  assert_status 0 "plan --detailed-exitcode on 10.0 (converged)"

  tool --root "$ROOT" history "$switch"
  assert_contains "$TOOL_OUT" 'kept for undo: .*rocm-core 7\.2\.4\.70204-1' "history of the switch"

  hide_rocm724
  expect_status 0 in_root apt-get clean
  network_off
  tool --root "$ROOT" rollback "$switch" --yes
  assert_status 0 "rollback of the switch, offline, 7.2.4 gone"
  snap undone
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/on-724" "$REALROOT_SCENARIO_TMP/undone" \
    "rolling back the switch to 10.0 offline"
  assert_installed "$ROOT" "${ROCM724_PACKAGES[@]}" rocdxg-roct
  assert_not_installed "$ROOT" "${CORE_100[@]}"
  [[ -f $ROOT/opt/rocm-$TESTREPO_ROCM724_VERSION/lib/librocdxg.so ]] || fail "librocdxg.so is not back in /opt/rocm-7.2.4/lib"
}
