# A repository that disappears between plan and install (issue 19): a plan is
# saved while both repositories answer, then the second one's folder is
# removed; `install PLAN` adds both sources, and `apt-get update` fails
# halfway (the first repository fetched, the second gone). The step fails
# naming the repository, the sources are taken out again, and the root is
# as before: no source left that would break the user's next apt-get update.

scenario() {
  require_tool_command install
  with_root repository_gone
}

repository_gone() {
  local tmp=$REALROOT_SCENARIO_TMP manifest=$REALROOT_SCENARIO_TMP/two.toml
  # A second copy of the test repository, inside the root so it can vanish.
  cp -a "$ROOT$REALROOT_REPO_IN_ROOT" "$ROOT/srv/second"
  {
    manifest_header realroot-two-repos
    manifest_testrepo_steps
    manifest_signed_repository second wslgpu-second file:/srv/second
    cat <<EOT

[[step]]
id = "lists-again"
kind = "apt_update"
max_age = 3600
EOT
  } >"$manifest"
  snapshot "$ROOT" "$tmp/before" --exclude "$REALROOT_STATE_DIR" --exclude /srv/second
  tool --root "$ROOT" --not-wsl plan "$manifest" --out "$tmp/saved.json"
  assert_status 0 "plan --out while both repositories answer"
  rm -rf "$ROOT/srv/second"

  tool --root "$ROOT" --not-wsl install --plan "$tmp/saved.json" --yes
  assert_status 1 "install after the second repository disappeared"
  assert_contains "$TOOL_ERR" 'srv/second' "the failure names the repository that is gone"
  [[ ! -e $ROOT/etc/apt/sources.list.d/wslgpu-second.sources ]] || fail "the gone repository's source is still there"
  [[ ! -e $ROOT/etc/apt/sources.list.d/wslgpu-test.sources ]] || fail "the first repository's source is still there"
  snapshot "$ROOT" "$tmp/after" --exclude "$REALROOT_STATE_DIR"
  assert_same_snapshot "$tmp/before" "$tmp/after" "a failed apt-get update left the root changed"
  in_root apt-get update -q >/dev/null 2>&1 || fail "the user's own apt-get update fails after the rolled back install"
}
