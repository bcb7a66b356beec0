# AMD's ROCm Core SDK (10.x, built by TheRock: AMD's 10.0 install page,
# os=wsl, and AMD's transition guide) installed fresh with the bundled rocm
# profile, --set rocm_version=10.0.0 rocm_gfx=gfx1100, from the test
# repository's Core SDK layout (testrepo.sh):
#   - AMD's key file as AMD publishes it (a binary key FOLLOWED BY its ASCII
#     armour) is refused by the root's own apt when used as Signed-By as it
#     is, and accepted as the binary key alone: the tool must cut it;
#   - the install writes one deb822 source (Suites: stable), the key as
#     the binary packets only (byte for byte the binary block of AMD's
#     file, no armour), and a pin that apt-cache policy shows at 600 for
#     o=AMD ROCm; the root's apt-get update accepts them;
#   - amdrocm10.0-gfx1100 (with amdrocm-core10.0-gfx1100) from the pinned
#     source, the librocdxg .deb downloaded over HTTPS and installed; no
#     legacy package, no amdgpu or graphics source, no
#     HSA_ENABLE_DXG_DETECTION anywhere (the Core SDK does not need it);
#   - rocminfo through a login shell lists gfx1100 (the stand-in finds the
#     GPU only with librocdxg.so where 10.0 looks);
#   - a second plan is all no-ops (--detailed-exitcode 0) and a second
#     install changes nothing (equal snapshots, apt never called);
#   - the rollback restores the root exactly (empty snapshot diff).

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds check apt_repository apt_update apt_install apt_remove download deb_install profile_env file
  with_root apt_refuses_amds_key_file_as_it_is
  with_root core_sdk_fresh_install_then_converged
}

CORE_PACKAGES=(amdrocm10.0-gfx1100 amdrocm-core10.0-gfx1100)
LEGACY_PACKAGES=(rocm rocm-dev rocm-core rocminfo hsa-rocr hsa-runtime-rocr4wsl-amdgpu libdrm-amdgpu-amdgpu1 libdrm-amdgpu-common)

