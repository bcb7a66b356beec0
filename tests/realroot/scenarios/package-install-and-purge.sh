# The .deb (issue 17, docs/packaging.md) of the build under test, installed
# with `apt-get install ./…deb` into fresh Debian 12 (bookworm) and Debian 13
# (trixie) roots with the fake WSL layer, used there as a user would, then
# purged. Trixie stands in for Ubuntu 24.04: both ship libcurl and libarchive
# in packages renamed for 64-bit time_t (libcurl4t64, libarchive13t64) under
# the same sonames. Ubuntu 22.04 is stood in for by the symbol-version check
# (tests/packaging/check-portable.sh), run here on the packaged programs too.
#
# The package is made by CPack from the build that WSLGPU_BIN belongs to
# (a few seconds: nothing is compiled), or taken from WSLGPU_DEB when set; its
# programs must be WSLGPU_BIN's code. Each release's root is its own base,
# built once with mmdebstrap from this machine's apt mirror (as the tier's
# base is) and cached as package-<suite>-<PACKAGE_BASE_VERSION>.tar.zst: minbase,
# man-db (for man -w) and what the package recommends, under that release's
# names (tests/realroot/package.sh, shared with the apt repository scenario).
#
# The first run builds those two roots: 1 to 3 minutes each on 2 busy
# cores, hence the longer limit. Warm, the scenario takes about a minute.
# realroot-timeout: 900

# shellcheck source=../package.sh
source "$REALROOT_LIB_DIR/package.sh"

scenario() {
  local deb suite
  deb=$(package_deb) || exit 1
  export PACKAGE_DEB=$deb
  package_check_deb "$deb"
  for suite in "${PACKAGE_SUITES[@]}"; do
    package_release_layers "$suite" "$REALROOT_SCENARIO_TMP/$suite"
    # with_root stacks a root on $REALROOT_RUN/wsl and $REALROOT_RUN/base:
    # here, this release's.
    (REALROOT_RUN=$REALROOT_SCENARIO_TMP/$suite with_root package_in_root "$suite")
    rm -rf "${REALROOT_SCENARIO_TMP:?}/$suite"
  done
}

# What `run.sh --prepare` builds ahead of the run: both releases' roots.
prepare_cache() { package_prepare_cache; }

# ---------------------------------------------------------------- the .deb

# The control fields, the file list, and that the packaged programs are the
# ones under test (same code, only stripped) and need only glibc 2.34.
package_check_deb() {
  local deb=$1 control files version
  control=$(dpkg-deb -f "$deb")
  say "$control"
  version=$("$WSLGPU_BIN" --version | sed -n 's/^wslgpu-setup \([^ ]*\) (git .*)$/\1/p')
  [[ -n $version ]] || fail "cannot read the version from \`$WSLGPU_BIN --version\`"
  assert_eq "$(dpkg-deb -f "$deb" Package)" wslgpu-setup "Package"
  assert_eq "$(dpkg-deb -f "$deb" Version)" "$version" "Version (the project version, as --version prints it)"
  assert_eq "$(basename "$deb")" "wslgpu-setup_${version}_amd64.deb" "the file name"
  assert_eq "$(dpkg-deb -f "$deb" Architecture)" amd64 "Architecture"
  assert_eq "$(dpkg-deb -f "$deb" Depends)" "libc6 (>= 2.34)" "Depends"
  assert_eq "$(dpkg-deb -f "$deb" Recommends)" "libcurl4 | libcurl4t64, libarchive13 | libarchive13t64, ca-certificates" "Recommends"
  files=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|')
  local f
  for f in /usr/bin/wslgpu-setup /usr/libexec/wslgpu-setup/wslgpu-setup-fetch \
    /usr/share/man/man1/wslgpu-setup.1.gz /usr/share/man/man5/wslgpu-setup.toml.5.gz \
    /usr/share/bash-completion/completions/wslgpu-setup /usr/share/doc/wslgpu-setup/copyright \
    /usr/share/doc/wslgpu-setup/changelog.gz /usr/share/doc/wslgpu-setup/README.md \
    /usr/share/doc/wslgpu-setup/docs/manifest.md; do
    grep -qx -- "$f" <<<"$files" || fail "the package lacks $f; it holds:"$'\n'"$files"
  done
  assert_not_contains "$files" '^/(etc|var|usr/local|opt)/' "the package's files"

  local x=$REALROOT_SCENARIO_TMP/x
  mkdir -p "$x"
  dpkg-deb -x "$deb" "$x"
  local program built
  for program in usr/bin/wslgpu-setup usr/libexec/wslgpu-setup/wslgpu-setup-fetch; do
    built=$(dirname "$WSLGPU_BIN")/$(basename "$program")
    objcopy -O binary --only-section=.text "$x/$program" "$x/packaged.text"
    objcopy -O binary --only-section=.text "$built" "$x/built.text"
    cmp -s "$x/packaged.text" "$x/built.text" || fail "the packaged /$program is not the code of $built"
  done
  local check=$REALROOT_LIB_DIR/../packaging/check-portable.sh
  expect_status 0 "$check" "$x/usr/bin/wslgpu-setup" "$x/usr/libexec/wslgpu-setup/wslgpu-setup-fetch"
  rm -rf "$x"

  # lintian: no error, and no warning but the one docs/packaging.md explains.
  command -v lintian >/dev/null || fail "lintian is not installed (tests/deps.txt lists it)"
  expect_status 0 lintian --fail-on error "$deb"
  local warnings
  warnings=$(grep -E '^[WE]: ' <<<"$LAST_OUTPUT" | grep -v ' uses-dpkg-database-directly ' || true)
  [[ -z $warnings ]] || fail "lintian reports what docs/packaging.md does not explain:"$'\n'"$warnings"
}

