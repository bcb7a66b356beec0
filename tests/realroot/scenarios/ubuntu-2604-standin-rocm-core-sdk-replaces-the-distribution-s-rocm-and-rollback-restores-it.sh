# The ROCm Core SDK on the stand-in for Ubuntu 26.04 (Debian forky dressed
# as it, tests/realroot/forky.sh: apt 3.x verifying with Sequoia's sqv),
# where AMD publishes it (AMD's 10.0 install page, os=wsl: the ubuntu2604
# folder) and where Ubuntu ships ROCm 7.1 of its own in universe
# (libamdhip64-7, the Core SDK's soname libamdhip64.so.7, needing
# libhsa-runtime64-1):
#   - the root's apt refuses AMD's key file as AMD publishes it (binary key,
#     then its armour) as Signed-By, with sqv as with gpgv;
#   - libamdhip64-7 (and libhsa-runtime64-1, automatically) installed
#     first from a stand-in of Ubuntu's archive (testrepo.sh);
#   - `install rocm --set rocm_version=10.0.0` (no --unsupported-distro:
#     the stand-in is taken for 26.04) removes both before the Core SDK
#     arrives from the ubuntu2604 folder, and the root's apt (sqv) accepts
#     the key the tool wrote; rocminfo lists gfx1100 in a login shell;
#   - the rollback, offline, puts Ubuntu's ROCm back (libhsa-runtime64-1
#     automatic again) and leaves the root byte-identical to before.
# The first run builds the forky root (about 4 minutes on 2 busy cores),
# hence the limit.
# realroot-timeout: 900

# shellcheck source=../forky.sh
source "$REALROOT_LIB_DIR/forky.sh"

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_step_kinds apt_repository apt_install apt_remove
  forky_release_layers "$REALROOT_SCENARIO_TMP/forky"
  (
    export REALROOT_RUN=$REALROOT_SCENARIO_TMP/forky
    with_root sqv_refuses_amds_key_file_as_it_is
    with_root core_sdk_replaces_ubuntus_rocm_then_rollback
  )
}

# What `run.sh --prepare` builds ahead of the run: the forky root.
prepare_cache() { forky_prepare_cache; }

UBUNTU_ROCM=(libamdhip64-7 libhsa-runtime64-1)
CORE_PACKAGES=(amdrocm10.0-gfx1100 amdrocm-core10.0-gfx1100)

