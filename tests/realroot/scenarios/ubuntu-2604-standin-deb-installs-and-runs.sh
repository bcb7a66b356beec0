# The tool's .deb (package.sh's package_deb: CPack's package of the build
# under test, or WSLGPU_DEB) on the stand-in for Ubuntu 26.04 (Debian forky
# dressed as it, tests/realroot/forky.sh: apt 3.x with sqv, glibc 2.43,
# libcurl4t64 and libarchive13t64): `apt-get install ./….deb` installs it
# with the root's own apt and dpkg, `wslgpu-setup --version` runs and is
# the build's, and `wslgpu-setup plan cuda` run inside the root plans the
# bundled cuda profile against the test repository: it reads the dressed
# os-release (Ubuntu 26.04), fetches the key through the download helper
# with the root's libcurl (loaded by soname), checks its binding against
# the root's sqv policy and simulates with the root's apt. `apt-get purge`
# then leaves the root as it was.
# The first run builds the forky root (about 4 minutes on 2 busy cores),
# hence the limit.
# realroot-timeout: 900

# shellcheck source=../package.sh
source "$REALROOT_LIB_DIR/package.sh"
# shellcheck source=../forky.sh
source "$REALROOT_LIB_DIR/forky.sh"

scenario() {
  local deb
  deb=$(package_deb) || exit 1
  export PACKAGE_DEB=$deb
  forky_release_layers "$REALROOT_SCENARIO_TMP/forky"
  # with_root stacks a root on $REALROOT_RUN/wsl and $REALROOT_RUN/base:
  # here, the forky root's.
  (REALROOT_RUN=$REALROOT_SCENARIO_TMP/forky with_root deb_in_the_standin)
}

# What `run.sh --prepare` builds ahead of the run: the forky root.
prepare_cache() { forky_prepare_cache; }

deb_in_the_standin() {
  local t=$REALROOT_SCENARIO_TMP name sets
  name=$(basename "$PACKAGE_DEB")
  expect_status 0 in_root sh -c '. /etc/os-release && echo "$ID $VERSION_ID $VERSION_CODENAME"'
  assert_eq "$LAST_OUTPUT" "ubuntu 26.04 resolute" "the root's os-release"
  cp "$PACKAGE_DEB" "$ROOT/tmp/$name"
  package_snapshot "$t/pristine"

  expect_status 0 in_root apt-get install -y "/tmp/$name"
  assert_installed "$ROOT" wslgpu-setup
  expect_status 0 in_root dpkg-query -W -f '${Version}' wslgpu-setup
  assert_eq "$LAST_OUTPUT" "$(dpkg-deb -f "$PACKAGE_DEB" Version)" "the installed version"

  expect_status 0 in_root wslgpu-setup --version
  assert_eq "$LAST_OUTPUT" "$("$WSLGPU_BIN" --version)" "the installed wslgpu-setup --version"

  # The cuda profile as a user runs it there, pointed at the test
  # repository; the key's URL is its path inside the root.
  sets=(--set "cuda_repo=$TESTREPO_CUDA_REPO" --set "cuda_key_url=file://$TESTREPO_KEY_IN_ROOT"
    --set "cuda_key_fingerprint=$TESTREPO_KEY_FINGERPRINT" --set "cuda_pin_origin=$TESTREPO_ORIGIN")
  expect_status 0 in_root wslgpu-setup "${sets[@]}" plan cuda
  assert_contains "$LAST_OUTPUT" '^Machine: WSL2 .* · ubuntu 26\.04 \(resolute\) · ' "plan cuda's machine line"
  assert_contains "$LAST_OUTPUT" '^Chose cuda_version=12\.6 ' "plan cuda's choice (the WSL layer's nvidia-smi: CUDA 12.7)"
  assert_contains "$LAST_OUTPUT" "toolkit +change +install [0-9]+ packages: .*cuda-toolkit-12-6" "plan cuda"
  assert_not_contains "$LAST_OUTPUT" "cannot be loaded|would refuse repository" "plan cuda"
  [[ ! -e $ROOT/usr/local/cuda ]] || fail "plan cuda installed the toolkit"

  expect_status 0 in_root apt-get purge -y wslgpu-setup
  assert_not_installed "$ROOT" wslgpu-setup
  package_snapshot "$t/purged"
  assert_same_snapshot "$t/pristine" "$t/purged" "apt-get purge left the root changed"
}