# ---------------------------------------------------------------- in a root

package_in_root() {
  local suite=$1 deb name t=$REALROOT_SCENARIO_TMP
  name=$(basename "$PACKAGE_DEB")
  say "=== $suite: $(. "$ROOT/etc/os-release" && echo "$PRETTY_NAME")"
  cp "$PACKAGE_DEB" "$ROOT/tmp/$name"
  deb=/tmp/$name
  package_snapshot "$t/pristine"

  say "--- install, use, purge (no transaction)"
  package_apt_install "$deb"
  package_use_installed "$suite"
  expect_status 0 in_root apt-get purge -y wslgpu-setup
  package_snapshot "$t/purged"
  assert_same_snapshot "$t/pristine" "$t/purged" "apt-get purge left files behind on $suite"

  say "--- install, a transaction, purge: only its history stays"
  package_apt_install "$deb"
  package_transaction
  local id=$PACKAGE_TX_ID
  expect_status 0 in_root apt-get purge -y wslgpu-setup
  assert_contains "$LAST_OUTPUT" 'wslgpu-setup: kept /var/lib/wslgpu-setup/tx' "apt-get purge's output"
  package_snapshot "$t/purged"
  package_only_history_left "$t/pristine" "$t/purged"

  say "--- reinstall: the history is there again"
  package_apt_install "$deb"
  expect_status 0 in_root wslgpu-setup history --output json
  assert_eq "$(jq -r '.[].id' <<<"$LAST_OUTPUT")" "$id" "the transactions a reinstalled wslgpu-setup lists"
  expect_status 0 in_root apt-get purge -y wslgpu-setup
  package_snapshot "$t/purged"
  package_only_history_left "$t/pristine" "$t/purged"
}

package_apt_install() {
  expect_status 0 in_root apt-get install -y "$1"
  assert_installed "$ROOT" wslgpu-setup
  expect_status 0 in_root dpkg-query -W -f '${Version}' wslgpu-setup
  assert_eq "$LAST_OUTPUT" "$(dpkg-deb -f "$PACKAGE_DEB" Version)" "the installed version"
}

# The installed program, run inside the root as its users run it.
package_use_installed() {
  local suite=$1
  expect_status 0 in_root wslgpu-setup --version
  assert_eq "$LAST_OUTPUT" "$("$WSLGPU_BIN" --version)" "the installed wslgpu-setup --version"

  # Debian is not where AMD publishes ROCm: plan refuses, naming the release.
  expect_status 3 in_root wslgpu-setup plan rocm --detailed-exitcode
  assert_contains "$LAST_OUTPUT" "this machine runs Debian [0-9]+" "plan rocm on $suite"
  assert_contains "$LAST_OUTPUT" "Ubuntu 22\.04 and 24\.04" "plan rocm on $suite"
  # And plans it when told to go ahead. The plan fetches AMD's signing key
  # with the download helper, whose libcurl (loaded by soname) finds no
  # network in the root: still exit 3, now for that reason.
  expect_status 3 in_root wslgpu-setup --unsupported-distro plan rocm --detailed-exitcode
  assert_not_contains "$LAST_OUTPUT" "this machine runs Debian" "plan --unsupported-distro rocm on $suite"
  assert_not_contains "$LAST_OUTPUT" "cannot be loaded" "plan --unsupported-distro rocm on $suite"
  assert_contains "$LAST_OUTPUT" "refused +could not reach .* to fetch the signing key" "plan --unsupported-distro rocm on $suite"
  expect_status 0 in_root wslgpu-setup plan wslconfig --set memory=12GB
  assert_contains "$LAST_OUTPUT" "memory *= *12GB" "plan wslconfig"

  expect_status 0 in_root man -w wslgpu-setup
  assert_eq "$LAST_OUTPUT" /usr/share/man/man1/wslgpu-setup.1.gz "man -w wslgpu-setup"
  expect_status 0 in_root man -w 5 wslgpu-setup.toml
  assert_eq "$LAST_OUTPUT" /usr/share/man/man5/wslgpu-setup.toml.5.gz "man -w 5 wslgpu-setup.toml"
  local page
  page=$(in_root env MANWIDTH=80 man --warnings wslgpu-setup 2>"$REALROOT_SCENARIO_TMP/man.err") || fail "man wslgpu-setup failed"
  [[ ! -s $REALROOT_SCENARIO_TMP/man.err ]] || fail "man --warnings wslgpu-setup: $(cat "$REALROOT_SCENARIO_TMP/man.err")"
  assert_contains "$page" "^REMOVAL" "man wslgpu-setup"
  assert_contains "$page" "/var/lib/wslgpu-setup" "man wslgpu-setup"

  # The completion in a non-interactive bash, as bash calls it on Tab.
  package_complete "wslgpu-setup pl"
  assert_eq "$LAST_OUTPUT" plan "the completion of \`wslgpu-setup pl\`"
  package_complete "wslgpu-setup plan wsl"
  assert_eq "$LAST_OUTPUT" wslconfig "the completion of \`wslgpu-setup plan wsl\` (a bundled profile)"
  package_complete "wslgpu-setup plan wslconfig --set m"
  assert_eq "$LAST_OUTPUT" memory= "the completion of \`--set m\` after the profile wslconfig"

  # libarchive, opened by soname on first use: the support bundle.
  in_root wslgpu-setup doctor --bundle /tmp/bundle.tar.gz >"$REALROOT_SCENARIO_TMP/doctor.out" 2>&1 || true
  assert_not_contains "$(cat "$REALROOT_SCENARIO_TMP/doctor.out")" "cannot be loaded" "doctor --bundle on $suite"
  expect_status 0 in_root tar -tzf /tmp/bundle.tar.gz
  [[ -n $LAST_OUTPUT ]] || fail "the support bundle is empty"
}

