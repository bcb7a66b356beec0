# The bundled rocm profile on a root where amdgpu-install ran first
# (../shared/VENDOR-FACTS.md, "What earlier installs leave behind"): its
# amdgpu.list and rocm.list naming /etc/apt/keyrings/rocm.gpg, that keyring,
# and AMD's pin repo-radeon-pin-600, the lists and the pin conffiles of the
# amdgpu-install package, all pointing at the local test repository. Adding
# the profile's own .sources next to them would make apt refuse every source
# ("Conflicting values set for option Signed-By"). When the keyring holds
# the pinned key and nothing else, the lists already say what the profile
# wants and are reused as they are; when it holds another key too, install
# takes them over, leaves apt working, keeps them deleted when amdgpu-install
# is upgraded, and a rollback puts every planted byte back.

scenario() {
  require_tool_command install
  require_tool_command rollback
  require_tool_command history
  with_root adopt_then_roll_back
  with_root adopted_lists_stay_deleted_on_upgrade
  with_root exact_lists_are_reused
}

# build_amdgpu_install VERSION OUT: an amdgpu-install package that ships the
# two lists and the pin as conffiles, as AMD's does (in the test repository's
# layout, so that apt can read them).
build_amdgpu_install() {
  local version=$1 out=$2 stage
  stage=$(mktemp -d)
  mkdir -p "$stage/DEBIAN" "$stage/etc/apt/sources.list.d" "$stage/etc/apt/preferences.d"
  printf 'Package: amdgpu-install\nVersion: %s\nArchitecture: all\nMaintainer: t <t@wslgpu-setup.invalid>\nDescription: planted amdgpu-install (test)\n' \
    "$version" >"$stage/DEBIAN/control"
  printf 'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/%s/ubuntu %s main\n#deb-src [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/%s/ubuntu %s main\n' \
    "$TESTREPO_AMDGPU_REPO" "$TESTREPO_ROCM_VERSION" "$TESTREPO_SUITE" \
    "$TESTREPO_AMDGPU_REPO" "$TESTREPO_ROCM_VERSION" "$TESTREPO_SUITE" >"$stage/etc/apt/sources.list.d/amdgpu.list"
  printf 'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] %s/%s %s main\n' \
    "$TESTREPO_ROCM_REPO" "$TESTREPO_ROCM_VERSION" "$TESTREPO_SUITE" >"$stage/etc/apt/sources.list.d/rocm.list"
  printf 'Package: *\nPin: release o=%s\nPin-Priority: 600\n' "$TESTREPO_ORIGIN" >"$stage/etc/apt/preferences.d/repo-radeon-pin-600"
  printf '%s\n' /etc/apt/preferences.d/repo-radeon-pin-600 /etc/apt/sources.list.d/amdgpu.list \
    /etc/apt/sources.list.d/rocm.list >"$stage/DEBIAN/conffiles"
  dpkg-deb --root-owner-group --build "$stage" "$out" >/dev/null || fail "dpkg-deb could not build $out"
  rm -rf "$stage"
}

# plant_amdgpu_install exact|extra: amdgpu-install installed, and the
# keyring its lists name holding the test repository's key alone (exact) or
# with another key beside it (extra), which the profile must not reuse.
plant_amdgpu_install() {
  local keyring=${1:?plant_amdgpu_install exact|extra}
  mkdir -p "$ROOT/var/cache/planted"
  build_amdgpu_install 6.4.60402-1 "$ROOT/var/cache/planted/amdgpu-install_1.deb"
  expect_status 0 in_root dpkg -i /var/cache/planted/amdgpu-install_1.deb
  rm -rf "$ROOT/var/cache/planted"
  # AMD's instructions fetch the key with gpg --dearmor; the admin's file, no package's.
  mkdir -p "$ROOT/etc/apt/keyrings"
  cp "$TESTREPO_DIR/key.gpg" "$ROOT/etc/apt/keyrings/rocm.gpg"
  if [[ $keyring == extra ]]; then
    local home
    home=$(mktemp -d)
    GNUPGHOME=$home gpg --batch --dearmor <"$TESTREPO_OTHER_KEY" >>"$ROOT/etc/apt/keyrings/rocm.gpg" ||
      fail "gpg --dearmor failed on $TESTREPO_OTHER_KEY"
    rm -rf "$home"
  fi
  chmod 0644 "$ROOT/etc/apt/keyrings/rocm.gpg"
  expect_status 0 in_root apt-get update --error-on=any
}