snap() { snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR"; }

sqv_refuses_amds_key_file_as_it_is() {
  [[ -x $ROOT/usr/bin/sqv ]] || fail "the forky root has no /usr/bin/sqv: its apt would verify with gpgv"
  mkdir -p "$ROOT/etc/apt/keyrings"
  cp "$TESTREPO_CORE_KEY" "$ROOT/etc/apt/keyrings/amd-core.gpg"
  printf 'Types: deb\nURIs: %s/ubuntu2604/\nSuites: %s\nComponents: main\nArchitectures: amd64\nSigned-By: /etc/apt/keyrings/amd-core.gpg\n' \
    "$TESTREPO_CORE_REPO_BASE" "$TESTREPO_CORE_SUITE" >"$ROOT/etc/apt/sources.list.d/amd-core.sources"
  expect_status 100 in_root apt-get update --error-on=any
  assert_contains "$LAST_OUTPUT" 'Malformed certificate in keyring "/etc/apt/keyrings/amd-core\.gpg"' "apt-get update (sqv) with AMD's key file as it is"
  cp "$TESTREPO_CORE_KEY_BINARY" "$ROOT/etc/apt/keyrings/amd-core.gpg"
  expect_status 0 in_root apt-get update --error-on=any
}

# root_ubuntu_archive: the root's apt reads the stand-in of Ubuntu's
# resolute universe (signed by the test key, as Ubuntu's archive is by
# its keyring), and installs Ubuntu's ROCm 7.1 HIP runtime from it.
root_ubuntu_archive() {
  mkdir -p "$ROOT/usr/share/keyrings"
  cp "$TESTREPO_DIR/key.gpg" "$ROOT/usr/share/keyrings/wslgpu-test-ubuntu-archive.gpg"
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: universe\nSigned-By: /usr/share/keyrings/wslgpu-test-ubuntu-archive.gpg\n' \
    "$TESTREPO_UBUNTU_REPO" "$TESTREPO_UBUNTU_SUITE" >"$ROOT/etc/apt/sources.list.d/ubuntu.sources"
  expect_status 0 in_root apt-get update --error-on=any
  expect_status 0 in_root apt-get install -y --no-install-recommends libamdhip64-7
  assert_installed "$ROOT" "${UBUNTU_ROCM[@]}"
  expect_status 0 in_root apt-mark showauto
  assert_contains "$LAST_OUTPUT" '^libhsa-runtime64-1$' "apt-mark showauto"
}

core_sdk_replaces_ubuntus_rocm_then_rollback() {
  local sets id
  serve_https "$TESTREPO_ROCDXG_DIR"
  root_ubuntu_archive
  mapfile -t sets < <(forky_core_args)
  snap before

  tool --root "$ROOT" "${sets[@]}" plan rocm
  assert_status 0 "plan rocm 10.0.0 on the Ubuntu 26.04 stand-in"
  assert_contains "$TOOL_OUT" ' · ubuntu 26\.04 \(resolute\) · ' "plan rocm: the machine line"
  assert_contains "$TOOL_OUT" 'distro-rocm +change +.*libamdhip64-7' "plan rocm: Ubuntu's ROCm removed"
  assert_contains "$TOOL_OUT" 'core +change +install [0-9]+ packages: .*amdrocm10\.0-gfx1100' "plan rocm"
  assert_not_contains "$TOOL_OUT$TOOL_ERR" 'would refuse repository|not supported|--unsupported-distro' "plan rocm on 26.04"

  tool --root "$ROOT" "${sets[@]}" install rocm --yes --output json
  assert_status 0 "install rocm 10.0.0 on the Ubuntu 26.04 stand-in"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  [[ -n $id && $id != null ]] || fail "install rocm --output json named no transaction"
  assert_not_installed "$ROOT" "${UBUNTU_ROCM[@]}"
  assert_installed "$ROOT" "${CORE_PACKAGES[@]}" rocdxg-roct
  [[ ! -e $ROOT/usr/lib/x86_64-linux-gnu/libamdhip64.so.7 ]] || fail "Ubuntu's libamdhip64.so.7 is still there beside the Core SDK's"
  assert_contains "$(cat "$ROOT/etc/apt/sources.list.d/rocm.sources")" "^URIs: $TESTREPO_CORE_REPO_BASE/ubuntu2604/?\$" "rocm.sources"
  cmp -s "$ROOT/etc/apt/keyrings/rocm.gpg" "$TESTREPO_CORE_KEY_BINARY" || fail "/etc/apt/keyrings/rocm.gpg is not the binary key"
  # sqv takes the key the tool wrote.
  expect_status 0 in_root apt-get update --error-on=any
  expect_status 0 in_root apt-cache policy amdrocm10.0-gfx1100
  assert_contains "$LAST_OUTPUT" '\*\*\* 10\.0\.0-4 600' "apt-cache policy amdrocm10.0-gfx1100"
  expect_status 0 in_root bash -lc rocminfo
  assert_contains "$LAST_OUTPUT" 'Name: +gfx1100' "rocminfo in a login shell"

  network_off
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback of the Core SDK install, offline"
  snap after
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before" "$REALROOT_SCENARIO_TMP/after" "the rollback left the root different from before the install"
  assert_installed "$ROOT" "${UBUNTU_ROCM[@]}"
  assert_not_installed "$ROOT" "${CORE_PACKAGES[@]}" rocdxg-roct
}
