# A source list that a package installed (NVIDIA's cuda-keyring installs
# /etc/apt/sources.list.d/cuda-<distro>-<arch>.list, ../shared/VENDOR-FACTS.md)
# taken over by an apt_repository step, and what dpkg then does with it when
# the package is reinstalled or upgraded (dpkg(1), --force-confmiss):
#   a conffile of the package stays deleted, so apt keeps working;
#   a plain file of the package comes back, and apt refuses its sources
#   again, which is why plan warns about exactly that case.
# The list names the local test repository, with a keyring holding the test
# key and another one (so it cannot be reused as it is).

scenario() {
  require_tool_command install
  with_root take_over_then_reinstall conffile
  with_root take_over_then_reinstall plain
}

# build_cuda_keyring VERSION conffile|plain OUT
build_cuda_keyring() {
  local version=$1 how=$2 out=$3 stage home
  stage=$(mktemp -d)
  mkdir -p "$stage/DEBIAN" "$stage/etc/apt/sources.list.d" "$stage/usr/share/keyrings"
  printf 'Package: cuda-keyring\nVersion: %s\nArchitecture: all\nMaintainer: t <t@wslgpu-setup.invalid>\nDescription: planted cuda-keyring (test)\n' \
    "$version" >"$stage/DEBIAN/control"
  printf 'deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] %s %s %s\n' \
    "$TESTREPO_URI" "$TESTREPO_SUITE" "$TESTREPO_COMPONENT" >"$stage/etc/apt/sources.list.d/cuda-test.list"
  cp "$TESTREPO_DIR/key.gpg" "$stage/usr/share/keyrings/cuda-archive-keyring.gpg"
  home=$(mktemp -d)
  GNUPGHOME=$home gpg --batch --dearmor <"$TESTREPO_OTHER_KEY" >>"$stage/usr/share/keyrings/cuda-archive-keyring.gpg"
  rm -rf "$home"
  [[ $how == plain ]] || printf '/etc/apt/sources.list.d/cuda-test.list\n' >"$stage/DEBIAN/conffiles"
  dpkg-deb --root-owner-group --build "$stage" "$out" >/dev/null || fail "dpkg-deb could not build $out"
  rm -rf "$stage"
}

take_over_then_reinstall() {
  local how=$1 manifest=$ROOT/root/cuda-test.toml list=/etc/apt/sources.list.d/cuda-test.list
  mkdir -p "$ROOT/var/cache/planted"
  build_cuda_keyring 1.1-1 "$how" "$ROOT/var/cache/planted/cuda-keyring_1.deb"
  build_cuda_keyring 1.1-2 "$how" "$ROOT/var/cache/planted/cuda-keyring_2.deb"
  expect_status 0 in_root dpkg -i /var/cache/planted/cuda-keyring_1.deb
  expect_status 0 in_root apt-get update --error-on=any
  {
    manifest_header cuda-test
    cat <<EOT

[[step]]
id = "repo"
kind = "apt_repository"
repo_name = "cuda-test"
uris = ["$TESTREPO_URI"]
suites = ["$TESTREPO_SUITE"]
components = ["$TESTREPO_COMPONENT"]
key_url = "file://$TESTREPO_KEY"
key_fingerprint = "$TESTREPO_KEY_FINGERPRINT"

[[step]]
id = "lists"
kind = "apt_update"
EOT
  } >"$manifest"

  tool --root "$ROOT" plan "$manifest"
  assert_status 0 "plan ($how)"
  assert_contains "$TOOL_OUT" "replaces $list \\(cuda-keyring\\)" "plan ($how)"
  assert_contains "$TOOL_OUT" 'keeps /usr/share/keyrings/cuda-archive-keyring.gpg: a file of cuda-keyring' "plan ($how)"
  if [[ $how == conffile ]]; then
    assert_contains "$TOOL_OUT" 'cuda-keyring stays installed; its list is removed, and dpkg keeps a deleted conffile deleted on upgrade' "plan ($how)"
  else
    assert_contains "$TOOL_OUT" "$list is a file of cuda-keyring, not a conffile: dpkg puts it back" "plan ($how)"
  fi

  tool --root "$ROOT" install "$manifest" --yes
  assert_status 0 "install ($how)"
  [[ ! -e $ROOT$list ]] || fail "$list is still there after the take-over"
  assert_installed "$ROOT" cuda-keyring
  expect_status 0 in_root apt-get update --error-on=any

  # An upgrade and a reinstall, as apt runs dpkg unattended.
  expect_status 0 in_root dpkg --force-confdef --force-confold -i /var/cache/planted/cuda-keyring_2.deb
  expect_status 0 in_root dpkg --force-confdef --force-confold -i /var/cache/planted/cuda-keyring_2.deb
  if [[ $how == conffile ]]; then
    [[ ! -e $ROOT$list ]] || fail "dpkg put the deleted conffile $list back"
    expect_status 0 in_root apt-get update --error-on=any
  else
    [[ -e $ROOT$list ]] || fail "dpkg did not put the plain file $list back (the warning in plan would be wrong)"
    expect_status 100 in_root apt-get update
    assert_contains "$LAST_OUTPUT" 'Conflicting values set for option Signed-By' "apt-get update after the upgrade"
  fi
}