adopt_then_roll_back() {
  local sets tmp=$REALROOT_SCENARIO_TMP
  mapfile -t sets < <(rocm_profile_args)
  plant_amdgpu_install extra
  cp "$ROOT/etc/apt/keyrings/rocm.gpg" "$tmp/planted-rocm.gpg"

  # The trap is real: the profile's source beside amdgpu-install's lists
  # makes apt refuse to read any source.
  printf 'Types: deb\nURIs: %s/%s\nSuites: %s\nComponents: main\nSigned-By: %s\n' "$TESTREPO_ROCM_REPO" \
    "$TESTREPO_ROCM_VERSION" "$TESTREPO_SUITE" "$TESTREPO_KEY_IN_ROOT" >"$ROOT/etc/apt/sources.list.d/rocm.sources"
  expect_status 100 in_root apt-get update
  assert_contains "$LAST_OUTPUT" 'Conflicting values set for option Signed-By' "apt-get update with both sources"
  rm "$ROOT/etc/apt/sources.list.d/rocm.sources"

  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR"

  tool --root "$ROOT" "${sets[@]}" plan rocm
  assert_status 0 "plan rocm"
  assert_contains "$TOOL_OUT" 'amdgpu-repo +change +add /etc/apt/sources.list.d/amdgpu.sources, key amdgpu.asc .*; replaces /etc/apt/sources.list.d/amdgpu.list \(amdgpu-install\)' "plan rocm"
  assert_contains "$TOOL_OUT" 'rocm-repo +change +add /etc/apt/sources.list.d/rocm.sources, key rocm.asc .*; replaces /etc/apt/sources.list.d/rocm.list \(amdgpu-install\)' "plan rocm"
  assert_contains "$TOOL_OUT" 'amdgpu-install stays installed; its list is removed, and dpkg keeps a deleted conffile deleted on upgrade' "plan rocm"
  assert_contains "$TOOL_OUT" 'removes /etc/apt/keyrings/rocm.gpg, the key of the replaced entries' "plan rocm"
  assert_contains "$TOOL_OUT" 'replaces /etc/apt/preferences.d/repo-radeon-pin-600 \(amdgpu-install\)' "plan rocm"
  # The plan resolved the packages against the adopted sources, apt did not refuse them.
  assert_contains "$TOOL_OUT" 'rocm +change +install [0-9]+ packages: .*hsa-runtime-rocr4wsl-amdgpu' "plan rocm"

  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "install rocm"
  assert_contains "$TOOL_OUT" 'committed' "install rocm"
  assert_installed "$ROOT" rocm amdgpu-install
  local f
  for f in /etc/apt/sources.list.d/amdgpu.list /etc/apt/sources.list.d/rocm.list /etc/apt/keyrings/rocm.gpg \
    /etc/apt/preferences.d/repo-radeon-pin-600; do
    [[ ! -e $ROOT$f ]] || fail "$f is still there after the take-over"
  done
  expect_status 0 in_root apt-get update --error-on=any
  assert_not_contains "$LAST_OUTPUT" 'Conflicting|^[EW]:' "apt-get update after the take-over"
  expect_status 0 in_root apt-cache policy hsa-runtime-rocr4wsl-amdgpu
  assert_contains "$LAST_OUTPUT" '600 file:/srv/testrepo/amdgpu' "apt-cache policy (the profile's pin replaces AMD's)"

  # Converged: nothing left to take over, nothing to do.
  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "the second install rocm"
  assert_contains "$TOOL_OUT" 'Nothing to do: the machine already matches rocm\.' "the second install"

  tool --root "$ROOT" history --output json
  local id
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "rollback left the root different from before the install"
  cmp "$tmp/planted-rocm.gpg" "$ROOT/etc/apt/keyrings/rocm.gpg" || fail "the restored keyring differs from the planted one"
  expect_status 0 in_root apt-get update --error-on=any
}

