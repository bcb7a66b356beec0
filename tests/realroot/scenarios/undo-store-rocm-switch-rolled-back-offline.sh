# A ROCm release switch rolled back with no network and no source of the old
# release (issue 25): 6.4.2.1 installed from AMD's layout through apt's
# copy: method (apt keeps a copy of each package, as it does for AMD's https
# repositories), then `apt-get clean`, so that apt's cache holds nothing of
# it. The switch to 7.2.2 keeps the 6.4.2.1 packages it replaces in the
# transaction's undo store before its first change, fetched with the sources
# as they were (the switch then replaces them). Then the old release is taken
# off the test repository and apt's cache is cleaned again.
#
# A copy corrupted on disk is refused: the rollback changes nothing and
# names the file and what to do. With the copy put back, the rollback runs
# with the root's network namespace empty (its loopback down, the HTTPS
# server gone) and ends byte-identical to the root before the switch.

scenario() {
  require_tool_command install
  require_tool_command rollback
  with_root switch_then_roll_back_offline
}

snap() { snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR"; }

# hide_old_release: the 6.4.2.1 repositories (indexes and pool) are gone
# from the root's view of the test repository, as when a vendor takes an
# old release off its server.
hide_old_release() {
  local d
  for d in "rocm/apt/$TESTREPO_ROCM_VERSION" "amdgpu/$TESTREPO_ROCM_VERSION"; do
    mount -t tmpfs -o size=1M,mode=0755 gone "$ROOT/srv/testrepo/$d" || fail "cannot hide $d"
  done
  [[ ! -e $ROOT/srv/testrepo/rocm/apt/$TESTREPO_ROCM_VERSION/dists ]] || fail "the old release is still there"
}

switch_then_roll_back_offline() {
  local copy legacy rocm7 switch store deb
  serve_https "$TESTREPO_ROCDXG_DIR"
  mapfile -t copy < <(rocm_copy_args)
  mapfile -t legacy < <(rocm_profile_args "${copy[@]}")
  mapfile -t rocm7 < <(rocm7_profile_args "${copy[@]}")

  tool --root "$ROOT" "${legacy[@]}" install rocm --yes
  assert_status 0 "install rocm 6.4.2.1"
  expect_status 0 in_root apt-get clean
  [[ -z $(find "$ROOT/var/cache/apt/archives" -name '*.deb') ]] || fail "apt-get clean left packages in apt's cache"
  snap on-legacy

  # The plan says what it keeps and what it costs.
  tool --root "$ROOT" "${rocm7[@]}" plan rocm
  assert_status 0 "plan of the switch"
  assert_contains "$TOOL_OUT" '^Keeps [0-9.]+ [kMG]?B for undo \(.*6\.4\.2\.1-1 and [0-9]+ more\), before the first change' \
    "the switch's plan"
  assert_contains "$TOOL_OUT" 'undo keeps .*rocm 6\.4\.2\.1-1.*fetched from the sources as they are now' "the switch's plan"
  assert_not_contains "$TOOL_OUT" 'undo cannot put back' "the switch's plan"
  tool --root "$ROOT" "${rocm7[@]}" plan rocm --output json
  assert_eq "$(jq -r '[.undo_store.keeps[] | select(.name == "hsa-runtime-rocr4wsl-amdgpu") | .from] | join(",")' <<<"$TOOL_OUT")" \
    fetched "how the removed WSL runtime is kept"
  assert_eq "$(jq '.undo_store.missing | length' <<<"$TOOL_OUT")" 0 "copies the plan cannot keep"

  tool --root "$ROOT" "${rocm7[@]}" install rocm --yes --output json
  assert_status 0 "the switch to 7.2.2"
  switch=$(jq -r .transaction_id <<<"$TOOL_OUT")
  store=$ROOT/var/lib/wslgpu-setup/tx/$switch/undo
  for deb in rocm rocm-dev rocm-core rocminfo hsa-runtime-rocr4wsl-amdgpu; do
    compgen -G "$store/${deb}_*.deb" >/dev/null || fail "the undo store has no copy of $deb: $(ls "$store")"
  done
  tool --root "$ROOT" history "$switch"
  assert_contains "$TOOL_OUT" '^  undo      [0-9.]+ [kMG]?B \([0-9]+ packages\)' "history of the switch"
  assert_contains "$TOOL_OUT" 'kept for undo: hsa-runtime-rocr4wsl-amdgpu .* \(fetched, ' "history of the switch"
  tool --root "$ROOT" history --output json
  assert_contains "$(jq -r ".[] | select(.id == \"$switch\") | .undo_store_bytes" <<<"$TOOL_OUT")" '^[1-9][0-9]*$' \
    "the switch's store size in history --output json"

  hide_old_release
  expect_status 0 in_root apt-get clean
  snap on-rocm7

  # A corrupt copy: refused before anything is undone.
  deb=$(ls "$store" | grep '^rocm-core_')
  cp "$store/$deb" "$REALROOT_SCENARIO_TMP/good.deb"
  printf 'corrupted' >>"$store/$deb"
  network_off
  tool --root "$ROOT" rollback "$switch" --yes
  assert_status 3 "rollback with a corrupt copy in the undo store"
  assert_contains "$TOOL_ERR" "/var/lib/wslgpu-setup/tx/$switch/undo/$deb, is not what was stored" "the refusal"
  assert_contains "$TOOL_ERR" 'nothing was rolled back\. Put back a good copy of rocm-core' "the refusal"
  snap after-refusal
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/on-rocm7" "$REALROOT_SCENARIO_TMP/after-refusal" \
    "a refused rollback changed the root"
  tool --root "$ROOT" history --output json
  assert_eq "$(jq -r ".[] | select(.id == \"$switch\") | .status" <<<"$TOOL_OUT")" committed \
    "the switch's status after the refused rollback"

  # The good copy back: the rollback needs neither the network nor the old release.
  cp "$REALROOT_SCENARIO_TMP/good.deb" "$store/$deb"
  tool --root "$ROOT" rollback "$switch" --yes
  assert_status 0 "rollback of the switch, offline"
  snap undone
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/on-legacy" "$REALROOT_SCENARIO_TMP/undone" \
    "rolling back the switch offline"
  [[ ! -e $store ]] || fail "the rolled-back transaction's undo store is still there"
}