snap() { snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR"; }

# root_core_source KEYFILE: the root's apt has one source, the Core SDK's
# folder for Debian 12, Signed-By KEYFILE (copied to /etc/apt/keyrings).
root_core_source() {
  mkdir -p "$ROOT/etc/apt/keyrings"
  cp "$1" "$ROOT/etc/apt/keyrings/amd-core.gpg"
  printf 'Types: deb\nURIs: %s/debian12/\nSuites: %s\nComponents: main\nArchitectures: amd64\nSigned-By: /etc/apt/keyrings/amd-core.gpg\n' \
    "$TESTREPO_CORE_REPO_BASE" "$TESTREPO_CORE_SUITE" >"$ROOT/etc/apt/sources.list.d/amd-core.sources"
}

# What the scenario rests on: the test repository's key file has AMD's
# shape, and that shape is what makes apt refuse it.
apt_refuses_amds_key_file_as_it_is() {
  local key=$TESTREPO_CORE_KEY binary=$REALROOT_SCENARIO_TMP/binary.gpg
  head -c 1 "$key" | od -An -tx1 | grep -Eq '^ (98|99|c6)$' || fail "AMD's key file does not start with a binary public key packet"
  # The armour follows the binary block on the same "line" (no newline before it).
  assert_eq "$(grep -a -c -- '-----BEGIN PGP PUBLIC KEY BLOCK-----' "$key")" 1 "the armour in AMD's key file"
  cp "$TESTREPO_CORE_KEY_BINARY" "$binary"
  assert_eq "$(head -c "$(stat -c %s "$binary")" "$key" | sha256sum | cut -d' ' -f1)" "$(sha256sum <"$binary" | cut -d' ' -f1)" \
    "the binary block of AMD's key file"
  root_core_source "$key"
  expect_status 100 in_root apt-get update --error-on=any
  assert_contains "$LAST_OUTPUT" "NO_PUBKEY|invalid packet|not signed" "apt-get update with AMD's key file as it is"
  root_core_source "$binary"
  expect_status 0 in_root apt-get update --error-on=any
  expect_status 0 in_root apt-cache policy amdrocm10.0-gfx1100
  assert_contains "$LAST_OUTPUT" 'Candidate: 10\.0\.0-4' "apt-cache policy with the binary key alone"
}

core_sdk_fresh_install_then_converged() {
  local sets id deb=/var/lib/wslgpu-setup/cache/rocdxg-roct_${TESTREPO_ROCDXG_VERSION}_amd64.deb
  serve_https "$TESTREPO_ROCDXG_DIR"
  mapfile -t sets < <(core_profile_args)
  snap before

  tool --root "$ROOT" "${sets[@]}" plan rocm
  assert_status 0 "plan rocm 10.0.0"
  assert_contains "$TOOL_OUT" 'core-repo +change +add /etc/apt/sources.list.d/rocm.sources' "plan rocm 10.0.0"
  assert_contains "$TOOL_OUT" 'core +change +install [0-9]+ packages: .*amdrocm10\.0-gfx1100' "plan rocm 10.0.0"
  assert_contains "$TOOL_OUT" "rocdxg-download +change +download $HTTPS_URL/v$TESTREPO_ROCDXG_VERSION/rocdxg-roct_${TESTREPO_ROCDXG_VERSION}_amd64\\.deb" "plan rocm 10.0.0"
  assert_not_contains "$TOOL_OUT" '(amdgpu|graphics|rocm)-repo +change|rocm7? +change|HSA_ENABLE_DXG_DETECTION' "plan rocm 10.0.0 (nothing of the legacy stream)"

  tool --root "$ROOT" "${sets[@]}" install rocm --yes --output json
  assert_status 0 "install rocm 10.0.0"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  [[ -n $id && $id != null ]] || fail "install rocm --output json named no transaction"
  assert_installed "$ROOT" "${CORE_PACKAGES[@]}" rocdxg-roct
  assert_not_installed "$ROOT" "${LEGACY_PACKAGES[@]}" amdrocm10.0 amdrocm-core10.0 amdgpu-dkms
  assert_eq "$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Version}' amdrocm10.0-gfx1100)" 10.0.0-4 "amdrocm10.0-gfx1100's version"

  # The source, the key and the pin.
  local sources=$ROOT/etc/apt/sources.list.d/rocm.sources key=$ROOT/etc/apt/keyrings/rocm.gpg
  assert_contains "$(cat "$sources")" "^URIs: $TESTREPO_CORE_REPO_BASE/debian12/?\$" "rocm.sources"
  assert_contains "$(cat "$sources")" '^Suites: stable$' "rocm.sources"
  assert_contains "$(cat "$sources")" '^Components: main$' "rocm.sources"
  assert_contains "$(cat "$sources")" '^Signed-By: /etc/apt/keyrings/rocm\.gpg$' "rocm.sources"
  [[ -f $key ]] || fail "no /etc/apt/keyrings/rocm.gpg: $(ls "$ROOT/etc/apt/keyrings")"
  [[ ! -e $ROOT/etc/apt/keyrings/rocm.asc ]] || fail "an armoured rocm.asc beside rocm.gpg"
  if grep -aq -- '-----BEGIN' "$key"; then fail "/etc/apt/keyrings/rocm.gpg holds the armour of AMD's file"; fi
  cmp -s "$key" "$TESTREPO_CORE_KEY_BINARY" ||
    fail "/etc/apt/keyrings/rocm.gpg is not the binary block of AMD's key file ($(stat -c %s "$key") bytes, expected $(stat -c %s "$TESTREPO_CORE_KEY_BINARY"))"
  assert_contains "$(cat "$ROOT/etc/apt/preferences.d/rocm.pref")" '^Pin: release o=AMD ROCm$' "rocm.pref"
  assert_contains "$(cat "$ROOT/etc/apt/preferences.d/rocm.pref")" '^Pin-Priority: 600$' "rocm.pref"
  expect_status 0 in_root apt-get update --error-on=any
  expect_status 0 in_root apt-cache policy
  assert_contains "$LAST_OUTPUT" "^ +600 $TESTREPO_CORE_REPO_BASE/debian12/? stable/main amd64 Packages\$" "apt-cache policy"
  assert_contains "$(grep -A1 -E "^ +600 $TESTREPO_CORE_REPO_BASE/debian12/? stable/main" <<<"$LAST_OUTPUT")" 'release o=AMD ROCm,a=stable' "apt-cache policy"
  expect_status 0 in_root apt-cache policy amdrocm10.0-gfx1100
  assert_contains "$LAST_OUTPUT" '\*\*\* 10\.0\.0-4 600' "apt-cache policy amdrocm10.0-gfx1100"
  local f
  for f in amdgpu.sources rocm-graphics.sources; do
    [[ ! -e $ROOT/etc/apt/sources.list.d/$f ]] || fail "$f is there on the Core SDK"
  done

  # librocdxg where 10.0 looks, and the GPU through a login shell, without
  # HSA_ENABLE_DXG_DETECTION.
  assert_eq "$(sha256sum <"$ROOT$deb" | cut -d' ' -f1)" "$TESTREPO_ROCDXG_SHA256" "the downloaded .deb's SHA-256"
  [[ -f $ROOT/opt/rocm/lib/librocdxg.so ]] || fail "/opt/rocm/lib/librocdxg.so is not there"
  [[ -d $ROOT/opt/rocm && ! -L $ROOT/opt/rocm ]] || fail "/opt/rocm is not a folder"
  expect_status 0 in_root readlink -f /opt/rocm/bin
  assert_eq "$LAST_OUTPUT" /opt/rocm/core-10.0/bin "/opt/rocm/bin (the Core SDK's alternatives link)"
  expect_status 0 in_root bash -lc 'echo "dxg=${HSA_ENABLE_DXG_DETECTION:-unset}"; command -v rocminfo'
  assert_eq "$LAST_OUTPUT" $'dxg=unset\n/opt/rocm/core-10.0/bin/rocminfo' "HSA_ENABLE_DXG_DETECTION and rocminfo in a login shell"
  [[ ! -e $ROOT/etc/systemd/system.conf.d/wslgpu-rocm.conf && ! -e $ROOT/etc/environment.d/90-wslgpu-rocm.conf ]] ||
    fail "a dxg detection setting for systemd on the Core SDK"
  expect_status 0 in_root bash -lc rocminfo
  assert_contains "$LAST_OUTPUT" '^ROCm Core SDK 10\.0 ' "rocminfo in a login shell"
  assert_contains "$LAST_OUTPUT" 'Name: +gfx1100' "rocminfo in a login shell"

  # Converged: the plan is all no-ops, and a second install changes nothing.
  tool --root "$ROOT" "${sets[@]}" plan rocm --detailed-exitcode
  assert_status 0 "the second plan rocm --detailed-exitcode"
  assert_not_contains "$TOOL_OUT" ' change ' "the second plan"
  trace_commands apt-get apt apt-cache
  snap converged
  tool --root "$ROOT" "${sets[@]}" install rocm --yes --output json
  assert_status 0 "the second install"
  assert_eq "$(jq -r '.changed' <<<"$TOOL_OUT")" false "the second install's \"changed\""
  assert_eq "$(jq -r '[.steps[]? | select(.changed)] | length' <<<"$TOOL_OUT")" 0 "steps changed by the second install"
  local calls
  calls=$(traced_calls apt-get; traced_calls apt)
  [[ -z $calls ]] || fail "the second install called apt:"$'\n'"$calls"
  snap rerun
  untrace_commands apt-get apt apt-cache
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/converged" "$REALROOT_SCENARIO_TMP/rerun" "the second install changed the root"

  tool --root "$ROOT" history --output json
  assert_eq "$(jq 'length' <<<"$TOOL_OUT")" 1 "transactions in history (the second install is none)"
  network_off
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback of the Core SDK install"
  snap after
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" "the rollback left the root different from before the install"
  assert_not_installed "$ROOT" "${CORE_PACKAGES[@]}" rocdxg-roct
}