# dpkg(1): a conffile the administrator deleted stays deleted when its
# package is upgraded (only --force-confmiss puts it back), also when the new
# version ships it changed and apt runs dpkg with --force-confdef
# --force-confold, as an unattended upgrade does. This is what makes removing
# amdgpu-install's lists, instead of removing the package, hold.
adopted_lists_stay_deleted_on_upgrade() {
  local sets
  mapfile -t sets < <(rocm_profile_args)
  plant_amdgpu_install extra
  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "install rocm"

  # A newer amdgpu-install whose rocm.list differs from the one deleted.
  build_amdgpu_install 6.4.60402-2 "$REALROOT_SCENARIO_TMP/amdgpu-install_2.deb"
  local stage
  stage=$(mktemp -d)
  dpkg-deb -R "$REALROOT_SCENARIO_TMP/amdgpu-install_2.deb" "$stage"
  printf '# changed in the new version\n' >>"$stage/etc/apt/sources.list.d/rocm.list"
  mkdir -p "$ROOT/var/cache/planted"
  dpkg-deb --root-owner-group --build "$stage" "$ROOT/var/cache/planted/amdgpu-install_2.deb" >/dev/null
  rm -rf "$stage"
  expect_status 0 in_root dpkg --force-confdef --force-confold -i /var/cache/planted/amdgpu-install_2.deb
  assert_installed "$ROOT" amdgpu-install
  local f
  for f in /etc/apt/sources.list.d/amdgpu.list /etc/apt/sources.list.d/rocm.list /etc/apt/preferences.d/repo-radeon-pin-600; do
    [[ ! -e $ROOT$f ]] || fail "upgrading amdgpu-install put $f back"
  done
  expect_status 0 in_root apt-get update --error-on=any
  assert_not_contains "$LAST_OUTPUT" 'Conflicting' "apt-get update after upgrading amdgpu-install"
  # The same version reinstalled keeps them deleted too.
  expect_status 0 in_root dpkg -i /var/cache/planted/amdgpu-install_2.deb
  [[ ! -e $ROOT/etc/apt/sources.list.d/rocm.list ]] || fail "reinstalling amdgpu-install put rocm.list back"
}

# The lists say exactly what the profile wants, signed by the pinned key
# alone: the profile writes no source, key or pin of its own, and apt reads
# amdgpu-install's lists as before.
exact_lists_are_reused() {
  local sets tmp=$REALROOT_SCENARIO_TMP
  mapfile -t sets < <(rocm_profile_args)
  plant_amdgpu_install exact
  snapshot "$ROOT" "$tmp/exact-before" --exclude "$REALROOT_STATE_DIR"
  tool --root "$ROOT" "${sets[@]}" install rocm --yes
  assert_status 0 "install rocm"
  assert_contains "$TOOL_OUT" 'committed' "install rocm"
  assert_installed "$ROOT" rocm
  local f
  for f in amdgpu.sources rocm.sources; do
    [[ ! -e $ROOT/etc/apt/sources.list.d/$f ]] || fail "the profile wrote $f beside amdgpu-install's list"
  done
  [[ -e $ROOT/etc/apt/sources.list.d/rocm.list && -e $ROOT/etc/apt/keyrings/rocm.gpg ]] ||
    fail "amdgpu-install's list or keyring went, though they say what the profile wants"
  tool --root "$ROOT" "${sets[@]}" plan rocm
  assert_contains "$TOOL_OUT" 'rocm-repo +no-op +configured by amdgpu-install \(/etc/apt/sources.list.d/rocm.list\), key [0-9A-F]{4} [0-9A-F]{4} … [0-9A-F]{4} [0-9A-F]{4} verified' "plan rocm"
  expect_status 0 in_root apt-get update --error-on=any
  tool --root "$ROOT" history --output json
  local id
  id=$(jq -r '.[0].id' <<<"$TOOL_OUT")
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback $id"
  snapshot "$ROOT" "$tmp/exact-after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/exact-before" "$tmp/exact-after" "rollback left the root different from before the install"
}