# package_complete LINE: the completions of LINE, the cursor at its end, one a line.
package_complete() {
  expect_status 0 in_root bash -c '
    source /usr/share/bash-completion/completions/wslgpu-setup
    read -r -a COMP_WORDS <<<"$1"
    COMP_LINE=$1 COMP_POINT=${#1} COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    complete -p wslgpu-setup >/dev/null
    _wslgpu_setup wslgpu-setup "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"' complete "$1"
}

# A transaction that fails in its download, so that it is rolled back and
# changes nothing but the history: proves that the download helper loads
# libcurl by soname (the root's network is down, so libcurl answers that it
# cannot connect). Sets PACKAGE_TX_ID.
package_transaction() {
  cat >"$ROOT/tmp/download.toml" <<'TOML'
[manifest]
name = "package-download"
description = "one download that cannot connect"
schema_version = 1

[[step]]
id = "marker"
kind = "file"
path = "/etc/wslgpu-package-test"
content = "rolled back\n"

[[step]]
id = "fetch"
kind = "download"
url = "https://127.0.0.1:9/nothing"
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"
dest = "/tmp/nothing"
retries = 0
TOML
  expect_status 1 in_root wslgpu-setup install /tmp/download.toml --yes
  assert_not_contains "$LAST_OUTPUT" "cannot be loaded" "the failed download"
  assert_contains "$LAST_OUTPUT" "(connect|Connect|reach|unreachable)" "the failed download (libcurl's reason)"
  [[ ! -e $ROOT/etc/wslgpu-package-test ]] || fail "the failed install was not rolled back"
  expect_status 0 in_root wslgpu-setup history --output json
  PACKAGE_TX_ID=$(jq -r '.[0].id' <<<"$LAST_OUTPUT")
  assert_eq "$(jq -r '.[0].status' <<<"$LAST_OUTPUT")" rolled_back "the transaction's status"
  rm -f "$ROOT/tmp/download.toml"
}

# package_only_history_left BEFORE AFTER: AFTER differs from BEFORE only by
# /var/lib/wslgpu-setup, its tx/ and what is in there, and the stamp of the
# state's format (state-format), which says how to read that history.
package_only_history_left() {
  local report unexpected
  report=$(snapshot_diff "$1" "$2") && fail "purge removed the transactions too: /var/lib/wslgpu-setup is gone"
  unexpected=$(sed 1d <<<"$report" | grep -vE '^  \+ /var/lib/wslgpu-setup(/tx(/.*)?|/state-format)?  \(' || true)
  [[ -z $unexpected ]] || fail "apt-get purge left more than the history in /var/lib/wslgpu-setup/tx:"$'\n'"$unexpected"
  assert_contains "$report" '^  \+ /var/lib/wslgpu-setup/tx/[0-9]{8}-[0-9]{6}-[0-9a-f]+/journal\.jsonl ' "what purge kept"
  [[ ! -e $ROOT/var/lib/wslgpu-setup/lock && ! -e $ROOT/var/lib/wslgpu-setup/cache ]] ||
    fail "purge kept the lock or the download cache"
}
