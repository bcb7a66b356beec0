# Undoing a removal after the repository it came from is gone (issue 25),
# with the root's network namespace empty during every rollback:
#
#  1. apt_remove of the distribution's ROCm 5.7 runtime (libhsa-runtime64-1
#     and libhsakmt1, which apt installed as a dependency), the source still
#     there but apt's cache clean: the copies are fetched into the undo store
#     before the removal. The repository then goes, and the rollback puts both
#     back byte for byte, libhsakmt1 automatic again.
#  2. The same with no source at all: the plan says the copies will be
#     rebuilt from the installed files (as dpkg-repack does: the conffile,
#     the symbolic link and the maintainer scripts included), and the
#     rollback again ends byte-identical.
#  3. A package that no way can keep (not cached, no source, a file of it
#     deleted so it cannot be rebuilt): install refuses with exit 3 and
#     says which package and why, in text and JSON, changing nothing;
#     --allow-partial-undo goes ahead and says what undo will not put back;
#     the rollback then says so again and leaves that package removed.

scenario() {
  require_tool_command install
  require_tool_command rollback
  with_root remove_then_roll_back
}

snap() { snapshot "$ROOT" "$REALROOT_SCENARIO_TMP/$1" --exclude "$REALROOT_STATE_DIR"; }

# removed PACKAGE...: none is installed (apt-get remove keeps the configuration
# files and the postrm of a package that has them: dpkg's "rc").
removed() {
  local p state
  for p in "$@"; do
    state=$(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    [[ $state != ii* ]] || fail "$p is still installed"
  done
}

remove_manifest() {
  manifest_header "$1"
  printf '\n[[step]]\nid = "rocm57"\nkind = "apt_remove"\nname = "the distribution'"'"'s ROCm 5.7 runtime"\n'
  printf 'packages = [%s]\n' "$2"
}

remove_then_roll_back() {
  local m57=$REALROOT_SCENARIO_TMP/remove57.toml mhip=$REALROOT_SCENARIO_TMP/removehip.toml id
  remove_manifest remove-rocm57 '"libhsa-runtime64-1", "libhsakmt1"' >"$m57"
  remove_manifest remove-hip '"libamdhip64-5"' >"$mhip"
  root_use_testrepo
  expect_status 0 in_root apt-get install -y --no-install-recommends libhsa-runtime64-1 libamdhip64-5
  assert_installed "$ROOT" libhsa-runtime64-1 libhsakmt1 libamdhip64-5
  expect_status 0 in_root apt-mark showauto
  assert_contains "$LAST_OUTPUT" '^libhsakmt1$' "apt's automatic packages"
  expect_status 0 in_root apt-get clean
  snap before-1

  # 1. Fetched while the source is there.
  tool --root "$ROOT" --not-wsl install "$m57" --yes --output json
  assert_status 0 "apt_remove of the ROCm 5.7 runtime"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  assert_eq "$(jq -r '[.undo_store.keeps[] | .name + "=" + .from] | sort | join(" ")' <<<"$TOOL_OUT")" \
    "libhsa-runtime64-1=fetched libhsakmt1=fetched" "what the removal kept, and how"
  removed libhsa-runtime64-1 libhsakmt1
  mount -t tmpfs -o size=1M,mode=0755 gone "$ROOT/srv/testrepo" || fail "cannot take the repository away"
  network_off
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback of the removal, the repository gone"
  snap undone-1
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before-1" "$REALROOT_SCENARIO_TMP/undone-1" \
    "rolling back the removal from fetched copies"

  # 2. No source at all: rebuilt from the installed files.
  rm "$ROOT/etc/apt/sources.list.d/wslgpu-test.sources"
  expect_status 0 in_root apt-get update
  snap before-2
  tool --root "$ROOT" --not-wsl plan "$m57"
  assert_status 0 "plan of the removal with no source"
  assert_contains "$TOOL_OUT" 'Keeps .* for undo \(.*\), before the first change, so that a rollback needs no network; 2 rebuilt from the installed files' \
    "the plan with no source"
  tool --root "$ROOT" --not-wsl install "$m57" --yes --output json
  assert_status 0 "apt_remove with no source"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  assert_eq "$(jq -r '[.undo_store.keeps[].from] | unique | join(",")' <<<"$TOOL_OUT")" rebuilt "how they were kept"
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback of the removal from rebuilt copies"
  snap undone-2
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before-2" "$REALROOT_SCENARIO_TMP/undone-2" \
    "rolling back the removal from rebuilt copies"

  # 3. Nothing can keep libamdhip64-5: refused, unless --allow-partial-undo.
  rm "$ROOT/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.7.31921"
  snap before-3
  tool --root "$ROOT" --not-wsl install "$mhip" --yes
  assert_status 3 "install of a removal undo could not put back"
  assert_contains "$TOOL_ERR" 'undo could not put back every package this plan changes, so nothing was changed' "the refusal"
  assert_contains "$TOOL_ERR" 'libamdhip64-5 5\.7\.1-3.*libamdhip64\.so\.5\.7\.31921' "the refusal names the package and why"
  assert_contains "$TOOL_ERR" '--allow-partial-undo' "the refusal"
  tool --root "$ROOT" --not-wsl install "$mhip" --yes --output json
  assert_status 3 "install --output json of a removal undo could not put back"
  assert_eq "$(jq -r '.undo_store.missing[0].name' <<<"$TOOL_OUT")" libamdhip64-5 "the JSON refusal's missing copy"
  snap after-refusal
  assert_same_snapshot "$REALROOT_SCENARIO_TMP/before-3" "$REALROOT_SCENARIO_TMP/after-refusal" "a refused install changed the root"
  tool --root "$ROOT" --not-wsl install "$mhip" --yes --allow-partial-undo --output json
  assert_status 0 "install --allow-partial-undo"
  id=$(jq -r .transaction_id <<<"$TOOL_OUT")
  assert_contains "$(jq -r '.notices[]' <<<"$TOOL_OUT")" 'undo will not put back libamdhip64-5 5\.7\.1-3' "the notices"
  removed libamdhip64-5
  tool --root "$ROOT" rollback "$id" --yes
  assert_status 0 "rollback of a partial-undo transaction"
  assert_contains "$TOOL_ERR" 'undo cannot put back libamdhip64-5 5\.7\.1-3' "the rollback's warning"
  removed libamdhip64-5
}
